//! The coverage model: every group and bin, in one table.
//!
//! Bins are declared here in the order the reports show them. Which bins a legal instruction can
//! reach is derived from the decoder's legal control words (`Family::ctrls`, the same list the
//! stimulus draws from) wherever the question is "does some instruction have this modifier or
//! read this operand"; the few bins that are unreachable for an arithmetic reason (a rounding
//! rule, the window geometry, a product too short to cancel deeply) say so in their reason.
//! An unreachable bin is kept in the table with its reason, never dropped, and a hit on one is
//! reported as an error (the reason was wrong).
//!
//! The sampler (`sample.rs`) indexes bins as `group start + offset`; the offsets are the
//! constants of the small modules below, and every group's bin list is built from the same
//! constants, so a name and its index cannot drift apart.

use std::sync::OnceLock;

use ptxfma_model::machine::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};
use ptxfma_model::machine::legal::is_legal;
use ptxfma_model::stimulus::Family;
use ptxfma_ptx::print::ptx_spelling;

/// One bin of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinDef {
    pub name: String,
    /// `Some(reason)` for a bin no legal operation can reach.
    pub unreachable: Option<String>,
}

/// One group: a contiguous range of bins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupDef {
    pub name: String,
    pub doc: String,
    pub start: usize,
    pub len: usize,
}

/// Groups and bins, in report order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Layout {
    pub groups: Vec<GroupDef>,
    pub bins: Vec<BinDef>,
}

pub const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
pub const SELS: [Sel; 7] = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
pub const SCALES: [Scale; 3] = [Scale::None, Scale::Shr7, Scale::Shr15];

pub use ptxfma_ptx::print::rnd_name;
use ptxfma_ptx::print::sel_suffix as sel_name;

fn scale_name(s: Scale) -> &'static str {
    match s {
        Scale::None => "no scale",
        Scale::Shr7 => ".shr7",
        Scale::Shr15 => ".shr15",
    }
}

fn ty(signed: bool) -> &'static str {
    if signed {
        "s32"
    } else {
        "u32"
    }
}

/// Operand classes, per format (`operands` groups).
pub mod class {
    pub const POS_ZERO: usize = 0;
    pub const NEG_ZERO: usize = 1;
    pub const POS_SUB: usize = 2;
    pub const NEG_SUB: usize = 3;
    pub const POS_MIN: usize = 4;
    pub const NEG_MIN: usize = 5;
    pub const POS_NORMAL: usize = 6;
    pub const NEG_NORMAL: usize = 7;
    pub const POS_MAX: usize = 8;
    pub const NEG_MAX: usize = 9;
    pub const POS_INF: usize = 10;
    pub const NEG_INF: usize = 11;
    pub const QNAN: usize = 12;
    pub const SNAN: usize = 13;
    pub const N: usize = 14;
    pub const NAMES: [&str; N] = [
        "+0",
        "-0",
        "+subnormal",
        "-subnormal",
        "+min normal",
        "-min normal",
        "+normal",
        "-normal",
        "+max finite",
        "-max finite",
        "+inf",
        "-inf",
        "qNaN",
        "sNaN",
    ];
}

/// `special` groups: the operand combinations that decide a result without the datapath.
pub mod special {
    pub const ZERO_X_INF: usize = 0;
    pub const INF_X_ZERO: usize = 1;
    pub const INF_X_FLUSHED: usize = 2;
    pub const INF_MINUS_INF: usize = 3;
    pub const INF_PLUS_INF: usize = 4;
    pub const INF_PRODUCT: usize = 5;
    pub const INF_C: usize = 6;
    /// `NAN + mask - 1`, mask bit 0 = a, 1 = b, 2 = c.
    pub const NAN: usize = 7;
    pub const NAN_OVER_INVALID: usize = 14;
    /// `FIRST + 2 * position + quiet`: the first NaN in b, c, a order (the f64 result, S2);
    /// position 0 = a, 1 = b, 2 = c.
    pub const FIRST: usize = 15;
    pub const N: usize = 21;
}

/// `result` groups: what the rounder produced.
pub mod result {
    pub const NAN: usize = 0;
    pub const INF: usize = 1;
    pub const ZERO_POS: usize = 2;
    pub const ZERO_NEG: usize = 3;
    pub const ZERO_CANCEL: usize = 4;
    pub const NORMAL: usize = 5;
    /// `OVERFLOW + 2 * rnd + sign`.
    pub const OVERFLOW: usize = 6;
    pub const OVERFLOW_CARRY: usize = 14;
    pub const SUB_EXACT: usize = 15;
    pub const SUB_INEXACT: usize = 16;
    pub const SUB_TO_NORMAL: usize = 17;
    pub const UNDERFLOW_ZERO: usize = 18;
    /// `FTZ_IN + position` (a, b, c).
    pub const FTZ_IN: usize = 19;
    pub const FTZ_OUT: usize = 22;
    /// S4: below the minimum normal before rounding, at it after rounding to p bits (kept).
    pub const FTZ_BAND: usize = 23;
    /// S4: rounded up to the minimum normal at the subnormal quantum, below it at p bits with an
    /// unbounded exponent (flushed; IEEE tininess before rounding would keep it).
    pub const FTZ_BAND_FLUSHED: usize = 24;
    pub const SAT_NAN: usize = 25;
    pub const SAT_NEG: usize = 26;
    pub const SAT_NEG_ZERO: usize = 27;
    pub const SAT_ONE: usize = 28;
    pub const SAT_INF: usize = 29;
    pub const SAT_KEEP: usize = 30;
    pub const N: usize = 31;
}

