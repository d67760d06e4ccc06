//! Which control words have a PTX spelling: a property of the control word that the printer and
//! the stimulus generator share. Its agreement with the decoder is checked exhaustively next to
//! the decoder (`ptx/src/legal_check.rs`).

use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};

/// The float operation spelled by the b_one / c_zero / neg_c fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Fma,
    Add,
    Sub,
    Mul,
}

impl FloatOp {
    /// `c` with the fields that spell this operation.
    pub fn apply(self, c: Ctrl) -> Ctrl {
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

    /// The operation `c` spells, `None` for a field combination no mnemonic has.
    pub fn of(c: &Ctrl) -> Option<FloatOp> {
        match (c.b_one, c.c_zero, c.neg_c) {
            (false, false, false) => Some(FloatOp::Fma),
            (true, false, false) => Some(FloatOp::Add),
            (true, false, true) => Some(FloatOp::Sub),
            (false, true, false) => Some(FloatOp::Mul),
            _ => None,
        }
    }

    /// The PTX opcode.
    pub fn mnemonic(self) -> &'static str {
        match self {
            FloatOp::Fma => "fma",
            FloatOp::Add => "add",
            FloatOp::Sub => "sub",
            FloatOp::Mul => "mul",
        }
    }
}

/// Whether `ctrl` is a control word that some PTX instruction decodes to, i.e. one that
/// the PTX printer (`op::print::ptx_spelling`) can print and the generator may produce. Fields an instruction does not use
/// must keep their [`Ctrl::default`] values, so that each legal word has one spelling.
pub fn is_legal(ctrl: &Ctrl) -> bool {
    let d = Ctrl::default();
    let half_fields_clear = !ctrl.relu && !ctrl.oob && !ctrl.via_f32;
    if ctrl.kind == Kind::Vmad {
        return ctrl.rnd == d.rnd
            && ctrl.ftz == d.ftz
            && ctrl.ab_fmt == d.ab_fmt
            && ctrl.b_one == d.b_one
            && ctrl.c_zero == d.c_zero
            && half_fields_clear
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
    if ctrl.is_half() {
        return vmad_fields_clear && is_legal_half(ctrl, op);
    }
    vmad_fields_clear
        && half_fields_clear
        && match ctrl.kind {
            Kind::F32 => match ctrl.ab_fmt {
                AbFmt::Native => true,
                // Mixed precision: no .ftz, and there is no mixed mul.
                AbFmt::F16 | AbFmt::Bf16 => !ctrl.ftz && op != FloatOp::Mul,
            },
            Kind::F64 => !ctrl.ftz && !ctrl.sat && ctrl.ab_fmt == AbFmt::Native,
            Kind::F32x2 => !ctrl.sat && ctrl.ab_fmt == AbFmt::Native,
            Kind::Sm1x => ctrl.rnd == Rnd::Rn && ctrl.ab_fmt == AbFmt::Native && op == FloatOp::Fma,
            Kind::Vmad | Kind::Half | Kind::Half2 => unreachable!(),
        }
}

/// The half-precision words `ptxas` has a spelling for (PTX ISA 9.1 and CUDA 13.5):
/// `fma.rn{.ftz}{.sat}.f16{x2}`, `fma.rn{.ftz}.relu.f16{x2}`, `fma.rn.oob{.relu}.f16{x2}`,
/// `fma.rn.sat.oob.f16{x2}`, `fma.rn{.oob}{.relu}.bf16{x2}`, `{add,sub,mul}.rn{.ftz}{.sat}.f16{x2}`
/// and `{add,sub,mul}.rn.bf16{x2}`; and the words of `fma.{rz,rm,rp}{.oob}{.relu}.bf16`, which an
/// H100 computes as f16 through binary32 (`via_f32`, S13; `.relu` and `.oob` dropped).
fn is_legal_half(ctrl: &Ctrl, op: FloatOp) -> bool {
    let fma = op == FloatOp::Fma;
    let f16 = match ctrl.ab_fmt {
        AbFmt::F16 => true,
        AbFmt::Bf16 => false,
        AbFmt::Native => return false,
    };
    if ctrl.via_f32 {
        return ctrl.kind == Kind::Half
            && f16
            && fma
            && ctrl.rnd != Rnd::Rn
            && !ctrl.ftz
            && !ctrl.sat
            && !ctrl.relu
            && !ctrl.oob;
    }
    let modifiers = if fma {
        // .sat and .relu exclude each other; .oob takes no .ftz.
        !((ctrl.sat && ctrl.relu) || (ctrl.oob && ctrl.ftz))
    } else {
        !ctrl.relu && !ctrl.oob
    };
    ctrl.rnd == Rnd::Rn && modifiers && (f16 || (!ctrl.ftz && !ctrl.sat))
}
