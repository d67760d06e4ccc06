//! `fma-cosim dut build`: a team's design, from its manifest, Verilated twice (fast and traced;
//! the fast one alone with `--no-trace`) and compiled with the shim (`cosim/engine/csrc/dut.cpp`,
//! `sim_core.h`) into one shared library, with the Verilator that fma-cosim itself was built
//! with. Nothing of the checkout is read or written: the shim's sources are part of the binary.
//!
//! Everything is built in a directory beside the destination and renamed into place at the
//! end, so an error or Ctrl-C leaves no half-built design behind; each tool runs in a process
//! group of its own, which Ctrl-C or SIGTERM stops ([`super::children`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ptxfma_cosim_engine::rtl::{self, variant::VariantMeta};
use ptxfma_cosim_engine::verilator_build::{
    generated_sources, port_widths, trace_defines, CXX_DEFINES, CXX_FLAGS, RUNTIME_SOURCES,
    TRACE_FLAGS, VERILATOR_FLAGS,
};
use ptxfma_cosim_engine::Error;

use super::children;
use super::manifest::{Manifest, Resolved};
use super::runtime_cache;
use ptxfma_cosim_engine::dut::{
    build_id, sha256, Digests, Record, ABI, DEFAULT_CXX_OPT, LIBRARY, RECORD,
};

use ptxfma_cosim_engine::dut::{SHIM_CPP as DUT_CPP, SIM_CORE_H};

/// A directory removed on drop unless kept.
struct Scratch(Option<PathBuf>);

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The two builds of the design.
#[derive(Clone, Copy)]
enum Which {
    Fast,
    Traced,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Fast => "fast",
            Which::Traced => "traced",
        }
    }

    fn prefix(self) -> String {
        format!("Vdut_{}", self.name())
    }
}

/// What to build besides what the manifest says.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Build the traced model, which only a waveform needs. Without it Verilator runs once,
    /// not twice, and `run` writes no waveform of a divergence (it says why).
    pub trace: bool,
    /// The fast model's C++ optimisation level (0 to 3). A flattened gate netlist is one huge
    /// evaluation function, which clang compiles about eight times faster at -O0 (and which then
    /// runs several times slower): the level suits the length of the run.
    pub cxx_opt: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            trace: true,
            cxx_opt: DEFAULT_CXX_OPT,
        }
    }
}

/// What `dut build` reports.
pub struct Built {
    pub dir: PathBuf,
    pub record: Record,
}

