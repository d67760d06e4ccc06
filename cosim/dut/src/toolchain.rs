//! Verilator and the C++ compiler as `dut build` runs them: a model Verilated, its units and
//! the runtime compiled with the flags of fma-cosim's own build, and a tool's failure cut to
//! what a person acts on (each Verilator diagnostic with its file, line and excerpt, and the
//! flags that waive it).

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxfma_cosim_engine::rtl::{self};
use ptxfma_cosim_engine::verilator_build::{
    generated_sources, port_widths, trace_defines, CXX_DEFINES, CXX_FLAGS, RUNTIME_SOURCES,
    TRACE_FLAGS, VERILATOR_FLAGS,
};
use ptxfma_cosim_engine::Error;

use super::children;
use super::manifest::Resolved;
use super::runtime_cache;

/// The two builds of the design.
#[derive(Clone, Copy)]
pub(crate) enum Which {
    Fast,
    Traced,
}

impl Which {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Which::Fast => "fast",
            Which::Traced => "traced",
        }
    }

    pub(crate) fn prefix(self) -> String {
        format!("Vdut_{}", self.name())
    }
}

/// What Verilating a model tells of the design.
pub(crate) struct Verilated {
    /// (port, width in bits) of the top.
    pub(crate) ports: Vec<(String, u32)>,
    /// (port, `input`, `output` or `inout`) of the top.
    pub(crate) directions: Vec<(String, &'static str)>,
    /// The files Verilator read besides the sources (`include`d headers), absolute.
    pub(crate) read: Vec<PathBuf>,
}

pub(crate) fn verilate(
    verilator: &str,
    m: &Resolved,
    w: Which,
    mdir: &Path,
) -> Result<Verilated, Error> {
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
    // The dependency files (`PREFIX__ver.d`, `PREFIX__verFiles.dat`) name every file read:
    // on by default, and asked for here so that a manifest's `--no-MMD` or
    // `--no-skip-identical` cannot leave them out (the directory is new: nothing is skipped).
    cmd.args(&d.verilator_flags)
        .args(["--MMD", "--skip-identical"])
        .args(&m.sources);
    let what = format!("verilating `{}` ({} build)", d.top, w.name());
    let out = children::output(&mut cmd)?
        .map_err(|e| Error::new(format!("{what}: cannot run {verilator}: {e}")))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        return Err(verilator_failure(&what, &text));
    }
    let header = mdir.join(format!("{}.h", w.prefix()));
    let ports = port_widths(&header).map_err(Error::new)?;
    let text = std::fs::read_to_string(&header)
        .map_err(|e| Error::new(format!("{}: {e}", header.display())))?;
    let directions = port_directions(&text);
    let deps = mdir.join(format!("{}__verFiles.dat", w.prefix()));
    let text = std::fs::read_to_string(&deps)
        .map_err(|e| Error::new(format!("{}: {e}", deps.display())))?;
    Ok(Verilated {
        ports,
        directions,
        read: files_read(&text, &m.sources),
    })
}

/// (port, direction) of each port the Verilated header `text` declares (`VL_IN8(&name,0,0);`,
/// `VL_OUT64`, `VL_INOUT16`, ...).
pub(crate) fn port_directions(text: &str) -> Vec<(String, &'static str)> {
    let mut dirs = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let dir = if t.starts_with("VL_INOUT") {
            "inout"
        } else if t.starts_with("VL_IN") {
            "input"
        } else if t.starts_with("VL_OUT") {
            "output"
        } else {
            continue;
        };
        let Some(args) = t.split_once("(&").map(|(_, r)| r) else {
            continue;
        };
        if let Some(name) = args.split(',').next() {
            dirs.push((name.trim().to_string(), dir));
        }
    }
    dirs
}

/// The files Verilator's own list of what it read and wrote (`PREFIX__verFiles.dat`: a line
/// `S ... "PATH"` for each file read, the path quoted, spaces kept, which its make-style
/// `__ver.d` does not escape) names as read, but Verilator itself, `sources` and a path that
/// is not a file: absolute, each once.
pub(crate) fn files_read(text: &str, sources: &[PathBuf]) -> Vec<PathBuf> {
    let canon = |p: &Path| p.canonicalize().ok();
    let sources: Vec<PathBuf> = sources.iter().filter_map(|s| canon(s)).collect();
    let mut read: Vec<PathBuf> = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("S ")) {
        let (Some(a), Some(b)) = (line.find('"'), line.rfind('"')) else {
            continue;
        };
        if b <= a {
            continue;
        }
        let Some(p) = canon(Path::new(&line[a + 1..b])).filter(|p| p.is_file()) else {
            continue;
        };
        let tool = p
            .file_name()
            .is_some_and(|f| f.to_string_lossy().starts_with("verilator_bin"));
        if !tool && !sources.contains(&p) && !read.contains(&p) {
            read.push(p);
        }
    }
    read
}

/// The header lines of a build without the traced model: a stand-in class of that name, so
/// that the shim compiles unchanged, which refuses to be constructed (`run` refuses first, by
/// the record; this is the guard behind it).
pub(crate) fn untraced_stand_in(fast: &str) -> String {
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
pub(crate) struct Unit {
    pub(crate) src: PathBuf,
    /// The `-O` level.
    pub(crate) opt: u32,
    /// Compiled with tracing declared (`VM_TRACE`).
    pub(crate) traced: bool,
    /// For this host's CPU, as the built-in RTL's fast model (cosim/engine/build.rs).
    pub(crate) march: bool,
}

/// The whole generated model as one translation unit (what Verilator's makefile does without
/// VM_PARALLEL_BUILDS); the fast model at `fast_opt`, the traced one at -O0 (it runs only a
/// waveform's window).
pub(crate) fn unit(work: &Path, w: Which, fast_opt: u32) -> Result<Unit, Error> {
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
pub(crate) fn runtime_entry(
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
pub(crate) fn compiler() -> Result<String, Error> {
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
pub(crate) fn flags(u: &Unit) -> Vec<String> {
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

pub(crate) fn compile(
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
pub(crate) const DIAGNOSTICS_SHOWN: usize = 8;

/// Verilator's failure as a person can act on it: a summary line, then each error and warning
/// with its file, line and source excerpt, and for the warning kinds the flags that waive them.
pub(crate) fn verilator_failure(what: &str, text: &str) -> Error {
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
pub(crate) fn run(cmd: &mut Command, what: &str) -> Result<(), Error> {
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

pub(crate) fn output(tool: &str, args: &[&str]) -> Result<String, Error> {
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
