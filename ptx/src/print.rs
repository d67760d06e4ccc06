//! The PTX printer, the inverse of the decoder: the spelling of a control word and its operands,
//! for reports, replay scripts and `fma-model eval` lines.

use ptxfma_model::ctrl::legal::{is_legal, FloatOp};
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};

/// The PTX spelling of a rounding mode (`rn`), without the dot.
pub fn rnd_name(r: Rnd) -> &'static str {
    match r {
        Rnd::Rn => "rn",
        Rnd::Rz => "rz",
        Rnd::Rm => "rm",
        Rnd::Rp => "rp",
    }
}

/// The PTX spelling of a vmad operand selector (`.b0`; empty for the whole word).
pub fn sel_suffix(s: Sel) -> &'static str {
    match s {
        Sel::B0 => ".b0",
        Sel::B1 => ".b1",
        Sel::B2 => ".b2",
        Sel::B3 => ".b3",
        Sel::H0 => ".h0",
        Sel::H1 => ".h1",
        Sel::W => "",
    }
}

/// The PTX mnemonic of `ctrl`, e.g. `fma.rn.ftz.sat.f32`, `add.rz.f32.bf16`, `mul.rm.f64`,
/// `mad.ftz.f32` (sm_1x) or `vmad.s32.u32.s32.po.sat.shr7`. The rounding modifier is always
/// written, even where PTX makes it optional, so the text names the mode without a default to
/// remember. A word with no PTX form (see [`is_legal`]) prints as `ctrl(0x......)`.
pub fn ptx_spelling(ctrl: &Ctrl) -> String {
    if !is_legal(ctrl) {
        return format!("ctrl({:#08x})", ctrl.encode());
    }
    let mut s = String::new();
    let flag = |s: &mut String, on: bool, text: &str| {
        if on {
            s.push_str(text);
        }
    };
    match ctrl.kind {
        Kind::Vmad => {
            let ty = |signed: bool| if signed { ".s32" } else { ".u32" };
            s.push_str("vmad");
            s.push_str(ty(ctrl.signed_final()));
            s.push_str(ty(ctrl.a_signed));
            s.push_str(ty(ctrl.b_signed));
            flag(&mut s, ctrl.po, ".po");
            flag(&mut s, ctrl.sat, ".sat");
            s.push_str(match ctrl.scale {
                Scale::None => "",
                Scale::Shr7 => ".shr7",
                Scale::Shr15 => ".shr15",
            });
        }
        Kind::Half | Kind::Half2 => {
            let op = FloatOp::of(ctrl).expect("legal half ctrl has an op");
            s.push_str(op.mnemonic());
            s.push('.');
            s.push_str(rnd_name(ctrl.rnd));
            flag(&mut s, ctrl.ftz, ".ftz");
            flag(&mut s, ctrl.sat, ".sat");
            flag(&mut s, ctrl.oob, ".oob");
            flag(&mut s, ctrl.relu, ".relu");
            // S13: the word of `fma.{rz,rm,rp}.bf16` is spelled so.
            let bf16 = ctrl.ab_fmt == AbFmt::Bf16 || ctrl.via_f32;
            s.push_str(match (bf16, ctrl.kind == Kind::Half2) {
                (false, false) => ".f16",
                (true, false) => ".bf16",
                (false, true) => ".f16x2",
                (true, true) => ".bf16x2",
            });
        }
        Kind::Sm1x => {
            s.push_str("mad");
            flag(&mut s, ctrl.ftz, ".ftz");
            flag(&mut s, ctrl.sat, ".sat");
            s.push_str(".f32");
        }
        Kind::F32 | Kind::F64 | Kind::F32x2 => {
            let op = FloatOp::of(ctrl).expect("legal float ctrl has an op");
            s.push_str(op.mnemonic());
            s.push('.');
            s.push_str(rnd_name(ctrl.rnd));
            flag(&mut s, ctrl.ftz, ".ftz");
            flag(&mut s, ctrl.sat, ".sat");
            s.push_str(match (ctrl.kind, ctrl.ab_fmt) {
                (Kind::F64, _) => ".f64",
                (Kind::F32x2, _) => ".f32x2",
                (_, AbFmt::F16) => ".f32.f16",
                (_, AbFmt::Bf16) => ".f32.bf16",
                (_, AbFmt::Native) => ".f32",
            });
        }
    }
    s
}

/// Which source operand of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    A,
    B,
    C,
}

