//! Build script: Verilates `rtl/*.sv`, compiles the generated C++ and the Verilator runtime with
//! the `cc` crate, and bridges them to Rust with `cxx`.
//!
//! Why it is shaped like this:
//! - The model's C++ and the runtime are always compiled at -O2, whatever the cargo profile:
//!   an unoptimised Verilated model is tens of times slower and would make every co-simulation
//!   test in the dev profile crawl.
//! - Rebuild only what changed. Compiled pieces live in a cache keyed by a hash of everything
//!   that goes into them (sources, defines, flags, Verilator and compiler identity), outside
//!   `OUT_DIR`, so that
//!   - the runtime (`verilated*.cpp`, which never changes) is compiled once per Verilator version;
//!   - an RTL edit re-runs Verilator and recompiles only that model's C++;
//!   - switching cargo features or profiles reuses models that are already built.
//! - RTL variants. The injected-fault test needs the same RTL built with a `define`; each
//!   variant is a separate Verilated model with its own `--prefix` and `-D` list, so several
//!   can live in one binary and be chosen at run time (`fma-cosim --rtl NAME`):
//!   - `default`: the RTL as is, plus the defines in `PTXFMA_RTL_DEFINES` (normally unset);
//!   - the cargo feature `fault-sticky` adds `fault_sticky_rz` = `FAULT_STICKY_RZ`;
//!   - `PTXFMA_RTL_VARIANTS="name:DEF1,DEF2=3 other:DEF4"` adds any others.
//!
//! Known traps handled here or in `csrc/sim.cpp`: `verilator --build` without `--exe` builds
//! no runtime, so the runtime files are compiled explicitly; the generated code needs the same
//! `VM_*` defines Verilator's own makefile would pass.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Runtime sources that a trace-enabled, single-threaded model needs (Verilator's makefile
/// calls them VM_GLOBAL_FAST).
const RUNTIME_SOURCES: &[&str] = &[
    "verilated.cpp",
    "verilated_threads.cpp",
    "verilated_vcd_c.cpp",
];

/// Verilator options. Lint is a separate step (`make lint`, with -Wall), so warnings never
/// stop the build here. `--trace-structs` makes every packed-struct field its own signal in
/// the divergence waveform.
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "--trace",
    "--trace-structs",
    "-O3",
    "-Wno-fatal",
    "--top-module",
    "ptxfma_top",
];

/// The defines Verilator's makefile passes for a `--cc --trace` model (see verilated.mk).
const CXX_DEFINES: &[(&str, &str)] = &[
    ("VM_COVERAGE", "0"),
    ("VM_SC", "0"),
    ("VM_TRACE", "1"),
    ("VM_TRACE_FST", "0"),
    ("VM_TRACE_VCD", "1"),
];

/// verilated.mk's CFG_CXXFLAGS_NO_UNUSED: the generated code is known to trip these.
const CXX_FLAGS: &[&str] = &[
    "-faligned-new",
    "-Wno-bool-operation",
    "-Wno-sign-compare",
    "-Wno-uninitialized",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-parameter",
    "-Wno-unused-variable",
    "-Wno-shadow",
];

/// Cache entries kept per variant; older ones are deleted so repeated RTL edits do not fill
/// the disk, while flipping between a few RTL versions stays cheap.
const KEEP_PER_VARIANT: usize = 4;

struct Variant {
    name: String,
    defines: Vec<String>,
}

