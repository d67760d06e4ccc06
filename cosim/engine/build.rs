//! Build script: Verilates the sources `rtl/files.txt` lists, compiles the generated C++ and the Verilator runtime with
//! the `cc` crate, and bridges them to Rust with `cxx`.
//!
//! Why it is shaped like this:
//! - Two builds of every RTL variant, compiled in parallel:
//!   - `fast`, for regressions: the top is `ptxfma_sim_top` (`rtl/sim/`), a wrapper that samples
//!     the inputs on the falling clock edge, so that no logic depends on a top-level input and
//!     Verilator evaluates the stage-1 logic once per cycle instead of on both `eval()` calls of a
//!     cycle; no tracing; -O3, with clang++ when it is installed (`PTXFMA_RTL_CXX` overrides)
//!     and `-march=x86-64-v3` when the build host has it (`PTXFMA_RTL_MARCH`);
//!   - `traced`, for replays and waveforms only: `ptxfma_top` itself as the top, traced with
//!     every struct field, compiled at -O0 (it runs a few dozen cycles per waveform, and its
//!     compile time is part of every rebuild).
//!
//!   The measurements behind these choices are in `cosim/README.md`.
//! - Each build's generated C++ is compiled as one translation unit (what Verilator's own
//!   makefile does without `VM_PARALLEL_BUILDS`): most of the cost of compiling a generated
//!   file is parsing the Verilator headers, so one unit per build compiles several times faster
//!   than one per file, and the builds themselves run in parallel.
//! - The runtime is always compiled at -O2, whatever the cargo profile.
//! - Rebuild only what changed. Compiled pieces live in a cache keyed by a hash of everything
//!   that goes into them (sources, defines, flags, Verilator and compiler identity), outside
//!   `OUT_DIR`, so that
//!   - the runtime (`verilated*.cpp`, which never changes) is compiled once per Verilator version;
//!   - an RTL edit re-runs Verilator and recompiles only the models;
//!   - switching cargo features or profiles reuses models that are already built.
//! - RTL variants. The injected-fault test needs the same RTL built with a `define`; each
//!   variant is a separate pair of Verilated models with their own `--prefix` and `-D` list, so
//!   several can live in one binary and be chosen at run time (`fma-cosim --rtl NAME`):
//!   - `default`: the RTL as is, plus the defines in `PTXFMA_RTL_DEFINES` (normally unset);
//!   - the cargo feature `fault-sticky` adds `fault_sticky_rz` = `FAULT_STICKY_RZ`;
//!   - `PTXFMA_RTL_VARIANTS="name:DEF1,DEF2=3 other:DEF4"` adds any others (`name@alt:DEF`
//!     builds the ports-only design of `rtl/alt/` instead of the pipe), their fast models at
//!     `-O$PTXFMA_RTL_VARIANTS_OPT` when it is set (`make mutate`'s mutants).
//!
//!   A variant may also carry Verilator options of its own, for the builds that must not slow
//!   down the others:
//!   - the cargo feature `rtl-coverage` adds `coverage` (`--coverage-line --coverage-toggle`,
//!     models compiled with `VM_COVERAGE=1`, the runtime with `verilated_cov.cpp`), for
//!     `make coverage`;
//!   - the cargo feature `random-init` adds `random_init` (`--x-initial unique --x-assign
//!     unique`: initial values and X assignments drawn at run time, `fma-cosim run
//!     --random-init SEED`) and `random_init_fault_reset`, the same with the injected fault
//!     `FAULT_S1_TAG_NO_RESET` (a flop left out of the reset).
//! - `PTXFMA_RTL_DIR` builds the RTL from another directory than `rtl/` (`make bench` times a
//!   rebuild on an edited copy); `PTXFMA_RTL_CACHE_DIR` moves the cache.
//!
//! Known traps handled here or in `csrc/sim.cpp`: `verilator --build` without `--exe` builds
//! no runtime, so the runtime files are compiled explicitly; the generated code needs the same
//! `VM_*` defines Verilator's own makefile would pass.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "build/cache.rs"]
mod cache;
#[path = "build/variants.rs"]
mod variants;
#[path = "src/verilator_build.rs"]
mod verilator_build;

use cache::{cache_dir, cached, hash, write_if_changed};
use variants::{variants, Build, Design, Variant};
use verilator_build::{trace_defines, CXX_DEFINES, CXX_FLAGS, RUNTIME_SOURCES, VERILATOR_FLAGS};

