//! The AVX-512 backend: each value is two 512-bit registers (eight lanes each), so that every
//! primitive issues two independent instructions (one dependency chain per register keeps the
//! vector units busy). Compares give mask registers, widened back to all-ones lanes so that
//! conditions are ordinary values like on the other backends; leading zeros are `vplzcntq`
//! (AVX-512 CD). Selects and the carry-save adder's sum and majority are one `vpternlogq`.
//!
//! The methods are `#[inline(always)]` without target features of their own: they are inlined
//! into the functions of `batch` compiled for AVX-512 F/VL/CD/BW/DQ, and must only run there.

use core::arch::x86_64::*;

use super::{Lanes, N};

/// Registers per value; `two!` writes the operations out for two.
const K: usize = 2;
const _: () = assert!(N.is_multiple_of(8 * K) && K == 2);

/// `8 K` lanes in K AVX-512 registers.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Avx512([__m512i; K]);

/// Applies a one-register operation to each register of the operands.
macro_rules! each {
    ($f:expr; $($a:expr),+) => {{
        // SAFETY: only reached inside functions compiled for AVX-512 (see the module doc).
        #[allow(unused_unsafe)]
        unsafe {
            Avx512(two!(|k| $f($($a.0[k]),+)))
        }
    }};
}

/// Applies a one-register comparison to each register and widens its mask to all-ones lanes.
macro_rules! mv {
    ($f:expr; $($a:expr),+) => {{
        // SAFETY: as in `each`.
        unsafe {
            Avx512(two!(|k| _mm512_movm_epi64($f($($a.0[k]),+))))
        }
    }};
}