/// Builds the design of `manifest` into `out` (created, or replaced if it holds an earlier
/// build). After Ctrl-C or SIGTERM it returns an error once its tools are stopped and its
/// directory removed, and [`children::interrupted`] says why.
pub fn build(manifest: &Path, out: &Path, opts: Options) -> Result<Built, Error> {
    let t0 = Instant::now();
    if opts.cxx_opt > 3 {
        return Err(Error::new(format!(
            "--cxx-opt {}: the level is 0 to 3",
            opts.cxx_opt
        )));
    }
    let models: &[Which] = if opts.trace {
        &[Which::Fast, Which::Traced]
    } else {
        &[Which::Fast]
    };
    children::install()?;
    let m = Manifest::load(manifest)?;
    super::refuse_foreign_out(out, RECORD, "dut build")?;
    let verilator = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    let version = output(&verilator, &["--version"])?;
    if version.trim() != rtl::variant::VERILATOR_VERSION.trim() {
        return Err(Error::new(format!(
            "{verilator} is `{}`, but this fma-cosim was built with `{}`: the design must be \
             Verilated by the same version (set VERILATOR)",
            version.trim(),
            rtl::variant::VERILATOR_VERSION
        )));
    }
    let root = output(&verilator, &["--getenv", "VERILATOR_ROOT"])?;
    let include = PathBuf::from(root.trim()).join("include");
    if !include.join("verilated.h").is_file() {
        return Err(Error::new(format!(
            "no verilated.h under {} (verilator --getenv VERILATOR_ROOT)",
            include.display()
        )));
    }

    let parent = out
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::new(format!("{}: {e}", parent.display())))?;
    // Absolute: the generated units include the models by path.
    let parent = parent
        .canonicalize()
        .map_err(|e| Error::new(format!("{}: {e}", parent.display())))?;
    let name = out
        .file_name()
        .ok_or_else(|| Error::new(format!("--out {}: not a directory name", out.display())))?;
    // A temporary of this process, which a later write to the directory sweeps if this build
    // is killed outright.
    let tmp = ptxfma_cosim_engine::temporary::beside_name(&parent.join(name), "building.tmp");
    ptxfma_cosim_engine::temporary::sweep(&parent);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| Error::new(format!("{}: {e}", tmp.display())))?;
    let mut scratch = Scratch(Some(tmp.clone()));

    // Verilate the builds (in parallel) and check the ports against the contract.
    let work = tmp.join("build");
    let results: Vec<Result<Vec<(String, u32)>, Error>> = std::thread::scope(|s| {
        let hs: Vec<_> = models
            .iter()
            .map(|&w| {
                let (m, work, verilator) = (&m, &work, &verilator);
                s.spawn(move || verilate(verilator, m, w, &work.join(w.name())))
            })
            .collect();
        hs.into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::new("verilator thread panicked")))
            })
            .collect()
    });
    let mut ports = Vec::new();
    for r in results {
        ports = r?;
    }
    let meta = VariantMeta {
        name: "dut",
        defines: &[],
        flags: &[],
        ports: Box::leak(
            ports
                .iter()
                .map(|(p, w)| (&*Box::leak(p.clone().into_boxed_str()), *w))
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        ),
        registers: false,
    };
    let tag_width = m.manifest.contract.tag_width.unwrap_or(16);
    let handshake = m.manifest.contract.handshake;
    // tag_width 0: port_problems requires both tag ports absent.
    let mut problems = rtl::variant::port_problems(&meta, tag_width);
    if handshake {
        for name in ["in_ready_o", "out_ready_i"] {
            match ports.iter().find(|(p, _)| p == name) {
                None => problems.push(format!("port {name} is missing (contract.handshake)")),
                Some((_, w)) if *w != 1 => {
                    problems.push(format!("port {name} is {w} bits, the contract needs 1"))
                }
                Some(_) => {}
            }
        }
    }
    if !problems.is_empty() {
        let tags = |what: &str| {
            problems
                .iter()
                .any(|p| p.contains("_tag_") && p.contains(what))
        };
        let hint = if tags(" bits") {
            " (a narrower tag is declared with contract.tag_width)"
        } else if tags(" missing") {
            " (a design without tags declares contract.tag_width = 0)"
        } else {
            ""
        };
        return Err(Error::new(format!(
            "{}: design `{}` does not meet the contract (docs/dut.md): {}{hint}",
            manifest.display(),
            m.manifest.design.top,
            problems.join("; ")
        )));
    }

    // The shim and the generated header that names the models.
    let shim = work.join("shim");
    std::fs::create_dir_all(&shim).map_err(|e| Error::new(format!("{}: {e}", shim.display())))?;
    let traced = if opts.trace {
        format!(
            "#include \"{t}.h\"\n#define PTXFMA_DUT_TRACED {t}\n",
            t = Which::Traced.prefix()
        )
    } else {
        untraced_stand_in(&Which::Fast.prefix())
    };
    let header = format!(
        "// Generated by fma-cosim dut build.\n#pragma once\n#include \"{f}.h\"\n{traced}\
         #define PTXFMA_DUT_FAST {f}\n#define PTXFMA_DUT_ABI {ABI}\n#define PTXFMA_DUT_BUILD \
         {:?}\n#define PTXFMA_DUT_HANDSHAKE {}\n#define PTXFMA_DUT_TAGGED {}\n",
        build_id(),
        handshake,
        tag_width > 0,
        f = Which::Fast.prefix(),
    );
    for (file, text) in [
        ("ptxfma_dut_models.h", header.as_str()),
        ("sim_core.h", SIM_CORE_H),
        ("dut.cpp", DUT_CPP),
    ] {
        std::fs::write(shim.join(file), text)
            .map_err(|e| Error::new(format!("{}: {e}", shim.join(file).display())))?;
    }

    // Compile: each model as one unit, the runtime, the shim; then link.
    let cxx = compiler()?;
    let runtime = Unit {
        src: work.join("runtime.cpp"),
        opt: 2,
        traced: false,
        march: false,
    };
    let text: String = RUNTIME_SOURCES
        .iter()
        .map(|f| format!("#include \"{}\"\n", include.join(f).display()))
        .collect();
    std::fs::write(&runtime.src, &text)
        .map_err(|e| Error::new(format!("{}: {e}", runtime.src.display())))?;
    let runtime_obj = runtime.src.with_extension("o");
    let cached = match runtime_cache::dir() {
        Some(dir) => runtime_entry(dir, &cxx, &include, &runtime, &text)?.map(|entry| {
            let hit = entry.fetch(&runtime_obj);
            (entry, hit)
        }),
        None => None,
    };
    let mut units = vec![Unit {
        src: shim.join("dut.cpp"),
        opt: 2,
        traced: true,
        march: false,
    }];
    if !matches!(cached, Some((_, true))) {
        units.push(runtime);
    }
    for &w in models {
        units.push(unit(&work, w, opts.cxx_opt)?);
    }
    let gen_dirs: Vec<PathBuf> = models.iter().map(|w| work.join(w.name())).collect();
    let objs: Vec<Result<PathBuf, Error>> = std::thread::scope(|s| {
        let hs: Vec<_> = units
            .iter()
            .map(|u| {
                let (cxx, include, gen_dirs, shim) = (&cxx, &include, &gen_dirs, &shim);
                s.spawn(move || compile(cxx, include, gen_dirs, shim, u))
            })
            .collect();
        hs.into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::new("compiler thread panicked")))
            })
            .collect()
    });
    let mut objs: Vec<PathBuf> = objs.into_iter().collect::<Result<_, _>>()?;
    match cached {
        Some((_, true)) => objs.push(runtime_obj),
        Some((entry, false)) => entry.store(&runtime_obj),
        None => {}
    }
    let lib = tmp.join(LIBRARY);
    let mut link = Command::new(&cxx);
    link.arg("-shared")
        .arg("-o")
        .arg(&lib)
        .args(&objs)
        .arg("-Wl,-Bsymbolic")
        // Every symbol resolved now: a missing one is a build error, not a failure at load.
        .arg("-Wl,-z,defs")
        .arg("-lpthread")
        .arg("-latomic");
    run(&mut link, "linking the design")?;

    let digest = |p: &Path| -> Result<String, Error> {
        std::fs::read(p)
            .map(|b| sha256(&b))
            .map_err(|e| Error::new(format!("{}: {e}", p.display())))
    };
    let sha = Digests {
        manifest: digest(manifest)?,
        sources: m
            .sources
            .iter()
            .map(|p| digest(p))
            .collect::<Result<_, _>>()?,
        library: digest(&tmp.join(LIBRARY))?,
    };
    let record = Record {
        abi: ABI,
        built_by: build_id(),
        top: m.manifest.design.top.clone(),
        library: LIBRARY.into(),
        manifest: manifest
            .canonicalize()
            .unwrap_or_else(|_| manifest.to_path_buf()),
        sources: m.sources.clone(),
        include_dirs: m.include_dirs.clone(),
        defines: m.defines.clone(),
        verilator_flags: m.manifest.design.verilator_flags.clone(),
        parameters: m.parameters.clone(),
        sha256: sha,
        ports,
        families: m.families.iter().map(|f| f.name().to_string()).collect(),
        latency_bound: m
            .manifest
            .contract
            .latency_bound
            .unwrap_or(ptxfma_cosim_engine::ports::DEFAULT_BOUND),
        tag_width,
        nan: m
            .manifest
            .contract
            .nan
            .clone()
            .unwrap_or_else(|| "ptx".into()),
        canonical_nan: m
            .canonical_nan
            .iter()
            .map(|(name, v)| (name.clone(), format!("{v:#x}")))
            .collect(),
        handshake,
        rounding: m.forms.map_or([true; 4], |f| f.rnds),
        ftz: m.forms.is_none_or(|f| f.ftz),
        sat: m.forms.is_none_or(|f| f.sat),
        traced: opts.trace,
        cxx_opt: opts.cxx_opt,
        build_seconds: t0.elapsed().as_secs_f64(),
    };
    let json = serde_json::to_string_pretty(&record).expect("a record serialises");
    std::fs::write(tmp.join(RECORD), json + "\n")
        .map_err(|e| Error::new(format!("{}: {e}", tmp.join(RECORD).display())))?;

    // Into place: an earlier build is replaced whole, unless a signal came first.
    children::commit(|| {
        if out.exists() {
            std::fs::remove_dir_all(out)?;
        }
        std::fs::rename(&tmp, out)
    })?
    .map_err(|e| Error::new(format!("{}: {e}", out.display())))?;
    scratch.0 = None;
    Ok(Built {
        dir: out.to_path_buf(),
        record,
    })
}

