//! Which control words have a PTX spelling: the rule the printer and the stimulus generator
//! share. Its agreement with the decoder is checked exhaustively in the tests below.

use crate::machine::ctrl::{AbFmt, Ctrl, Kind, Rnd};

/// The float operation spelled by the b_one / c_zero / neg_c fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatOp {
    Fma,
    Add,
    Sub,
    Mul,
}

impl FloatOp {
    pub(crate) fn apply(self, c: Ctrl) -> Ctrl {
        match self {
            FloatOp::Fma => c,
            FloatOp::Add => Ctrl { b_one: true, ..c },
            FloatOp::Sub => Ctrl {
                b_one: true,
                neg_c: true,
                ..c
            },
            FloatOp::Mul => Ctrl { c_zero: true, ..c },
        }
    }

    pub(crate) fn of(c: &Ctrl) -> Option<FloatOp> {
        match (c.b_one, c.c_zero, c.neg_c) {
            (false, false, false) => Some(FloatOp::Fma),
            (true, false, false) => Some(FloatOp::Add),
            (true, false, true) => Some(FloatOp::Sub),
            (false, true, false) => Some(FloatOp::Mul),
            _ => None,
        }
    }

    pub(crate) fn mnemonic(self) -> &'static str {
        match self {
            FloatOp::Fma => "fma",
            FloatOp::Add => "add",
            FloatOp::Sub => "sub",
            FloatOp::Mul => "mul",
        }
    }
}

/// Whether `ctrl` is a control word that some PTX instruction decodes to, i.e. one that
/// [`ptx_spelling`](super::print::ptx_spelling) can print and the generator may produce. Fields an instruction does not use
/// must keep their [`Ctrl::default`] values, so that each legal word has one spelling.
pub fn is_legal(ctrl: &Ctrl) -> bool {
    let d = Ctrl::default();
    if ctrl.kind == Kind::Vmad {
        return ctrl.rnd == d.rnd
            && ctrl.ftz == d.ftz
            && ctrl.ab_fmt == d.ab_fmt
            && ctrl.b_one == d.b_one
            && ctrl.c_zero == d.c_zero
            && !(ctrl.neg_ab && ctrl.neg_c)
            && !(ctrl.po && (ctrl.neg_ab || ctrl.neg_c));
    }
    let vmad_fields_clear = !ctrl.neg_ab
        && ctrl.a_signed == d.a_signed
        && ctrl.b_signed == d.b_signed
        && ctrl.asel == d.asel
        && ctrl.bsel == d.bsel
        && ctrl.po == d.po
        && ctrl.scale == d.scale;
    let Some(op) = FloatOp::of(ctrl) else {
        return false;
    };
    vmad_fields_clear
        && match ctrl.kind {
            Kind::F32 => match ctrl.ab_fmt {
                AbFmt::Native => true,
                // Mixed precision: no .ftz, and there is no mixed mul.
                AbFmt::F16 | AbFmt::Bf16 => !ctrl.ftz && op != FloatOp::Mul,
            },
            Kind::F64 => !ctrl.ftz && !ctrl.sat && ctrl.ab_fmt == AbFmt::Native,
            Kind::F32x2 => !ctrl.sat && ctrl.ab_fmt == AbFmt::Native && op == FloatOp::Fma,
            Kind::Sm1x => ctrl.rnd == Rnd::Rn && ctrl.ab_fmt == AbFmt::Native && op == FloatOp::Fma,
            Kind::Vmad => unreachable!(),
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::ctrl::{Sel, CTRL_BITS};
    use crate::op::{decode, decode_vmad, Target, VmadSrc};
    use std::collections::HashSet;

    /// Every control word the decoder produces, from every mnemonic its grammar accepts up to
    /// modifier order (which it ignores) and on one target of each rule boundary (sm_10, sm_13,
    /// sm_20, sm_100), plus every vmad operand decoration.
    fn decoder_image() -> HashSet<u32> {
        let targets = ["sm_10", "sm_13", "sm_20", "sm_100"].map(|t| Target::parse(t).unwrap());
        let mut image = HashSet::new();
        let mut add = |r: Result<Ctrl, _>| {
            if let Ok(c) = r {
                image.insert(c.encode());
            }
        };
        for op in ["fma", "mad", "add", "sub", "mul"] {
            for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
                for ftz in ["", ".ftz"] {
                    for sat in ["", ".sat"] {
                        for ty in [".f32", ".f64", ".f32x2", ".f32.f16", ".f32.bf16"] {
                            for t in targets {
                                add(decode(&format!("{op}{rnd}{ftz}{sat}{ty}"), t));
                            }
                        }
                    }
                }
            }
        }
        let sels = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
        let ty = |s: bool| if s { ".s32" } else { ".u32" };
        for bits in 0..8u32 {
            let tys = format!(
                "{}{}{}",
                ty(bits & 1 != 0),
                ty(bits & 2 != 0),
                ty(bits & 4 != 0)
            );
            for po in ["", ".po"] {
                for sat in ["", ".sat"] {
                    for scale in ["", ".shr7", ".shr15"] {
                        let m = format!("vmad{tys}{po}{sat}{scale}");
                        for negs in 0..8u32 {
                            for asel in sels {
                                for bsel in sels {
                                    let src = VmadSrc {
                                        a_neg: negs & 1 != 0,
                                        b_neg: negs & 2 != 0,
                                        c_neg: negs & 4 != 0,
                                        asel,
                                        bsel,
                                    };
                                    add(decode_vmad(&m, targets[3], src));
                                }
                            }
                        }
                    }
                }
            }
        }
        image
    }

    /// `is_legal` restates the decoder's rules as field rules; the two must agree on every one of
    /// the 2^24 control words: legal exactly when some PTX spelling decodes to it.
    #[test]
    fn is_legal_agrees_with_the_decoder_on_every_word() {
        let image = decoder_image();
        for &w in &image {
            assert_eq!(
                Ctrl::decode(w).encode(),
                w,
                "decoder made a non-canonical {w:#08x}"
            );
        }
        for w in 0..(1u32 << CTRL_BITS) {
            let c = Ctrl::decode(w);
            let canonical = c.encode() == w;
            assert_eq!(
                canonical && is_legal(&c),
                image.contains(&w),
                "{w:#08x} {c:?}: is_legal and the decoder disagree"
            );
        }
    }
}