impl Variant {
    fn prefix(&self) -> String {
        format!("Vptxfma_{}", self.name)
    }
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let rtl_dir = manifest.join("../rtl");

    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-changed=src/rtl.rs");
    println!("cargo:rerun-if-changed={}", rtl_dir.display());
    for var in [
        "VERILATOR",
        "PTXFMA_RTL_DEFINES",
        "PTXFMA_RTL_VARIANTS",
        "PTXFMA_RTL_CACHE_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let verilator = env::var("VERILATOR").unwrap_or_else(|_| "verilator".to_string());
    let version = verilator_version(&verilator);
    let root = PathBuf::from(run(&verilator, &["--getenv", "VERILATOR_ROOT"]).trim());
    let include = root.join("include");

    let sources = rtl_sources(&rtl_dir);
    let variants = variants();
    let cache = cache_dir(&out_dir);
    fs::create_dir_all(&cache).unwrap_or_else(|e| fail(&format!("{}: {e}", cache.display())));

    // Identity of the C++ toolchain, folded into every cache key.
    let tool = base_cpp(&include).get_compiler();
    let mut toolchain = format!("{version}|{}|{:?}", tool.path().display(), tool.args());
    toolchain.push_str(&run(tool.path().to_str().unwrap(), &["--version"]));

    // Runtime: compiled once per Verilator + compiler.
    let rt_key = hash(&[toolchain.as_bytes(), b"runtime"]);
    let rt_dir = cached(&cache, "runtime", &rt_key, |dir| {
        let mut b = base_cpp(&include);
        for f in RUNTIME_SOURCES {
            b.file(include.join(f));
        }
        b.out_dir(dir).compile("verilated_rt");
    });

    // One Verilated model per variant.
    let mut models = Vec::new();
    for v in &variants {
        let mut key_parts: Vec<Vec<u8>> = vec![toolchain.clone().into_bytes()];
        key_parts.push(VERILATOR_FLAGS.join(" ").into_bytes());
        key_parts.push(v.prefix().into_bytes());
        key_parts.push(v.defines.join(" ").into_bytes());
        for s in &sources {
            key_parts.push(
                s.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
                    .into_bytes(),
            );
            key_parts.push(fs::read(s).unwrap_or_else(|e| fail(&format!("{}: {e}", s.display()))));
        }
        let parts: Vec<&[u8]> = key_parts.iter().map(|p| p.as_slice()).collect();
        let key = hash(&parts);
        let dir = cached(&cache, &format!("model-{}", v.name), &key, |dir| {
            verilate(&verilator, v, &sources, &dir.join("gen"));
            let mut b = base_cpp(&include);
            b.include(dir.join("gen"));
            for f in generated_sources(&dir.join("gen"), &v.prefix()) {
                b.file(f);
            }
            b.out_dir(dir).compile(&format!("ptxfma_rtl_{}", v.name));
        });
        models.push((v, dir));
    }

    // What the shim includes: every variant's header and a table to pick one by name.
    let mut h = String::from("// Generated by cosim/build.rs.\n#pragma once\n");
    for (v, _) in &models {
        writeln!(h, "#include \"{}.h\"", v.prefix()).unwrap();
    }
    h.push_str("#define PTXFMA_FOR_EACH_VARIANT(X)");
    for (v, _) in &models {
        write!(h, " X(\"{}\", {})", v.name, v.prefix()).unwrap();
    }
    h.push('\n');
    write_if_changed(&out_dir.join("ptxfma_variants.h"), &h);

    // What Rust knows about the variants: names, defines, port widths from the generated
    // headers (so a package that drifts from the model's registers is caught at start-up).
    let mut meta = String::from("// Generated by cosim/build.rs.\n");
    writeln!(meta, "/// `verilator --version` of the build.").unwrap();
    writeln!(meta, "pub const VERILATOR_VERSION: &str = {version:?};").unwrap();
    writeln!(meta, "/// Every RTL variant built into this binary.").unwrap();
    meta.push_str("pub const VARIANTS: &[VariantMeta] = &[\n");
    for (v, dir) in &models {
        let ports = port_widths(&dir.join("gen").join(format!("{}.h", v.prefix())));
        writeln!(
            meta,
            "    VariantMeta {{ name: {:?}, defines: &{:?}, ports: &{:?} }},",
            v.name, v.defines, ports
        )
        .unwrap();
    }
    meta.push_str("];\n");
    write_if_changed(&out_dir.join("rtl_meta.rs"), &meta);

    // The shim and the cxx bridge. Compiled last so that the link order is shim, models,
    // runtime: each static library only refers to the ones after it.
    let mut bridge = cxx_build::bridge("src/rtl.rs");
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
    for (name, value) in CXX_DEFINES {
        bridge.define(name, *value);
    }
    for (_, dir) in &models {
        bridge
            .flag("-isystem")
            .flag(dir.join("gen").to_str().unwrap());
    }
    bridge.compile("ptxfma_cosim_shim");

    for (v, dir) in &models {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static=ptxfma_rtl_{}", v.name);
    }
    println!("cargo:rustc-link-search=native={}", rt_dir.display());
    println!("cargo:rustc-link-lib=static=verilated_rt");
    println!("cargo:rustc-link-lib=pthread");
}

/// A `cc::Build` for Verilator C++ (generated or runtime): -O2 always, no debug info (it only
/// slows the compile of very large generated functions), Verilator's defines and flags.
fn base_cpp(include: &Path) -> cc::Build {
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
    for (name, value) in CXX_DEFINES {
        b.define(name, *value);
    }
    for f in CXX_FLAGS {
        b.flag(f);
    }
    b
}

/// The cache entry `<cache>/<what>-<key>`, built by `make` into a temporary directory and
/// renamed into place, so an interrupted or concurrent build never leaves a half entry.
fn cached(cache: &Path, what: &str, key: &str, make: impl FnOnce(&Path)) -> PathBuf {
    let dir = cache.join(format!("{what}-{key}"));
    if !dir.is_dir() {
        let tmp = cache.join(format!("{what}-{key}.tmp{}", std::process::id()));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).unwrap_or_else(|e| fail(&format!("{}: {e}", tmp.display())));
        make(&tmp);
        if fs::rename(&tmp, &dir).is_err() {
            // Another build got there first with the same key: same content, keep theirs.
            let _ = fs::remove_dir_all(&tmp);
        }
        prune(cache, what, &dir);
    }
    // Mark as recently used for pruning.
    if let Ok(f) = fs::File::open(&dir) {
        let _ = f.set_modified(SystemTime::now());
    }
    dir
}

