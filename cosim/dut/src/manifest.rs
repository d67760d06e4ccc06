//! The manifest of a team's design (`fma-cosim dut build`): a small TOML file naming the
//! sources, the top and how to Verilate them, and what of the contract the design implements.
//!
//! ```toml
//! [design]
//! top = "my_fma_top"
//! sources = ["rtl/my_fma.sv", "rtl/my_fma_top.sv"]   # relative to this file
//! file_list = "rtl/files.f"        # or / and: one source a line, +incdir+DIR, +define+X=Y
//! include_dirs = ["rtl/include"]
//! defines = ["MY_OPTION=1"]
//! verilator_flags = ["-Wno-WIDTH"]
//!
//! [design.parameters]              # the top's parameters, passed as -GNAME=VALUE
//! Stages = 3
//! Mode = "fast"
//!
//! [contract]
//! latency_bound = 64               # cycles from issue to retirement (as --latency-bound)
//! latency = 5                      # a fixed latency: edges from issue to hand-over (`dut prove`)
//! tag_width = 8                    # bits of in_tag_i / out_tag_o (default 16; 0: no tags)
//! handshake = true                 # in_ready_o / out_ready_i (default false)
//! nan = "canonical"                # NaN results: ptx (default), canonical, any
//!
//! [contract.canonical_nan]         # with canonical: a format's NaN where not the default
//! f32 = "0xffc00000"
//!
//! [forms]                          # what the design implements; each key left out: all
//! families = ["f32"]               # the stimulus draws only these (a list is never empty)
//! operations = ["fma", "mul"]      # PTX opcodes: fma, add, sub, mul, mad (sm_1x), vmad
//! formats = ["f32"]                # PTX types: f32, f64, f32x2, f32.f16, f32.bf16, f16,
//!                                  #   bf16, f16x2, bf16x2 (vmad has none)
//! rounding = ["rn", "rz"]          # of every word with a mode (all but vmad)
//! ftz = false                      # no .ftz words (default true)
//! sat = false                      # no .sat words (default true)
//! relu = false                     # no .relu words (default true)
//! oob = false                      # no .oob words (default true)
//!
//! [prove.product.f16]              # `dut prove --by-cases`: the wire that carries the product
//! wire = "u_lane.sig_prod"         #   of a's and b's significands (flattened name), and the
//! stage = 1                        #   edges from issue to the step it holds the operation's
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use ptxfma_cosim_engine::dut::Parameter;
use ptxfma_cosim_engine::forms::Forms as EngineForms;
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::Error;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub design: Design,
    #[serde(default)]
    pub contract: Contract,
    #[serde(default)]
    pub forms: Forms,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prove: Option<Prove>,
}

/// What `dut prove --by-cases` needs to know of the design's insides (docs/formal.md, "Proof by
/// cases").
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Prove {
    /// By half format (`f16`, `bf16`): the design's significand product, cut there and driven
    /// from the specification multiplier once it is proved to be that product.
    #[serde(default)]
    pub product: BTreeMap<String, ProductWire>,
}

