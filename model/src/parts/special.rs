//! Special-case unit: NaN and infinity results, and `.oob`'s forced zero, decided from the
//! operand classes alone so the result is ready in stage 1 and rides down the pipe beside the
//! arithmetic (S1, S2, S9, S10, S12).

use crate::ctrl::{Ctrl, Kind};
use crate::parts::unpack::LaneOperands;

/// binary32 NaN produced by every f32-result instruction (S1).
pub const F32_NAN: u64 = 0x7FFF_FFFF;
/// binary64 NaN for an invalid operation without a NaN operand (S2).
pub const F64_NAN: u64 = 0xFFF8_0000_0000_0000;
/// The NaN of every half-precision result, binary16 and bfloat16 alike (S10).
pub const HALF_NAN: u64 = 0x7FFF;
/// The "OOB NaN" that `.oob` looks for in `a` and `b`, either sign (S12).
pub const OOB_NAN: u64 = 0x7FF7;

/// Whether a half-precision operand is the OOB NaN (S12: the sign is not looked at).
#[inline(always)]
pub fn is_oob_nan(raw: u64) -> bool {
    raw & 0x7FFF == OOB_NAN
}

/// `Some(result)` when the lane's result is NaN or infinite, encoded in the lane's format.
#[inline(always)]
pub fn special(ctrl: &Ctrl, l: &LaneOperands) -> Option<u64> {
    let (a, b, c) = (&l.a, &l.b, &l.c);
    let f64 = ctrl.kind == Kind::F64;
    let half = ctrl.is_half();
    // S12: an OOB NaN in a or b forces +0, before any other rule.
    if ctrl.oob && (is_oob_nan(l.raw[0]) || is_oob_nan(l.raw[1])) {
        return Some(0);
    }
    let sign_p = a.sign ^ b.sign;
    let p_inf = a.inf || b.inf;
    let any_nan = a.nan || b.nan || c.nan;
    let invalid = (a.inf && b.zero) || (a.zero && b.inf) || (p_inf && c.inf && sign_p != c.sign);
    if any_nan || invalid {
        if half {
            return Some(HALF_NAN);
        }
        if !f64 {
            return Some(F32_NAN);
        }
        // S2: the first NaN operand in b, c, a order, quieted, payload kept; S9: as given.
        let first = [(b.nan, l.raw[1]), (c.nan, l.raw[2]), (a.nan, l.raw[0])]
            .into_iter()
            .find(|(n, _)| *n);
        return Some(match first {
            Some((_, raw)) => raw | 1 << 51,
            None => F64_NAN,
        });
    }
    let inf = |s: bool| {
        if half {
            let f = ctrl.half_fmt();
            f.assemble(s, f.exp_max(), 0)
        } else if f64 {
            (s as u64) << 63 | 0x7FF0_0000_0000_0000
        } else {
            (s as u64) << 31 | 0x7F80_0000
        }
    };
    if p_inf {
        Some(inf(sign_p))
    } else if c.inf {
        Some(inf(c.sign))
    } else {
        None
    }
}
