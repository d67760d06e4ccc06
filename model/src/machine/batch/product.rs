//! The lane engine's multiplier: the exact product of the significands by the machine's
//! 32 x 32 -> 64-bit multiply (`vpmuludq`), for sixteen operations at once.
//!
//! The scalar pipeline and the RTL form the product as a Booth array reduced by a carry-save
//! tree, and register the (sum, carry) pair (`S1::mul_sum`, `S1::mul_carry`): that pair is
//! compared with the RTL every cycle, so [`Pipeline::tick`](crate::machine::pipeline::Pipeline::tick)
//! keeps it. Stage 2 reads only its sum, the product modulo 2^106, which is what this engine
//! computes and carries in [`S1x::prod`](super::banks::S1x). Forming 27 Booth rows and 26
//! compressors on two limbs per lane cost as much as the rest of the stages together: with
//! machine multiplies the lane engine runs binary64 about twice as fast (`make bench`).

use crate::machine::lanes::Lanes;

/// The product of two significands below 2^53 (binary64, hidden bit included), 106 bits as two
/// limbs (bits 63:0, bits 105:64). With a = a1 2^32 + a0 and b = b1 2^32 + b0 (a1, b1 below
/// 2^21): a0 b0 < 2^64, the cross terms a1 b0 + a0 b1 < 2^54 and a1 b1 < 2^42, so no partial
/// sum overflows its word and the high limb stays below 2^42.
#[inline(always)]
pub(super) fn product_full<L: Lanes>(a: L, b: L) -> [L; 2] {
    let (a1, b1) = (a.shr(32), b.shr(32));
    let low = a.mul32(b);
    let cross = a1.mul32(b).add(a.mul32(b1));
    let lo = low.add(cross.shl(32));
    let carry = lo.ltu(low).bit01();
    [lo, a1.mul32(b1).add(cross.shr(32)).add(carry)]
}

/// The product of two significands below 2^32 (binary32, f16 and bf16 ones at their binary32
/// position): one multiply, at most 48 bits.
#[inline(always)]
pub(super) fn product_narrow<L: Lanes>(a: L, b: L) -> [L; 2] {
    [a.mul32(b), L::zero()]
}
