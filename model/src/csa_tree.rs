//! Carry-save tree: reduces the 28 partial-product rows to a sum/carry pair with 3:2
//! compressors over whole rows.
//!
//! The shape is fixed because the pair is a pipeline register the RTL must match bit for bit:
//! at each level the rows are taken in threes from the front, each three become (sum, carry)
//! in that order, and the one or two rows left over follow unchanged. 28 rows take seven levels:
//! 28 -> 19 -> 13 -> 9 -> 6 -> 4 -> 3 -> 2.

use crate::booth::{MASK, ROWS};

/// One 3:2 compressor over whole rows. Bits above 105 are left as they fall: every operation
/// in the tree only moves bits upward, so they never reach the 106 bits that are kept, and
/// [`reduce`] masks once at the end.
/// The majority is formed as `x&y | z&(x^y)`, sharing `x^y` with the sum: the same bits as
/// the textbook three-AND form in fewer operations.
#[inline(always)]
pub fn compress(x: u128, y: u128, z: u128) -> (u128, u128) {
    let t = x ^ y;
    (t ^ z, ((x & y) | (z & t)) << 1)
}

/// Row counts per level, starting with the array's output.
pub const LEVELS: [usize; 8] = [28, 19, 13, 9, 6, 4, 3, 2];

/// One level of the tree over the first `n` slots, in place: group g writes slots 2g and 2g+1
/// only after reading 3g..3g+2, and later groups read from 3g+3 up, so nothing is overwritten
/// before it is read. Returns the new row count.
#[inline(always)]
fn level<const N: usize>(cur: &mut [u128; ROWS]) -> usize {
    let n = N;
    let groups = n / 3;
    for g in 0..groups {
        (cur[2 * g], cur[2 * g + 1]) = compress(cur[3 * g], cur[3 * g + 1], cur[3 * g + 2]);
    }
    let left = n - 3 * groups;
    for k in 0..left {
        cur[2 * groups + k] = cur[3 * groups + k];
    }
    2 * groups + left
}

/// Reduces the rows to (sum, carry). Inlined so that rows known to be zero (see
/// `booth::rows_used`) fold away.
#[inline(always)]
pub fn reduce(rows: &[u128; ROWS]) -> (u128, u128) {
    let mut cur = *rows;
    // Constant level sizes let the compiler unroll every level completely.
    let mut sizes = [0usize; 7];
    sizes[0] = level::<28>(&mut cur);
    sizes[1] = level::<19>(&mut cur);
    sizes[2] = level::<13>(&mut cur);
    sizes[3] = level::<9>(&mut cur);
    sizes[4] = level::<6>(&mut cur);
    sizes[5] = level::<4>(&mut cur);
    sizes[6] = level::<3>(&mut cur);
    debug_assert_eq!(sizes[..], LEVELS[1..]);
    (cur[0] & MASK, cur[1] & MASK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_table_matches_the_reduction() {
        let mut n = LEVELS[0];
        for want in &LEVELS[1..] {
            n = 2 * (n / 3) + n % 3;
            assert_eq!(n, *want);
        }
    }

    #[test]
    fn reduction_preserves_the_sum() {
        let mut rows = [0u128; ROWS];
        let mut x = 1u128;
        for r in rows.iter_mut() {
            x = x
                .wrapping_mul(0x2545_F491_4F6C_DD1D_1234_5678_9ABC_DEF1)
                .wrapping_add(7);
            *r = x & MASK;
        }
        let want = rows.iter().fold(0u128, |s, r| s.wrapping_add(*r)) & MASK;
        let (s, c) = reduce(&rows);
        assert_eq!(s.wrapping_add(c) & MASK, want);
    }
}