/// `rounding` groups: `rnd * N + event`.
pub mod round {
    pub const EXACT: usize = 0;
    pub const BELOW_DOWN: usize = 1;
    pub const BELOW_UP: usize = 2;
    pub const TIE_DOWN: usize = 3;
    pub const TIE_UP: usize = 4;
    pub const ABOVE_DOWN: usize = 5;
    pub const ABOVE_UP: usize = 6;
    pub const CARRY: usize = 7;
    pub const TIE_CARRY: usize = 8;
    pub const SUB_DOWN: usize = 9;
    pub const SUB_UP: usize = 10;
    pub const STICKY_ABOVE: usize = 11;
    pub const STICKY_INEXACT: usize = 12;
    pub const N: usize = 13;
    pub const NAMES: [&str; N] = [
        "exact",
        "below half, rounded down",
        "below half, rounded up",
        "tie, rounded down",
        "tie, rounded up",
        "above half, rounded down",
        "above half, rounded up",
        "rounded up, carry into the exponent",
        "tie rounded up, carry into the exponent",
        "tiny and inexact, rounded down",
        "tiny and inexact, rounded up",
        "above half only by the sticky bit (else a tie)",
        "inexact only by the sticky bit (else exact)",
    ];
}

/// `alignment` groups (per lane for f32x2).
pub mod align {
    pub const C_ZERO: usize = 0;
    pub const P_ZERO: usize = 1;
    pub const FAR_ABOVE: usize = 2;
    pub const ABOVE: usize = 3;
    pub const OVERLAP: usize = 4;
    pub const BELOW: usize = 5;
    pub const PARTIAL: usize = 6;
    pub const OUT: usize = 7;
    pub const CLAMP: usize = 8;
    pub const STICKY: usize = 9;
    pub const N: usize = 10;
    pub const NAMES: [&str; N] = [
        "c zero: no addend (shift 164)",
        "product zero: addend on top",
        "addend far above (d > 56): held at the top",
        "addend above the product, disjoint",
        "addend overlapping the product",
        "addend below the product, disjoint, inside the window",
        "addend partly shifted into sticky",
        "addend shifted out entirely (shift = 164)",
        "shift clamped (56 - d > 164)",
        "alignment sticky set",
    ];
}

/// `cancellation` groups (per lane for f32x2).
pub mod cancel {
    pub const ADD: usize = 0;
    pub const SUB: usize = 1;
    pub const DEPTH0: usize = 2;
    pub const DEPTH1: usize = 3;
    pub const DEPTH_P: usize = 4;
    pub const BEYOND_P: usize = 5;
    pub const TOTAL: usize = 6;
    pub const N: usize = 7;
    pub const NAMES: [&str; N] = [
        "effective addition",
        "effective subtraction",
        "subtraction, no cancellation (depth 0)",
        "cancellation depth 1",
        "cancellation depth 2..p",
        "cancellation beyond p",
        "total cancellation (exact zero)",
    ];
}

/// `lza` groups (per lane for f32x2): the prediction against the true leading zeros.
pub mod lza {
    /// `EXACT + 2 * effective subtraction`, `SHORT + 2 * effective subtraction`.
    pub const EXACT: usize = 0;
    pub const SHORT: usize = 1;
    pub const OVER: usize = 4;
    pub const N: usize = 5;
    pub const NAMES: [&str; N] = [
        "effective addition: exact",
        "effective addition: one short, normaliser corrects left",
        "effective subtraction: exact",
        "effective subtraction: one short, normaliser corrects left",
        "one over: normaliser corrects right",
    ];
}

/// `normalise` groups (per lane for f32x2).
pub mod norm {
    pub const LZA: usize = 0;
    pub const LIMIT: usize = 1;
    pub const LIMIT_SUB: usize = 2;
    pub const RIGHT: usize = 3;
    pub const RIGHT_STICKY: usize = 4;
    pub const N: usize = 5;
    pub const NAMES: [&str; N] = [
        "shift by the LZA count",
        "shift capped at the exponent limit",
        "limit hit: subnormal result",
        "below the subnormal range: right shift",
        "right shift: bits into sticky",
    ];
}

/// `lza.position`: where the indicator's leading one falls, per hardware lane (`lane * N + x`).
pub mod lzapos {
    pub const SLICE0: usize = 0;
    pub const SLICE1: usize = 1;
    pub const SLICE2: usize = 2;
    pub const BIT63: usize = 3;
    pub const BIT64: usize = 4;
    pub const BIT127: usize = 5;
    pub const BIT128: usize = 6;
    pub const NONE: usize = 7;
    pub const CROSS64: usize = 8;
    pub const CROSS128: usize = 9;
    pub const N: usize = 10;
    pub const NAMES: [&str; N] = [
        "leading one in slice 0 (bits 63:0)",
        "leading one in slice 1 (bits 127:64)",
        "leading one in slice 2 (bits 165:128)",
        "leading one at bit 63",
        "leading one at bit 64",
        "leading one at bit 127",
        "leading one at bit 128",
        "indicator all zero (count 165)",
        "one short across the slice boundary: predicted bit 64, leading one at 63",
        "one short across the slice boundary: predicted bit 128, leading one at 127",
    ];
}

/// `f32x2.lanes`: the result class of one lane (a pair's bin is [`lanes_bin`]).
pub mod lane {
    pub const ZERO: usize = 0;
    pub const NORMAL: usize = 1;
    pub const SUBNORMAL: usize = 2;
    pub const FLUSHED: usize = 3;
    pub const OVERFLOW: usize = 4;
    pub const INF: usize = 5;
    pub const NAN: usize = 6;
    pub const N: usize = 7;
    pub const NAMES: [&str; N] = [
        "zero",
        "normal",
        "subnormal",
        "flushed",
        "overflow",
        "inf",
        "NaN",
    ];
}

/// Bin of `f32x2.lanes` for lane classes `l0`, `l1`.
pub fn lanes_bin(l0: usize, l1: usize) -> usize {
    l0 * lane::N + l1
}

