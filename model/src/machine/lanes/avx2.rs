//! The AVX2 backend: each value is two 256-bit registers of four lanes each (`K` registers in
//! general). The stages are a long chain of dependent steps, and two independent chains side by
//! side keep the core busy, though they spill more of AVX2's sixteen registers; two are faster
//! than one or four (`docs/measurements.md`). Compares give all-ones lanes directly, and
//! selects are `vpblendvb` on those masks. AVX2 lacks several 64-bit lane operations the stages
//! use, built here from the ones it has:
//!
//! - unsigned compares and min/max: signed `vpcmpgtq` after flipping the sign bits, then a
//!   blend;
//! - arithmetic right shifts: the provided `(x >> n ^ m) - m`;
//! - leading zeros: each 32-bit half converted exactly to a double (`2^52 + v - 2^52`), whose
//!   exponent field is `1023 + floor(log2 v)`.
//!
//! The methods are `#[inline(always)]` without target features of their own: they are inlined
//! into the functions of `batch` compiled for AVX2, BMI1/2, LZCNT and POPCNT, and must only run
//! there.

use core::arch::x86_64::*;

use super::{Lanes, N};

/// Registers per value (see the module doc); `two!` writes the operations out for two.
const K: usize = 2;
const _: () = assert!(N.is_multiple_of(4 * K) && K == 2);

/// `4 K` lanes in K AVX2 registers.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Avx2([__m256i; K]);

/// Applies a one-register operation to each register of the operands.
macro_rules! each {
    ($f:expr; $($a:expr),+) => {{
        // SAFETY: only reached inside functions compiled for AVX2 (see the module doc).
        #[allow(unused_unsafe)]
        unsafe {
            Avx2(two!(|k| $f($($a.0[k]),+)))
        }
    }};
}

/// Leading zeros of each 64-bit lane of one register (see the module doc).
#[inline(always)]
unsafe fn lzcnt1(x: __m256i) -> __m256i {
    let magic = _mm256_set1_epi64x(0x4330_0000_0000_0000);
    // The biased exponent of v as a double: 1023 + floor(log2 v), or 0 for v = 0.
    let exp = |v: __m256i| {
        let d = _mm256_sub_pd(
            _mm256_castsi256_pd(_mm256_or_si256(v, magic)),
            _mm256_castsi256_pd(magic),
        );
        _mm256_srli_epi64::<52>(_mm256_castpd_si256(d))
    };
    let hi = _mm256_srli_epi64::<32>(x);
    let lo = _mm256_and_si256(x, _mm256_set1_epi64x(0xFFFF_FFFF));
    let hi0 = _mm256_cmpeq_epi64(hi, _mm256_setzero_si256());
    // 1023 + floor(log2 x), and 0 for x = 0.
    let e = _mm256_blendv_epi8(
        _mm256_add_epi64(exp(hi), _mm256_set1_epi64x(32)),
        exp(lo),
        hi0,
    );
    // 63 - floor(log2 x) = 1086 - e, and 64 for zero (the values fit the low 32 bits).
    _mm256_min_epu32(
        _mm256_sub_epi64(_mm256_set1_epi64x(1086), e),
        _mm256_set1_epi64x(64),
    )
}

impl Avx2 {
    /// The lanes with their sign bits flipped: signed order of these is unsigned order.
    #[inline(always)]
    fn flip(self) -> Self {
        self.xor(Self::splat(1 << 63))
    }
}

impl Lanes for Avx2 {
    const LANES: usize = 4 * K;