/// [`verilator_build::generated_sources`], failing the build on error.
fn generated_sources(mdir: &Path, prefix: &str) -> Vec<PathBuf> {
    verilator_build::generated_sources(mdir, prefix).unwrap_or_else(|e| fail(&e))
}

/// [`verilator_build::port_widths`], failing the build on error.
fn port_widths(header: &Path) -> Vec<(String, u32)> {
    verilator_build::port_widths(header).unwrap_or_else(|e| fail(&e))
}

/// How the models are compiled: the compiler and the flags of each build.
struct ModelCxx {
    /// None: cc's default (`c++`).
    compiler: Option<PathBuf>,
    /// The fast build's flags beyond -O3 (`-march`).
    fast_flags: Vec<String>,
    /// Folded into the models' cache keys: compiler identity.
    identity: String,
}

impl ModelCxx {
    fn opt_level(b: Build) -> u32 {
        match b {
            Build::Fast => 3,
            Build::Traced => 0,
        }
    }

    fn flags(&self, b: Build) -> Vec<String> {
        let mut f = vec![format!("-O{}", Self::opt_level(b))];
        if b == Build::Fast {
            f.extend(self.fast_flags.iter().cloned());
        }
        f
    }

    /// One line for `fma-cosim bench`: which compiler and flags each build got.
    fn describe(&self, default: &cc::Tool) -> String {
        let path = self.compiler.as_deref().unwrap_or(default.path());
        let cxx = path.file_name().unwrap_or_default().to_string_lossy();
        format!(
            "fast = ptxfma_sim_top, {cxx} {}; traced = ptxfma_top --trace --trace-structs, \
             {cxx} {}; Verilator {}",
            self.flags(Build::Fast).join(" "),
            self.flags(Build::Traced).join(" "),
            VERILATOR_FLAGS[1]
        )
    }
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let rtl_dir = env::var_os("PTXFMA_RTL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../rtl"));

    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-changed=src/rtl/mod.rs");
    // A directory is scanned recursively: this covers rtl/sim/ too.
    println!("cargo:rerun-if-changed={}", rtl_dir.display());
    for var in [
        "VERILATOR",
        "PTXFMA_RTL_DEFINES",
        "PTXFMA_RTL_VARIANTS",
        "PTXFMA_RTL_VARIANTS_OPT",
        "PTXFMA_RTL_CACHE_DIR",
        "PTXFMA_RTL_DIR",
        "PTXFMA_RTL_CXX",
        "PTXFMA_RTL_MARCH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let verilator = env::var("VERILATOR").unwrap_or_else(|_| "verilator".to_string());
    let version = verilator_version(&verilator);
    let root = PathBuf::from(run(&verilator, &["--getenv", "VERILATOR_ROOT"]).trim());
    let include = root.join("include");

    let variants = variants();
    let sources = rtl_sources(&rtl_dir);
    let sim_sources = rtl_sources(&rtl_dir.join("sim"));
    let coverage = variants.iter().any(Variant::coverage);
    let alt_sources = if variants.iter().any(|v| v.design == Design::Alt) {
        rtl_sources(&rtl_dir.join("alt"))
    } else {
        Vec::new()
    };
    let cache = cache_dir(&out_dir);
    fs::create_dir_all(&cache).unwrap_or_else(|e| fail(&format!("{}: {e}", cache.display())));

    // Identity of the default C++ toolchain (runtime and shim), folded into the cache keys.
    let tool = base_cpp(&include, true, false).get_compiler();
    let mut toolchain = format!("{version}|{}|{:?}", tool.path().display(), tool.args());
    toolchain.push_str(&run(tool.path().to_str().unwrap(), &["--version"]));
    let model_cxx = model_cxx(&include, &toolchain);

    // Runtime: compiled once per Verilator + compiler.
    let rt_cov: &[&str] = if coverage {
        &["verilated_cov.cpp"]
    } else {
        &[]
    };
    let rt_key = hash(&[toolchain.as_bytes(), b"runtime", rt_cov.concat().as_bytes()]);
    let rt_dir = cached(&cache, "runtime", &rt_key, |dir| {
        let mut b = base_cpp(&include, true, coverage);
        for f in RUNTIME_SOURCES.iter().chain(rt_cov) {
            b.file(include.join(f));
        }
        b.out_dir(dir).compile("verilated_rt");
    });

    // Two Verilated models per variant, all Verilated and compiled in parallel.
    let mut jobs = Vec::new();
    for v in &variants {
        for b in Build::ALL {
            let srcs: Vec<PathBuf> = match (v.design, b) {
                (Design::Alt, _) => alt_sources.clone(),
                (Design::Pipe, Build::Fast) => {
                    sources.iter().chain(&sim_sources).cloned().collect()
                }
                (Design::Pipe, Build::Traced) => sources.clone(),
            };
            let mut key_parts: Vec<Vec<u8>> = vec![model_cxx.identity.clone().into_bytes()];
            key_parts.push(VERILATOR_FLAGS.join(" ").into_bytes());
            key_parts.push(b.verilator_flags().join(" ").into_bytes());
            key_parts.push(model_cxx.flags(b).join(" ").into_bytes());
            key_parts.push(b.top(v).into());
            key_parts.push(b.prefix(v).into_bytes());
            key_parts.push(v.defines.join(" ").into_bytes());
            key_parts.push(format!("{} -O{}", v.flags.join(" "), v.opt_level(b)).into_bytes());
            for s in &srcs {
                let name = s.strip_prefix(&rtl_dir).unwrap_or(s);
                key_parts.push(name.to_string_lossy().into_owned().into_bytes());
                key_parts
                    .push(fs::read(s).unwrap_or_else(|e| fail(&format!("{}: {e}", s.display()))));
            }
            let parts: Vec<&[u8]> = key_parts.iter().map(|p| p.as_slice()).collect();
            jobs.push((v, b, srcs, hash(&parts)));
        }
    }
    let models: Vec<(&Variant, Build, PathBuf)> = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|(v, b, srcs, key)| {
                let (cache, include, verilator, model_cxx) =
                    (&cache, &include, &verilator, &model_cxx);
                s.spawn(move || {
                    let what = format!("{}-{}", b.name(), v.name);
                    let dir = cached(cache, &what, key, |dir| {
                        verilate(verilator, v, *b, srcs, &dir.join("gen"));
                        compile_model(include, model_cxx, v, *b, dir);
                    });
                    (*v, *b, dir)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| fail("building an RTL model failed (see above)"))
            })
            .collect()
    });
    let header = |v: &Variant, b: Build| {
        let dir = &models
            .iter()
            .find(|m| m.0.name == v.name && m.1 == b)
            .unwrap()
            .2;
        dir.join("gen").join(format!("{}.h", b.prefix(v)))
    };

    // What the shim includes: every model's header and a table to pick a variant's pair of
    // models by name.
    let mut h = String::from("// Generated by cosim/engine/build.rs.\n#pragma once\n");
    for (v, b, _) in &models {
        writeln!(h, "#include \"{}.h\"", b.prefix(v)).unwrap();
    }
    h.push_str(
        "// X(name, fast model, traced model, registers: whether the design has its stage \
         registers on ports; without, the shim fills only the port words of a frame)\n\
         #define PTXFMA_FOR_EACH_VARIANT(X)",
    );
    for v in &variants {
        write!(
            h,
            " X(\"{}\", {}, {}, {})",
            v.name,
            Build::Fast.prefix(v),
            Build::Traced.prefix(v),
            v.design == Design::Pipe
        )
        .unwrap();
    }
    h.push('\n');
    write_if_changed(&out_dir.join("ptxfma_variants.h"), &h);

    // What Rust knows about the variants: names, defines, port widths from the generated
    // headers (so a package that drifts from the model's registers is caught at start-up), and
    // how the models were built.
    let mut meta = String::from("// Generated by cosim/engine/build.rs.\n");
    writeln!(meta, "/// `verilator --version` of the build.").unwrap();
    writeln!(meta, "pub const VERILATOR_VERSION: &str = {version:?};").unwrap();
    writeln!(
        meta,
        "/// The two builds of every variant: top, compiler and flags."
    )
    .unwrap();
    writeln!(
        meta,
        "pub const BUILDS: &str = {:?};",
        model_cxx.describe(&tool)
    )
    .unwrap();
    writeln!(
        meta,
        "/// The pipe's sources (`rtl/files.txt`), by file name: what drives a stage register's \
         field is read from them (`outputs::rtl_drivers`)."
    )
    .unwrap();
    meta.push_str("pub const PIPE_SOURCES: &[(&str, &str)] = &[\n");
    for s in &sources {
        let name = s
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into());
        // include_str! takes a path relative to the generated file: give it an absolute one.
        let path = std::path::absolute(s).unwrap_or_else(|_| s.clone());
        writeln!(
            meta,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    meta.push_str("];\n");
    writeln!(meta, "/// Every RTL variant built into this binary.").unwrap();
    meta.push_str("pub const VARIANTS: &[VariantMeta] = &[\n");
    for v in &variants {
        let ports = port_widths(&header(v, Build::Fast));
        let traced = port_widths(&header(v, Build::Traced));
        if ports != traced {
            fail(&format!(
                "the fast and traced tops of `{}` differ in ports (rtl/sim/ptxfma_sim_top.sv vs \
                 ptxfma_top):\n  {ports:?}\n  \
                 {traced:?}",
                v.name
            ));
        }
        writeln!(
            meta,
            "    VariantMeta {{ name: {:?}, defines: &{:?}, flags: &{:?}, ports: &{:?}, registers: {} }},",
            v.name,
            v.defines,
            v.flags,
            ports,
            v.design == Design::Pipe
        )
        .unwrap();
    }
    meta.push_str("];\n");
    write_if_changed(&out_dir.join("rtl_meta.rs"), &meta);

    // The shim and the cxx bridge. Compiled last so that the link order is shim, models,
    // runtime: each static library only refers to the ones after it.
    let mut bridge = cxx_build::bridge("src/rtl/mod.rs");
    bridge
        .file("csrc/sim.cpp")
        .std("gnu++17")
        .opt_level(2)
        .debug(false)
        .include(&out_dir)
        .flag("-isystem")
        .flag(include.to_str().unwrap())
        .flag("-isystem")
        .flag(include.join("vltstd").to_str().unwrap());
    for (name, value) in CXX_DEFINES.iter().chain(&trace_defines(true, coverage)) {
        bridge.define(name, *value);
    }
    for (_, _, dir) in &models {
        bridge
            .flag("-isystem")
            .flag(dir.join("gen").to_str().unwrap());
    }
    bridge.compile("ptxfma_cosim_shim");

    for (v, b, dir) in &models {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static={}", lib_name(v, *b));
    }
    println!("cargo:rustc-link-search=native={}", rt_dir.display());
    println!("cargo:rustc-link-lib=static=verilated_rt");
    println!("cargo:rustc-link-lib=pthread");
}