/// `sm1x`: the S7 paths.
pub mod sm1x {
    pub const CZERO_POS: usize = 0;
    pub const CZERO_NEG: usize = 1;
    pub const CZERO_OVF: usize = 2;
    pub const CZERO_FLUSH: usize = 3;
    pub const CZERO_NEG_TINY: usize = 4;
    pub const TRUNC_EXACT: usize = 5;
    pub const TRUNC_SAME: usize = 6;
    pub const TRUNC_DIFF: usize = 7;
    pub const BIG_BACK: usize = 8;
    pub const BIG_OVF: usize = 9;
    pub const TINY_PROD: usize = 10;
    pub const ZERO_SUM: usize = 11;
    pub const N: usize = 12;
    pub const NAMES: [&str; N] = [
        "c = +0: mul.rn then add.rn",
        "c = -0: mul.rn then add.rn",
        "c = 0: rounded product overflows to inf",
        "c = 0: tiny product flushed",
        "c = +0, tiny negative product: -0 + +0 = +0",
        "c != 0: product fits 24 bits (truncation exact)",
        "c != 0: truncation equals rn rounding of the product",
        "c != 0: truncation differs from rn rounding of the product",
        "product >= 2^128 brought back into range by c",
        "product >= 2^128, result overflows",
        "product < 2^-126 kept (not flushed) beside c != 0",
        "exact zero sum of nonzero operands: +0",
    ];
}

/// `mixed.inputs`: `(fmt * 4 + slot) * 3 + class`.
pub mod mixed {
    pub const SUB: usize = 0;
    pub const INF: usize = 1;
    pub const NAN: usize = 2;
    pub const SLOTS: [&str; 4] = ["add a", "sub a", "fma a", "fma b"];
    pub const CLASSES: [&str; 3] = ["subnormal", "inf", "NaN"];
}

/// `vmad.clamp`: `(signed * 3 + scale) * 3 + x`.
pub mod clamp {
    pub const HIGH: usize = 0;
    pub const LOW: usize = 1;
    pub const PASS: usize = 2;
}

/// Why the LZA never predicts one zero too many on a reachable sum.
const LZA_OVER: &str = "the indicator's leading one is at the sum's leading digit or one \
    above it, never below (checked on 69 M random adder inputs); the one overshoot is an \
    all-zero indicator (count 165) on a magnitude of exactly 1 at window bit 0, where the \
    addend reaches bit 0 and so lies below 2^53 in the window, cancelling a product that \
    small: a nonzero binary64 product with one subnormal factor is at least 2^55 there, a \
    binary32 product field starts at bit 61, and with two subnormal factors the addend is far \
    above";

/// Why only full-width products give a tie that the sticky bit breaks.
const STICKY_TIE: &str = "the sticky bit comes from an addend wholly below the window (or \
    from a value below the subnormal range, whose round bit is 0), so the round bit must be the \
    product's lowest set bit, p bits below its leading one: the f16/bf16 product, the \
    truncated sm_1x product and a * 1.0 have at most p bits, and mul has no addend";

/// Why a mixed-precision right shift never drops a bit.
const MIXED_RIGHT: &str = "a value below the subnormal range (eref < -183) needs c = 0: a \
    nonzero f32 c is then more than 56 binades above ea + eb and holds the window; the \
    product alone has its lowest bit at window bit 93 (bf16; f16 products never get there), \
    and the right shift is at most 69 bits since ea + eb >= -252";

/// Where each group starts, by what it covers.
#[derive(Clone, Debug, Default)]
pub struct Ix {
    pub words: usize,
    pub vm_words: usize,
    pub modes: usize,
    /// Per float family (indexed by `Family as usize`).
    pub fam: [FamIx; 6],
    pub lza_pos: usize,
    pub x2_lanes: usize,
    pub sm1x: usize,
    pub mixed: usize,
    pub vm_types: usize,
    pub vm_forms: usize,
    pub vm_signs: usize,
    pub vm_scale_sat: usize,
    pub vm_clamp: usize,
    pub traffic: usize,
}

/// The groups of one float family.
#[derive(Clone, Copy, Debug, Default)]
pub struct FamIx {
    pub operands: usize,
    pub special: usize,
    pub result: usize,
    pub round: usize,
    pub align: usize,
    pub cancel: usize,
    pub lza: usize,
    pub norm: usize,
}

/// A bin index in a compact form (every table has far fewer than 65535 bins).
pub type Bin = u16;
/// "No bin": the operand is not real in this instruction.
pub const NO_BIN: Bin = Bin::MAX;

/// Everything the sampler needs about one legal float control word, computed once and kept
/// small (the sampler looks one up every cycle).
#[derive(Clone, Debug)]
pub struct FloatOp {
    pub word: u32,
    pub ctrl: Ctrl,
    pub family: Family,
    /// Bin of `instr.words` and of `instr.modes`.
    pub bin_word: Bin,
    pub bin_mode: Bin,
    /// The start of the operand-class bins of a, b, c per lane ([`NO_BIN`]: not an operand
    /// of this instruction, i.e. the substituted `b = 1.0` of add/sub or `c = 0` of mul).
    pub slots: [[Bin; 3]; 2],
    /// `mixed.inputs` bin bases of a and b (mixed precision only, else [`NO_BIN`]).
    pub mixed: [Bin; 2],
    /// Precision and exponent range of the result.
    pub p: u8,
    pub emin: i16,
    pub emax: i16,
    /// `Ctrl::flush()`; the rounding mode the datapath uses.
    pub flush: bool,
    pub rnd: Rnd,
}

/// A legal vmad control word with its bins (computed from the fields, not looked up: there are
/// 4704 of them).
#[derive(Clone, Copy, Debug)]
pub struct VmadOp {
    pub ctrl: Ctrl,
    /// Bins of `vmad.words`, `vmad.types`, `vmad.forms`, `vmad.scale`, and the base of
    /// `vmad.clamp`.
    pub word: Bin,
    pub types: Bin,
    pub forms: Bin,
    pub scale: Bin,
    pub clamp: Bin,
    /// Bin of `instr.modes`.
    pub mode: Bin,
}

/// A legal control word, decoded for the sampler.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Float(&'static FloatOp),
    Vmad(VmadOp),
}

impl Op {
    pub fn family(&self) -> Family {
        match self {
            Op::Float(f) => f.family,
            Op::Vmad(_) => Family::Vmad,
        }
    }
}