impl Lanes for Avx512 {
    const LANES: usize = 8 * K;

    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: as in `each`.
        Avx512([unsafe { _mm512_set1_epi64(x as i64) }; K])
    }
    #[inline(always)]
    fn load(a: &[u64]) -> Self {
        let a = &a[..Self::LANES];
        // SAFETY: `a` holds the 8 K words read; as in `each`.
        Avx512(two!(|k| unsafe {
            _mm512_loadu_si512(a.as_ptr().add(8 * k).cast())
        }))
    }
    #[inline(always)]
    fn load3_of4(w: &[u64]) -> [Self; 3] {
        let w = &w[..4 * Self::LANES];
        let [x0, x1] = two!(|k| {
            // SAFETY: `w` holds the 32 K words read; as in `each`.
            unsafe {
                let r = |i: usize| _mm512_loadu_si512(w.as_ptr().add(32 * k + 8 * i).cast());
                let idx = |v: [i64; 8]| _mm512_loadu_si512(v.as_ptr().cast());
                let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
                // Records 0-3 and 4-7: [a a a a b b b b] and [c c c c . . . .].
                let (ab, cc) = (
                    idx([0, 4, 8, 12, 1, 5, 9, 13]),
                    idx([2, 6, 10, 14, 3, 7, 11, 15]),
                );
                let (ab_lo, ab_hi) = (
                    _mm512_permutex2var_epi64(r0, ab, r1),
                    _mm512_permutex2var_epi64(r2, ab, r3),
                );
                let (c_lo, c_hi) = (
                    _mm512_permutex2var_epi64(r0, cc, r1),
                    _mm512_permutex2var_epi64(r2, cc, r3),
                );
                let (lo, hi) = (
                    idx([0, 1, 2, 3, 8, 9, 10, 11]),
                    idx([4, 5, 6, 7, 12, 13, 14, 15]),
                );
                [
                    _mm512_permutex2var_epi64(ab_lo, lo, ab_hi),
                    _mm512_permutex2var_epi64(ab_lo, hi, ab_hi),
                    _mm512_permutex2var_epi64(c_lo, lo, c_hi),
                ]
            }
        });
        [
            Avx512([x0[0], x1[0]]),
            Avx512([x0[1], x1[1]]),
            Avx512([x0[2], x1[2]]),
        ]
    }
    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        let out = &mut out[..Self::LANES];
        let [r0, r1] = self.0;
        // SAFETY: `out` holds the 8 K words written; as in `each`.
        unsafe {
            _mm512_storeu_si512(out.as_mut_ptr().cast(), r0);
            _mm512_storeu_si512(out.as_mut_ptr().add(8).cast(), r1);
        }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: as in `each`.
        Avx512([unsafe { _mm512_setzero_si512() }; K])
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        each!(_mm512_and_si512; self, o)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        each!(_mm512_or_si512; self, o)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        each!(_mm512_xor_si512; self, o)
    }
    #[inline(always)]
    fn not(self) -> Self {
        each!(_mm512_ternarylogic_epi64::<0x55>; self, self, self)
    }
    #[inline(always)]
    fn andn(self, o: Self) -> Self {
        each!(_mm512_andnot_si512; o, self)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        each!(_mm512_add_epi64; self, o)
    }
    #[inline(always)]
    fn mul32(self, o: Self) -> Self {
        each!(_mm512_mul_epu32; self, o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        each!(_mm512_sub_epi64; self, o)
    }
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        self.shlv(Self::splat(n as u64))
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        self.shrv(Self::splat(n as u64))
    }
    #[inline(always)]
    fn shlv(self, n: Self) -> Self {
        each!(_mm512_sllv_epi64; self, n)
    }
    #[inline(always)]
    fn shrv(self, n: Self) -> Self {
        each!(_mm512_srlv_epi64; self, n)
    }
    #[inline(always)]
    fn sra(self, n: u32) -> Self {
        each!(_mm512_srav_epi64; self, Self::splat(n as u64))
    }
    #[inline(always)]
    fn sel(self, a: Self, b: Self) -> Self {
        each!(_mm512_ternarylogic_epi64::<0xCA>; self, a, b)
    }
    #[inline(always)]
    fn is0(self) -> Self {
        mv!(_mm512_testn_epi64_mask; self, self)
    }
    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: as in `each`.
        unsafe {
            let [r0, r1] = self.0;
            _mm512_test_epi64_mask(r0, r0) | _mm512_test_epi64_mask(r1, r1) != 0
        }
    }
    #[inline(always)]
    fn cmpeq(self, o: Self) -> Self {
        mv!(_mm512_cmpeq_epi64_mask; self, o)
    }
    #[inline(always)]
    fn lts(self, o: Self) -> Self {
        mv!(_mm512_cmplt_epi64_mask; self, o)
    }
    #[inline(always)]
    fn ltu(self, o: Self) -> Self {
        mv!(_mm512_cmplt_epu64_mask; self, o)
    }
    #[inline(always)]
    fn mins(self, o: Self) -> Self {
        each!(_mm512_min_epi64; self, o)
    }
    #[inline(always)]
    fn maxs(self, o: Self) -> Self {
        each!(_mm512_max_epi64; self, o)
    }
    #[inline(always)]
    fn minu(self, o: Self) -> Self {
        each!(_mm512_min_epu64; self, o)
    }
    #[inline(always)]
    fn lzcnt(self) -> Self {
        each!(_mm512_lzcnt_epi64; self)
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        each!(_mm512_ternarylogic_epi64::<0x96>; self, b, c)
    }
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        each!(_mm512_ternarylogic_epi64::<0xE8>; self, b, c)
    }
    #[inline(always)]
    fn bitm(self, i: u32) -> Self {
        mv!(_mm512_test_epi64_mask; self, Self::splat(1 << i))
    }
}

/// Every primitive on `x`, `y`, `z` (see `lanes::primitives_of`).
///
/// # Safety
/// Only where `Backend::Avx512` runs.
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512vl,avx512cd,avx512bw,avx512dq")]
pub(crate) unsafe fn all_primitives(x: [u64; N], y: [u64; N], z: [u64; N]) -> Vec<[u64; N]> {
    super::primitives_of::<Avx512>(x, y, z)
}