/// A wire of the flattened design that holds the unsigned product of a's and b's significands
/// (hidden bit included, none for a subnormal) in its low bits and zeros above.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProductWire {
    /// Its name after flattening (Yosys: `u_lane.sig_prod` for `sig_prod` in instance `u_lane`).
    pub wire: String,
    /// Rising edges from the operation's issue to the cycle the wire holds its product.
    pub stage: u64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Design {
    pub top: String,
    #[serde(default)]
    pub sources: Vec<PathBuf>,
    pub file_list: Option<PathBuf>,
    #[serde(default)]
    pub include_dirs: Vec<PathBuf>,
    #[serde(default)]
    pub defines: Vec<String>,
    #[serde(default)]
    pub verilator_flags: Vec<String>,
    /// The top's parameters (`[design.parameters]`, name = integer or string), read as TOML
    /// values so that another type is refused by name.
    #[serde(default)]
    pub parameters: BTreeMap<String, toml::Value>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// Default: [`ptxfma_cosim_engine::ports::DEFAULT_BOUND`].
    pub latency_bound: Option<u64>,
    /// The design's fixed latency, counted as `latency_bound` and `run`'s report count it
    /// (docs/dut.md, "Latency": rising edges from the one that takes an operation to the one
    /// that hands its result over; a pipe's register stages: `ptxfma_top` 4, `rtl/alt/` 6).
    /// Only `dut prove` reads it, to line the design's results up with the kit's in its miter.
    pub latency: Option<u64>,
    /// Width of `in_tag_i` and `out_tag_o`, 0 to 16 (default 16). A narrower tag is the
    /// stream's tag modulo 2^width; results are matched to the oldest operation in flight
    /// under it, so a design may have at most 2^width operations in flight. 0: the design has
    /// neither port and retires in issue order.
    pub tag_width: Option<u32>,
    /// The design has a ready/valid handshake: `in_ready_o` (an operation is taken at a
    /// rising edge only while it is high; the co-simulator holds it until then) and
    /// `out_ready_i` (a result is taken only while it is high; the design holds it until then).
    #[serde(default)]
    pub handshake: bool,
    /// How its NaN results are judged: `ptx` (default: PTX's rule, docs/semantics.md S1, S2,
    /// S10), `canonical` (the format's default quiet NaN, lane by lane) or `any` (any NaN).
    pub nan: Option<String>,
    /// With `nan = "canonical"`: the design's NaN of a format where it is not the format's
    /// default quiet NaN (`f32`, `f64`, `f16`, `bf16` = a hex string or an integer).
    pub canonical_nan: Option<BTreeMap<String, toml::Value>>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Forms {
    /// Family names (`fma-cosim run --filter`); left out: every family (an empty list is
    /// refused: it would check nothing, or everything, by accident).
    pub families: Option<Vec<String>>,
    /// PTX opcodes (`fma`, `add`, `sub`, `mul`, sm_1x `mad`, `vmad`); left out: all.
    pub operations: Option<Vec<String>>,
    /// PTX types (`f32`, `f64`, `f32x2`, `f32.f16`, `f32.bf16`, `f16`, `bf16`, `f16x2`,
    /// `bf16x2`) of the floating-point words; left out: all. `vmad` has none.
    pub formats: Option<Vec<String>>,
    /// Rounding modes (`rn`, `rz`, `rm`, `rp`) of every word that has one (all but `vmad`;
    /// sm_1x `mad` and the half words but `fma.{rz,rm,rp}.bf16` round to nearest); left
    /// out: all four.
    pub rounding: Option<Vec<String>>,
    /// Whether the design implements `.ftz` (default true).
    pub ftz: Option<bool>,
    /// Whether the design implements `.sat` (default true).
    pub sat: Option<bool>,
    /// Whether the design implements `.relu` (half words; default true).
    pub relu: Option<bool>,
    /// Whether the design implements `.oob` (half words; default true).
    pub oob: Option<bool>,
}

impl Forms {
    /// The first list key given empty, refused: an empty list would check nothing, or
    /// everything, by accident.
    fn empty_list(&self) -> Option<&'static str> {
        [
            ("families", &self.families),
            ("operations", &self.operations),
            ("formats", &self.formats),
            ("rounding", &self.rounding),
        ]
        .into_iter()
        .find_map(|(key, list)| list.as_ref().is_some_and(Vec::is_empty).then_some(key))
    }

    /// The engine's forms these keys say (`None`: every form), checked: every name known, and
    /// each of `families` left at least one word (else the family would draw nothing and its
    /// every bin would be outside the run, a manifest mistake rather than a design).
    fn resolve(&self, families: &[Family]) -> Result<Option<EngineForms>, String> {
        use ptxfma_cosim_engine::forms::{FORMATS, OPERATIONS, ROUNDING};
        let all = EngineForms::ALL;
        let forms = EngineForms {
            rnds: flags("rounding", "mode", &self.rounding, &ROUNDING)?,
            operations: flags("operations", "operation", &self.operations, &OPERATIONS)?,
            formats: flags("formats", "format", &self.formats, &FORMATS)?,
            ftz: self.ftz.unwrap_or(all.ftz),
            sat: self.sat.unwrap_or(all.sat),
            relu: self.relu.unwrap_or(all.relu),
            oob: self.oob.unwrap_or(all.oob),
        };
        if forms.is_all() {
            return Ok(None);
        }
        for fam in families {
            if !fam.ctrls().iter().any(|c| forms.allows(c)) {
                return Err(format!(
                    "forms leave family `{}` no instruction ({}): drop it from forms.families",
                    fam.name(),
                    forms.describe()
                ));
            }
        }
        Ok(Some(forms))
    }
}

