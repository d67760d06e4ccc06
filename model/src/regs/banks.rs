//! The four register banks, field for field the RTL's `s1_t`, `s2_t`, `s3_t` and `out_t` (with
//! their lane and side-path parts), each declared once with `reg!`: the model's banks, their
//! packing and the RTL package's declarations (`fma-model gen-rtl-pkg`) all come from here.

use super::bits::{BitReader, BitWriter};
use super::layout::{reg, Field, Leaf, Reg, RtlField};
use crate::ctrl::CTRL_BITS;
use crate::geometry::{
    ADD_W, ALIGN_W, DATA_W, EXP_REG_W, MAG_W, MUL_W, SHIFT_CNT_W, TAG_W, VM_TMP_W,
};
use crate::wide::Wide;

/// The aligned addend ([`ALIGN_W`] bits).
pub type U164 = Wide<{ ALIGN_W as usize }>;
/// The sum magnitude and the normalised significand ([`MAG_W`] bits).
pub type U165 = Wide<{ MAG_W as usize }>;
/// The signed adder ([`ADD_W`] bits).
pub type U166 = Wide<{ ADD_W as usize }>;

reg! {
    /// One float lane after stage 1 (unpack, special cases, exponent compare, alignment).
    pub struct S1Lane {
        /// Sign of the product a*b.
        sign_p: bool = 1,
        /// Sign of the addend after `neg_c` / `c_zero`.
        sign_c: bool = 1,
        /// a or b is zero (after flushing): the alignment was forced to put c on top.
        prod_zero: bool = 1,
        /// c is zero (after flushing).
        c_zero: bool = 1,
        /// Reference exponent: window bit k weighs 2^(eref - 107 + k). 14-bit two's complement.
        eref: i16 = EXP_REG_W => exp14_t,
        /// Addend significand placed in the 164-bit window (bits shifted below 0 are in sticky).
        c_aligned: U164 = ALIGN_W,
        /// OR of the addend bits shifted out below window bit 0.
        align_sticky: bool = 1,
        /// The special-case unit decided the result (NaN or infinity).
        spec_valid: bool = 1,
        /// That result, encoded in the kind's format (binary32 in bits 31:0).
        spec_res: u64 = DATA_W,
    }
}

reg! {
    /// vmad side-path after stage 1.
    pub struct S1Vmad {
        /// c after the optional one's complement, sign-extended to 80 bits (S8).
        vm_cext: u128 = VM_TMP_W,
        /// One's complement the product (exactly one of a, b negated).
        vm_inv: bool = 1,
        /// The +1 of `.po` or of a negation.
        vm_lsb: bool = 1,
    }
}

reg! {
    /// Stage-1 register bank (`s1_q`): multiplier carry-save pair, vmad side path, two lanes.
    pub struct S1 {
        valid: bool = 1,
        tag: u16 = TAG_W,
        ctrl: u32 = CTRL_BITS => ctrl_t,
        /// Carry-save tree output, sum row (106 bits, modulo 2^106).
        mul_sum: u128 = MUL_W,
        /// Carry-save tree output, carry row.
        mul_carry: u128 = MUL_W,
        vm: S1Vmad = S1Vmad::WIDTH,
        lane0: S1Lane = S1Lane::WIDTH,
        lane1: S1Lane = S1Lane::WIDTH,
    }
}

reg! {
    /// One float lane after stage 2 (product CPA, sm_1x truncation, add, LZA).
    pub struct S2Lane {
        /// Sign of the result.
        sign: bool = 1,
        /// The exact result is zero (magnitude and sticky both zero); `sign` is its IEEE sign.
        zero: bool = 1,
        /// Sign a result flushed to zero takes (differs from `sign` only for sm_1x with c = 0).
        flush_sign: bool = 1,
        /// Magnitude of the sum in the window, bits 164:0.
        mag: U165 = MAG_W,
        /// Non-zero bits below window bit 0.
        sticky: bool = 1,
        /// Leading-zero anticipator prediction for `mag` (may be off by one either way).
        lza_cnt: u8 = SHIFT_CNT_W,
        eref: i16 = EXP_REG_W => exp14_t,
        spec_valid: bool = 1,
        spec_res: u64 = DATA_W,
    }
}

reg! {
    /// Stage-2 register bank (`s2_q`).
    pub struct S2 {
        valid: bool = 1,
        tag: u16 = TAG_W,
        ctrl: u32 = CTRL_BITS => ctrl_t,
        /// vmad: tmp = (~)product + cext + lsb, modulo 2^80.
        vm_tmp: u128 = VM_TMP_W,
        lane0: S2Lane = S2Lane::WIDTH,
        lane1: S2Lane = S2Lane::WIDTH,
    }
}

reg! {
    /// One float lane after stage 3 (normalisation).
    pub struct S3Lane {
        sign: bool = 1,
        zero: bool = 1,
        flush_sign: bool = 1,
        /// Normalised significand: bit 164 is the leading one unless the value is subnormal.
        norm: U165 = MAG_W,
        sticky: bool = 1,
        /// Unbiased exponent of bit 164 of `norm`. 14-bit two's complement.
        exp: i16 = EXP_REG_W => exp14_t,
        spec_valid: bool = 1,
        spec_res: u64 = DATA_W,
    }
}

reg! {
    /// Stage-3 register bank (`s3_q`).
    pub struct S3 {
        valid: bool = 1,
        tag: u16 = TAG_W,
        ctrl: u32 = CTRL_BITS => ctrl_t,
        /// vmad: the 64-bit result after scaling.
        vm_res: u64 = DATA_W,
        lane0: S3Lane = S3Lane::WIDTH,
        lane1: S3Lane = S3Lane::WIDTH,
    }
}

reg! {
    /// Output register bank (`out_q`): what retires.
    pub struct Out {
        valid: bool = 1,
        tag: u16 = TAG_W,
        d: u64 = DATA_W,
    }
}
