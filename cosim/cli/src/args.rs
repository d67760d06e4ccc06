//! The arguments several commands share: the two sides (`--rtl`/`--dut`, `--golden`), `--compare`,
//! the families a design implements, and the value parsers.

use std::path::PathBuf;

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::PipeIn;

use ptxfma_cosim_engine::rtl;
use ptxfma_cosim_engine::sides::Sides;
use ptxfma_cosim_engine::stim::{Family, Forms};
use ptxfma_cosim_engine::stream::Families;
use ptxfma_cosim_engine::Error;

/// `--rtl` (or `--dut`) and `--golden`, shared by the commands that run the RTL.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct SidesArgs {
    /// RTL variant under test (see `fma-cosim variants`).
    #[arg(long, default_value = "default", value_name = "VARIANT")]
    pub(crate) rtl: String,
    /// A design built by `fma-cosim dut build` into DIR, under test instead of --rtl (checked
    /// by its ports).
    #[arg(long, value_name = "DIR", conflicts_with = "rtl")]
    pub(crate) dut: Option<PathBuf>,
    /// Reference: `model` (the golden model) or `rtl:VARIANT` (another RTL build).
    #[arg(long, default_value = "model", value_name = "G")]
    pub(crate) golden: String,
    /// A plusarg every model of the kit's RTL starts with, for its `$value$plusargs`
    /// (repeatable): `+ptxfma_mutant=K` runs mutant K of `make mutate`'s schemata build.
    #[arg(long = "plusarg", value_name = "+NAME=VALUE", conflicts_with = "dut")]
    pub(crate) plusargs: Vec<String>,
}

impl SidesArgs {
    /// `--dut DIR` becomes the variant name `dut:DIR` (DIR made absolute), after checking that
    /// DIR holds a build this binary can load.
    pub(crate) fn resolve_dut(&mut self) -> Result<(), Error> {
        if !self.plusargs.is_empty() {
            rtl::set_plusargs(std::mem::take(&mut self.plusargs))?;
        }
        if let Some(dir) = &self.dut {
            let abs = dir
                .canonicalize()
                .map_err(|e| Error::new(format!("--dut {}: {e}", dir.display())))?;
            let lib = ptxfma_cosim_engine::dut::load::open(&abs)?;
            ptxfma_cosim_engine::stim::set_forms(lib.record.forms());
            self.rtl = ptxfma_cosim_engine::dut::load::variant_name(&abs);
        }
        Ok(())
    }

    pub(crate) fn sides(&self) -> Result<Sides, Error> {
        Sides::new(&self.rtl, &self.golden)
    }
}

/// `--compare` of `run` and `replay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum CompareArg {
    Registers,
    Ports,
}

impl CompareArg {
    pub(crate) fn name(self) -> &'static str {
        match self {
            CompareArg::Registers => "registers",
            CompareArg::Ports => "ports",
        }
    }

    /// `--compare` as given, else registers where the RTL has them and ports where it has
    /// only result ports (a `--dut` design).
    pub(crate) fn resolve(arg: Option<CompareArg>, rtl: &str) -> Result<CompareArg, Error> {
        let registers = rtl::variant(rtl)?.registers;
        Ok(arg.unwrap_or(if registers {
            CompareArg::Registers
        } else {
            CompareArg::Ports
        }))
    }
}

/// The families a run of `rtl` draws: a `dut build` design's own (its manifest's
/// `forms.families`) when `filter` names every family (the default), else `filter`, which the
/// design must implement.
pub(crate) fn design_families(rtl: &str, filter: &mut Families) -> Result<(), Error> {
    let Some(rec) = ptxfma_cosim_engine::dut::record_of(rtl)? else {
        return Ok(());
    };
    let implements: Vec<_> = rec
        .families
        .iter()
        .filter_map(|f| ptxfma_cosim_engine::stim::Family::parse(f))
        .collect();
    if filter.0.len() == ptxfma_cosim_engine::stim::Family::ALL.len() {
        *filter = Families(implements);
    } else if let Some(f) = filter.0.iter().find(|f| !implements.contains(f)) {
        return Err(Error::new(format!(
            "--filter {}: the design implements only {} (forms.families of its manifest)",
            f.name(),
            rec.families.join(", ")
        )));
    }
    Ok(())
}

/// Refuses an operation of `inputs` that a `dut build` design (`rtl`) does not implement: a
/// family outside its manifest's `forms.families`, or an operation, format, rounding mode or
/// modifier outside its forms ([`Forms::refusal`] names the key). Otherwise the design would be
/// driven with a word it was never meant to take and the difference reported as a divergence.
pub(crate) fn design_takes(rtl: &str, inputs: &[PipeIn]) -> Result<(), Error> {
    let Some(design) = DesignForms::of(rtl)? else {
        return Ok(());
    };
    match inputs.iter().find_map(|i| design.refusal(i)) {
        Some(why) => Err(Error::new(why)),
        None => Ok(()),
    }
}

/// What a `dut build` design takes: the families and forms of its manifest, read once for the
/// operations of a whole file (`run --vectors`).
#[derive(Clone)]
pub(crate) struct DesignForms {
    /// The manifest's `forms.families`, as written.
    families: &'static [String],
    implements: Vec<Family>,
    forms: Option<Forms>,
}

impl DesignForms {
    /// The forms of `rtl` when it is a `dut build` design; `None` for a built-in variant, which
    /// takes every operation.
    pub(crate) fn of(rtl: &str) -> Result<Option<DesignForms>, Error> {
        let Some(rec) = ptxfma_cosim_engine::dut::record_of(rtl)? else {
            return Ok(None);
        };
        Ok(Some(DesignForms {
            families: &rec.families,
            implements: rec
                .families
                .iter()
                .filter_map(|f| Family::parse(f))
                .collect(),
            forms: rec.forms(),
        }))
    }

    /// Why the design does not take `inp` (one sentence naming the instruction and what the
    /// design implements), or `None` when it does (an idle or reset cycle included).
    pub(crate) fn refusal(&self, inp: &PipeIn) -> Option<String> {
        if !inp.valid || inp.reset {
            return None;
        }
        let ctrl = Ctrl::decode(inp.ctrl);
        let family = Family::of(&ctrl);
        let what = if !self.implements.contains(&family) {
            format!(
                "a {} operation; the design implements only {} (forms.families of its manifest)",
                family.name(),
                self.families.join(", ")
            )
        } else if let Some(why) = self.forms.as_ref().and_then(|f| f.refusal(&ctrl)) {
            format!("outside the design's forms: {why} (forms of its manifest)")
        } else {
            return None;
        };
        Some(format!(
            "`{}` is {what}",
            ptxfma_cosim_engine::stim::ptx_spelling(&ctrl)
        ))
    }
}

/// A number, decimal or `0x` hex, `_` allowed between digits.
pub(crate) fn number(s: &str) -> Result<u64, String> {
    let v = s.replace('_', "");
    let r = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    };
    r.map_err(|_| {
        format!(
            "`{}` is not a number (decimal or 0x hex)",
            ptxfma_ptx::quote::quote(s)
        )
    })
}

/// A value parser for a number in `lo..=hi`.
pub(crate) fn in_range(
    lo: u64,
    hi: u64,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync {
    move |s| {
        let v = number(s)?;
        if v < lo || v > hi {
            return Err(format!("{v} is out of range: {lo} to {hi}"));
        }
        Ok(v)
    }
}

/// `--filter`: a comma-separated family list, or `all`.
pub(crate) fn families(s: &str) -> Result<Families, String> {
    Families::parse(s)
}
