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

use ptxfma_cosim_engine::forms::{named, Forms, FORMATS, OPERATIONS};
use ptxfma_cosim_engine::rtl::{self, variant::VariantMeta};
use ptxfma_cosim_engine::verilator_build::RUNTIME_SOURCES;
use ptxfma_cosim_engine::Error;

use super::children;
use super::manifest::Manifest;
use super::runtime_cache;
use crate::toolchain::{
    compile, compiler, output, run, runtime_entry, unit, untraced_stand_in, verilate, Unit,
    Verilated, Which,
};
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
    refuse_foreign_out(out)?;
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
    let results: Vec<Result<Verilated, Error>> = std::thread::scope(|s| {
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
    let (mut ports, mut directions, mut read) = (Vec::new(), Vec::new(), Vec::new());
    for r in results {
        let v = r?;
        (ports, directions) = (v.ports, v.directions);
        for p in v.read {
            if !read.contains(&p) {
                read.push(p);
            }
        }
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
    problems.extend(direction_problems(&directions, handshake, tag_width));
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
    let read = read
        .into_iter()
        .map(|p| digest(&p).map(|d| (p, d)))
        .collect::<Result<Vec<_>, _>>()?;
    // Every file written so far: all but the record, which lists them.
    let files = crate::own_out::listing(&tmp, RECORD)?;
    let forms = m.forms.unwrap_or(Forms::ALL);
    let named = |names: &[&str], on: &[bool]| -> Vec<String> {
        named(names, on).into_iter().map(String::from).collect()
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
        read,
        files,
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
        rounding: forms.rnds,
        ftz: forms.ftz,
        sat: forms.sat,
        operations: named(&OPERATIONS, &forms.operations),
        formats: named(&FORMATS, &forms.formats),
        relu: forms.relu,
        oob: forms.oob,
        traced: opts.trace,
        cxx_opt: opts.cxx_opt,
        build_seconds: t0.elapsed().as_secs_f64(),
    };
    let json = serde_json::to_string_pretty(&record).expect("a record serialises");
    std::fs::write(tmp.join(RECORD), json + "\n")
        .map_err(|e| Error::new(format!("{}: {e}", tmp.join(RECORD).display())))?;

    // Into place: an earlier build is replaced whole, unless a signal came first, and only
    // while it is still unchanged (a file put there meanwhile is not lost).
    refuse_foreign_out(out)?;
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

/// Refuses an `--out` that is neither empty nor an unchanged earlier build of this version
/// ([`crate::own_out`]).
pub(crate) fn refuse_foreign_out(out: &Path) -> Result<(), Error> {
    crate::own_out::refuse_foreign_out(out, RECORD, "dut build", None, |v| {
        serde_json::from_value::<Record>(v.clone())
            .ok()
            .filter(|r| r.abi == ABI)
            .map(|r| r.files)
    })
}

/// The ports of the contract declared in the wrong direction: an input of the contract ends
/// in `_i` or `_ni`, an output in `_o`.
fn direction_problems(
    directions: &[(String, &'static str)],
    handshake: bool,
    tag_width: u32,
) -> Vec<String> {
    let mut contract = vec![
        "clk_i",
        "rst_ni",
        "in_valid_i",
        "in_ctrl_i",
        "in_a_i",
        "in_b_i",
        "in_c_i",
        "out_valid_o",
        "out_d_o",
    ];
    if tag_width > 0 {
        contract.extend(["in_tag_i", "out_tag_o"]);
    }
    if handshake {
        contract.extend(["in_ready_o", "out_ready_i"]);
    }
    let mut problems = Vec::new();
    for name in contract {
        let want = if name.ends_with("_o") {
            "output"
        } else {
            "input"
        };
        if let Some((_, dir)) = directions.iter().find(|(p, _)| p == name) {
            if *dir != want {
                problems.push(format!(
                    "port {name} is declared {dir}, the contract needs {want}"
                ));
            }
        }
    }
    problems
}