fn verilate(
    verilator: &str,
    m: &Resolved,
    w: Which,
    mdir: &Path,
) -> Result<Vec<(String, u32)>, Error> {
    let d = &m.manifest.design;
    std::fs::create_dir_all(mdir).map_err(|e| Error::new(format!("{}: {e}", mdir.display())))?;
    let mut cmd = Command::new(verilator);
    cmd.args(VERILATOR_FLAGS);
    if let Which::Traced = w {
        cmd.args(TRACE_FLAGS);
    }
    cmd.arg("--top-module")
        .arg(&d.top)
        .arg("--prefix")
        .arg(w.prefix())
        .arg("-Mdir")
        .arg(mdir);
    for i in &m.include_dirs {
        cmd.arg(format!("-I{}", i.display()));
    }
    for def in &m.defines {
        cmd.arg(format!("-D{def}"));
    }
    for (name, value) in &m.parameters {
        cmd.arg(value.verilator_arg(name));
    }
    cmd.args(&d.verilator_flags).args(&m.sources);
    let what = format!("verilating `{}` ({} build)", d.top, w.name());
    let out = children::output(&mut cmd)?
        .map_err(|e| Error::new(format!("{what}: cannot run {verilator}: {e}")))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        return Err(verilator_failure(&what, &text));
    }
    port_widths(&mdir.join(format!("{}.h", w.prefix()))).map_err(Error::new)
}

