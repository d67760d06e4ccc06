//! The lexical layer shared by the float and vmad decoders: the opcode, and the modifier tokens
//! after it, classified before either decoder decides what they mean.

use super::error::{bail, DecodeError};
use ptxfma_model::ctrl::{Rnd, Scale, Sel};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opcode {
    Fma,
    Mad,
    Add,
    Sub,
    Mul,
    Vmad,
}

impl Opcode {
    pub(crate) fn parse(s: &str) -> Result<Opcode, DecodeError> {
        Ok(match s {
            "fma" => Opcode::Fma,
            "mad" => Opcode::Mad,
            "add" => Opcode::Add,
            "sub" => Opcode::Sub,
            "mul" => Opcode::Mul,
            "vmad" => Opcode::Vmad,
            "" => bail!("empty instruction"),
            _ => bail!("unknown instruction `{s}` (supported: fma, mad, add, sub, mul, vmad)"),
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Opcode::Fma => "fma",
            Opcode::Mad => "mad",
            Opcode::Add => "add",
            Opcode::Sub => "sub",
            Opcode::Mul => "mul",
            Opcode::Vmad => "vmad",
        }
    }

    /// The source operands written on an `eval` line, in order.
    pub(crate) fn operands(self) -> &'static [char] {
        match self {
            Opcode::Add | Opcode::Sub => &['a', 'c'],
            Opcode::Mul => &['a', 'b'],
            Opcode::Fma | Opcode::Mad | Opcode::Vmad => &['a', 'b', 'c'],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    F32,
    F64,
    F32x2,
    F16,
    Bf16,
    F16x2,
    Bf16x2,
    U32,
    S32,
}

/// The PTX spelling of a type, for messages.
pub(crate) fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::F32 => ".f32",
        Ty::F64 => ".f64",
        Ty::F32x2 => ".f32x2",
        Ty::F16 => ".f16",
        Ty::Bf16 => ".bf16",
        Ty::F16x2 => ".f16x2",
        Ty::Bf16x2 => ".bf16x2",
        Ty::U32 => ".u32",
        Ty::S32 => ".s32",
    }
}

/// Every modifier this decoder knows, in any family. Knowing the ones that belong to the other
/// family lets the message say "not allowed here" instead of "unknown".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Modifier {
    Rnd(Rnd),
    Ftz,
    Sat,
    Relu,
    Oob,
    Po,
    Scale(Scale),
    Sel(Sel),
    Ty(Ty),
}

pub(crate) fn classify(tok: &str) -> Option<Modifier> {
    use Modifier as M;
    Some(match tok {
        "rn" => M::Rnd(Rnd::Rn),
        "rz" => M::Rnd(Rnd::Rz),
        "rm" => M::Rnd(Rnd::Rm),
        "rp" => M::Rnd(Rnd::Rp),
        "ftz" => M::Ftz,
        "sat" => M::Sat,
        "relu" => M::Relu,
        "oob" => M::Oob,
        "po" => M::Po,
        "shr7" => M::Scale(Scale::Shr7),
        "shr15" => M::Scale(Scale::Shr15),
        "f32" => M::Ty(Ty::F32),
        "f64" => M::Ty(Ty::F64),
        "f32x2" => M::Ty(Ty::F32x2),
        "f16" => M::Ty(Ty::F16),
        "bf16" => M::Ty(Ty::Bf16),
        "f16x2" => M::Ty(Ty::F16x2),
        "bf16x2" => M::Ty(Ty::Bf16x2),
        "u32" => M::Ty(Ty::U32),
        "s32" => M::Ty(Ty::S32),
        _ => M::Sel(parse_sel(tok)?),
    })
}

pub(crate) fn parse_sel(tok: &str) -> Option<Sel> {
    Some(match tok {
        "b0" => Sel::B0,
        "b1" => Sel::B1,
        "b2" => Sel::B2,
        "b3" => Sel::B3,
        "h0" => Sel::H0,
        "h1" => Sel::H1,
        _ => return None,
    })
}

/// Splits `fma.rn.f32` into the opcode and its modifiers (without dots).
pub(crate) fn split_mnemonic(mnemonic: &str) -> Result<(Opcode, Vec<&str>), DecodeError> {
    let mut parts = mnemonic.split('.');
    let op = Opcode::parse(parts.next().unwrap_or(""))?;
    let mods: Vec<&str> = parts.collect();
    if mods.iter().any(|m| m.is_empty()) {
        bail!("empty modifier (stray `.`) in `{mnemonic}`");
    }
    Ok((op, mods))
}
