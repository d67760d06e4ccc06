//! Exact values for the corners: a value of a format from an integer significand and the
//! exponent of its lowest bit, its exponent range, products split into two factors.
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::format::Fmt;

use crate::stim::Rng;

/// Precision and exponent range of the result.
pub(super) struct Res {
    pub(super) p: u32,
    pub(super) emin: i32,
    pub(super) emax: i32,
}

pub(super) fn res(c: &Ctrl) -> Res {
    let f = ptxfma_model::parts::round::result_fmt(c);
    Res {
        p: f.p,
        emin: f.emin,
        emax: f.emax,
    }
}

/// The encoding of `±m * 2^e` in `f` when exact (normal, or subnormal without lost bits, or
/// only normal when `normal_only`), else `None`.
pub(super) fn make(f: Fmt, sign: bool, m: u64, e: i32, normal_only: bool) -> Option<u64> {
    if m == 0 {
        return Some(f.assemble(sign, 0, 0));
    }
    let p = f.frac_bits + 1;
    let len = 64 - m.leading_zeros();
    if len > p {
        return None;
    }
    let m = m << (p - len);
    let e = e - (p - len) as i32;
    let biased = e + (p - 1) as i32 + f.bias() as i32;
    if biased >= f.exp_max() as i32 {
        return None;
    }
    if biased >= 1 {
        return Some(f.assemble(sign, biased as u64, m & f.frac_mask()));
    }
    let sh = (1 - biased) as u32;
    if normal_only || sh >= 64 || m & ((1u64 << sh) - 1) != 0 {
        return None;
    }
    Some(f.assemble(sign, 0, m >> sh))
}

/// Exponent range `[lo, hi]` of the leading bit of a value of `f` (subnormals included unless
/// `normal_only`).
pub(super) fn exp_range(f: Fmt, normal_only: bool) -> (i32, i32) {
    let bias = f.bias() as i32;
    let hi = f.exp_max() as i32 - 1 - bias;
    let lo = 1 - bias - if normal_only { 0 } else { f.frac_bits as i32 };
    (lo, hi)
}

/// `±m1 * 2^e1` and `±m2 * 2^e2` in `f` with e1 + e2 = `e` (the exponents of the integers'
/// lowest bits), the split drawn at random; `None` when no split fits.
pub(super) fn split(
    rng: &mut Rng,
    f: Fmt,
    signs: (bool, bool),
    m: (u64, u64),
    e: i32,
    normal_only: bool,
) -> Option<(u64, u64)> {
    let (lo, hi) = exp_range(f, normal_only);
    let len = |x: u64| 64 - x.leading_zeros() as i32;
    // Leading-bit exponents: e1 + len1 - 1 in [lo, hi], e2 + len2 - 1 in [lo, hi].
    let e1_lo = (lo - len(m.0) + 1).max(e - (hi - len(m.1) + 1));
    let e1_hi = (hi - len(m.0) + 1).min(e - (lo - len(m.1) + 1));
    if e1_lo > e1_hi {
        return None;
    }
    let e1 = rng.range(e1_lo as i64, e1_hi as i64) as i32;
    let a = make(f, signs.0, m.0, e1, normal_only)?;
    let b = make(f, signs.1, m.1, e - e1, normal_only)?;
    Some((a, b))
}

/// Factor pairs of 2^(p+1) - 1 that both fit p bits: their product is p+1 ones, an exact tie
/// with an odd last bit.
pub(super) fn ones_factors(p: u32) -> &'static [(u64, u64)] {
    if p == 53 {
        // 2^54 - 1 = 3^4 * 7 * 19 * 73 * 87211 * 262657
        &[
            (3, 6_004_799_503_160_661),
            (7, 2_573_485_501_354_569),
            (134_217_727, 134_217_729),
        ]
    } else if p == 24 {
        // 2^25 - 1 = 31 * 601 * 1801
        &[(31, 1_082_401), (601, 55_831), (1801, 18_631)]
    } else if p == 11 {
        // 2^12 - 1 = 3^2 * 5 * 7 * 13
        &[(63, 65), (45, 91), (39, 105)]
    } else {
        // 2^9 - 1 = 7 * 73
        &[(7, 73)]
    }
}

/// A random significand of `len` bits with its leading bit set.
pub(super) fn sig_of(rng: &mut Rng, len: u32) -> u64 {
    (rng.next_u64() & ((1u64 << (len - 1)) - 1)) | 1 << (len - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::format::{F16, F32, F64};

    #[test]
    fn make_is_exact() {
        for (f, m, e) in [
            (F32, 3u64, -149i32),
            (F32, 1, -149),
            (F64, 7, 10),
            (F16, 1, -24),
        ] {
            let x = make(f, false, m, e, false).unwrap();
            assert_eq!(f.to_f64(x), m as f64 * 2f64.powi(e));
        }
        assert_eq!(make(F32, false, 1, -150, false), None);
        assert_eq!(make(F32, false, 3, -151, false), None);
        assert_eq!(make(F32, false, 1, -149, true), None);
        assert_eq!(make(F32, false, 1, 128, false), None);
    }
}