/// The header lines of a build without the traced model: a stand-in class of that name, so
/// that the shim compiles unchanged, which refuses to be constructed (`run` refuses first, by
/// the record; this is the guard behind it).
fn untraced_stand_in(fast: &str) -> String {
    format!(
        "#include <stdexcept>\n#include \"verilated_vcd_c.h\"\n\
         class PtxfmaDutUntraced : public {fast} {{\n public:\n  \
         PtxfmaDutUntraced(VerilatedContext* c, const char* n) : {fast}(refuse(c), n) {{}}\n  \
         void trace(VerilatedVcdC*, int, int = 0) {{}}\n\n private:\n  \
         static VerilatedContext* refuse(VerilatedContext*) {{\n    \
         throw std::runtime_error(\"built with `dut build --no-trace`: no traced model\");\n  \
         }}\n}};\n#define PTXFMA_DUT_TRACED PtxfmaDutUntraced\n"
    )
}

/// One translation unit to compile.
struct Unit {
    src: PathBuf,
    /// The `-O` level.
    opt: u32,
    /// Compiled with tracing declared (`VM_TRACE`).
    traced: bool,
    /// For this host's CPU, as the built-in RTL's fast model (cosim/engine/build.rs).
    march: bool,
}

/// The whole generated model as one translation unit (what Verilator's makefile does without
/// VM_PARALLEL_BUILDS); the fast model at `fast_opt`, the traced one at -O0 (it runs only a
/// waveform's window).
fn unit(work: &Path, w: Which, fast_opt: u32) -> Result<Unit, Error> {
    let mdir = work.join(w.name());
    let files = generated_sources(&mdir, &w.prefix()).map_err(Error::new)?;
    let text: String = files
        .iter()
        .map(|f| format!("#include \"{}\"\n", f.display()))
        .collect();
    let src = work.join(format!("{}_unit.cpp", w.name()));
    std::fs::write(&src, text).map_err(|e| Error::new(format!("{}: {e}", src.display())))?;
    Ok(match w {
        Which::Fast => Unit {
            src,
            opt: fast_opt,
            traced: false,
            march: true,
        },
        Which::Traced => Unit {
            src,
            opt: 0,
            traced: true,
            march: false,
        },
    })
}

