//! The control word: the one decoded form of an instruction that both the model and the RTL
//! consume. Its bit layout is fixed by `docs/microarchitecture.md` (section "Control word") and by
//! `ptxfma_pkg::ctrl_t` in the RTL; [`Ctrl::encode`] / [`Ctrl::decode`] are the only places that
//! know the bit positions.

use crate::format::{Fmt, BF16, F16, F32, F64};

/// Datapath kind: which operation family flows down the pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// IEEE binary32 fused multiply-add (also mixed precision, add/sub/mul .f32).
    F32 = 0,
    /// IEEE binary64 fused multiply-add (also add/sub/mul .f64).
    F64 = 1,
    /// Two independent binary32 lanes, lane 0 in bits 31:0 (`fma.rnd.f32x2`).
    F32x2 = 2,
    /// sm_1x `mad.f32`: product truncated to 24 bits, exponent unbounded (decision S7).
    Sm1x = 3,
    /// Integer `vmad`.
    Vmad = 4,
}

/// IEEE rounding direction, encoded as the RTL's `rnd_e`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rnd {
    Rn = 0,
    Rz = 1,
    Rm = 2,
    Rp = 3,
}

/// Source format of `a` (and `b`, unless `b_one`) for the float kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AbFmt {
    /// The kind's own format (binary32 or binary64).
    Native = 0,
    /// IEEE binary16 in bits 15:0, converted exactly to binary32.
    F16 = 1,
    /// bfloat16 in bits 15:0, converted exactly to binary32.
    Bf16 = 2,
}

/// vmad byte/half/word selector of one source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sel {
    B0 = 0,
    B1 = 1,
    B2 = 2,
    B3 = 3,
    H0 = 4,
    H1 = 5,
    /// No selector: the whole 32-bit word.
    W = 6,
}

/// vmad scaling of the intermediate result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    None = 0,
    Shr7 = 1,
    Shr15 = 2,
}

/// The decoded control word. Field meanings are in `docs/microarchitecture.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ctrl {
    pub kind: Kind,
    pub rnd: Rnd,
    pub ftz: bool,
    pub sat: bool,
    pub ab_fmt: AbFmt,
    /// `b` is replaced by +1.0 (add/sub on the FMA datapath).
    pub b_one: bool,
    /// `c` is replaced by a signed zero: -0, or +0 under `.rm` (mul on the FMA datapath).
    pub c_zero: bool,
    /// `c` is negated (sub; vmad `-c`).
    pub neg_c: bool,
    /// vmad only: the product is negated (exactly one of `-a`, `-b`).
    pub neg_ab: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub asel: Sel,
    pub bsel: Sel,
    /// vmad `.po` (plus one).
    pub po: bool,
    pub scale: Scale,
}

/// Width of the encoded control word in bits.
pub const CTRL_BITS: u32 = 24;

impl Default for Ctrl {
    fn default() -> Self {
        Ctrl::decode(0)
    }
}

impl Ctrl {
    /// A plain `fma.<rnd>.<kind>` control word with every modifier off.
    pub fn fma(kind: Kind, rnd: Rnd) -> Ctrl {
        Ctrl {
            kind,
            rnd,
            ..Ctrl::default()
        }
    }

    /// Packs the fields into the 24-bit layout shared with the RTL.
    pub fn encode(&self) -> u32 {
        (self.kind as u32)
            | (self.rnd as u32) << 3
            | (self.ftz as u32) << 5
            | (self.sat as u32) << 6
            | (self.ab_fmt as u32) << 7
            | (self.b_one as u32) << 9
            | (self.c_zero as u32) << 10
            | (self.neg_c as u32) << 11
            | (self.neg_ab as u32) << 12
            | (self.a_signed as u32) << 13
            | (self.b_signed as u32) << 14
            | (self.asel as u32) << 15
            | (self.bsel as u32) << 18
            | (self.po as u32) << 21
            | (self.scale as u32) << 22
    }

    /// Unpacks a control word exactly as the RTL reads it: reserved codes fall back to the
    /// documented defaults (kind 5..7 -> `F32`, ab_fmt 3 -> `Native`, sel 7 -> `W`,
    /// scale 3 -> `None`), so every 24-bit pattern has one meaning on both sides.
    pub fn decode(w: u32) -> Ctrl {
        // Table look-ups rather than matches: every stage decodes its register's word.
        const KIND: [Kind; 8] = [
            Kind::F32,
            Kind::F64,
            Kind::F32x2,
            Kind::Sm1x,
            Kind::Vmad,
            Kind::F32,
            Kind::F32,
            Kind::F32,
        ];
        const RND: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
        const AB: [AbFmt; 4] = [AbFmt::Native, AbFmt::F16, AbFmt::Bf16, AbFmt::Native];
        const SEL: [Sel; 8] = [
            Sel::B0,
            Sel::B1,
            Sel::B2,
            Sel::B3,
            Sel::H0,
            Sel::H1,
            Sel::W,
            Sel::W,
        ];
        const SCALE: [Scale; 4] = [Scale::None, Scale::Shr7, Scale::Shr15, Scale::None];
        let bit = |n: u32| (w >> n) & 1 != 0;
        let f = |n: u32, m: u32| ((w >> n) & m) as usize;
        Ctrl {
            kind: KIND[f(0, 7)],
            rnd: RND[f(3, 3)],
            ftz: bit(5),
            sat: bit(6),
            ab_fmt: AB[f(7, 3)],
            b_one: bit(9),
            c_zero: bit(10),
            neg_c: bit(11),
            neg_ab: bit(12),
            a_signed: bit(13),
            b_signed: bit(14),
            asel: SEL[f(15, 7)],
            bsel: SEL[f(18, 7)],
            po: bit(21),
            scale: SCALE[f(22, 3)],
        }
    }

    /// vmad: the final result is signed (PTX `signedFinal`).
    pub fn signed_final(&self) -> bool {
        self.a_signed || self.b_signed || self.neg_ab || self.neg_c
    }

    /// The float kinds whose results are binary32 (everything but f64 and vmad).
    pub fn is_f32(&self) -> bool {
        matches!(self.kind, Kind::F32 | Kind::F32x2 | Kind::Sm1x)
    }

    /// The formats of the a, b and c operands (of each lane for f32x2). vmad's 32-bit integer
    /// sources are given f32's width.
    pub fn operand_formats(&self) -> (Fmt, Fmt, Fmt) {
        let ab = match (self.kind, self.ab_fmt) {
            (Kind::F64, _) => F64,
            (Kind::F32, AbFmt::F16) => F16,
            (Kind::F32, AbFmt::Bf16) => BF16,
            _ => F32,
        };
        let c = if self.kind == Kind::F64 { F64 } else { F32 };
        (ab, ab, c)
    }

    /// Subnormal inputs and results flush to signed zero (`.ftz`, or always on sm_1x mad).
    pub fn flush(&self) -> bool {
        (self.ftz && self.is_f32()) || self.kind == Kind::Sm1x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_canonical_word_round_trips() {
        // Decode every word, re-encode, decode again: the canonical form must be a fixed point,
        // and canonical words must survive unchanged.
        for w in 0..(1u32 << CTRL_BITS) {
            let c = Ctrl::decode(w);
            let e = c.encode();
            assert_eq!(Ctrl::decode(e), c, "word {w:#x}");
            assert!(e < 1 << CTRL_BITS);
        }
    }
}
