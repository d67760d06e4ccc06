//! Carry-save tree: reduces the 28 partial-product rows to a sum/carry pair with 3:2
//! compressors over whole rows.
//!
//! The shape is fixed because the pair is a pipeline register the RTL must match bit for bit:
//! at each level the rows are taken in threes from the front, each three become (sum, carry)
//! in that order, and the one or two rows left over follow unchanged. 28 rows take seven levels:
//! 28 -> 19 -> 13 -> 9 -> 6 -> 4 -> 3 -> 2.

use crate::parts::booth::{MASK, ROWS};

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

/// A whole row as the tree handles it: a plain `u128`, or the same bits in an SSE2 register.
pub(crate) trait Row: Copy {
    fn compress(x: Self, y: Self, z: Self) -> (Self, Self);
}

/// The low word of a row whose bits from 63 up are all equal (see [`reduce_narrow`]).
impl Row for u64 {
    #[inline(always)]
    fn compress(x: u64, y: u64, z: u64) -> (u64, u64) {
        let t = x ^ y;
        (t ^ z, ((x & y) | (z & t)) << 1)
    }
}

impl Row for u128 {
    #[inline(always)]
    fn compress(x: u128, y: u128, z: u128) -> (u128, u128) {
        compress(x, y, z)
    }
}

/// x86-64 always has SSE2: one register holds a whole row, so each logic operation of a
/// compressor is one instruction instead of two.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use core::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_or_si128, _mm_slli_epi64, _mm_slli_si128, _mm_srli_epi64,
        _mm_xor_si128,
    };

    /// Transparent, so a row array converts as a whole (see [`X::from_rows`]).
    #[derive(Clone, Copy)]
    #[repr(transparent)]
    pub(super) struct X(pub __m128i);

    impl X {
        /// The whole row array at once: `array::map` is not always inlined, and a call there
        /// hides the constant-zero rows of a narrow multiplier from the tree.
        #[inline(always)]
        pub fn from_rows(rows: &[u128; super::ROWS]) -> [X; super::ROWS] {
            // SAFETY: `X` is a transparent `__m128i`, which has the size and alignment of
            // `u128`; arrays of them have the same layout.
            unsafe { core::mem::transmute::<[u128; super::ROWS], [X; super::ROWS]>(*rows) }
        }
        #[inline(always)]
        pub fn to_u128(self) -> u128 {
            // SAFETY: as above.
            unsafe { core::mem::transmute::<__m128i, u128>(self.0) }
        }
    }

    impl super::Row for X {
        /// The same bits as [`super::compress`].
        #[inline(always)]
        fn compress(x: X, y: X, z: X) -> (X, X) {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe {
                let t = _mm_xor_si128(x.0, y.0);
                let sum = _mm_xor_si128(t, z.0);
                let maj = _mm_or_si128(_mm_and_si128(x.0, y.0), _mm_and_si128(z.0, t));
                // 128-bit shift left by one: each 64-bit half shifts, and bit 63 crosses over.
                let cross = _mm_srli_epi64::<63>(_mm_slli_si128::<8>(maj));
                (X(sum), X(_mm_or_si128(_mm_slli_epi64::<1>(maj), cross)))
            }
        }
    }
}

/// One level of the tree over the first `n` slots, in place: group g writes slots 2g and 2g+1
/// only after reading 3g..3g+2, and later groups read from 3g+3 up, so nothing is overwritten
/// before it is read. Returns the new row count.
#[inline(always)]
fn level<const N: usize, R: Row>(cur: &mut [R; ROWS]) -> usize {
    let n = N;
    let groups = n / 3;
    for g in 0..groups {
        (cur[2 * g], cur[2 * g + 1]) = R::compress(cur[3 * g], cur[3 * g + 1], cur[3 * g + 2]);
    }
    let left = n - 3 * groups;
    for k in 0..left {
        cur[2 * groups + k] = cur[3 * groups + k];
    }
    2 * groups + left
}

/// The seven levels over rows of either representation.
#[inline(always)]
pub(crate) fn levels<R: Row>(cur: &mut [R; ROWS]) {
    // Constant level sizes let the compiler unroll every level completely.
    let mut sizes = [0usize; 7];
    sizes[0] = level::<28, R>(cur);
    sizes[1] = level::<19, R>(cur);
    sizes[2] = level::<13, R>(cur);
    sizes[3] = level::<9, R>(cur);
    sizes[4] = level::<6, R>(cur);
    sizes[5] = level::<4, R>(cur);
    sizes[6] = level::<3, R>(cur);
    debug_assert_eq!(sizes[..], LEVELS[1..]);
}

/// Reduces the rows to (sum, carry). Inlined so that rows known to be zero (see
/// `booth::rows_used`) fold away.
#[inline(always)]
pub fn reduce(rows: &[u128; ROWS]) -> (u128, u128) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut cur = sse2::X::from_rows(rows);
        levels(&mut cur);
        (cur[0].to_u128() & MASK, cur[1].to_u128() & MASK)
    }
    #[cfg(not(target_arch = "x86_64"))]
    reduce_portable(rows)
}

/// [`reduce`] for rows given by their low words, each row's bits 127:63 all equal to its bit
/// 63 (`booth::rows_narrow` says when that holds). Sign-extending the two results restores the
/// pair [`reduce`] gives for the full rows.
#[inline(always)]
pub fn reduce_narrow(rows: &[u64; ROWS]) -> (u128, u128) {
    let mut cur = *rows;
    levels(&mut cur);
    let widen = |x: u64| (x as i64 as i128 as u128) & MASK;
    (widen(cur[0]), widen(cur[1]))
}

/// [`reduce`] with plain `u128` rows (the definition the SSE2 form must match).
#[inline(always)]
pub fn reduce_portable(rows: &[u128; ROWS]) -> (u128, u128) {
    let mut cur = *rows;
    levels(&mut cur);
    (cur[0] & MASK, cur[1] & MASK)
}

#[cfg(test)]
mod tests;
