//! The vocabulary the table is written in: what a family's legal control words reach, which
//! operands are real, and where words, selectors, operand slots and alignments fall among the
//! bins.

use super::*;

/// What the legal control words of one family can do: all of them, or those of a design's
/// forms ([`ptxfma_cosim_engine::stim::set_forms`], a `dut build` design's), set before the table is built.
pub(super) struct Reach {
    name: &'static str,
    /// The words a run can draw.
    ctrls: Vec<Ctrl>,
    /// Every legal word.
    all: Vec<Ctrl>,
}

/// Why a legal word is not drawn: the design under test does not implement it. A bin declared
/// unreachable for this reason is outside the run (the headline's excluded count), not
/// unreachable by any instruction.
pub const NOT_IN_FORMS: &str = "not among the forms of the design under test (its dut.json)";

impl Reach {
    pub(super) fn new(f: Family) -> Reach {
        let all = f.ctrls();
        let ctrls = match ptxfma_cosim_engine::stim::forms() {
            None => all.clone(),
            Some(fm) => all.iter().filter(|c| fm.allows(c)).copied().collect(),
        };
        Reach {
            name: f.name(),
            ctrls,
            all,
        }
    }

    pub(super) fn any(&self, p: impl Fn(&Ctrl) -> bool) -> bool {
        self.ctrls.iter().any(p)
    }

    /// `None` when some word of the run satisfies `p`, else the reason, naming what is missing.
    pub(super) fn need(&self, what: &str, p: impl Fn(&Ctrl) -> bool) -> Option<String> {
        if self.ctrls.iter().any(&p) {
            None
        } else if self.all.iter().any(&p) {
            Some(format!(
                "no `{}` instruction {what}: {NOT_IN_FORMS}",
                self.name
            ))
        } else {
            Some(format!(
                "no legal `{}` instruction {what} (decoder: Family::ctrls)",
                self.name
            ))
        }
    }

    pub(super) fn rnd(&self, r: Rnd) -> Option<String> {
        self.need(&format!("takes .{}", rnd_name(r)), |c| c.rnd == r)
    }

    /// Like [`Reach::rnd`], for the direction of the final rounding: to nearest after the
    /// binary32 step of `fma.{rz,rm,rp}.bf16` (S13) and in sm_1x mad.
    pub(super) fn final_rnd(&self, r: Rnd) -> Option<String> {
        self.need(&format!("rounds its result .{}", rnd_name(r)), |c| {
            let fin = if c.via_f32 || c.kind == Kind::Sm1x {
                Rnd::Rn
            } else {
                c.rnd
            };
            fin == r
        })
    }
}

/// Whether `c` can make the exponent differences and the tiny values that only a wide exponent
/// range reaches: every word but a half word of binary16 operands. A binary16 operand's
/// exponent is in -14..=15 (a subnormal's read as the minimum's), so d = ec - (ea + eb) is in
/// -44..=43 (add/sub: -29..=29) and the alignment shift 56 - d in 13..=100: never an addend held
/// at the top (d > 56), past window bit 102 (below the product, 61 and up), partly or wholly
/// below the window, or with sticky bits (its lowest bit is at window bit 53 or above); the
/// normaliser's limit ep + 57 - emin is at least 43, never 0, -1 or a right shift; and a sum
/// whose leading one is at window bit 64 or below would need an addend lower than that
/// cancelling a product whose lowest bit is at 87. `fma.{rz,rm,rp}.bf16` (binary16 operands, a
/// binary32 step) counts as wide: its steps' sticky bits are left to the sampler.
pub(super) fn wide_exponent(c: &Ctrl) -> bool {
    !c.is_half() || c.ab_fmt == AbFmt::Bf16 || c.via_f32
}

/// Which operands are real (not substituted) in a control word: a always; b unless `b_one`;
/// c unless `c_zero`.
pub(super) fn real(c: &Ctrl) -> [bool; 3] {
    [true, !c.b_one, !c.c_zero]
}

pub(super) struct Build {
    pub(super) layout: Layout,
}

impl Build {
    pub(super) fn group(&mut self, name: impl Into<String>, doc: &str, bins: Vec<BinDef>) -> usize {
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

pub(super) fn bin(name: impl Into<String>, unreachable: Option<String>) -> BinDef {
    BinDef {
        name: name.into(),
        unreachable,
    }
}

/// The `instr.words` name of a legal word: the PTX spelling, plus vmad's operand forms (the
/// selectors and negations are written on the operands, not in the mnemonic).
pub(super) fn word_name(c: &Ctrl) -> String {
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

pub(super) fn vmad_form(c: &Ctrl) -> usize {
    match (c.neg_ab, c.neg_c, c.po) {
        (true, _, _) => 1,
        (_, true, _) => 2,
        (_, _, true) => 3,
        _ => 0,
    }
}

pub(super) const VMAD_FORMS: [&str; 4] = ["a*b + c", "-(a*b) + c", "a*b - c", "a*b + c + 1 (.po)"];

pub(super) fn sel_index(s: Sel) -> usize {
    SELS.iter().position(|&x| x == s).unwrap_or(6)
}

pub(super) fn scale_index(s: Scale) -> usize {
    SCALES.iter().position(|&x| x == s).unwrap_or(0)
}

/// Operand slots of a float family's `operands` group: names and formats.
pub(super) fn operand_slots(f: Family) -> Vec<&'static str> {
    match f {
        Family::F32x2 => vec![
            "lane0 a", "lane0 b", "lane0 c", "lane1 a", "lane1 b", "lane1 c",
        ],
        Family::Half => vec!["f16 a", "f16 b", "f16 c", "bf16 a", "bf16 b", "bf16 c"],
        Family::Half2 => vec![
            "f16 lane0 a",
            "f16 lane0 b",
            "f16 lane0 c",
            "f16 lane1 a",
            "f16 lane1 b",
            "f16 lane1 c",
            "bf16 lane0 a",
            "bf16 lane0 b",
            "bf16 lane0 c",
            "bf16 lane1 a",
            "bf16 lane1 b",
            "bf16 lane1 c",
        ],
        Family::Mixed => vec!["a f16", "b f16", "a bf16", "b bf16", "c f32"],
        Family::AddSubMul => vec!["f32 a", "f32 b", "f32 c", "f64 a", "f64 b", "f64 c"],
        _ => vec!["a", "b", "c"],
    }
}

/// Slot index of operand `pos` (0 a, 1 b, 2 c) in lane `lane` for a word of family `f`.
pub(super) fn slot_of(f: Family, c: &Ctrl, lane: usize, pos: usize) -> usize {
    match f {
        Family::F32x2 => lane * 3 + pos,
        Family::Half => (c.ab_fmt == AbFmt::Bf16) as usize * 3 + pos,
        Family::Half2 => (c.ab_fmt == AbFmt::Bf16) as usize * 6 + lane * 3 + pos,
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
pub(super) fn geometry(f64_: bool) -> (i32, i32) {
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
