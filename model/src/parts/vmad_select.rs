//! vmad byte/half-word select with sign or zero extension (PTX `partSelectSignExtend`, as sm_90
//! computes it: decision S8).

use crate::ctrl::Sel;

/// The selected part of `w`, extended to a signed value. A byte or half-word is sign- or
/// zero-extended by the operand's type (`signed`); a whole word (no selector) is read as `s32`
/// whatever its type.
pub fn part_select(w: u32, sel: Sel, signed: bool) -> i64 {
    let (v, bits) = match sel {
        Sel::B0 => (w & 0xFF, 8),
        Sel::B1 => ((w >> 8) & 0xFF, 8),
        Sel::B2 => ((w >> 16) & 0xFF, 8),
        Sel::B3 => (w >> 24, 8),
        Sel::H0 => (w & 0xFFFF, 16),
        Sel::H1 => (w >> 16, 16),
        Sel::W => return w as i32 as i64,
    };
    if signed {
        ((v as i64) << (64 - bits)) >> (64 - bits)
    } else {
        v as i64
    }
}