/// The whole model: layout, group starts, and the float words' table.
pub struct Model {
    pub layout: Layout,
    pub ix: Ix,
    pub floats: Vec<FloatOp>,
    /// Float word lookup by bits 11:0 (legal float words use no higher bit).
    float_tab: Vec<u16>,
}

impl Model {
    /// A legal control word's information; `None` for any word no instruction decodes to.
    #[inline(always)]
    pub fn op(&'static self, word: u32) -> Option<Op> {
        if word & 7 == Kind::Vmad as u32 {
            let c = Ctrl::decode(word);
            if c.encode() != word || !is_legal(&c) {
                return None;
            }
            return Some(Op::Vmad(self.vmad_op(c)));
        }
        let i = *self.float_tab.get((word & 0xFFF) as usize)?;
        let op = self.floats.get(i as usize)?;
        (op.word == word).then_some(Op::Float(op))
    }

    /// The bins of a legal vmad word, from its fields.
    #[inline(always)]
    fn vmad_op(&self, c: Ctrl) -> VmadOp {
        let ix = &self.ix;
        let (sa, sb) = (c.a_signed as usize, c.b_signed as usize);
        let (asel, bsel) = (sel_index(c.asel), sel_index(c.bsel));
        let form = vmad_form(&c);
        let sc = scale_index(c.scale);
        let sat = c.sat as usize;
        let sf = c.signed_final() as usize;
        let word = ix.vm_words + vmad_word_index(asel, bsel, sa, sb, form, sc, sat);
        VmadOp {
            ctrl: c,
            word: word as Bin,
            types: (ix.vm_types + ((sa * 2 + sb) * 7 + asel) * 7 + bsel) as Bin,
            forms: (ix.vm_forms + (sa * 2 + sb) * 4 + form) as Bin,
            scale: (ix.vm_scale_sat + (sf * 3 + sc) * 2 + sat) as Bin,
            clamp: (ix.vm_clamp + (sf * 3 + sc) * 3) as Bin,
            mode: (ix.modes + Family::Vmad as usize * 16 + sat) as Bin,
        }
    }
}

/// Position of a vmad word in `Family::Vmad.ctrls()` (checked against that list when the
/// table is built).
fn vmad_word_index(
    asel: usize,
    bsel: usize,
    sa: usize,
    sb: usize,
    form: usize,
    sc: usize,
    sat: usize,
) -> usize {
    (((((asel * 7 + bsel) * 2 + sa) * 2 + sb) * 4 + form) * 3 + sc) * 2 + sat
}

/// The model, built once.
pub fn model() -> &'static Model {
    static M: OnceLock<Model> = OnceLock::new();
    M.get_or_init(build)
}

/// What the legal control words of one family can do.
struct Reach {
    name: &'static str,
    ctrls: Vec<Ctrl>,
}

impl Reach {
    fn new(f: Family) -> Reach {
        Reach {
            name: f.name(),
            ctrls: f.ctrls(),
        }
    }

    fn any(&self, p: impl Fn(&Ctrl) -> bool) -> bool {
        self.ctrls.iter().any(p)
    }

    /// `None` when some legal word satisfies `p`, else the reason, naming what is missing.
    fn need(&self, what: &str, p: impl Fn(&Ctrl) -> bool) -> Option<String> {
        if self.any(p) {
            None
        } else {
            Some(format!(
                "no legal `{}` instruction {what} (decoder: Family::ctrls)",
                self.name
            ))
        }
    }

    fn rnd(&self, r: Rnd) -> Option<String> {
        self.need(&format!("takes .{}", rnd_name(r)), |c| c.rnd == r)
    }
}

/// Which operands are real (not substituted) in a control word: a always; b unless `b_one`;
/// c unless `c_zero`.
fn real(c: &Ctrl) -> [bool; 3] {
    [true, !c.b_one, !c.c_zero]
}

struct Build {
    layout: Layout,
}

impl Build {
    fn group(&mut self, name: impl Into<String>, doc: &str, bins: Vec<BinDef>) -> usize {
        let start = self.layout.bins.len();
        self.layout.groups.push(GroupDef {
            name: name.into(),
            doc: doc.to_string(),
            start,
            len: bins.len(),
        });
        self.layout.bins.extend(bins);
        start
    }
}

fn bin(name: impl Into<String>, unreachable: Option<String>) -> BinDef {
    BinDef {
        name: name.into(),
        unreachable,
    }
}

/// The `instr.words` name of a legal word: the PTX spelling, plus vmad's operand forms (the
/// selectors and negations are written on the operands, not in the mnemonic).
fn word_name(c: &Ctrl) -> String {
    let s = ptx_spelling(c);
    if c.kind != Kind::Vmad {
        return s;
    }
    format!(
        "{s} {}a{} b{} {}c",
        if c.neg_ab { "-" } else { "" },
        sel_name(c.asel),
        sel_name(c.bsel),
        if c.neg_c { "-" } else { "" }
    )
}

fn vmad_form(c: &Ctrl) -> usize {
    match (c.neg_ab, c.neg_c, c.po) {
        (true, _, _) => 1,
        (_, true, _) => 2,
        (_, _, true) => 3,
        _ => 0,
    }
}

const VMAD_FORMS: [&str; 4] = ["a*b + c", "-(a*b) + c", "a*b - c", "a*b + c + 1 (.po)"];

fn sel_index(s: Sel) -> usize {
    SELS.iter().position(|&x| x == s).unwrap_or(6)
}

fn scale_index(s: Scale) -> usize {
    SCALES.iter().position(|&x| x == s).unwrap_or(0)
}

/// Operand slots of a float family's `operands` group: names and formats.
fn operand_slots(f: Family) -> Vec<&'static str> {
    match f {
        Family::F32x2 => vec![
            "lane0 a", "lane0 b", "lane0 c", "lane1 a", "lane1 b", "lane1 c",
        ],
        Family::Mixed => vec!["a f16", "b f16", "a bf16", "b bf16", "c f32"],
        Family::AddSubMul => vec!["f32 a", "f32 b", "f32 c", "f64 a", "f64 b", "f64 c"],
        _ => vec!["a", "b", "c"],
    }
}