    #[inline(always)]
    fn splat(x: u64) -> Self {
        // SAFETY: as in `each`.
        Avx2([unsafe { _mm256_set1_epi64x(x as i64) }; K])
    }
    #[inline(always)]
    fn load(a: &[u64]) -> Self {
        let a = &a[..Self::LANES];
        // SAFETY: `a` holds the 4 K words read; as in `each`.
        Avx2(two!(|k| unsafe {
            _mm256_loadu_si256(a.as_ptr().add(4 * k).cast())
        }))
    }
    #[inline(always)]
    fn load3_of4(w: &[u64]) -> [Self; 3] {
        let w = &w[..4 * Self::LANES];
        let [x0, x1] = two!(|k| {
            // SAFETY: `w` holds the 16 K words read; as in `each`.
            unsafe {
                let r = |i: usize| _mm256_loadu_si256(w.as_ptr().add(16 * k + 4 * i).cast());
                let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
                // [a0 a1 | c0 c1], [b0 b1 | m0 m1], and the same for records 2 and 3.
                let (ac01, bm01) = (_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1));
                let (ac23, bm23) = (_mm256_unpacklo_epi64(r2, r3), _mm256_unpackhi_epi64(r2, r3));
                [
                    _mm256_permute2x128_si256::<0x20>(ac01, ac23),
                    _mm256_permute2x128_si256::<0x20>(bm01, bm23),
                    _mm256_permute2x128_si256::<0x31>(ac01, ac23),
                ]
            }
        });
        [
            Avx2([x0[0], x1[0]]),
            Avx2([x0[1], x1[1]]),
            Avx2([x0[2], x1[2]]),
        ]
    }
    #[inline(always)]
    fn store(self, out: &mut [u64]) {
        let out = &mut out[..Self::LANES];
        let [r0, r1] = self.0;
        // SAFETY: `out` holds the 4 K words written; as in `each`.
        unsafe {
            _mm256_storeu_si256(out.as_mut_ptr().cast(), r0);
            _mm256_storeu_si256(out.as_mut_ptr().add(4).cast(), r1);
        }
    }
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: as in `each`.
        Avx2([unsafe { _mm256_setzero_si256() }; K])
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        each!(_mm256_and_si256; self, o)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        each!(_mm256_or_si256; self, o)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        each!(_mm256_xor_si256; self, o)
    }
    #[inline(always)]
    fn andn(self, o: Self) -> Self {
        each!(_mm256_andnot_si256; o, self)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        each!(_mm256_add_epi64; self, o)
    }
    #[inline(always)]
    fn mul32(self, o: Self) -> Self {
        each!(_mm256_mul_epu32; self, o)
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        each!(_mm256_sub_epi64; self, o)
    }
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        // SAFETY: as in `each`.
        let n = unsafe { _mm_cvtsi64_si128(n as i64) };
        each!(|x| _mm256_sll_epi64(x, n); self)
    }
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        // SAFETY: as in `each`.
        let n = unsafe { _mm_cvtsi64_si128(n as i64) };
        each!(|x| _mm256_srl_epi64(x, n); self)
    }
    #[inline(always)]
    fn shlv(self, n: Self) -> Self {
        each!(_mm256_sllv_epi64; self, n)
    }
    #[inline(always)]
    fn shrv(self, n: Self) -> Self {
        each!(_mm256_srlv_epi64; self, n)
    }
    #[inline(always)]
    fn sel(self, a: Self, b: Self) -> Self {
        each!(_mm256_blendv_epi8; b, a, self)
    }
    #[inline(always)]
    fn is0(self) -> Self {
        self.cmpeq(Self::zero())
    }
    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: as in `each`.
        unsafe {
            let x = _mm256_or_si256(self.0[0], self.0[1]);
            _mm256_testz_si256(x, x) == 0
        }
    }
    #[inline(always)]
    fn cmpeq(self, o: Self) -> Self {
        each!(_mm256_cmpeq_epi64; self, o)
    }
    #[inline(always)]
    fn lts(self, o: Self) -> Self {
        each!(_mm256_cmpgt_epi64; o, self)
    }
    #[inline(always)]
    fn ltu(self, o: Self) -> Self {
        self.flip().lts(o.flip())
    }
    #[inline(always)]
    fn mins(self, o: Self) -> Self {
        self.lts(o).sel(self, o)
    }
    #[inline(always)]
    fn maxs(self, o: Self) -> Self {
        self.lts(o).sel(o, self)
    }
    #[inline(always)]
    fn minu(self, o: Self) -> Self {
        self.ltu(o).sel(self, o)
    }
    #[inline(always)]
    fn lzcnt(self) -> Self {
        each!(lzcnt1; self)
    }
}

/// Every primitive on `x`, `y`, `z` (see `lanes::primitives_of`).
///
/// # Safety
/// Only where `Backend::Avx2` runs.
#[cfg(test)]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(crate) unsafe fn all_primitives(x: [u64; N], y: [u64; N], z: [u64; N]) -> Vec<[u64; N]> {
    super::primitives_of::<Avx2>(x, y, z)
}
