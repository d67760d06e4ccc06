//! A team's own FMA as the RTL side: the library `fma-cosim dut build` wrote
//! (`ptxfma-cosim-dut`) loaded ([`load`]), with its narrower tags ([`tags`]) and a ready/valid
//! design driven a design cycle at a time ([`handshake`]); the record that both sides share.

pub mod handshake;
pub mod load;
pub mod tags;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ptxfma_ptx::NanConvention;
use serde::{Deserialize, Serialize};

/// Version of the C ABI between `load.rs` and [`SHIM_CPP`], and of the record: a
/// library or record of another version is refused with "rebuild it". 4: the record's
/// `parameters`, and designs without tags (`tag_width` 0). 5: closing the trace reports a
/// failed write. 6: the record's `files` (what `dut build` may replace) and `read` (the files
/// Verilator read besides the sources, as `include`d headers).
pub const ABI: u32 = 6;
/// The C side of [`ABI`], compiled into every library `dut build` writes: the shim between a
/// Verilated design and [`load`] (`csrc/dut.cpp`), and the core it shares with the built-in
/// RTL's `csrc/sim.cpp`. Kept here, beside the loader, so that both sides of the ABI change
/// together.
pub const SHIM_CPP: &str = include_str!("../../csrc/dut.cpp");
pub const SIM_CORE_H: &str = include_str!("../../csrc/sim_core.h");
/// The build's record, beside the library.
pub const RECORD: &str = "dut.json";
/// The library's file name.
pub const LIBRARY: &str = "libptxfma_dut.so";

/// Who built a library: a library is loaded only by the `fma-cosim` (and Verilator) that built
/// it, since the frame layout and the shim may change between versions.
pub fn build_id() -> String {
    format!(
        "fma-cosim {} ({})",
        env!("CARGO_PKG_VERSION"),
        crate::rtl::variant::VERILATOR_VERSION
    )
}

/// What `dut build` writes beside the library (`dut.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub abi: u32,
    pub built_by: String,
    pub top: String,
    pub library: String,
    pub manifest: PathBuf,
    pub sources: Vec<PathBuf>,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// The manifest's Verilator flags, as the design was Verilated with them.
    pub verilator_flags: Vec<String>,
    /// The top's parameters the design was Verilated with (`-GNAME=VALUE`).
    pub parameters: BTreeMap<String, Parameter>,
    /// SHA-256 of what the build read and wrote.
    pub sha256: Digests,
    /// Every other file Verilator read (`include`d headers, from its dependency file), with
    /// its SHA-256: an edit of one is refused as an edit of a source is.
    pub read: Vec<(PathBuf, String)>,
    /// Every file of the build's directory but this record (path relative to it, `/`
    /// separated -> SHA-256): a later `dut build` replaces the directory only while it holds
    /// these files alone, unchanged.
    pub files: BTreeMap<String, String>,
    /// (port, width in bits) of the design's top.
    pub ports: Vec<(String, u32)>,
    /// The families it implements: what `run --dut` draws by default.
    pub families: Vec<String>,
    pub latency_bound: u64,
    /// Bits of `in_tag_i` and `out_tag_o`; 0: the design has neither and retires in issue
    /// order.
    pub tag_width: u32,
    /// How its NaN results are judged (`contract.nan`: `ptx`, `canonical`, `any`).
    pub nan: String,
    /// Under `canonical`, the formats whose NaN the manifest names (`contract.canonical_nan`:
    /// `f32`, `f64`, `f16`, `bf16` -> hex); the others are the formats' default quiet NaNs.
    #[serde(default)]
    pub canonical_nan: BTreeMap<String, String>,
    /// `in_ready_o` and `out_ready_i`.
    pub handshake: bool,
    /// Forms within the families ([`crate::forms`]): rounding modes allowed (rn, rz, rm,
    /// rp), `.ftz`, `.sat`.
    pub rounding: [bool; 4],
    pub ftz: bool,
    pub sat: bool,
    /// The operations (`forms.operations`: fma, add, sub, mul, mad, vmad) and formats
    /// (`forms.formats`) allowed, by name, and `.relu`, `.oob`. A record of an earlier build
    /// has none of them: its manifest could not restrict them, so it allows all.
    #[serde(default = "all_operations")]
    pub operations: Vec<String>,
    #[serde(default = "all_formats")]
    pub formats: Vec<String>,
    #[serde(default = "allowed_by_default")]
    pub relu: bool,
    #[serde(default = "allowed_by_default")]
    pub oob: bool,
    /// Whether the traced model was built (`dut build --no-trace`: not), without which no
    /// waveform can be written. Absent in a record of an earlier build, which always had it.
    #[serde(default = "traced_by_default")]
    pub traced: bool,
    /// The fast model's C++ optimisation level (`dut build --cxx-opt`).
    #[serde(default = "default_cxx_opt")]
    pub cxx_opt: u32,
    pub build_seconds: f64,
}

