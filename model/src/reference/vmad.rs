//! `vmad` (decision S8): the PTX pseudo-code with a 128-bit intermediate, as sm_90 computes it
//! (measured on an H100). The pseudo-code, with the four places where silicon differs marked:
//!
//! ```text
//! ta = partSelectSignExtend( a, atype, asel );   // [1] no asel: a read as s32, any atype
//! tb = partSelectSignExtend( b, btype, bsel );   // [1] no bsel: b read as s32, any btype
//! signedFinal = isSigned(atype) || isSigned(btype) || (a.negate ^ b.negate) || c.negate;
//! tmp[127:0] = ta * tb;
//! lsb = 0;
//! if ( .po )                  {              lsb = 1; } else
//! if ( a.negate ^ b.negate )  { tmp = ~tmp;  lsb = 1; } else
//! if ( c.negate )             { c   = ~c;    lsb = 1; }
//! c128[127:0] = sext32( c );                     // [2] even when !signedFinal
//! tmp = tmp + c128 + lsb;
//! switch( scale ) { case .shr7: result = (tmp >> 7) & 0xffffffffffffffff;
//!                   case .shr15: result = (tmp >> 15) & 0xffffffffffffffff; }
//!                                                // [4] !signedFinal: tmp[63:0] >> 7 (or 15),
//!                                                //     zeros shifted in

//! if ( .sat ) { if (signedFinal) result = CLAMP(result, S32_MAX, S32_MIN);
//!               else             result = CLAMP(result, U32_MAX, U32_MIN); }
//!                                                // [3] result read as signed in both clamps
//! ```
//!
//! Without `.scale` the result is `tmp[63:0]`; d is `result[31:0]` (see `docs/semantics.md`).

use crate::ctrl::{Ctrl, Scale, Sel};

/// `partSelectSignExtend`: the selected byte / half-word, sign- or zero-extended to 128 bits
/// according to the operand's type; the whole word sign-extended whatever the type ([1]).
fn part_select(x: u32, signed: bool, sel: Sel) -> u128 {
    let (shift, width) = match sel {
        Sel::B0 => (0, 8),
        Sel::B1 => (8, 8),
        Sel::B2 => (16, 8),
        Sel::B3 => (24, 8),
        Sel::H0 => (0, 16),
        Sel::H1 => (16, 16),
        Sel::W => (0, 32),
    };
    let signed = signed || sel == Sel::W;
    let field = u128::from(x >> shift) & ((1u128 << width) - 1);
    if signed && (field >> (width - 1)) & 1 == 1 {
        // Set every bit above the field: two's complement sign extension to 128 bits.
        field | !((1u128 << width) - 1)
    } else {
        field
    }
}

/// `vmad` d (in bits 31:0 of the returned word).
pub fn eval(ctrl: &Ctrl, a: u32, b: u32, c: u32) -> u32 {
    let ta = part_select(a, ctrl.a_signed, ctrl.asel);
    let tb = part_select(b, ctrl.b_signed, ctrl.bsel);
    // `neg_ab` is a.negate ^ b.negate, `neg_c` is c.negate.
    let signed_final = ctrl.a_signed || ctrl.b_signed || ctrl.neg_ab || ctrl.neg_c;
    // 128-bit two's complement product: the low 128 bits of the product of the sign-extended
    // values are the same whether the factors are read signed or unsigned.
    let mut tmp = ta.wrapping_mul(tb);
    let mut c = c;
    let lsb: u128 = if ctrl.po {
        1
    } else if ctrl.neg_ab {
        tmp = !tmp;
        1
    } else if ctrl.neg_c {
        c = !c;
        1
    } else {
        0
    };
    // [2]: sext32(c) whatever the final type.
    let c128 = if c >> 31 == 1 {
        u128::from(c) | !u128::from(u32::MAX)
    } else {
        u128::from(c)
    };
    let tmp = tmp.wrapping_add(c128).wrapping_add(lsb);
    let mask64 = u128::from(u64::MAX);
    let shift = match ctrl.scale {
        Scale::None => 0,
        Scale::Shr7 => 7,
        Scale::Shr15 => 15,
    };
    // [4]: the shift of a signed result brings in copies of bit 127 of tmp; an unsigned one
    // shifts the 64-bit window itself, with zeros.
    let result = if signed_final {
        ((tmp >> shift) & mask64) as u64
    } else {
        ((tmp & mask64) as u64) >> shift
    };
    // [3]: both clamps read the 64-bit result as signed.
    let result = if ctrl.sat {
        let (lo, hi) = if signed_final {
            (i64::from(i32::MIN), i64::from(i32::MAX))
        } else {
            (0, i64::from(u32::MAX))
        };
        (result as i64).clamp(lo, hi) as u64
    } else {
        result
    };
    result as u32
}
