//! sm_1x `mad.f32` (decision S7), straight from the PTX `mad` page, in exact integer arithmetic.
//!
//! PTX: "computes the product of a and b at double precision, and then the mantissa is truncated
//! to 23 bits, but the exponent is preserved ... The exception for mad.f32 is when c = +/-0.0,
//! mad.f32 is identical to the result computed using separate mul and add instructions", and
//! sm_1x `mad.f32` "flushes subnormal inputs and results to sign-preserving zero".
//!
//! Every finite value here is an exact scaled integer `(-1)^s * m * 2^e` with an explicit,
//! unbounded exponent; sums are formed exactly in a big integer and rounded once by
//! `round_rne`. No host floating point is involved, so nothing here can inherit an FPU mode.

use num_bigint::{BigInt, Sign};

use super::f32_rules::{f32_sat, F32_NAN};

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;

/// An f32 operand after input flushing, classified.
#[derive(Clone, Copy, Debug)]
enum Val {
    Nan,
    Inf(bool),
    Zero(bool),
    /// `(-1)^neg * m * 2^e`, `m` in `[2^23, 2^24)`.
    Fin {
        neg: bool,
        m: u64,
        e: i64,
    },
}

/// Classifies f32 bits, flushing subnormals to the zero of their sign.
fn classify(x: u32) -> Val {
    let neg = x & SIGN != 0;
    let exp = (x >> 23) & 0xff;
    let frac = u64::from(x & 0x7f_ffff);
    match exp {
        0xff if frac != 0 => Val::Nan,
        0xff => Val::Inf(neg),
        0 => Val::Zero(neg),
        _ => Val::Fin {
            neg,
            m: (1 << 23) | frac,
            e: i64::from(exp) - 150,
        },
    }
}

/// Rounds the exact nonzero magnitude `mag * 2^exp` to nearest-even at the quantum `2^lsb`, or
/// to 24 significant bits where those are coarser: `(q, lsb)` with the value `q * 2^lsb`, `q`
/// below `2^24` (a carry into a 25th bit is renormalised).
fn rne_at(mag: &BigInt, exp: i64, lsb: i64) -> (BigInt, i64) {
    debug_assert!(mag.sign() == Sign::Plus);
    // Weight of the leading one, then of the last kept bit.
    let lead = exp + mag.bits() as i64 - 1;
    let lsb = (lead - 23).max(lsb);
    let (mut q, mut lsb) = if lsb > exp {
        let shift = (lsb - exp) as usize;
        let q: BigInt = mag >> shift;
        let rem: BigInt = mag - (&q << shift);
        let half = BigInt::from(1u8) << (shift - 1);
        let odd = q.bit(0);
        let up = rem > half || (rem == half && odd);
        (if up { q + 1u8 } else { q }, lsb)
    } else {
        (mag << (exp - lsb) as usize, lsb)
    };
    if q.bits() > 24 {
        // Rounding carried into a 25th bit: q = 2^24 exactly, renormalise.
        q >>= 1usize;
        lsb += 1;
    }
    (q, lsb)
}

/// Rounds the exact nonzero value `(-1)^neg * mag * 2^exp` to binary32, nearest-even, with
/// gradual underflow and overflow to infinity: the plain IEEE result, before any flushing.
fn round_rne(neg: bool, mag: &BigInt, exp: i64) -> u32 {
    let sign = if neg { SIGN } else { 0 };
    // 24 bits, but never below the subnormal quantum 2^-149.
    let (q, lsb) = rne_at(mag, exp, -149);
    let q = u32::try_from(&q).expect("at most 24 bits");
    if q >= 1 << 23 {
        // Normal: the leading one sits at weight lsb + 23; biased exponent = lsb + 23 + 127.
        let biased = lsb + 150;
        if biased >= 0xff {
            return sign | INF;
        }
        sign | (biased as u32) << 23 | (q & 0x7f_ffff)
    } else {
        // Subnormal or zero: lsb is -149, the field is q itself.
        sign | q
    }
}

/// [`round_rne`], then S4's flush: the zero of the value's sign when the value rounded to 24
/// significant bits with an unbounded exponent is below `2^-126` (tininess after rounding).
fn round_rne_ftz(neg: bool, mag: &BigInt, exp: i64) -> u32 {
    let (q, lsb) = rne_at(mag, exp, i64::MIN / 2);
    // q * 2^lsb < 2^-126 with q < 2^24.
    if lsb + q.bits() as i64 - 1 < -126 {
        if neg {
            SIGN
        } else {
            0
        }
    } else {
        round_rne(neg, mag, exp)
    }
}

/// sm_1x `mad{.sat}.f32 d, a, b, c` on raw f32 bits (S7); `sat` applies S3.
pub fn mad(a: u32, b: u32, c: u32, sat: bool) -> u32 {
    let r = mad_unsat(a, b, c);
    if sat {
        f32_sat(r)
    } else {
        r
    }
}