/// The cache entry of the runtime unit `rt`: keyed by the compiler's own account of itself
/// (not its path, so that a wrapper that runs the same compiler shares it), the unit's flags,
/// the Verilator version and include directory, and the runtime sources it includes (`text`
/// names them). None when one of them cannot be read: the build goes on without the cache
/// (and says why when it compiles the unit).
fn runtime_entry(
    dir: PathBuf,
    cxx: &str,
    include: &Path,
    rt: &Unit,
    text: &str,
) -> Result<Option<runtime_cache::Entry>, Error> {
    let Some(version) = children::output(Command::new(cxx).arg("--version"))?
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout)
    else {
        return Ok(None);
    };
    let Ok(sources) = RUNTIME_SOURCES
        .iter()
        .map(|f| std::fs::read(include.join(f)))
        .collect::<Result<Vec<_>, _>>()
    else {
        return Ok(None);
    };
    let flags = flags(rt).join(" ");
    let mut inputs: Vec<&[u8]> = vec![
        &version,
        flags.as_bytes(),
        rtl::variant::VERILATOR_VERSION.as_bytes(),
        text.as_bytes(),
    ];
    inputs.extend(sources.iter().map(Vec::as_slice));
    Ok(Some(runtime_cache::Entry::new(dir, &inputs)))
}

/// The models' compiler, as the build script chooses it: `PTXFMA_RTL_CXX`, else clang++ when it
/// runs, else `c++`.
fn compiler() -> Result<String, Error> {
    if let Ok(c) = std::env::var("PTXFMA_RTL_CXX") {
        if !c.is_empty() {
            return Ok(c);
        }
    }
    let clang = children::output(Command::new("clang++").arg("--version"))?
        .is_ok_and(|o| o.status.success());
    Ok(if clang { "clang++" } else { "c++" }.into())
}

/// The compiler's flags for `u`, its paths aside.
fn flags(u: &Unit) -> Vec<String> {
    let mut f: Vec<String> = ["-std=gnu++17", "-fPIC", "-fvisibility=hidden", "-c", "-w"]
        .map(String::from)
        .into();
    f.push(format!("-O{}", u.opt));
    if u.march {
        if let Some(m) = ptxfma_cosim_engine::verilator_build::fast_march() {
            f.push(format!("-march={m}"));
        }
    }
    // The shim includes both models, so it needs tracing declared.
    for (name, value) in CXX_DEFINES.iter().chain(&trace_defines(u.traced, false)) {
        f.push(format!("-D{name}={value}"));
    }
    f.extend(CXX_FLAGS.iter().map(|s| s.to_string()));
    f
}

fn compile(
    cxx: &str,
    include: &Path,
    gen_dirs: &[PathBuf],
    shim: &Path,
    u: &Unit,
) -> Result<PathBuf, Error> {
    let obj = u.src.with_extension("o");
    let mut cmd = Command::new(cxx);
    cmd.args(flags(u))
        .arg("-isystem")
        .arg(include)
        .arg("-isystem")
        .arg(include.join("vltstd"))
        .arg("-I")
        .arg(shim);
    for d in gen_dirs {
        cmd.arg("-I").arg(d);
    }
    cmd.arg("-o").arg(&obj).arg(&u.src);
    run(&mut cmd, &format!("compiling {}", u.src.display()))?;
    Ok(obj)
}

/// Diagnostics shown of a failed Verilator run, beyond which a count is given.
const DIAGNOSTICS_SHOWN: usize = 8;

/// Verilator's failure as a person can act on it: a summary line, then each error and warning
/// with its file, line and source excerpt, and for the warning kinds the flags that waive them.
fn verilator_failure(what: &str, text: &str) -> Error {
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = Vec::new();
    let (mut errors, mut warnings, mut kinds) = (0, 0, Vec::<&str>::new());
    for (i, l) in lines.iter().enumerate() {
        // `%Warning-KIND:` and `%Error-KIND:` can be waived with -Wno-KIND; `%Error:` cannot.
        let kind = |p: &str| l.strip_prefix(p).and_then(|r| r.split(':').next());
        if let Some(k) = kind("%Warning-") {
            warnings += 1;
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        } else if let Some(k) = kind("%Error-") {
            errors += 1;
            if !kinds.contains(&k) {
                kinds.push(k);
            }
        } else if l.starts_with("%Error") && !l.starts_with("%Error: Exiting due to") {
            errors += 1;
        } else {
            continue;
        }
        if shown.len() < DIAGNOSTICS_SHOWN {
            shown.push(format!("  {l}"));
            // Verilator's excerpt: the source line and the caret under it.
            let excerpt = lines[i + 1..]
                .iter()
                .take_while(|x| !x.starts_with('%'))
                .filter(|x| x.contains(" | "))
                .take(2);
            shown.extend(excerpt.map(|x| format!("  {x}")));
        }
    }
    if errors + warnings == 0 {
        let first: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.trim().is_empty())
            .take(3)
            .collect();
        return Error::new(format!("{what} failed: {}", first.join(" | ")));
    }
    let mut summary = format!("{what} failed: {errors} error(s), {warnings} warning(s)");
    if errors == 0 {
        summary.push_str(" (Verilator stops on warnings)");
    }
    let mut details = shown;
    if errors + warnings > DIAGNOSTICS_SHOWN {
        details.push(format!(
            "  ... and {} more",
            errors + warnings - DIAGNOSTICS_SHOWN
        ));
    }
    if !kinds.is_empty() {
        let flags: Vec<String> = kinds.iter().map(|k| format!("\"-Wno-{k}\"")).collect();
        details.push(format!(
            "  to waive a kind, add its flag to the manifest's design.verilator_flags: {}",
            flags.join(", ")
        ));
    }
    Error::Diagnosed { summary, details }
}

