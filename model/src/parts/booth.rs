//! Radix-4 Booth multiplier array: 27 partial-product rows plus one row of negation bits.
//!
//! One 106-bit array serves every kind. The multiplier `b` is 54 bits (53-bit significands,
//! or a sign-extended 33-bit vmad operand); the multiplicand is 106 bits wide so a signed vmad
//! operand can be sign-extended across the whole array. All arithmetic is modulo 2^106, which is
//! exact because no product needs more than 106 bits.
//!
//! f32x2 packs lane 1's multiplier into bits 51:28 and lane 0's into 23:0; the four zero bits
//! between them make Booth digit 13 zero, so digits 0..=12 see only lane 0 and digits 14..=26
//! only lane 1. Rows from digit 14 up take `mcand_hi` (lane 1's significand shifted by 28), so
//! lane 0's product lands in bits 47:0 and lane 1's in 103:56 with no cross terms.

/// Width of the array and of the carry-save result.
pub const W: u32 = 106;
pub const MASK: u128 = (1 << W) - 1;
/// Number of Booth digits (rows) for a 54-bit multiplier.
pub const DIGITS: usize = 27;
/// First digit whose row uses `mcand_hi`.
pub const HI_DIGIT: usize = 14;
/// Rows entering the carry-save tree: the Booth rows and the negation-bit row.
pub const ROWS: usize = DIGITS + 1;

/// One Booth digit's select lines, as the hardware's encoder produces them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digit {
    /// Select the multiplicand.
    pub one: bool,
    /// Select twice the multiplicand.
    pub two: bool,
    /// Invert the selected multiple (the +1 goes into the negation row).
    pub neg: bool,
}

/// Encodes digit `i` from multiplier bits 2i+1, 2i, 2i-1 (bit -1 is zero).
pub fn encode(b: u64, i: usize) -> Digit {
    let bit = |k: isize| k >= 0 && (b >> k) & 1 != 0;
    let k = 2 * i as isize;
    let (hi, mid, lo) = (bit(k + 1), bit(k), bit(k - 1));
    Digit {
        one: mid ^ lo,
        two: (hi && !mid && !lo) || (!hi && mid && lo),
        neg: hi,
    }
}

/// The eight multiples a Booth digit can select, indexed by its three multiplier bits: the
/// table form of `encode` (one/two pick m or 2m, neg inverts). This is the row multiplexer of
/// the hardware: each row picks one of these eight values, so building them once per operand
/// and indexing is much cheaper than re-deriving the select lines per row.
#[inline(always)]
fn multiples(m: u128) -> [u128; 8] {
    let m2 = m << 1;
    [0, m, m, m2, !m2, !m, !m, !0]
}

/// The multiplier bits the array reads: 54 of them (27 digits).
pub(crate) const B_MASK: u64 = (1 << (2 * DIGITS)) - 1;
/// Bit 2i of the negation row is the sign of digit i, i.e. multiplier bit 2i+1.
pub(crate) const NEG_ROW_MASK: u64 = 0x5555_5555_5555_5555 & ((1 << (2 * DIGITS)) - 1);

/// The partial-product rows for `mcand_{lo,hi} * b`; row `ROWS - 1` holds the negation bits.
/// Rows are exact modulo 2^106 but may carry bits above 105, which the tree never brings down
/// (see `csa_tree::compress`); callers summing them must mask.
#[inline]
pub fn rows(mcand_lo: u128, mcand_hi: u128, b: u64) -> [u128; ROWS] {
    rows_used::<DIGITS>(mcand_lo, mcand_hi, b & B_MASK)
}

/// [`rows`] for a multiplier whose digits from `USED` up are all zero (their rows are zero).
/// Writing those rows as constant zeros lets the compiler drop every compressor input that is
/// known to be zero; the values are the same as [`rows`] gives.
#[inline(always)]
pub fn rows_used<const USED: usize>(mcand_lo: u128, mcand_hi: u128, b: u64) -> [u128; ROWS] {
    debug_assert!(USED == DIGITS || b >> (2 * USED - 1) == 0);
    let lo = multiples(mcand_lo);
    let hi = multiples(mcand_hi);
    // Bit -1 of the multiplier is zero: shift it in at the bottom.
    let b2 = b << 1;
    let row = |i: usize| {
        if i >= USED {
            return 0;
        }
        let sel = ((b2 >> (2 * i)) & 7) as usize;
        let m = if i >= HI_DIGIT { &hi } else { &lo };
        m[sel] << (2 * i)
    };
    // Spelled out digit by digit so every shift is by a constant (a loop over 27 digits is
    // not unrolled by the compiler).
    let mut out = [
        row(0),
        row(1),
        row(2),
        row(3),
        row(4),
        row(5),
        row(6),
        row(7),
        row(8),
        row(9),
        row(10),
        row(11),
        row(12),
        row(13),
        row(14),
        row(15),
        row(16),
        row(17),
        row(18),
        row(19),
        row(20),
        row(21),
        row(22),
        row(23),
        row(24),
        row(25),
        row(26),
        0,
    ];
    out[DIGITS] = ((b >> 1) & NEG_ROW_MASK) as u128;
    out
}

/// Width of a narrow multiplicand or multiplier (see [`rows_narrow`]).
pub const NARROW_BITS: u32 = 25;
/// Digits a narrow multiplier has (digit 12 reads bits 25:23).
pub const NARROW_DIGITS: usize = 13;

/// The low 64 bits of [`rows`] for a multiplicand and multiplier both below 2^25 (every binary32
/// lane alone, the mixed-precision kinds and sm_1x).
///
/// Such rows are uniform (all zeros or all ones) from bit 50 up, and each tree level can move
/// that boundary up by at most one bit (a carry's shift), so after the seven levels every row is
/// still uniform from bit 57 up: bit 63 stands for bits 127:63, and the tree can run on one
/// 64-bit word per row instead of two (see `csa_tree::reduce_narrow`).
#[inline(always)]
pub fn rows_narrow(m: u64, b: u64) -> [u64; ROWS] {
    debug_assert!(m >> NARROW_BITS == 0 && b >> NARROW_BITS == 0);
    let m2 = m << 1;
    let t = [0, m, m, m2, !m2, !m, !m, !0];
    let b2 = b << 1;
    let mut out = [0u64; ROWS];
    // Thirteen iterations of a short body: the compiler unrolls this loop (it does not for the
    // 27 digits of `rows_used`).
    for (i, r) in out.iter_mut().enumerate().take(NARROW_DIGITS) {
        *r = t[((b2 >> (2 * i)) & 7) as usize] << (2 * i);
    }
    out[DIGITS] = (b >> 1) & NEG_ROW_MASK;
    out
}

#[cfg(test)]
mod tests;