/// Deletes all but the newest KEEP_PER_VARIANT entries named `<what>-*`.
fn prune(cache: &Path, what: &str, keep: &Path) {
    let prefix = format!("{what}-");
    let mut entries: Vec<(SystemTime, PathBuf)> = fs::read_dir(cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let rest = name.strip_prefix(&prefix)?;
            // Only complete entries of exactly this name (not `model-a_b-*` for `model-a`).
            if rest.len() != 16 || !rest.bytes().all(|c| c.is_ascii_hexdigit()) {
                return None;
            }
            let t = e.metadata().ok()?.modified().ok()?;
            Some((t, e.path()))
        })
        .collect();
    entries.sort();
    let excess = entries.len().saturating_sub(KEEP_PER_VARIANT);
    for (_, p) in entries.into_iter().take(excess) {
        if p != keep {
            let _ = fs::remove_dir_all(p);
        }
    }
}

fn verilate(verilator: &str, v: &Variant, sources: &[PathBuf], mdir: &Path) {
    let mut cmd = Command::new(verilator);
    cmd.args(VERILATOR_FLAGS)
        .arg("--prefix")
        .arg(v.prefix())
        .arg("-Mdir")
        .arg(mdir);
    for d in &v.defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.args(sources);
    let out = cmd
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run {verilator}: {e}")));
    if !out.status.success() {
        fail(&format!(
            "verilator failed on variant `{}`:\n{}{}",
            v.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
}

/// The C++ files of a Verilated model, as listed in its `_classes.mk` (model classes and
/// support files; the runtime is built separately).
fn generated_sources(mdir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mk = mdir.join(format!("{prefix}_classes.mk"));
    let text = fs::read_to_string(&mk).unwrap_or_else(|e| fail(&format!("{}: {e}", mk.display())));
    let mut files = Vec::new();
    let mut in_list = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(var) = t.strip_suffix("+= \\") {
            let var = var.trim();
            in_list = matches!(
                var,
                "VM_CLASSES_FAST" | "VM_CLASSES_SLOW" | "VM_SUPPORT_FAST" | "VM_SUPPORT_SLOW"
            );
            continue;
        }
        if t.is_empty() {
            in_list = false;
            continue;
        }
        if in_list {
            let name = t.trim_end_matches('\\').trim();
            files.push(mdir.join(format!("{name}.cpp")));
        }
    }
    if files.is_empty() {
        fail(&format!("no C++ sources listed in {}", mk.display()));
    }
    files
}

/// (port, width) for every port in the generated model header, from Verilator's
/// `VL_IN*/VL_OUT*(&name,msb,lsb[,words])` declarations.
fn port_widths(header: &Path) -> Vec<(String, u32)> {
    let text =
        fs::read_to_string(header).unwrap_or_else(|e| fail(&format!("{}: {e}", header.display())));
    let mut ports = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if !(t.starts_with("VL_IN") || t.starts_with("VL_OUT")) {
            continue;
        }
        let Some(args) = t.split_once("(&").map(|(_, r)| r) else {
            continue;
        };
        let args: Vec<&str> = args.trim_end_matches(");").split(',').collect();
        if args.len() < 3 {
            continue;
        }
        let msb: u32 = args[1].trim().parse().unwrap_or(0);
        let lsb: u32 = args[2].trim().parse().unwrap_or(0);
        ports.push((args[0].trim().to_string(), msb - lsb + 1));
    }
    ports
}

/// `rtl/*.sv`, packages first (anything that imports them must come later), then by name.
fn rtl_sources(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sv"))
        .collect();
    files.sort_by_key(|p| {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        (!name.ends_with("_pkg.sv"), name)
    });
    if files.is_empty() {
        fail(&format!("no .sv files in {}", dir.display()));
    }
    files
}

fn variants() -> Vec<Variant> {
    let split = |s: &str| -> Vec<String> {
        s.split([',', ' '])
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut out = vec![Variant {
        name: "default".into(),
        defines: split(&env::var("PTXFMA_RTL_DEFINES").unwrap_or_default()),
    }];
    if env::var_os("CARGO_FEATURE_FAULT_STICKY").is_some() {
        out.push(Variant {
            name: "fault_sticky_rz".into(),
            defines: vec!["FAULT_STICKY_RZ".into()],
        });
    }
    for spec in env::var("PTXFMA_RTL_VARIANTS")
        .unwrap_or_default()
        .split([' ', ';'])
        .filter(|s| !s.is_empty())
    {
        let (name, defs) = spec.split_once(':').unwrap_or((spec, ""));
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_');
        if !ok {
            fail(&format!(
                "PTXFMA_RTL_VARIANTS: bad variant name `{name}` (use [a-z0-9_]+, as in \
                 `name:DEF1,DEF2=3`)"
            ));
        }
        if out.iter().any(|v| v.name == name) {
            continue;
        }
        out.push(Variant {
            name: name.into(),
            defines: split(defs),
        });
    }
    out
}

fn cache_dir(out_dir: &Path) -> PathBuf {
    if let Some(d) = env::var_os("PTXFMA_RTL_CACHE_DIR") {
        return PathBuf::from(d);
    }
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: share across profiles, since the
    // C++ flags do not depend on the profile.
    out_dir
        .ancestors()
        .nth(4)
        .unwrap_or(out_dir)
        .join("ptxfma-rtl-cache")
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

/// 64-bit hash as 16 hex digits. `DefaultHasher` may change between Rust releases; that only
/// costs a rebuild.
fn hash(parts: &[&[u8]]) -> String {
    let mut h = DefaultHasher::new();
    for p in parts {
        h.write_usize(p.len());
        h.write(p);
    }
    format!("{:016x}", h.finish())
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
}

/// Build scripts report errors by panicking; cargo prints the message.
fn fail(msg: &str) -> ! {
    panic!("{msg}");
}
