//! The RTL variants a build holds: which design each builds, with which defines and Verilator
//! options, and the two builds (fast and traced) of each.

use std::env;

use crate::{fail, ModelCxx};

/// Verilator options of the `coverage` variant (cargo feature `rtl-coverage`).
const COVERAGE_FLAGS: &[&str] = &["--coverage-line", "--coverage-toggle"];

/// Verilator options of the `random_init*` variants (cargo feature `random-init`): initial
/// values and explicit X assignments become calls to the runtime's random generator, which
/// returns zeros unless the context's `randReset(2)` is set.
const RANDOM_INIT_FLAGS: &[&str] = &["--x-initial", "unique", "--x-assign", "unique"];

pub struct Variant {
    pub name: String,
    pub defines: Vec<String>,
    /// Verilator options of this variant only, beyond those of its build.
    pub flags: &'static [&'static str],
    /// Which design the variant builds.
    pub design: Design,
    /// The fast model's optimisation level, when not its build's: `PTXFMA_RTL_VARIANTS_OPT`
    /// for the variants `PTXFMA_RTL_VARIANTS` names.
    pub fast_opt: Option<u32>,
}

impl Variant {
    /// Verilated with coverage points: its models need `VM_COVERAGE=1` and the runtime
    /// `verilated_cov.cpp`.
    pub fn coverage(&self) -> bool {
        self.flags.iter().any(|f| f.starts_with("--coverage"))
    }

    /// The models' optimisation level: a coverage model's eval functions hold a counter per
    /// point, and compiling its fast model took clang 23 CPU s at -O0 against more than 6 CPU
    /// minutes at -O1 (-O3 did not finish): that compile is part of every `make test`, so
    /// coverage models are compiled at -O0 and run slower.
    pub fn opt_level(&self, b: Build) -> u32 {
        match b {
            Build::Fast if self.coverage() => 0,
            Build::Fast => self.fast_opt.unwrap_or_else(|| ModelCxx::opt_level(b)),
            Build::Traced => ModelCxx::opt_level(b),
        }
    }
}

/// The designs a variant can build.
#[derive(Clone, Copy, PartialEq)]
pub enum Design {
    /// `rtl/files.txt`: the pipe with its stage registers on ports (`ptxfma_top`).
    Pipe,
    /// `rtl/alt/files.txt`: another f32 FMA with only the result ports (`ptxfma_alt_top`), checked
    /// by `--compare ports` (docs/dut.md). Cargo feature `alt-design`.
    Alt,
}

/// The two builds of a variant.
#[derive(Clone, Copy, PartialEq)]
pub enum Build {
    /// Regressions: `ptxfma_sim_top` (inputs sampled on the falling edge), untraced, optimised.
    Fast,
    /// Replays and waveforms: `ptxfma_top`, traced, -O0.
    Traced,
}

impl Build {
    pub const ALL: [Build; 2] = [Build::Fast, Build::Traced];

    pub fn name(self) -> &'static str {
        match self {
            Build::Fast => "fast",
            Build::Traced => "traced",
        }
    }

    /// The C++ class prefix of `v`'s model. Fast and traced prefixes start differently, so no
    /// variant name can make two of them collide.
    pub fn prefix(self, v: &Variant) -> String {
        format!("V{}_{}", self.name(), v.name)
    }

    /// The top module of `v` in this build. A ports-only design has no falling-edge wrapper:
    /// both builds use its own top.
    pub fn top(self, v: &Variant) -> &'static str {
        match (v.design, self) {
            (Design::Alt, _) => "ptxfma_alt_top",
            (Design::Pipe, Build::Fast) => "ptxfma_sim_top",
            (Design::Pipe, Build::Traced) => "ptxfma_top",
        }
    }

    /// Verilator options beyond VERILATOR_FLAGS.
    pub fn verilator_flags(self) -> &'static [&'static str] {
        match self {
            Build::Fast => &[],
            Build::Traced => crate::verilator_build::TRACE_FLAGS,
        }
    }
}

/// The variants of this build: `default`, those of the enabled cargo features, and those of
/// `PTXFMA_RTL_VARIANTS`.
pub fn variants() -> Vec<Variant> {
    let split = |s: &str| -> Vec<String> {
        s.split([',', ' '])
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut out = vec![Variant {
        name: "default".into(),
        defines: split(&env::var("PTXFMA_RTL_DEFINES").unwrap_or_default()),
        flags: &[],
        design: Design::Pipe,
        fast_opt: None,
    }];
    if env::var_os("CARGO_FEATURE_FAULT_STICKY").is_some() {
        out.push(Variant {
            name: "fault_sticky_rz".into(),
            defines: vec!["FAULT_STICKY_RZ".into()],
            flags: &[],
            design: Design::Pipe,
            fast_opt: None,
        });
    }
    if env::var_os("CARGO_FEATURE_RTL_COVERAGE").is_some() {
        out.push(Variant {
            name: "coverage".into(),
            defines: Vec::new(),
            flags: COVERAGE_FLAGS,
            design: Design::Pipe,
            fast_opt: None,
        });
    }
    if env::var_os("CARGO_FEATURE_RANDOM_INIT").is_some() {
        for (name, defines) in [
            ("random_init", vec![]),
            (
                "random_init_fault_reset",
                vec!["FAULT_S1_TAG_NO_RESET".into()],
            ),
        ] {
            out.push(Variant {
                name: name.into(),
                defines,
                flags: RANDOM_INIT_FLAGS,
                design: Design::Pipe,
                fast_opt: None,
            });
        }
    }
    if env::var_os("CARGO_FEATURE_ALT_DESIGN").is_some() {
        for (name, define) in [("alt", None), ("alt_fault", Some("FAULT_ALT_STICKY_RP"))] {
            out.push(Variant {
                name: name.into(),
                defines: define.into_iter().map(String::from).collect(),
                flags: &[],
                design: Design::Alt,
                fast_opt: None,
            });
        }
    }
    // `make mutate`'s mutants: most die within a few thousand operations, so their compile
    // (about 30 CPU s each at -O3) costs more than their run.
    let fast_opt = match env::var("PTXFMA_RTL_VARIANTS_OPT") {
        Ok(s) if !s.is_empty() => match s.parse::<u32>() {
            Ok(n) if n <= 3 => Some(n),
            _ => fail(&format!(
                "PTXFMA_RTL_VARIANTS_OPT: `{s}` is not an opt-level 0-3"
            )),
        },
        _ => None,
    };
    for spec in env::var("PTXFMA_RTL_VARIANTS")
        .unwrap_or_default()
        .split([' ', ';'])
        .filter(|s| !s.is_empty())
    {
        let (name, defs) = spec.split_once(':').unwrap_or((spec, ""));
        // `name@alt`: a variant of the ports-only design (rtl/alt/) instead of the pipe.
        let (name, design) = match name.split_once('@') {
            Some((n, "alt")) => (n, Design::Alt),
            _ => (name, Design::Pipe),
        };
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
            flags: &[],
            design,
            fast_opt,
        });
    }
    out
}