fn mad_unsat(a: u32, b: u32, c: u32) -> u32 {
    let (a, b, c) = (classify(a), classify(b), classify(c));
    // NaN and infinity follow IEEE (after input flushing, so inf * subnormal is inf * 0).
    if matches!(a, Val::Nan) || matches!(b, Val::Nan) || matches!(c, Val::Nan) {
        return F32_NAN;
    }
    let prod_neg = is_neg(a) ^ is_neg(b);
    if matches!(a, Val::Inf(_)) || matches!(b, Val::Inf(_)) {
        if matches!(a, Val::Zero(_)) || matches!(b, Val::Zero(_)) {
            return F32_NAN; // inf * 0
        }
        return match c {
            Val::Inf(cn) if cn != prod_neg => F32_NAN, // inf - inf
            _ => {
                if prod_neg {
                    SIGN | INF
                } else {
                    INF
                }
            }
        };
    }
    if let Val::Inf(cn) = c {
        return if cn { SIGN | INF } else { INF };
    }
    // Everything is finite now. The exact product magnitude and exponent (None for zero).
    let product = match (a, b) {
        (Val::Fin { m: ma, e: ea, .. }, Val::Fin { m: mb, e: eb, .. }) => Some((ma * mb, ea + eb)),
        _ => None,
    };
    match c {
        Val::Zero(c_neg) => {
            // The c = +-0 exception: mul.rn (overflowing, flushing), then add.rn of the zero.
            let p = match product {
                Some((m, e)) => round_rne_ftz(prod_neg, &BigInt::from(m), e),
                None => {
                    if prod_neg {
                        SIGN
                    } else {
                        0
                    }
                }
            };
            if p & 0x7fff_ffff != 0 {
                p // x + (+-0) = x for nonzero x (inf included)
            } else if p == SIGN && c_neg {
                SIGN // -0 + -0 = -0
            } else {
                0 // any other sum of zeros is +0 under rn
            }
        }
        Val::Fin {
            neg: c_neg,
            m: mc,
            e: ec,
        } => {
            // The truncated product: keep the top 24 significant bits of the exact 47- or
            // 48-bit product, toward zero, exponent unbounded (no overflow, no underflow yet).
            let (pm, pe) = match product {
                Some((m, e)) => {
                    let extra = (64 - m.leading_zeros()).saturating_sub(24);
                    (m >> extra, e + i64::from(extra))
                }
                None => (0, 0),
            };
            // Exact sum on the common exponent of the two least significant bits.
            let e0 = pe.min(ec);
            let signed = |neg: bool, m: u64, e: i64| -> BigInt {
                let v = BigInt::from(m) << (e - e0) as usize;
                if neg {
                    -v
                } else {
                    v
                }
            };
            let sum = signed(prod_neg, pm, pe) + signed(c_neg, mc, ec);
            match sum.sign() {
                Sign::NoSign => 0, // exact zero sum: +0 under rn
                s => {
                    let neg = s == Sign::Minus;
                    let mag = if neg { -sum } else { sum };
                    round_rne_ftz(neg, &mag, e0)
                }
            }
        }
        Val::Nan | Val::Inf(_) => unreachable!("handled above"),
    }
}

fn is_neg(v: Val) -> bool {
    match v {
        Val::Nan => false,
        Val::Inf(n) | Val::Zero(n) => n,
        Val::Fin { neg, .. } => neg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(mag: u64, exp: i64) -> u32 {
        round_rne(false, &BigInt::from(mag), exp)
    }

    fn r_ftz(mag: u64, exp: i64) -> u32 {
        round_rne_ftz(false, &BigInt::from(mag), exp)
    }

    #[test]
    fn ftz_is_tininess_after_rounding() {
        // (2^24 - 1) * 2^-150 is 24 bits, below 2^-126: tiny, although the IEEE result (ties
        // to even at the quantum 2^-149) is 2^-126.
        assert_eq!(r((1 << 24) - 1, -150), 0x0080_0000);
        assert_eq!(r_ftz((1 << 24) - 1, -150), 0);
        assert_eq!(
            round_rne_ftz(true, &BigInt::from((1u64 << 24) - 1), -150),
            SIGN
        );
        // (2^47 - 2) * 2^-173 = 2^-126 - 2^-172 rounds to 2^-126 at 24 bits: kept.
        assert_eq!(r_ftz((1 << 47) - 2, -173), 0x0080_0000);
        // (2^25 - 1) * 2^-151, the tie between (2^24 - 1) * 2^-150 and 2^-126, goes to the
        // even 2^-126 at 24 bits: kept. One less is below the tie: tiny.
        assert_eq!(r_ftz((1 << 25) - 1, -151), 0x0080_0000);
        assert_eq!(r_ftz((1 << 25) - 2, -151), 0);
        // Subnormal results flush; 2^-126 and above stay.
        assert_eq!(r_ftz(1, -140), 0);
        assert_eq!(r_ftz(1, -126), 0x0080_0000);
        assert_eq!(r_ftz(3, -1), 0x3fc0_0000);
    }

    #[test]
    fn rounding_helper_hand_values() {
        assert_eq!(r(1, 0), 0x3f80_0000);
        assert_eq!(r(3, -1), 0x3fc0_0000);
        // 2^24 + 1: a tie between 2^24 and 2^24 + 2, even is 2^24.
        assert_eq!(r((1 << 24) + 1, 0), 0x4b80_0000);
        // 2^24 + 3: tie between 2^24 + 2 and 2^24 + 4, even is 2^24 + 4.
        assert_eq!(r((1 << 24) + 3, 0), 0x4b80_0002);
        assert_eq!(r(1, -149), 0x0000_0001);
        // Half the smallest subnormal ties to 0 (even); a bit more rounds up.
        assert_eq!(r(1, -150), 0);
        assert_eq!(r(3, -151), 1);
        // (2^24 - 1) * 2^-150 ties between 0x007fffff and 0x00800000 (even).
        assert_eq!(r((1 << 24) - 1, -150), 0x0080_0000);
        assert_eq!(r(1, 128), 0x7f80_0000);
        assert_eq!(r((1 << 24) - 1, 104), 0x7f7f_ffff);
        // Max finite plus half an ulp ties to the even 2^128, which overflows.
        assert_eq!(r((1 << 25) - 1, 103), 0x7f80_0000);
        assert_eq!(round_rne(true, &BigInt::from(1), 0), 0xbf80_0000);
    }
}
