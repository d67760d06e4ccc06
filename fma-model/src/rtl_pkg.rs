//! The facts the RTL shares with the model, generated from the model's declarations: the widths
//! (`geometry`, the formats), the control word's enums and `ctrl_t` (`CTRL_FIELDS`,
//! `coded_enum!`), the lane enables, the register banks (`reg!`), and the DPI package's
//! constants. Each goes into a region of a hand-written SystemVerilog file, between
//! `// BEGIN GENERATED: NAME` and `// END GENERATED: NAME` lines; the logic around them stays
//! hand-written. `fma-model gen-rtl-pkg` writes them; its `--check` (and a test) fails when a
//! committed file differs from what it would write.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel, CTRL_BITS, CTRL_FIELDS};
use ptxfma_model::format::{Fmt, BF16, F16, F32, F64};
use ptxfma_model::geometry;
use ptxfma_model::machine::pipeline::{LaneEn, LATENCY};
use ptxfma_model::regs::{Out, Reg, RtlField, S1Lane, S1Vmad, S2Lane, S3Lane, S1, S2, S3};

/// The command that writes the regions, as their header names it.
pub const COMMAND: &str = "fma-model gen-rtl-pkg";

/// One generated region of one file.
pub struct Region {
    /// The file, relative to the repository root.
    pub file: &'static str,
    pub name: &'static str,
    /// The region's lines, indented as the file wants them.
    pub text: String,
}

/// Every region, in file order.
pub fn regions() -> Vec<Region> {
    vec![
        Region {
            file: "rtl/ptxfma_pkg.sv",
            name: "widths",
            text: widths(),
        },
        Region {
            file: "rtl/ptxfma_pkg.sv",
            name: "control word",
            text: control_word(),
        },
        Region {
            file: "rtl/ptxfma_pkg.sv",
            name: "registers",
            text: registers(),
        },
        Region {
            file: "dpi/ptxfma_dpi_pkg.sv",
            name: "constants",
            text: dpi_constants(),
        },
    ]
}

/// `ALIGN_W` -> `AlignW`, the package's name for a Rust constant.
fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_string() + &c.as_str().to_lowercase())
                .unwrap_or_default()
        })
        .collect()
}

/// `S1Lane` -> `s1_lane`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

