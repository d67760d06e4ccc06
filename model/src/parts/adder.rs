//! The adders of stage 2: the multiplier's carry-propagate adder, which turns the carry-save
//! pair into the product, and the ADD_W-bit significand adder, which adds or subtracts the aligned
//! addend and returns a sign and a magnitude.

use crate::geometry::{ADD_W, ALIGN_W, MAG_W, PROD_LSB};
use crate::parts::booth::MASK;
use crate::regs::{U164, U165, U166};
use crate::wide::Wide;

/// Resizes a window value between widths that share three limbs, dropping bits above `B`.
#[inline(always)]
pub fn resize<const A: usize, const B: usize>(x: Wide<A>) -> Wide<B> {
    x.resize::<B>()
}

/// Carry-propagate add of the carry-save pair (modulo 2^MUL_W).
#[inline(always)]
pub fn product(sum: u128, carry: u128) -> u128 {
    sum.wrapping_add(carry) & MASK
}

/// The significand adder's operands, as the LZA sees them too.
#[inline(always)]
pub fn operands(p: u128, c_aligned: U164, eff_sub: bool) -> (U166, U166) {
    let a = U166::from(p) << PROD_LSB as usize;
    let c = resize::<{ ALIGN_W as usize }, { ADD_W as usize }>(c_aligned);
    (a, if eff_sub { !c } else { c })
}

/// Result of the significand add.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sum {
    /// The sum is negative: the addend outweighs the product.
    pub neg: bool,
    pub mag: U165,
}

/// `a + b` for `operands(..)`, with the subtraction's +1 withheld while addend bits sit in
/// sticky (the true addend is then a little larger than its window part). A negative sum is
/// complemented; the +1 of the two's complement is again withheld under sticky, which makes the
/// magnitude the integer part of the exact result in both cases.
#[inline(always)]
pub fn add(a: U166, b: U166, eff_sub: bool, sticky: bool) -> Sum {
    let cin = U166::from((eff_sub & !sticky) as u8);
    let s = a.wrapping_add(b).wrapping_add(cin);
    let neg = eff_sub & s.bit(ADD_W as usize - 1);
    // Complement when negative, by masks: the sign of the sum is data-dependent.
    let m = Wide::select(neg, !s, s).wrapping_add(U166::from((neg & !sticky) as u8));
    Sum {
        neg,
        mag: resize::<{ ADD_W as usize }, { MAG_W as usize }>(m),
    }
}