fn traced_by_default() -> bool {
    true
}

fn allowed_by_default() -> bool {
    true
}

fn all_operations() -> Vec<String> {
    crate::forms::OPERATIONS.map(String::from).to_vec()
}

fn all_formats() -> Vec<String> {
    crate::forms::FORMATS.map(String::from).to_vec()
}

/// `names` (a record's operations or formats) as flags over `table`: an error naming `key`
/// and the first name that is not in it (a `what`).
fn flags<const N: usize>(
    key: &str,
    what: &str,
    names: &[String],
    table: &[&str; N],
) -> Result<[bool; N], String> {
    let mut on = [false; N];
    for n in names {
        let k = table
            .iter()
            .position(|t| t == n)
            .ok_or_else(|| format!("{key}: no {what} `{n}`"))?;
        on[k] = true;
    }
    Ok(on)
}

/// What `dut build` compiles the fast model with unless told otherwise: the fastest runs.
pub const DEFAULT_CXX_OPT: u32 = 3;

fn default_cxx_opt() -> u32 {
    DEFAULT_CXX_OPT
}

/// The record of the design `rtl` names when it is a `dut build` design (`dut:DIR`); `None`
/// for an RTL variant built in.
pub fn record_of(rtl: &str) -> Result<Option<&'static Record>, crate::Error> {
    rtl.strip_prefix("dut:")
        .map(|dir| load::open(std::path::Path::new(dir)).map(|l| &l.record))
        .transpose()
}

/// How the outputs name the design under test: a `dut build` design by its top and build
/// (`design `my_fma` (--dut DIR)`; `design in DIR` where the build cannot be read, as for a
/// `merge` away from it), an RTL variant built in by its name (`RTL `default``): a team's
/// design is not one of the kit's RTL variants.
pub fn describe(rtl: &str) -> String {
    match rtl.strip_prefix("dut:") {
        Some(dir) => match record_of(rtl) {
            Ok(Some(r)) => format!("design `{}` (--dut {dir})", r.top),
            _ => format!("design in {dir} (--dut)"),
        },
        None => format!("RTL `{rtl}`"),
    }
}

/// Whether `rtl` is a `dut build` design without tag ports (`contract.tag_width = 0`): what is
/// said of its results names no tag, since it never saw one (the co-simulator's own tags stay
/// inside the checker).
pub fn tagless(rtl: &str) -> bool {
    record_of(rtl)
        .ok()
        .flatten()
        .is_some_and(|r| r.tag_width == 0)
}

/// How the results of the design under test are judged by their NaNs: a `dut build` design's
/// by its record (`contract.nan`), the RTL variants built in by PTX's rule.
pub fn nan_convention(rtl: &str) -> Result<NanConvention, crate::Error> {
    Ok(record_of(rtl)?
        .and_then(|r| r.nan_convention().ok())
        .unwrap_or_default())
}

/// The latency bound of the design under test when it is checked by its ports: a `dut build`
/// design's record's, else [`crate::ports::DEFAULT_BOUND`].
pub fn latency_bound(rtl: &str) -> Result<u64, crate::Error> {
    Ok(record_of(rtl)?.map_or(crate::ports::DEFAULT_BOUND, |r| r.latency_bound))
}

/// A value of one of the top's parameters (`[design.parameters]`), as Verilator's `-G` takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Parameter {
    /// Within 32 bits, signed: Verilator reads an integer `-G` value into an `int`.
    Integer(i64),
    /// One line without a double quote: Verilator's `-G` string ends at the next one.
    Text(String),
}

impl Parameter {
    /// Why `name` is not the name of a top-level parameter Verilator's `-G` can set.
    pub fn name_problem(name: &str) -> Option<String> {
        let mut chars = name.chars();
        let identifier = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        (!identifier).then(|| {
            format!(
                "{name:?} is not a parameter name (a letter or `_`, then letters, digits or `_`)"
            )
        })
    }

    /// Why `name = self` cannot be passed to Verilator, if it cannot.
    pub fn problem(&self, name: &str) -> Option<String> {
        if let Some(why) = Parameter::name_problem(name) {
            return Some(why);
        }
        match self {
            Parameter::Integer(v) if i32::try_from(*v).is_err() => Some(format!(
                "{name} = {v} does not fit in 32 bits, signed (Verilator's -G takes an int)"
            )),
            Parameter::Text(t) if t.chars().any(|c| c.is_control() || c == '"') => Some(format!(
                "{name} = {t:?}: a string parameter is one line without a double quote \
                 (Verilator's -G string ends at the next one)"
            )),
            _ => None,
        }
    }