/// Slot index of operand `pos` (0 a, 1 b, 2 c) in lane `lane` for a word of family `f`.
fn slot_of(f: Family, c: &Ctrl, lane: usize, pos: usize) -> usize {
    match f {
        Family::F32x2 => lane * 3 + pos,
        Family::Mixed => match (pos, c.ab_fmt) {
            (2, _) => 4,
            (p, AbFmt::Bf16) => 2 + p,
            (p, _) => p,
        },
        Family::AddSubMul => {
            if c.kind == Kind::F64 {
                3 + pos
            } else {
                pos
            }
        }
        _ => pos,
    }
}

/// The alignment geometry: the addend's significand bits (`pc`) and the lowest product bit in
/// the window (`plo`), for binary64 and for the binary32 lanes.
fn geometry(f64_: bool) -> (i32, i32) {
    if f64_ {
        (53, 3)
    } else {
        (24, 61)
    }
}

/// Alignment class of a shift that is neither the far-above, clamped nor full-out case, for
/// an addend of `pc` bits beside a product field of window bits 108 down to `plo`.
#[inline(always)]
pub fn align_class(sh: i32, pc: i32, plo: i32) -> usize {
    let chi = 163 - sh;
    let clo = chi - (pc - 1);
    let k = if chi < plo {
        align::BELOW
    } else {
        align::OVERLAP
    };
    let k = if clo > 108 { align::ABOVE } else { k };
    if clo < 0 {
        align::PARTIAL
    } else {
        k
    }
}