fn lib_name(v: &Variant, b: Build) -> String {
    format!("ptxfma_rtl_{}_{}", b.name(), v.name)
}

/// A `cc::Build` for Verilator C++ (generated or runtime): no debug info (it only slows the
/// compile of very large generated functions), Verilator's defines and flags; -O2 unless the
/// caller says otherwise.
fn base_cpp(include: &Path, trace: bool, coverage: bool) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("gnu++17")
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .extra_warnings(false)
        .cargo_metadata(false)
        .include(include)
        .include(include.join("vltstd"));
    for (name, value) in CXX_DEFINES.iter().chain(&trace_defines(trace, coverage)) {
        b.define(name, *value);
    }
    for f in CXX_FLAGS {
        b.flag(f);
    }
    b
}

/// The models' compiler and flags.
///
/// - Compiler: `PTXFMA_RTL_CXX` if set, else clang++ when it runs, else the default (`c++`,
///   normally g++). Measured on the fast build (`cosim/README.md`): clang 14 runs the RTL about
///   1.3 times as fast as GCC 12 and compiles it in half the time; `make deps` does not install
///   it, so without it the build is GCC's.
/// - `-march`: `PTXFMA_RTL_MARCH` if set (empty: none), else `x86-64-v3` (AVX2, BMI2, FMA) when
///   the build host supports it: the common level of the machines this runs on (AVX-512 Intel
///   and AVX2 AMD EPYC). A binary built on such a host does not run on an older CPU; set
///   `PTXFMA_RTL_MARCH=` to build one that does (e.g. for a farm of older nodes).
fn model_cxx(include: &Path, toolchain: &str) -> ModelCxx {
    let compiler = match env::var("PTXFMA_RTL_CXX") {
        Ok(c) if !c.is_empty() => Some(PathBuf::from(c)),
        _ => Command::new("clang++")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| PathBuf::from("clang++")),
    };
    // Detected on this (build) host, which is also where `cargo test` runs the models; not when
    // cross-compiling, unless PTXFMA_RTL_MARCH says so.
    let cross = env::var("HOST").ok() != env::var("TARGET").ok();
    let march = if cross && env::var_os("PTXFMA_RTL_MARCH").is_none() {
        None
    } else {
        verilator_build::fast_march()
    };
    let identity = match &compiler {
        Some(c) => format!(
            "{toolchain}|{}|{}",
            c.display(),
            run(c.to_str().unwrap(), &["--version"])
        ),
        None => toolchain.to_string(),
    };
    // The automatic choice is dropped by a compiler that does not know it; an explicit one
    // must work.
    let mut fast_flags = Vec::new();
    if let Some(m) = march {
        let flag = format!("-march={m}");
        let mut probe = base_cpp(include, false, false);
        if let Some(c) = &compiler {
            probe.compiler(c);
        }
        if probe.is_flag_supported(&flag).unwrap_or(false) {
            fast_flags.push(flag);
        } else if env::var_os("PTXFMA_RTL_MARCH").is_some() {
            fail(&format!(
                "PTXFMA_RTL_MARCH: the C++ compiler does not accept {flag}"
            ));
        }
    }
    ModelCxx {
        compiler,
        fast_flags,
        identity,
    }
}