/// Runs a tool; its output only on failure, cut to the first lines that say why.
fn run(cmd: &mut Command, what: &str) -> Result<(), Error> {
    let program = cmd.get_program().to_owned();
    let out = children::output(cmd)?
        .map_err(|e| Error::new(format!("{what}: cannot run {program:?}: {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let first: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    Err(Error::new(format!("{what} failed: {}", first.join(" | "))))
}

fn output(tool: &str, args: &[&str]) -> Result<String, Error> {
    let out = children::output(Command::new(tool).args(args))?.map_err(|e| {
        Error::new(format!(
            "cannot run {tool}: {e} (install Verilator: make deps)"
        ))
    })?;
    if !out.status.success() {
        return Err(Error::new(format!("{tool} {} failed", args.join(" "))));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::verilator_failure;
    use ptxfma_cosim_engine::Error;

    /// The lines a person sees: the summary, then the details.
    fn shown(e: Error) -> Vec<String> {
        match e {
            Error::Diagnosed { summary, details } => [vec![summary], details].concat(),
            other => vec![other.to_string()],
        }
    }

    /// What Verilator 5.006 prints for two warnings, and for a syntax error.
    #[test]
    fn verilator_failures_show_each_diagnostic_and_the_waivers() {
        let warned = "%Warning-WIDTH: w.sv:2:12: Operator ASSIGNW expects 2 bits on the Assign RHS\n\
                      \x20                        : ... In instance w\n\
                      \x20   2 |   assign y = a;\n\
                      \x20     |            ^\n\
                      \x20               ... For warning description see https://verilator.org/warn/WIDTH\n\
                      %Warning-UNUSEDSIGNAL: w.sv:1:29: Bits of signal are not used: 'a'[3:2]\n\
                      \x20   1 | module w (input logic [3:0] a, output logic [1:0] y);\n\
                      %Warning-WIDTH: w.sv:3:12: again\n\
                      %Error: Exiting due to 3 warning(s)\n";
        let lines = shown(verilator_failure("verilating `w`", warned));
        let m = lines.join("\n");
        assert_eq!(
            lines[0],
            "verilating `w` failed: 0 error(s), 3 warning(s) (Verilator stops on warnings)"
        );
        assert!(
            lines.iter().any(|l| l == "      2 |   assign y = a;"),
            "{m}"
        );
        assert!(lines.iter().any(|l| l == "        |            ^"), "{m}");
        assert!(
            m.ends_with("design.verilator_flags: \"-Wno-WIDTH\", \"-Wno-UNUSEDSIGNAL\""),
            "{m}"
        );
        let broken = "%Error: b.sv:1:16: syntax error, unexpected ';', expecting '['\n\
                      \x20   1 | module broken (;\n\
                      \x20     |                ^\n\
                      %Error: Exiting due to 1 error(s)\n";
        let lines = shown(verilator_failure("verilating `broken`", broken));
        assert_eq!(
            lines,
            [
                "verilating `broken` failed: 1 error(s), 0 warning(s)",
                "  %Error: b.sv:1:16: syntax error, unexpected ';', expecting '['",
                "      1 | module broken (;",
                "        |                ^",
            ]
        );
    }
}
