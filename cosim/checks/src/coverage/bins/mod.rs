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
//! The sampler (`sample.rs`) indexes bins as `group start + offset`; the offsets are numbered
//! by a macro where each group's bins are declared (`offsets.rs`), and every group's bin list
//! is built from the same constants (`table.rs`, `float.rs`), so a name and its index cannot
//! drift apart.

use std::sync::OnceLock;

use ptxfma_model::ctrl::legal::is_legal;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};
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

mod float;
mod offsets;
mod reach;
mod scope;
mod table;

pub use offsets::*;
pub use reach::{align_class, NOT_IN_FORMS};
use reach::{scale_index, sel_index, vmad_form};
pub use scope::{sampled_by, OUTSIDE_FAMILIES};

/// Where each group starts, by what it covers.
#[derive(Clone, Debug, Default)]
pub struct Ix {
    pub words: usize,
    pub vm_words: usize,
    pub modes: usize,
    /// Per float family (indexed by `Family as usize`).
    pub fam: [FamIx; Family::ALL.len()],
    pub lza_pos: usize,
    pub x2_lanes: usize,
    pub h2_lanes: usize,
    pub half: usize,
    pub sm1x: usize,
    pub mixed: usize,
    pub vm_types: usize,
    pub vm_forms: usize,
    pub vm_signs: usize,
    pub vm_scale_sat: usize,
    pub vm_clamp: usize,
    pub vm_bounds: usize,
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
    pub bounds: usize,
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
    /// Precision, exponent range and width of the result.
    pub p: u8,
    pub emin: i16,
    pub emax: i16,
    pub width: u8,
    /// `Ctrl::flush()`; the rounding mode of the final rounding (to nearest after the binary32
    /// step of `via_f32`, S13).
    pub flush: bool,
    pub rnd: Rnd,
    /// The lanes a word uses (two for f32x2 and half2).
    pub lanes: u8,
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
    /// Float word lookup by [`float_key`].
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
        let i = *self.float_tab.get(float_key(word))?;
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

/// The float words' table index of a word: bits 11:0 and the half kinds' fields (24..26), the
/// only bits a legal float word sets.
#[inline(always)]
pub fn float_key(word: u32) -> usize {
    ((word & 0xFFF) | ((word >> 24) & 7) << 12) as usize
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
    M.get_or_init(table::build)
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
        assert!(m.op((1 << ptxfma_model::ctrl::CTRL_BITS) - 1).is_none());
    }
}