fn build() -> Model {
    let mut b = Build {
        layout: Layout::default(),
    };
    let mut ix = Ix::default();
    let reach: Vec<Reach> = Family::ALL.iter().map(|&f| Reach::new(f)).collect();

    // ---- instructions ------------------------------------------------------------------
    let words: Vec<Ctrl> = Family::ALL.iter().flat_map(|f| f.ctrls()).collect();
    let (float_words, vmad_words) = words.split_at(
        words
            .iter()
            .position(|c| c.kind == Kind::Vmad)
            .unwrap_or(words.len()),
    );
    ix.words = b.group(
        "instr.words",
        "Every legal control word of the float families, by its PTX spelling: every legal \
         modifier combination.",
        float_words
            .iter()
            .map(|c| bin(word_name(c), None))
            .collect(),
    );
    ix.vm_words = b.group(
        "vmad.words",
        "Every legal vmad control word: types, selectors, negations or .po, .sat, scale.",
        vmad_words.iter().map(|c| bin(word_name(c), None)).collect(),
    );
    assert_eq!(ix.vm_words, ix.words + float_words.len());
    let mut modes = Vec::new();
    for (fi, f) in Family::ALL.iter().enumerate() {
        let r = &reach[fi];
        for rnd in RNDS {
            for ftz in [false, true] {
                for sat in [false, true] {
                    let name = format!(
                        "{} .{}{}{}",
                        f.name(),
                        rnd_name(rnd),
                        if ftz { " .ftz" } else { "" },
                        if sat { " .sat" } else { "" }
                    );
                    let why = r
                        .rnd(rnd)
                        .or_else(|| {
                            r.need(
                                if ftz {
                                    "takes .ftz"
                                } else {
                                    "goes without .ftz"
                                },
                                |c| c.ftz == ftz,
                            )
                        })
                        .or_else(|| {
                            r.need(
                                if sat {
                                    "takes .sat"
                                } else {
                                    "goes without .sat"
                                },
                                |c| c.sat == sat,
                            )
                        })
                        .or_else(|| {
                            r.need("has this combination", |c| {
                                c.rnd == rnd && c.ftz == ftz && c.sat == sat
                            })
                        });
                    modes.push(bin(name, why));
                }
            }
        }
    }
    ix.modes = b.group(
        "instr.modes",
        "Family x rounding mode x .ftz x .sat (vmad has no rounding modifier: it is encoded \
         as .rn).",
        modes,
    );

    // ---- per float family --------------------------------------------------------------
    for f in Family::ALL.into_iter().filter(|&f| f != Family::Vmad) {
        let fi = f as usize;
        let r = &reach[fi];
        let n = f.name();
        let x2 = f == Family::F32x2;
        let lanes: &[&str] = if x2 { &["lane0 ", "lane1 "] } else { &[""] };

        // Operand classes.
        let mut bins = Vec::new();
        for s in operand_slots(f) {
            for cl in class::NAMES {
                bins.push(bin(format!("{s} {cl}"), None));
            }
        }
        let operands = b.group(
            format!("{n}.operands"),
            "Class of every real operand by format: zeros, subnormals, the minimum normal, \
             normals, the maximum finite, infinities, quiet and signalling NaNs.",
            bins,
        );

        // Special cases.
        let b_real = |c: &Ctrl| !c.b_one;
        let c_real = |c: &Ctrl| !c.c_zero;
        let mut bins = vec![
            bin("0 x inf: invalid", r.need("reads b", b_real)),
            bin("inf x 0: invalid", r.need("reads b", b_real)),
            bin(
                "inf x subnormal flushed to 0: invalid",
                r.need("flushes and reads b", |c| c.flush() && !c.b_one),
            ),
            bin("inf - inf: invalid", r.need("reads c", c_real)),
            bin("inf + inf", r.need("reads c", c_real)),
            bin("inf product, finite c", None),
            bin("finite product, inf c", r.need("reads c", c_real)),
        ];
        for mask in 1..8usize {
            let names: Vec<&str> = ["a", "b", "c"]
                .iter()
                .enumerate()
                .filter(|(i, _)| mask >> i & 1 != 0)
                .map(|(_, s)| *s)
                .collect();
            let why = r.need(&format!("reads {}", names.join(" and ")), |c| {
                let re = real(c);
                (0..3).all(|i| mask >> i & 1 == 0 || re[i])
            });
            bins.push(bin(format!("NaN in {}", names.join(", ")), why));
        }
        bins.push(bin(
            "NaN c beside an invalid product (the NaN wins)",
            r.need("reads b and c", |c| !c.b_one && !c.c_zero),
        ));
        for (pos, pn) in ["a", "b", "c"].iter().enumerate() {
            for q in ["signalling (quieted)", "quiet"] {
                bins.push(bin(
                    format!("first NaN is {pn}, {q}"),
                    r.need(&format!("reads {pn}"), |c| real(c)[pos]),
                ));
            }
        }
        debug_assert_eq!(bins.len(), special::N);
        let special = b.group(
            format!("{n}.special"),
            "The special-case unit's decisions: invalid products and sums, infinities, NaN \
             in each combination of positions (the first NaN in b, c, a order is the f64 \
             result, S2) and whether it was signalling.",
            bins,
        );

        // Results.
        let flush = r.need("flushes (.ftz)", |c| c.flush());
        let noflush = r.need("keeps subnormals (no .ftz)", |c| !c.flush());
        let sat = r.need("takes .sat", |c| c.sat);
        let mut bins = vec![
            bin("special: NaN", None),
            bin("special: inf", None),
            bin("exact zero: +0", None),
            bin("exact zero: -0", None),
            bin(
                "exact zero from cancelling nonzero operands",
                r.need("reads c", c_real),
            ),
            bin("normal", None),
        ];
        for rnd in RNDS {
            for neg in [false, true] {
                let s = if neg { "-" } else { "+" };
                let to = match (rnd, neg) {
                    (Rnd::Rn, _) | (Rnd::Rm, true) | (Rnd::Rp, false) => "inf",
                    _ => "max finite",
                };
                bins.push(bin(
                    format!("overflow .{} {s}: {s}{to}", rnd_name(rnd)),
                    r.rnd(rnd),
                ));
            }
        }
        bins.push(bin(
            "overflow caused by the rounding carry",
            r.need("rounds up (not only .rz)", |c| c.rnd != Rnd::Rz),
        ));
        bins.push(bin("tiny: subnormal result, exact", noflush.clone()));
        bins.push(bin("tiny: subnormal result, inexact", noflush.clone()));
        bins.push(bin(
            "tiny before rounding, rounds up to the minimum normal",
            noflush.clone(),
        ));
        bins.push(bin("tiny: rounds to zero", noflush.clone()));
        for (pos, s) in ["a", "b", "c"].iter().enumerate() {
            bins.push(bin(
                format!("ftz: subnormal {s} flushed"),
                r.need(&format!("flushes and reads {s}"), |c| {
                    c.flush() && real(c)[pos]
                }),
            ));
        }
        bins.push(bin("ftz: subnormal result flushed", flush.clone()));
        bins.push(bin(
            "ftz: tiny before rounding, rounds to the minimum normal at p bits (kept, S4)",
            flush.clone(),
        ));
        bins.push(bin(
            "ftz: rounds up to the minimum normal at the subnormal quantum, not at p bits \
             (flushed, S4)",
            flush.clone(),
        ));
        bins.push(bin("sat: NaN -> +0", sat.clone()));
        bins.push(bin("sat: negative -> +0", sat.clone()));
        bins.push(bin("sat: -0 -> +0", sat.clone()));
        bins.push(bin("sat: >= 1.0 -> 1.0", sat.clone()));
        bins.push(bin("sat: +inf -> 1.0", sat.clone()));
        bins.push(bin("sat: in [+0, 1.0) unchanged", sat.clone()));
        debug_assert_eq!(bins.len(), result::N);
        let result_ = b.group(
            format!("{n}.result"),
            "What the rounder produced: special and zero results, overflow per rounding mode \
             and sign (to inf or held at max finite), tiny results, flushing of inputs and \
             outputs by .ftz, and each .sat clamp.",
            bins,
        );

        // Rounding events per mode.
        let mut bins = Vec::new();
        for rnd in RNDS {
            for (e, en) in round::NAMES.iter().enumerate() {
                let rule = match (rnd, e) {
                    (Rnd::Rn, round::BELOW_UP) => {
                        Some("rn rounds up only at or above half".to_string())
                    }
                    (Rnd::Rn, round::ABOVE_DOWN) => {
                        Some("rn always rounds up above half".to_string())
                    }
                    (
                        Rnd::Rz,
                        round::BELOW_UP
                        | round::TIE_UP
                        | round::ABOVE_UP
                        | round::CARRY
                        | round::TIE_CARRY
                        | round::SUB_UP,
                    ) => Some("rz never rounds up".to_string()),
                    _ => None,
                };
                let rule = rule.or_else(|| {
                    let short = matches!(f, Family::Mixed | Family::Sm1x | Family::AddSubMul);
                    (e == round::STICKY_ABOVE && short).then(|| STICKY_TIE.to_string())
                });
                bins.push(bin(
                    format!(".{}: {en}", rnd_name(rnd)),
                    r.rnd(rnd).or(rule),
                ));
            }
        }
        let round_ = b.group(
            format!("{n}.rounding"),
            "Rounding mode x where the discarded bits fall (exact, below half, a tie, above \
             half) x the rounding direction taken, round-ups that carry into the exponent, \
             rounding at the subnormal quantum, and decisions that only the sticky bit makes.",
            bins,
        );

        // Alignment.
        let has_f64 = r.any(|c| c.kind == Kind::F64);
        let has_f32 = r.any(|c| c.kind != Kind::F64);
        let mut bins = Vec::new();
        for lane in lanes {
            for (k, kn) in align::NAMES.iter().enumerate() {
                let why = match k {
                    align::ABOVE | align::OVERLAP | align::BELOW | align::PARTIAL => {
                        let fits = |f64_: bool| {
                            let (pc, plo) = geometry(f64_);
                            (1..164).any(|sh| align_class(sh, pc, plo) == k)
                        };
                        if (has_f64 && fits(true)) || (has_f32 && fits(false)) {
                            None
                        } else {
                            Some(format!(
                                "window geometry: no shift puts a {}-bit addend there (the \
                                 product's field ends 3 bits above the window's bottom)",
                                if has_f64 { 53 } else { 24 }
                            ))
                        }
                    }
                    align::C_ZERO => None,
                    _ => r.need("reads c", c_real),
                };
                bins.push(bin(format!("{lane}{kn}"), why));
            }
        }
        let align_ = b.group(
            format!("{n}.alignment"),
            "The addend alignment shifter (d = ec - (ea + eb)): no addend, addend on top of a \
             zero product, far above (held at the top), above / overlapping / below the \
             product, partly or wholly shifted into sticky, the shift clamped.",
            bins,
        );

        // Cancellation.
        let short = match f {
            Family::Mixed => Some(
                "an f16/bf16 product has at most 22 significant bits and c 24, so a nonzero \
                 difference is a multiple of 2^-24 of the larger operand: at most p bits cancel",
            ),
            Family::Sm1x => Some(
                "the truncated product and c both have 24 bits (c = 0 does not subtract), so a \
                 nonzero difference keeps at least the bit 2^-24 of the larger: at most p bits \
                 cancel",
            ),
            Family::AddSubMul => Some(
                "a * 1.0 and c both have p bits (mul has no addend), so a nonzero difference \
                 keeps at least the bit 2^-p of the larger: at most p bits cancel",
            ),
            _ => None,
        };
        let mut bins = Vec::new();
        for lane in lanes {
            for (k, kn) in cancel::NAMES.iter().enumerate() {
                let why = if k == cancel::BEYOND_P {
                    short.map(str::to_string)
                } else {
                    r.need("reads c", c_real)
                };
                bins.push(bin(format!("{lane}{kn}"), why));
            }
        }
        let cancel_ = b.group(
            format!("{n}.cancellation"),
            "Effective addition or subtraction of product and addend (both nonzero), and how \
             many leading bits a subtraction cancels: none, 1, 2..p, beyond p, all (exact \
             zero).",
            bins,
        );

        // LZA accuracy.
        let mut bins = Vec::new();
        for lane in lanes {
            for (k, kn) in lza::NAMES.iter().enumerate() {
                let why = (k == lza::OVER).then(|| LZA_OVER.to_string());
                bins.push(bin(format!("{lane}{kn}"), why));
            }
        }
        let lza_ = b.group(
            format!("{n}.lza"),
            "The leading-zero anticipator's count against the true leading zeros of the sum, \
             per effective operation: exact, or off by one in either direction (corrected by \
             the normaliser).",
            bins,
        );

        // Normaliser.
        let mut bins = Vec::new();
        for lane in lanes {
            for (k, kn) in norm::NAMES.iter().enumerate() {
                let why = (f == Family::Mixed && k == norm::RIGHT_STICKY)
                    .then(|| MIXED_RIGHT.to_string());
                bins.push(bin(format!("{lane}{kn}"), why));
            }
        }
        let norm_ = b.group(
            format!("{n}.normalise"),
            "The normalising shift: by the LZA count, capped at the exponent limit (a \
             subnormal result), or a right shift for a value below the subnormal range, with \
             its sticky bits.",
            bins,
        );

        ix.fam[fi] = FamIx {
            operands,
            special,
            result: result_,
            round: round_,
            align: align_,
            cancel: cancel_,
            lza: lza_,
            norm: norm_,
        };
    }

    // ---- cross-family datapath, f32x2, sm_1x, mixed ---------------------------------------
    let mut bins = Vec::new();
    for lane in ["lane0", "lane1"] {
        for kn in lzapos::NAMES {
            bins.push(bin(format!("{lane}: {kn}"), None));
        }
    }
    ix.lza_pos = b.group(
        "lza.position",
        "Where the LZA indicator's leading one falls in each hardware lane's 166-bit window: \
         each of the three 64-bit slices the RTL computes it on, the bits on either side of \
         the slice boundaries, and a one-bit correction that crosses a boundary (lane 1 is \
         used by f32x2 only).",
        bins,
    );

    let mut bins = Vec::new();
    for l0 in 0..lane::N {
        for l1 in 0..lane::N {
            let why = match (l0, l1) {
                (lane::SUBNORMAL, lane::FLUSHED) | (lane::FLUSHED, lane::SUBNORMAL) => Some(
                    "both lanes share .ftz: one cannot flush while the other keeps a subnormal"
                        .to_string(),
                ),
                _ => None,
            };
            bins.push(bin(
                format!("lane0 {} x lane1 {}", lane::NAMES[l0], lane::NAMES[l1]),
                why,
            ));
        }
    }
    ix.x2_lanes = b.group(
        "f32x2.lanes",
        "The result class of lane 0 crossed with that of lane 1 (the lanes are independent, \
         S5).",
        bins,
    );

    ix.sm1x = b.group(
        "sm1x.paths",
        "The S7 paths of sm_1x mad.f32: c = +-0 (mul.rn then add.rn), the truncated product \
         against rounding, a product beyond the f32 range brought back by c, a product below \
         it kept.",
        sm1x::NAMES.iter().map(|s| bin(*s, None)).collect(),
    );

    let mut bins = Vec::new();
    for fmt in ["f16", "bf16"] {
        for slot in mixed::SLOTS {
            for cl in mixed::CLASSES {
                bins.push(bin(format!("{fmt} {slot} {cl}"), None));
            }
        }
    }
    ix.mixed = b.group(
        "mixed.inputs",
        "Mixed precision: subnormal, infinite and NaN f16/bf16 inputs per operation and \
         position (converted exactly, never flushed, S6).",
        bins,
    );

    // ---- vmad --------------------------------------------------------------------------
    let mut bins = Vec::new();
    for a_s in [false, true] {
        for b_s in [false, true] {
            for asel in SELS {
                for bsel in SELS {
                    bins.push(bin(
                        format!(
                            "a.{}{} x b.{}{}",
                            ty(a_s),
                            sel_name(asel),
                            ty(b_s),
                            sel_name(bsel)
                        ),
                        None,
                    ));
                }
            }
        }
    }
    ix.vm_types = b.group("vmad.types", "vmad atype x btype x asel x bsel.", bins);
    let mut bins = Vec::new();
    for a_s in [false, true] {
        for b_s in [false, true] {
            for form in VMAD_FORMS {
                bins.push(bin(format!("{} x {}: {form}", ty(a_s), ty(b_s)), None));
            }
        }
    }
    ix.vm_forms = b.group(
        "vmad.forms",
        "vmad source signedness x sign form (plain, negated product, negated c, .po).",
        bins,
    );
    ix.vm_signs = b.group(
        "vmad.values",
        "Signs of the selected values: a and b as extended, c as read (sign-extended, S8).",
        (0..8)
            .map(|m| {
                let s = |bit: usize| if m >> bit & 1 != 0 { "<0" } else { ">=0" };
                bin(format!("a{} b{} c{}", s(0), s(1), s(2)), None)
            })
            .collect(),
    );
    let mut bins = Vec::new();
    for signed in [false, true] {
        for sc in SCALES {
            for sat in [false, true] {
                bins.push(bin(
                    format!(
                        "{} {}{}",
                        if signed { "s32" } else { "u32" },
                        scale_name(sc),
                        if sat { " .sat" } else { "" }
                    ),
                    None,
                ));
            }
        }
    }
    ix.vm_scale_sat = b.group("vmad.scale", "vmad final type x scale x .sat.", bins);
    let mut bins = Vec::new();
    for signed in [false, true] {
        for sc in SCALES {
            for kn in ["clamped high", "clamped low", "in range"] {
                // An unsigned result is scaled with zeros shifted in (S8): never negative.
                let why = (!signed && sc != Scale::None && kn == "clamped low").then(|| {
                    "an unsigned result is scaled from its 64-bit window with zeros shifted \
                     in (S8), so it is never below zero"
                        .to_string()
                });
                bins.push(bin(
                    format!(
                        "{} {} .sat: {kn}",
                        if signed { "s32" } else { "u32" },
                        scale_name(sc)
                    ),
                    why,
                ));
            }
        }
    }
    ix.vm_clamp = b.group(
        "vmad.clamp",
        "vmad .sat actually clamping the 64-bit result high or low, per final type and scale.",
        bins,
    );

    // ---- traffic -----------------------------------------------------------------------
    let mut bins = Vec::new();
    for p in Family::ALL {
        for c in Family::ALL {
            bins.push(bin(format!("{} -> {}", p.name(), c.name()), None));
        }
    }
    ix.traffic = b.group(
        "traffic.families",
        "Previous family x current family for valid operations in consecutive cycles.",
        bins,
    );

    // ---- float words' table --------------------------------------------------------------
    assert!(b.layout.bins.len() < NO_BIN as usize);
    let mut floats = Vec::new();
    let mut float_tab = vec![u16::MAX; 1 << 12];
    for (wi, c) in float_words.iter().enumerate() {
        let family = Family::of(c);
        let fi = family as usize;
        let word = c.encode();
        let mode = ix.modes
            + fi * 16
            + RNDS.iter().position(|&r| r == c.rnd).unwrap() * 4
            + (c.ftz as usize) * 2
            + c.sat as usize;
        let mut info = FloatOp {
            word,
            ctrl: *c,
            family,
            bin_word: (ix.words + wi) as Bin,
            bin_mode: mode as Bin,
            slots: [[NO_BIN; 3]; 2],
            mixed: [NO_BIN; 2],
            p: if c.kind == Kind::F64 { 53 } else { 24 },
            emin: if c.kind == Kind::F64 { -1022 } else { -126 },
            emax: if c.kind == Kind::F64 { 1023 } else { 127 },
            flush: c.flush(),
            rnd: if c.kind == Kind::Sm1x { Rnd::Rn } else { c.rnd },
        };
        let re = real(c);
        let nl = if family == Family::F32x2 { 2 } else { 1 };
        for (lane, slots) in info.slots.iter_mut().enumerate().take(nl) {
            for (pos, slot) in slots.iter_mut().enumerate() {
                if re[pos] {
                    *slot = (ix.fam[fi].operands + slot_of(family, c, lane, pos) * class::N) as Bin;
                }
            }
        }
        if family == Family::Mixed {
            let fmt = (c.ab_fmt == AbFmt::Bf16) as usize;
            let base = |slot: usize| (ix.mixed + (fmt * 4 + slot) * 3) as Bin;
            info.mixed = match (c.b_one, c.neg_c) {
                (true, false) => [base(0), NO_BIN],
                (true, true) => [base(1), NO_BIN],
                _ => [base(2), base(3)],
            };
        }
        assert_eq!(word & !0xFFF, 0, "float word {word:#x} uses bits above 11");
        float_tab[word as usize] = floats.len() as u16;
        floats.push(info);
    }
    let m = Model {
        layout: b.layout,
        ix,
        floats,
        float_tab,
    };
    for (i, c) in vmad_words.iter().enumerate() {
        assert_eq!(m.vmad_op(*c).word as usize, m.ix.vm_words + i, "{c:?}");
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_every_legal_word_is_found() {
        let m = model();
        let mut groups = HashSet::new();
        for g in &m.layout.groups {
            assert!(groups.insert(&g.name), "group {} twice", g.name);
            let mut names = HashSet::new();
            for b in &m.layout.bins[g.start..g.start + g.len] {
                assert!(names.insert(&b.name), "{}: bin {} twice", g.name, b.name);
            }
        }
        for f in Family::ALL {
            for c in f.ctrls() {
                let op = m.op(c.encode()).expect("legal word found");
                assert_eq!(op.family(), f);
                match op {
                    Op::Float(x) => assert_eq!(x.ctrl, c),
                    Op::Vmad(x) => assert_eq!(x.ctrl, c),
                }
            }
        }
        // Illegal words are not.
        let bad = Ctrl {
            sat: true,
            ..Ctrl::fma(Kind::F64, Rnd::Rn)
        };
        assert!(m.op(bad.encode()).is_none());
        assert!(m.op(0xFF_FFFF).is_none());
    }
}
