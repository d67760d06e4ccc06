//! Carry-save tree: reduces the 28 partial-product rows to a sum/carry pair with 3:2
//! compressors over whole rows.
//!
//! The shape is fixed because the pair is a pipeline register the RTL must match bit for bit:
//! at each level the rows are taken in threes from the front, each three become (sum, carry)
//! in that order, and the one or two rows left over follow unchanged. 28 rows take seven levels:
//! 28 -> 19 -> 13 -> 9 -> 6 -> 4 -> 3 -> 2.

use crate::booth::{MASK, ROWS};

/// One 3:2 compressor over whole rows (modulo 2^106).
#[inline]
pub fn compress(x: u128, y: u128, z: u128) -> (u128, u128) {
    (x ^ y ^ z, (((x & y) | (x & z) | (y & z)) << 1) & MASK)
}

/// Row counts per level, starting with the array's output.
pub const LEVELS: [usize; 8] = [28, 19, 13, 9, 6, 4, 3, 2];

/// Reduces the rows to (sum, carry).
pub fn reduce(rows: &[u128; ROWS]) -> (u128, u128) {
    let mut cur = [0u128; ROWS];
    cur.copy_from_slice(rows);
    let mut n = ROWS;
    while n > 2 {
        let mut next = [0u128; ROWS];
        let groups = n / 3;
        for g in 0..groups {
            let (s, c) = compress(cur[3 * g], cur[3 * g + 1], cur[3 * g + 2]);
            next[2 * g] = s;
            next[2 * g + 1] = c;
        }
        let left = n - 3 * groups;
        next[2 * groups..2 * groups + left].copy_from_slice(&cur[3 * groups..n]);
        n = 2 * groups + left;
        cur = next;
    }
    (cur[0], cur[1])
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