/// Compiles the Verilated C++ in `dir/gen` into `dir/lib<name>.a` as one translation unit.
fn compile_model(include: &Path, cxx: &ModelCxx, v: &Variant, b: Build, dir: &Path) {
    let gen = dir.join("gen");
    let mut unit =
        String::from("// Generated by cosim/engine/build.rs: the whole model as one unit.\n");
    for f in generated_sources(&gen, &b.prefix(v)) {
        let name = f.file_name().unwrap().to_string_lossy();
        writeln!(unit, "#include \"gen/{name}\"").unwrap();
    }
    let unit_path = dir.join(format!("{}__all.cpp", b.prefix(v)));
    fs::write(&unit_path, unit).unwrap_or_else(|e| fail(&format!("{}: {e}", unit_path.display())));
    let mut c = base_cpp(include, b == Build::Traced, v.coverage());
    if let Some(compiler) = &cxx.compiler {
        c.compiler(compiler);
    }
    c.opt_level(v.opt_level(b));
    for f in &cxx.flags(b)[1..] {
        c.flag(f);
    }
    c.include(&gen)
        .file(&unit_path)
        .out_dir(dir)
        .compile(&lib_name(v, b));
}

fn verilate(verilator: &str, v: &Variant, b: Build, sources: &[PathBuf], mdir: &Path) {
    let mut cmd = Command::new(verilator);
    cmd.args(VERILATOR_FLAGS)
        .args(b.verilator_flags())
        .arg("--top-module")
        .arg(b.top(v))
        .arg("--prefix")
        .arg(b.prefix(v))
        .arg("-Mdir")
        .arg(mdir)
        .args(v.flags);
    for d in &v.defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.args(sources);
    let out = cmd
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run {verilator}: {e}")));
    if !out.status.success() {
        fail(&format!(
            "verilator failed on variant `{}` ({} build):\n{}{}",
            v.name,
            b.name(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
}

/// The sources of `dir` in compile order, as its `files.txt` lists them (one name a line, `#`
/// comments; the Makefile reads the same list). Every `.sv` file there must be listed.
fn rtl_sources(dir: &Path) -> Vec<PathBuf> {
    let list = dir.join("files.txt");
    let text =
        fs::read_to_string(&list).unwrap_or_else(|e| fail(&format!("{}: {e}", list.display())));
    let files: Vec<PathBuf> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|name| dir.join(name))
        .collect();
    if files.is_empty() {
        fail(&format!("no sources listed in {}", list.display()));
    }
    let unlisted: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sv") && !files.contains(p))
        .map(|p| p.display().to_string())
        .collect();
    if !unlisted.is_empty() {
        fail(&format!(
            "not in {}: {}",
            list.display(),
            unlisted.join(", ")
        ));
    }
    files
}

fn verilator_version(verilator: &str) -> String {
    let out = Command::new(verilator).arg("--version").output();
    let v = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => fail(&format!(
            "cannot run `{verilator} --version`. The co-simulator needs Verilator 5.006: run \
             `make deps` (or `apt-get install verilator` on Debian 12), or point the VERILATOR \
             environment variable at a verilator binary."
        )),
    };
    if !v.starts_with("Verilator 5.") {
        fail(&format!(
            "`{v}` found, but the co-simulator needs Verilator 5 (5.006 is the tested version)"
        ));
    }
    if !v.starts_with("Verilator 5.006 ") {
        println!("cargo:warning=tested with Verilator 5.006, building with `{v}`");
    }
    v
}

fn run(prog: &str, args: &[&str]) -> String {
    let out = Command::new(prog)
        .args(args)
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run {prog}: {e}")));
    if !out.status.success() {
        fail(&format!(
            "`{prog} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Build scripts report errors by panicking; cargo prints the message.
fn fail(msg: &str) -> ! {
    panic!("{msg}");
}