/// The operand as written on an `fma-model eval` line: hex sized to the operand's format
/// (`0x3c00` for an f16 `a`, `0x3f800000` for f32, 16 digits for f64 and f32x2, 8 for vmad),
/// with vmad's `-` negation on `a` (for a negated product) or `c`, and its `.b0`..`.h1` selector.
/// `None` for an operand the instruction does not write: `b` of add/sub, `c` of mul. A value with
/// bits set outside its format is printed in full (16 digits) so a report never hides them.
pub fn operand_text(ctrl: &Ctrl, which: Operand, value: u64) -> Option<String> {
    let op = FloatOp::of(ctrl);
    if ctrl.kind != Kind::Vmad {
        match (which, op) {
            (Operand::B, Some(FloatOp::Add | FloatOp::Sub)) => return None,
            (Operand::C, Some(FloatOp::Mul)) => return None,
            _ => {}
        }
    }
    let bits = match (ctrl.kind, which, ctrl.ab_fmt) {
        (Kind::F64 | Kind::F32x2, _, _) => 64,
        (Kind::Half, _, _) => 16,
        (Kind::Half2, _, _) => 32,
        (Kind::F32, Operand::A | Operand::B, AbFmt::F16 | AbFmt::Bf16) => 16,
        _ => 32,
    };
    let hex = if bits < 64 && value >> bits != 0 {
        format!("0x{value:016x}")
    } else {
        format!("0x{:0w$x}", value, w = (bits / 4) as usize)
    };
    if ctrl.kind != Kind::Vmad {
        return Some(hex);
    }
    let (neg, sel) = match which {
        Operand::A => (ctrl.neg_ab, sel_suffix(ctrl.asel)),
        Operand::B => (false, sel_suffix(ctrl.bsel)),
        Operand::C => (ctrl.neg_c, ""),
    };
    Some(format!("{}{hex}{sel}", if neg { "-" } else { "" }))
}

/// One complete `fma-model eval` line: mnemonic and the written operands.
pub fn eval_line(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> String {
    let mut s = ptx_spelling(ctrl);
    for (w, v) in [(Operand::A, a), (Operand::B, b), (Operand::C, c)] {
        if let Some(t) = operand_text(ctrl, w, v) {
            s.push(' ');
            s.push_str(&t);
        }
    }
    s
}

/// The target under which [`ptx_spelling`] means `ctrl`: sm_1x `mad.f32` exists only below
/// sm_20, everything else is accepted by the default `sm_100`. A replay script writes
/// `.target <this>` before the line.
pub fn target(ctrl: &Ctrl) -> &'static str {
    if ctrl.kind == Kind::Sm1x {
        "sm_13"
    } else {
        "sm_100"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings() {
        let base = Ctrl::default();
        let f32c = Ctrl {
            ftz: true,
            sat: true,
            ..Ctrl::fma(Kind::F32, Rnd::Rn)
        };
        assert_eq!(ptx_spelling(&f32c), "fma.rn.ftz.sat.f32");
        let bf = Ctrl {
            b_one: true,
            ab_fmt: AbFmt::Bf16,
            ..Ctrl::fma(Kind::F32, Rnd::Rz)
        };
        assert_eq!(ptx_spelling(&bf), "add.rz.f32.bf16");
        let mul = Ctrl {
            c_zero: true,
            ..Ctrl::fma(Kind::F64, Rnd::Rm)
        };
        assert_eq!(ptx_spelling(&mul), "mul.rm.f64");
        let sm = Ctrl {
            ftz: true,
            ..Ctrl::fma(Kind::Sm1x, Rnd::Rn)
        };
        assert_eq!(ptx_spelling(&sm), "mad.ftz.f32");
        assert_eq!(target(&sm), "sm_13");
        let x2 = Ctrl::fma(Kind::F32x2, Rnd::Rp);
        assert_eq!(ptx_spelling(&x2), "fma.rp.f32x2");
        let vm = Ctrl {
            kind: Kind::Vmad,
            b_signed: true,
            po: true,
            sat: true,
            scale: Scale::Shr7,
            asel: Sel::W,
            bsel: Sel::W,
            ..base
        };
        assert_eq!(ptx_spelling(&vm), "vmad.s32.u32.s32.po.sat.shr7");
        let vm2 = Ctrl {
            kind: Kind::Vmad,
            asel: Sel::H0,
            bsel: Sel::H0,
            scale: Scale::Shr15,
            ..base
        };
        assert_eq!(
            eval_line(&vm2, 0x1234_5678, 0x9abc_def0, 3),
            "vmad.u32.u32.u32.shr15 0x12345678.h0 0x9abcdef0.h0 0x00000003"
        );
        let vm3 = Ctrl {
            kind: Kind::Vmad,
            neg_ab: true,
            asel: Sel::B3,
            bsel: Sel::W,
            ..base
        };
        assert_eq!(
            eval_line(&vm3, 1, 2, 0xffff_ffff),
            "vmad.s32.u32.u32 -0x00000001.b3 0x00000002 0xffffffff"
        );
        let sub = Ctrl { neg_c: true, ..bf };
        assert_eq!(
            eval_line(&sub, 0x3f80, 7, 0x4000_0000),
            "sub.rz.f32.bf16 0x3f80 0x40000000"
        );
        assert_eq!(
            eval_line(&mul, 1, 2, 0),
            "mul.rm.f64 0x0000000000000001 0x0000000000000002"
        );
        // Junk above a format's width is shown, not dropped.
        assert_eq!(
            operand_text(&f32c, Operand::A, 1 << 40).unwrap(),
            "0x0000010000000000"
        );
        // Words with no PTX form say so.
        let bad = Ctrl {
            sat: true,
            ..Ctrl::fma(Kind::F64, Rnd::Rn)
        };
        assert!(ptx_spelling(&bad).starts_with("ctrl(0x"));
    }
}