/// A doc comment as `//` lines at `indent`, refilled to the RTL's 100 columns.
fn comment(out: &mut String, indent: &str, doc: &str) {
    let mut line = String::new();
    for word in doc.split_whitespace() {
        if !line.is_empty() && indent.len() + 3 + line.len() + 1 + word.len() > 100 {
            writeln!(out, "{indent}// {line}").unwrap();
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        writeln!(out, "{indent}// {line}").unwrap();
    }
}

fn widths() -> String {
    let mut out = String::new();
    comment(
        &mut out,
        "  ",
        "The formats' fields, as cvfpu's fp_encoding_t table (model/src/format.rs).",
    );
    let formats: [(&str, Fmt); 4] = [("F64", F64), ("F32", F32), ("F16", F16), ("BF16", BF16)];
    for (n, f) in formats {
        writeln!(
            out,
            "  localparam int unsigned {n}ManBits = {};",
            f.frac_bits
        )
        .unwrap();
    }
    for (n, f) in formats {
        writeln!(
            out,
            "  localparam int unsigned {n}ExpBits = {};",
            f.exp_bits
        )
        .unwrap();
    }
    out.push('\n');
    comment(
        &mut out,
        "  ",
        "The datapath's widths and the adder window's geometry (model/src/geometry.rs, which \
         draws the window).",
    );
    for (name, value, doc) in geometry::ALL {
        comment(&mut out, "  ", doc);
        writeln!(out, "  localparam int unsigned {} = {value};", camel(name)).unwrap();
    }
    comment(&mut out, "  ", "The control word (Ctrl::encode).");
    writeln!(out, "  localparam int unsigned CtrlW = {CTRL_BITS};").unwrap();
    out.push('\n');
    comment(
        &mut out,
        "  ",
        "Exponents: ExpW bits signed inside a stage, the low ExpRegW bits in the registers.",
    );
    out.push_str("  typedef logic signed [ExpW-1:0]    exp_t;\n");
    out.push_str("  typedef logic signed [ExpRegW-1:0] exp14_t;\n");
    out
}

/// One enum of the control word: its SV name, the prefix of its members, its doc, its field's
/// width, its variants, and what a code decodes to.
fn enum_type<E: Copy + PartialEq>(
    out: &mut String,
    name: &str,
    prefix: &str,
    doc: &str,
    width: u32,
    variants: &[(E, &str)],
    decode: impl Fn(u32) -> E,
) {
    let member = |v: &str| format!("{prefix}_{}", v.to_ascii_uppercase());
    let codes = 1u32 << width;
    let mut doc = doc.to_string();
    if (variants.len() as u32) < codes {
        let fallback = variants
            .iter()
            .find(|(v, _)| *v == decode(variants.len() as u32))
            .map(|(_, n)| member(n))
            .unwrap_or_default();
        let reserved = if variants.len() as u32 + 1 == codes {
            format!("Code {} is reserved and reads", variants.len())
        } else {
            format!(
                "Codes {}..{} are reserved and read",
                variants.len(),
                codes - 1
            )
        };
        doc = format!("{doc} {reserved} as {fallback} (Ctrl::decode).");
    }
    comment(out, "  ", &doc);
    writeln!(out, "  typedef enum logic [{}:0] {{", width - 1).unwrap();
    let w = variants
        .iter()
        .map(|(_, n)| member(n).len())
        .max()
        .unwrap_or(0);
    for (i, (_, n)) in variants.iter().enumerate() {
        let comma = if i + 1 < variants.len() { "," } else { "" };
        writeln!(out, "    {:w$} = {width}'d{i}{comma}", member(n)).unwrap();
    }
    writeln!(out, "  }} {name};\n").unwrap();
}

fn control_word() -> String {
    let mut out = String::new();
    let field = |name: &str| CTRL_FIELDS.iter().find(|f| f.name == name).unwrap();
    let code = |name: &str, v: u32| Ctrl::decode(v << field(name).lsb);
    enum_type(
        &mut out,
        "kind_e",
        "KIND",
        "Datapath kind.",
        field("kind").width,
        Kind::VARIANTS,
        |v| code("kind", v).kind,
    );
    enum_type(
        &mut out,
        "rnd_e",
        "RND",
        "IEEE rounding direction.",
        field("rnd").width,
        Rnd::VARIANTS,
        |v| code("rnd", v).rnd,
    );
    enum_type(
        &mut out,
        "ab_fmt_e",
        "AB",
        "Source format of a (and b unless b_one).",
        field("ab_fmt").width,
        AbFmt::VARIANTS,
        |v| code("ab_fmt", v).ab_fmt,
    );
    enum_type(
        &mut out,
        "sel_e",
        "SEL",
        "vmad operand selector.",
        field("asel").width,
        Sel::VARIANTS,
        |v| code("asel", v).asel,
    );
    enum_type(
        &mut out,
        "scale_e",
        "SCALE",
        "vmad result scaling.",
        field("scale").width,
        Scale::VARIANTS,
        |v| code("scale", v).scale,
    );
    writeln!(
        out,
        "  // The {CTRL_BITS}-bit control word, MSB first; bit positions equal Ctrl::encode's."
    )
    .unwrap();
    out.push_str("  typedef struct packed {\n");
    let tw = CTRL_FIELDS
        .iter()
        .map(|f| f.rtl_type.unwrap_or("logic").len())
        .max()
        .unwrap_or(0);
    let nw = CTRL_FIELDS
        .iter()
        .map(|f| f.name.len() + 1)
        .max()
        .unwrap_or(0);
    for f in CTRL_FIELDS.iter().rev() {
        let bits = if f.width == 1 {
            format!("{}", f.lsb)
        } else {
            format!("{}:{}", f.lsb + f.width - 1, f.lsb)
        };
        let ty = f.rtl_type.unwrap_or("logic");
        let name = format!("{};", f.name);
        writeln!(out, "    {ty:tw$} {name:nw$}  // {bits}").unwrap();
    }
    out.push_str("  } ctrl_t;\n\n");
    // The lane enables' fields, in declaration order, as the derived Debug prints them.
    let lane_en = LaneEn {
        lane0: false,
        lane1: false,
        vm: false,
    };
    let debug = format!("{lane_en:?}");
    comment(
        &mut out,
        "  ",
        "Which banks carry live data for a kind (the model's `pipeline::lanes`): the others \
         load zero, as clock-gated flops would.",
    );
    out.push_str("  typedef struct packed {\n");
    for field in debug
        .trim_start_matches("LaneEn {")
        .trim_end_matches('}')
        .split(',')
        .filter_map(|f| f.split(':').next())
        .map(str::trim)
        .filter(|f| !f.is_empty())
    {
        writeln!(out, "    logic {field};").unwrap();
    }
    out.push_str("  } lane_en_t;\n");
    out
}

/// A register field's RTL type.
fn field_type(f: &RtlField) -> String {
    if let Some(t) = f.rtl_type {
        return t.to_string();
    }
    if f.width == "1" {
        return "logic".into();
    }
    if let Some(reg) = f.width.strip_suffix("::WIDTH") {
        return format!("{}_t", snake(reg));
    }
    format!("logic [{}-1:0]", camel(f.width))
}

fn register<R: Reg>(out: &mut String) {
    comment(out, "  ", &format!("{}: {}", R::NAME, R::DOC.trim()));
    out.push_str("  typedef struct packed {\n");
    let types: Vec<String> = R::RTL_FIELDS.iter().map(field_type).collect();
    let w = types.iter().map(String::len).max().unwrap_or(0);
    for (f, t) in R::RTL_FIELDS.iter().zip(&types) {
        writeln!(out, "    {t:w$} {};", f.name).unwrap();
    }
    writeln!(out, "  }} {}_t;\n", snake(R::NAME)).unwrap();
}

fn registers() -> String {
    let mut out = String::new();
    register::<S1Lane>(&mut out);
    register::<S1Vmad>(&mut out);
    register::<S1>(&mut out);
    register::<S2Lane>(&mut out);
    register::<S2>(&mut out);
    register::<S3Lane>(&mut out);
    register::<S3>(&mut out);
    register::<Out>(&mut out);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

fn dpi_constants() -> String {
    let mut out = String::new();
    comment(
        &mut out,
        "  ",
        "Cycles from an input to its result on the output ports, and the control word's width.",
    );
    writeln!(out, "  localparam int unsigned PtxfmaLatency  = {LATENCY};").unwrap();
    writeln!(
        out,
        "  localparam int unsigned PtxfmaCtrlBits = {CTRL_BITS};"
    )
    .unwrap();
    out.push('\n');
    comment(
        &mut out,
        "  ",
        "Register banks for the stage images (enum PtxfmaStage), in pipeline order.",
    );
    let banks = [S1::NAME, S2::NAME, S3::NAME, Out::NAME];
    let w = banks.iter().map(|b| b.len()).max().unwrap_or(0);
    for (i, b) in banks.iter().enumerate() {
        writeln!(out, "  localparam int unsigned PtxfmaStage{b:w$} = {i};").unwrap();
    }
    out
}

fn begin(name: &str) -> String {
    format!("  // BEGIN GENERATED: {name} ({COMMAND}; edit the model, not this)")
}

fn end(name: &str) -> String {
    format!("  // END GENERATED: {name}")
}

/// `text` with each region of `file` replaced by what it should hold.
pub fn splice(file: &str, text: &str) -> Result<String, String> {
    let mut out = text.to_string();
    for r in regions().iter().filter(|r| r.file == file) {
        let (b, e) = (begin(r.name), end(r.name));
        let start = out
            .find(&format!("{b}\n"))
            .ok_or_else(|| format!("{file}: no line `{}`", b.trim()))?;
        let body = start + b.len() + 1;
        let stop = out[body..]
            .find(&format!("{e}\n"))
            .map(|k| body + k)
            .ok_or_else(|| format!("{file}: no line `{}`", e.trim()))?;
        out.replace_range(body..stop, &r.text);
    }
    Ok(out)
}

/// The files that hold regions, under `root`.
pub fn files(root: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut names: Vec<&'static str> = regions().iter().map(|r| r.file).collect();
    names.dedup();
    names.into_iter().map(|n| (root.join(n), n)).collect()
}