    /// The Verilator argument that sets parameter `name` to this value.
    pub fn verilator_arg(&self, name: &str) -> String {
        match self {
            Parameter::Integer(v) => format!("-G{name}={v}"),
            Parameter::Text(t) => format!("-G{name}=\"{t}\""),
        }
    }
}

/// SHA-256 digests (lower-case hex) of a build's inputs and its library.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digests {
    pub manifest: String,
    /// In the order of [`Record::sources`].
    pub sources: Vec<String>,
    pub library: String,
}

/// The SHA-256 of `bytes`, in lower-case hex.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Record {
    /// `nan` with the NaNs of `canonical_nan`: an error where either is not what a build
    /// writes.
    pub fn nan_convention(&self) -> Result<NanConvention, String> {
        let n = NanConvention::parse(&self.nan)
            .ok_or_else(|| format!("nan `{}` is not ptx, canonical or any", self.nan))?;
        let NanConvention::Canonical(mut nans) = n else {
            if let Some(f) = self.canonical_nan.keys().next() {
                return Err(format!("canonical_nan.{f} with nan `{}`", self.nan));
            }
            return Ok(n);
        };
        for (name, hex) in &self.canonical_nan {
            let v = hex
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("canonical_nan.{name} `{hex}` is not hex"))?;
            nans.set(name, v)
                .map_err(|e| format!("canonical_nan.{name}: {e}"))?;
        }
        Ok(NanConvention::Canonical(nans))
    }

    /// What a record must hold to be believed (`dut build` writes only such records; an edited
    /// one is refused before its library is mapped): a latency bound a run takes, tags of 1 to
    /// 16 bits, and at least one family, each one this build knows.
    pub fn check(&self) -> Result<(), String> {
        let range = crate::ports::BOUND_RANGE;
        if !range.contains(&self.latency_bound) {
            return Err(format!(
                "latency_bound {} is not in {}..={}",
                self.latency_bound,
                range.start(),
                range.end()
            ));
        }
        if self.tag_width > 16 {
            return Err(format!("tag_width {} is not in 0..=16", self.tag_width));
        }
        // The tag width the ports were built with: an edit of one without the other would
        // drive ports the library does not have.
        for port in ["in_tag_i", "out_tag_o"] {
            let width = self.ports.iter().find(|(p, _)| p == port).map(|(_, w)| *w);
            if width.unwrap_or(0) != self.tag_width {
                return Err(format!(
                    "tag_width {} but the ports hold {port} {}",
                    self.tag_width,
                    width.map_or("not at all".into(), |w| format!("of {w} bits"))
                ));
            }
        }
        if self.sha256.sources.len() != self.sources.len() {
            return Err(format!(
                "{} source digest(s) for {} source(s)",
                self.sha256.sources.len(),
                self.sources.len()
            ));
        }
        self.nan_convention()?;
        if self.families.is_empty() {
            return Err("families is empty".into());
        }
        if let Some(f) = self
            .families
            .iter()
            .find(|f| crate::stim::Family::parse(f).is_none())
        {
            return Err(format!("families: no family `{f}`"));
        }
        self.forms_checked()?;
        Ok(())
    }

    /// An error naming the manifest, a source or a file Verilator read that is still where the build read it but
    /// is not what it read (edited since): the build would not check the RTL in front of the
    /// user. One that is gone is not an error: a build may be copied to another machine.
    pub fn check_inputs(&self, dir: &Path) -> Result<(), String> {
        let inputs = std::iter::once((&self.manifest, &self.sha256.manifest))
            .chain(self.sources.iter().zip(&self.sha256.sources))
            .chain(self.read.iter().map(|r| (&r.0, &r.1)));
        for (path, digest) in inputs {
            let bytes = match std::fs::read(path) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("{}: {e}", path.display())),
            };
            if sha256(&bytes) != *digest {
                return Err(format!(
                    "{} changed since the build: rebuild with fma-cosim dut build {} --out {}",
                    path.display(),
                    self.manifest.display(),
                    dir.display()
                ));
            }
        }
        Ok(())
    }

    /// The forms of the families the design implements; None: all of them. (A record whose
    /// names are not known is refused by [`Record::check`] before this is asked.)
    pub fn forms(&self) -> Option<crate::stim::Forms> {
        self.forms_checked().ok().flatten()
    }

    fn forms_checked(&self) -> Result<Option<crate::stim::Forms>, String> {
        use crate::forms::{FORMATS, OPERATIONS};
        let f = crate::stim::Forms {
            rnds: self.rounding,
            operations: flags("operations", "operation", &self.operations, &OPERATIONS)?,
            formats: flags("formats", "format", &self.formats, &FORMATS)?,
            ftz: self.ftz,
            sat: self.sat,
            relu: self.relu,
            oob: self.oob,
        };
        Ok((!f.is_all()).then_some(f))
    }
}