/// `list` (a `[forms]` key; left out: every name) as flags over `names`: an error naming the
/// key and a name it does not know, with the names it does.
fn flags<const N: usize>(
    key: &str,
    what: &str,
    list: &Option<Vec<String>>,
    names: &[&str; N],
) -> Result<[bool; N], String> {
    let Some(list) = list else {
        return Ok([true; N]);
    };
    let mut on = [false; N];
    for given in list {
        let k = names.iter().position(|n| n == given).ok_or_else(|| {
            format!(
                "forms.{key}: no {what} `{given}` ({key}: {})",
                names.join(", ")
            )
        })?;
        on[k] = true;
    }
    Ok(on)
}

/// A manifest with every path made absolute and checked, the file list read.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub manifest: Manifest,
    pub sources: Vec<PathBuf>,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub parameters: BTreeMap<String, Parameter>,
    pub families: Vec<Family>,
    /// None: every form of the families.
    pub forms: Option<ptxfma_cosim_engine::stim::Forms>,
    /// `contract.canonical_nan`: format name -> the design's NaN of it.
    pub canonical_nan: BTreeMap<String, u64>,
}

impl Manifest {
    /// Reads and checks `path`: one-line errors naming the manifest and what is wrong.
    pub fn load(path: &Path) -> Result<Resolved, Error> {
        let at = |m: String| Error::new(format!("{}: {m}", path.display()));
        let text = read_text(path).map_err(at)?;
        let manifest: Manifest =
            toml::from_str(&text).map_err(|e| at(e.message().replace('\n', " ")))?;
        let dir = path
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                }
            })
            .unwrap_or(Path::new("."));
        let dir = dir.canonicalize().map_err(|e| at(e.to_string()))?;
        let d = &manifest.design;
        if d.top.is_empty() || !d.top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(at(format!("design.top `{}` is not a module name", d.top)));
        }
        if let Some(why) = d.verilator_flags.iter().find_map(|f| flag_problem(f)) {
            return Err(at(format!("design.verilator_flags: {why}")));
        }
        let file = |p: &Path, what: &str| -> Result<PathBuf, Error> {
            let full = dir.join(p);
            if full.is_file() {
                Ok(full)
            } else {
                Err(at(format!("{what} {} does not exist", full.display())))
            }
        };
        let mut sources = Vec::new();
        for s in &d.sources {
            sources.push(file(s, "source")?);
        }
        let mut include_dirs: Vec<PathBuf> = Vec::new();
        for i in &d.include_dirs {
            let full = dir.join(i);
            if !full.is_dir() {
                return Err(at(format!("include dir {} does not exist", full.display())));
            }
            include_dirs.push(full);
        }
        for def in &d.defines {
            if let Some(why) = define_problem(def) {
                return Err(at(format!("design.defines: {why}")));
            }
        }
        let mut defines = d.defines.clone();
        if let Some(fl) = &d.file_list {
            let fl = file(fl, "file list")?;
            let base = fl.parent().unwrap_or(&dir).to_path_buf();
            let text =
                read_text(&fl).map_err(|e| at(format!("file list {}: {e}", fl.display())))?;
            for (n, line) in text.lines().enumerate() {
                let line = line.split("//").next().unwrap_or("").trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                if let Some(inc) = line.strip_prefix("+incdir+") {
                    include_dirs.extend(
                        inc.split('+')
                            .filter(|s| !s.is_empty())
                            .map(|s| base.join(s)),
                    );
                } else if let Some(def) = line.strip_prefix("+define+") {
                    for def in def.split('+').filter(|s| !s.is_empty()) {
                        if let Some(why) = define_problem(def) {
                            return Err(at(format!("{}:{}: {why}", fl.display(), n + 1)));
                        }
                        defines.push(def.to_string());
                    }
                } else if line.starts_with('-') || line.starts_with('+') {
                    return Err(at(format!(
                        "{}:{}: `{line}`: only sources, +incdir+ and +define+ are understood",
                        fl.display(),
                        n + 1
                    )));
                } else {
                    let src = base.join(line);
                    if !src.is_file() {
                        return Err(at(format!(
                            "{}:{}: source {} does not exist",
                            fl.display(),
                            n + 1,
                            src.display()
                        )));
                    }
                    sources.push(src);
                }
            }
        }
        if sources.is_empty() {
            return Err(at(
                "no sources: give design.sources or design.file_list".into()
            ));
        }
        if let Some(key) = manifest.forms.empty_list() {
            return Err(at(format!(
                "forms.{key} is empty: name at least one, or leave the key out for all"
            )));
        }
        let mut families = Vec::new();
        for f in manifest.forms.families.iter().flatten() {
            families.push(Family::parse(f).ok_or_else(|| {
                at(format!(
                    "forms.families: no family `{f}` (families: {})",
                    Family::ALL
                        .iter()
                        .map(|f| f.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?);
        }
        if families.is_empty() {
            families = Family::ALL.to_vec();
        }
        if let Some(w) = manifest.contract.tag_width {
            if w > 16 {
                return Err(at(format!(
                    "contract.tag_width {w} is not in 0..=16 (0: no tag ports)"
                )));
            }
        }
        let mut parameters = BTreeMap::new();
        for (name, value) in &d.parameters {
            if let Some(why) = Parameter::name_problem(name) {
                return Err(at(format!("design.parameters: {why}")));
            }
            let p = match value {
                toml::Value::Integer(v) => Parameter::Integer(*v),
                toml::Value::String(t) => Parameter::Text(t.clone()),
                other => {
                    return Err(at(format!(
                        "design.parameters.{name} is a {}: give an integer or a string",
                        other.type_str()
                    )))
                }
            };
            if let Some(why) = p.problem(name) {
                return Err(at(format!("design.parameters: {why}")));
            }
            parameters.insert(name.clone(), p);
        }
        let forms = manifest.forms.resolve(&families).map_err(at)?;
        if let Some(n) = &manifest.contract.nan {
            if ptxfma_ptx::NanConvention::parse(n).is_none() {
                return Err(at(format!(
                    "contract.nan `{n}`: one of ptx, canonical, any"
                )));
            }
        }
        let canonical_nan = canonical_nans(&manifest.contract).map_err(at)?;
        let range = ptxfma_cosim_engine::ports::BOUND_RANGE;
        if let Some(b) = manifest.contract.latency_bound {
            if !range.contains(&b) {
                return Err(at(format!(
                    "contract.latency_bound {b} is not in {}..={} (as --latency-bound)",
                    range.start(),
                    range.end()
                )));
            }
        }
        if let Some(p) = &manifest.prove {
            for (format, w) in &p.product {
                if !["f16", "bf16"].contains(&format.as_str()) {
                    return Err(at(format!(
                        "prove.product.{format}: a product is named for f16 or bf16"
                    )));
                }
                if w.wire.is_empty() || w.wire.chars().any(|c| c.is_whitespace() || c == ';') {
                    return Err(at(format!(
                        "prove.product.{format}.wire `{}` is not a wire name",
                        w.wire
                    )));
                }
                if manifest.contract.latency.is_some_and(|l| w.stage >= l) {
                    return Err(at(format!(
                        "prove.product.{format}.stage {} is not before the result (contract.latency)",
                        w.stage
                    )));
                }
            }
        }
        if let Some(l) = manifest.contract.latency {
            let bound = manifest
                .contract
                .latency_bound
                .unwrap_or(ptxfma_cosim_engine::ports::DEFAULT_BOUND);
            if l > bound {
                return Err(at(format!(
                    "contract.latency {l} is above the latency bound {bound}"
                )));
            }
        }
        Ok(Resolved {
            manifest,
            sources,
            include_dirs,
            defines,
            parameters,
            families,
            forms,
            canonical_nan,
        })
    }
}

/// Verilator flags `dut build` decides itself, with why: where Verilator writes (`--Mdir`),
/// what it names the model (`--prefix`, `--top-module`), a build of its own that writes an
/// executable or library elsewhere (`-o`, `--build`, `--exe`, ...), a file written at a path
/// of the flag's (`--waiver-output`, `--xml-output`), and a file of further flags that this
/// check would not see (`-f`, `-F`).
const REFUSED_FLAGS: &[(&[&str], &str)] = &[
    (
        &["Mdir"],
        "moves Verilator's output out of the build's directory",
    ),
    (
        &["prefix", "top-module", "top", "mod-prefix"],
        "renames the model the build compiles (design.top names the top)",
    ),
    (
        &[
            "o",
            "build",
            "binary",
            "exe",
            "make",
            "main",
            "build-jobs",
            "j",
            "lib-create",
            "protect-lib",
            "no-verilate",
        ],
        "has Verilator build or name an executable or library of its own, which `dut build` \
         compiles itself",
    ),
    (
        &[
            "waiver-output",
            "xml-output",
            "xml-only",
            "json-only",
            "dpi-hdr-only",
            "lint-only",
            "E",
            "rr",
        ],
        "writes elsewhere than the build's model, or no model",
    ),
    (
        &["f", "F"],
        "reads further flags from a file, which are not checked: list them in \
         design.verilator_flags (sources in design.file_list)",
    ),
];

/// Why Verilator flag `flag` is refused (`-Mdir`, `--Mdir`, `--Mdir=DIR` alike), if it is.
pub fn flag_problem(flag: &str) -> Option<String> {
    let name = flag.strip_prefix("--").or_else(|| flag.strip_prefix('-'))?;
    let name = name.split('=').next().unwrap_or(name);
    REFUSED_FLAGS
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, why)| format!("`{flag}` is refused: it {why}"))
}

/// The NaNs `contract.canonical_nan` names (only with `nan = "canonical"`), each a NaN of its
/// format.
fn canonical_nans(c: &Contract) -> Result<BTreeMap<String, u64>, String> {
    let Some(table) = &c.canonical_nan else {
        return Ok(BTreeMap::new());
    };
    if c.nan.as_deref() != Some("canonical") {
        return Err("contract.canonical_nan applies only to nan = \"canonical\"".into());
    }
    let mut nans = ptxfma_ptx::CanonicalNans::default();
    let mut out = BTreeMap::new();
    for (name, v) in table {
        let value = match v {
            toml::Value::Integer(i) if *i >= 0 => Some(*i as u64),
            toml::Value::String(s) => s
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(&h.replace('_', ""), 16).ok()),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "contract.canonical_nan.{name}: a hex string such as \"0xffc00000\" or a \
                 non-negative integer"
            )
        })?;
        nans.set(name, value)
            .map_err(|e| format!("contract.canonical_nan.{name}: {e}"))?;
        out.insert(name.clone(), value);
    }
    Ok(out)
}

/// Why `define` (`NAME` or `NAME=VALUE`) cannot be handed on, if it cannot: Verilator takes it
/// as `-DNAME=VALUE` and `dut prove` writes it into a Yosys script, one command a line, so
/// NAME is an identifier and VALUE one line (a line break there would start a command).
fn define_problem(define: &str) -> Option<String> {
    let (name, value) = define.split_once('=').unwrap_or((define, ""));
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Some(format!(
            "{name:?} is not a macro name (a letter or `_`, then letters, digits or `_`)"
        ));
    }
    value
        .chars()
        .any(char::is_control)
        .then(|| format!("{define:?}: a define's value is one line, without control characters"))
}

/// The most a manifest or a file list may hold: far more than any (they name files), little
/// enough that `/dev/zero` or a huge file is refused, not read until memory runs out.
const MAX_TEXT: u64 = 64 << 20;

/// The text of a manifest or file list, at most [`MAX_TEXT`] bytes.
fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(MAX_TEXT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_TEXT {
        return Err(format!("over {} MiB: not a manifest", MAX_TEXT >> 20));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}
