//! How a Verilated model is built: Verilator's options, the defines and flags its generated C++
//! needs, the runtime files, and what the generated files say (their C++ sources, the top's
//! ports). Shared by the build script (`cosim/engine/build.rs`, which builds the RTL into the binary)
//! and by `fma-cosim dut build` (which builds a team's design into a loadable library), so that
//! both build a model the same way.

use std::fs;
use std::path::{Path, PathBuf};

/// Runtime sources that a trace-enabled, single-threaded model needs (Verilator's makefile
/// calls them VM_GLOBAL_FAST).
pub const RUNTIME_SOURCES: &[&str] = &[
    "verilated.cpp",
    "verilated_threads.cpp",
    "verilated_vcd_c.cpp",
];

/// Verilator options of every build. Lint is a separate step (`make lint`, with -Wall), so
/// warnings never stop the build here. `-O3` is what Verilator's manual recommends for speed; in
/// Verilator 5.006 it generates the same code as the default for this RTL.
pub const VERILATOR_FLAGS: &[&str] = &["--cc", "-O3", "-Wno-fatal"];

/// Verilator options of a traced build. `--trace-structs` makes every packed-struct field its
/// own signal in the divergence waveform.
pub const TRACE_FLAGS: &[&str] = &["--trace", "--trace-structs"];

/// The defines Verilator's makefile passes for a `--cc` model (see verilated.mk), without
/// `VM_TRACE` and `VM_TRACE_VCD`, which depend on the build ([`trace_defines`]), and
/// `VM_COVERAGE`, which depends on the variant.
pub const CXX_DEFINES: &[(&str, &str)] = &[("VM_SC", "0"), ("VM_TRACE_FST", "0")];

/// verilated.mk's CFG_CXXFLAGS_NO_UNUSED: the generated code is known to trip these.
pub const CXX_FLAGS: &[&str] = &[
    "-faligned-new",
    "-Wno-bool-operation",
    "-Wno-sign-compare",
    "-Wno-uninitialized",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-parameter",
    "-Wno-unused-variable",
    "-Wno-shadow",
];

/// `VM_TRACE` and `VM_TRACE_VCD` for a build with or without tracing, `VM_COVERAGE` for one
/// with or without coverage.
pub fn trace_defines(trace: bool, coverage: bool) -> [(&'static str, &'static str); 3] {
    let v = if trace { "1" } else { "0" };
    [
        ("VM_TRACE", v),
        ("VM_TRACE_VCD", v),
        ("VM_COVERAGE", if coverage { "1" } else { "0" }),
    ]
}

/// The C++ files of a Verilated model, as listed in its `_classes.mk` (model classes and
/// support files; the runtime is built separately).
pub fn generated_sources(mdir: &Path, prefix: &str) -> Result<Vec<PathBuf>, String> {
    let mk = mdir.join(format!("{prefix}_classes.mk"));
    let text = fs::read_to_string(&mk).map_err(|e| format!("{}: {e}", mk.display()))?;
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
        return Err(format!("no C++ sources listed in {}", mk.display()));
    }
    Ok(files)
}

/// (port, width) for every port in the generated model header, from Verilator's
/// `VL_IN*/VL_OUT*(&name,msb,lsb[,words])` declarations.
pub fn port_widths(header: &Path) -> Result<Vec<(String, u32)>, String> {
    let text = fs::read_to_string(header).map_err(|e| format!("{}: {e}", header.display()))?;
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
    Ok(ports)
}

/// Whether this machine runs x86-64-v3 code (AVX2, BMI2, FMA, ...): the models' fast builds
/// are compiled with `-march=x86-64-v3` where it does, unless `PTXFMA_RTL_MARCH` says otherwise
/// ([`fast_march`]).
pub fn x86_64_v3_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("fma")
            && std::is_x86_feature_detected!("f16c")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("movbe")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The fast build's `-march` on this machine: `PTXFMA_RTL_MARCH` if set (empty: none), else
/// `x86-64-v3` where the machine runs it.
pub fn fast_march() -> Option<String> {
    match std::env::var("PTXFMA_RTL_MARCH") {
        Ok(m) => (!m.is_empty()).then_some(m),
        Err(_) => x86_64_v3_here().then(|| "x86-64-v3".to_string()),
    }
}
