//! PTX semantics (decisions S1-S9 of `docs/semantics.md`) on top of an IEEE fma engine.
//!
//! The IEEE engine does the one thing IEEE defines (the correctly rounded `a*b+c` with gradual
//! underflow); everything PTX adds or pins down is written out here in plain bit manipulation:
//! operand substitution for add/sub/mul, f16/bf16 widening, `.ftz` on inputs and results, NaN
//! canonicalisation (f32) and propagation (f64), `.sat`, f32x2 lanes. sm_1x `mad.f32` and
//! `vmad` have their own references ([`super::sm1x`], [`super::vmad`]) since they are not IEEE.

use super::f32_rules::{f32_is_nan, f32_sat, F32_NAN, F32_ONE, F32_SIGN};
use super::soft::Soft;
use super::{half, sm1x, vmad, Ieee};
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd};

/// The f64 NaN of an invalid operation without NaN operands (S2).
pub const F64_INVALID_NAN: u64 = 0xfff8_0000_0000_0000;

const F64_SIGN: u64 = 0x8000_0000_0000_0000;
const F64_ONE: u64 = 0x3ff0_0000_0000_0000;
/// f64 quiet bit (bit 51).
const F64_QUIET: u64 = 1 << 51;

/// The full PTX result of the instruction `ctrl` on operands `a`, `b`, `c`, using
/// `rustc_apfloat` as the IEEE core. Bit placement as in the pipeline API: f32 in 31:0 with
/// 63:32 zero, f32x2 lane 1 in 63:32, vmad in 31:0.
pub fn eval(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
    eval_with(&Soft, ctrl, a, b, c)
}

/// [`eval`] on a chosen IEEE engine (e.g. `reference::host::Host`).
pub fn eval_with<E: Ieee + ?Sized>(engine: &E, ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
    match ctrl.kind {
        Kind::F32 => u64::from(f32_lane(engine, ctrl, a, b, c)),
        Kind::F32x2 => {
            // S5: two independent lanes sharing .rnd/.ftz; lane 0 in bits 31:0.
            let lo = f32_lane(engine, ctrl, a, b, c);
            let hi = f32_lane(engine, ctrl, a >> 32, b >> 32, c >> 32);
            u64::from(lo) | u64::from(hi) << 32
        }
        Kind::F64 => f64_op(engine, ctrl, a, b, c),
        Kind::Sm1x => {
            let (a, b, c) = f32_operands(ctrl, Rnd::Rn, a, b, c);
            u64::from(sm1x::mad(a, b, c, ctrl.sat))
        }
        Kind::Vmad => u64::from(vmad::eval(ctrl, a as u32, b as u32, c as u32)),
        Kind::Half | Kind::Half2 => half::eval(ctrl, a, b, c),
    }
}

/// f16 (binary16) to f32, exactly: every f16 value, subnormals included, is a normal (or zero,
/// inf, NaN) f32, so there is nothing to round and nothing to flush (S6).
pub fn f16_to_f32(h: u16) -> u32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // value = m * 2^-24; put its leading one at bit 10 (the f16 hidden-bit position).
            let lead = 31 - m.leading_zeros(); // 0..=9
            let shift = 10 - lead;
            let frac = (m << shift) & 0x3ff;
            // m * 2^-24 = 1.frac * 2^(lead - 24); biased f32 exponent = lead - 24 + 127.
            sign | (lead + 103) << 23 | frac << 13
        }
        (0x1f, m) => sign | 0x7f80_0000 | m << 13,
        (e, m) => sign | (e + 112) << 23 | m << 13,
    }
}

/// bfloat16 to f32, exactly: bf16 is the top half of an f32 (same exponent range, so bf16
/// subnormals stay f32 subnormals and are not flushed, S6).
pub fn bf16_to_f32(h: u16) -> u32 {
    u32::from(h) << 16
}

fn f32_is_subnormal(x: u32) -> bool {
    x & 0x7f80_0000 == 0 && x & 0x007f_ffff != 0
}

/// S4 on inputs: a subnormal becomes the zero of its sign; everything else is unchanged.
fn f32_flush(x: u32) -> u32 {
    if f32_is_subnormal(x) {
        x & F32_SIGN
    } else {
        x
    }
}

/// The binary32 `2^-126`, the smallest normal magnitude.
const F32_MIN_NORMAL: u32 = 0x0080_0000;

/// `x * 2^k` for a zero or normal binary32 `x` whose scaled value stays normal: `k` added to the
/// exponent field.
fn f32_scale(x: u32, k: u32) -> u32 {
    if x & 0x7fff_ffff == 0 {
        x
    } else {
        x + (k << 23)
    }
}

/// S4 on the result: `r` is the IEEE result (gradual underflow) of `a * b + c` in direction
/// `rnd`, operands already flushed. The result flushes to the zero of its sign when the exact
/// value rounded to 24 significant bits with an unbounded exponent is below `2^-126` (tininess
/// after rounding, as measured on sm_90).
///
/// A subnormal (or zero) `r` always is: the subnormal quantum is coarser than 24 bits there, so
/// if 24-bit rounding reached `2^-126`, rounding at the quantum would too. A normal `r` above
/// `2^-126` never is. That leaves `r = ±2^-126`, which the exact value may or may not reach at
/// 24 bits; for it the same fma runs scaled by `2^24` (`a` or `b`, the smaller, and `c`), where
/// the engine's IEEE rounding is 24-bit rounding, and the scaled result is compared with
/// `2^(24-126)`. The scaling is exact: if `r = ±2^-126` the exact value lies in
/// `(2^-127, 2^-125)`, a multiple of the finer quantum of the product (`2^(ea+eb-46)`) and of `c`
/// (`2^(ec-23)`), so `|c| < 2^-76` and `|a * b| < 2^-75`, the smaller factor below `2^-37`.
fn f32_ftz_result<E: Ieee + ?Sized>(
    engine: &E,
    (a, b, c): (u32, u32, u32),
    rnd: Rnd,
    r: u32,
) -> u32 {
    const K: u32 = 24;
    let mag = r & 0x7fff_ffff;
    let tiny = if mag < F32_MIN_NORMAL {
        true
    } else if mag == F32_MIN_NORMAL {
        let (a, b) = if a & 0x7fff_ffff <= b & 0x7fff_ffff {
            (f32_scale(a, K), b)
        } else {
            (a, f32_scale(b, K))
        };
        let scaled = engine.fma32(a, b, f32_scale(c, K), rnd);
        scaled & 0x7fff_ffff < F32_MIN_NORMAL + (K << 23)
    } else {
        false
    };
    if tiny {
        r & F32_SIGN
    } else {
        r
    }
}

fn f64_is_nan(x: u64) -> bool {
    x & !F64_SIGN > 0x7ff0_0000_0000_0000
}

/// S3 for f64. The decoder never sets `.sat` on f64; the bit still has this one meaning.
fn f64_sat(x: u64) -> u64 {
    if f64_is_nan(x) || x & F64_SIGN != 0 {
        0
    } else if x >= F64_ONE {
        F64_ONE
    } else {
        x
    }
}

/// The binary32 operands the f32 kinds actually multiply and add: f16/bf16 widening of `a`
/// (and `b`) for mixed precision, `b = +1.0` for add/sub, `c = -0` (`+0` under `.rm`) for mul,
/// then the sign flip of `c` for sub. `rnd` is the direction the operation really rounds in.
fn f32_operands(ctrl: &Ctrl, rnd: Rnd, a: u64, b: u64, c: u64) -> (u32, u32, u32) {
    // Mixed precision is an f32-only form; other kinds read their operands natively.
    let widen = |x: u64| -> u32 {
        match (ctrl.kind, ctrl.ab_fmt) {
            (Kind::F32, AbFmt::F16) => f16_to_f32(x as u16),
            (Kind::F32, AbFmt::Bf16) => bf16_to_f32(x as u16),
            _ => x as u32,
        }
    };
    let a = widen(a);
    let b = if ctrl.b_one { F32_ONE } else { widen(b) };
    // mul adds a zero that cannot change any product, signed zeros included: x + (-0) = x in
    // rn/rz/rp, but under rm +0 + -0 = -0 would turn a +0 product into -0, so rm adds +0.
    let c = if ctrl.c_zero {
        if rnd == Rnd::Rm {
            0
        } else {
            F32_SIGN
        }
    } else {
        c as u32
    };
    let c = if ctrl.neg_c { c ^ F32_SIGN } else { c };
    (a, b, c)
}

/// One binary32 result (a whole f32 op, or one f32x2 lane): S1, S3, S4, S6.
fn f32_lane<E: Ieee + ?Sized>(engine: &E, ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u32 {
    let (a, b, c) = f32_operands(ctrl, ctrl.rnd, a, b, c);
    let flush = ctrl.flush();
    let (a, b, c) = if flush {
        (f32_flush(a), f32_flush(b), f32_flush(c))
    } else {
        (a, b, c)
    };
    let r = engine.fma32(a, b, c, ctrl.rnd);
    // The NaN sign flip of sub's -c cannot leak out: every NaN becomes one pattern (S1).
    let r = if f32_is_nan(r) {
        F32_NAN
    } else if flush {
        f32_ftz_result(engine, (a, b, c), ctrl.rnd, r)
    } else {
        r
    };
    if ctrl.sat {
        f32_sat(r)
    } else {
        r
    }
}

/// The binary64 op: S2 NaN propagation (with S9), S3 when the `.sat` bit is set.
fn f64_op<E: Ieee + ?Sized>(engine: &E, ctrl: &Ctrl, a: u64, b: u64, c: u64) -> u64 {
    let b_eff = if ctrl.b_one { F64_ONE } else { b };
    let c_zero = if ctrl.rnd == Rnd::Rm { 0 } else { F64_SIGN };
    let c_eff = if ctrl.c_zero { c_zero } else { c };
    let c_eff = if ctrl.neg_c { c_eff ^ F64_SIGN } else { c_eff };
    // S2/S9: the operands as given, in order b, c, a; the substituted +1.0 and signed zero are
    // never NaN, and sub's negation is not applied to a NaN c.
    let first_nan = [
        (!ctrl.b_one).then_some(b),
        (!ctrl.c_zero).then_some(c),
        Some(a),
    ]
    .into_iter()
    .flatten()
    .find(|&x| f64_is_nan(x));
    let r = match first_nan {
        Some(n) => n | F64_QUIET,
        None => {
            let r = engine.fma64(a, b_eff, c_eff, ctrl.rnd);
            if f64_is_nan(r) {
                F64_INVALID_NAN
            } else {
                r
            }
        }
    };
    if ctrl.sat {
        f64_sat(r)
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_widening_matches_hand_values() {
        // Values worked out from the binary16 definition.
        assert_eq!(f16_to_f32(0x3c00), 0x3f80_0000); // 1.0
        assert_eq!(f16_to_f32(0xc000), 0xc000_0000); // -2.0
        assert_eq!(f16_to_f32(0x7bff), 0x477f_e000); // 65504
        assert_eq!(f16_to_f32(0x0400), 0x3880_0000); // 2^-14, smallest normal
        assert_eq!(f16_to_f32(0x0001), 0x3380_0000); // 2^-24, smallest subnormal
        assert_eq!(f16_to_f32(0x03ff), 0x387f_c000); // (1023/1024) * 2^-14
        assert_eq!(f16_to_f32(0x8200), 0xb800_0000); // -2^-15
        assert_eq!(f16_to_f32(0x8000), 0x8000_0000);
        assert_eq!(f16_to_f32(0x7c00), 0x7f80_0000);
        assert_eq!(f16_to_f32(0xfc00), 0xff80_0000);
        assert_eq!(f16_to_f32(0x7e00), 0x7fc0_0000);
    }

    #[test]
    fn f16_widening_is_exact_for_every_finite_value() {
        // Every finite f16 is k * 2^-24 for an integer |k| < 2^16 * 2^14; check through f64.
        for h in 0..=u16::MAX {
            let e = (h >> 10) & 0x1f;
            if e == 0x1f {
                continue;
            }
            let m = f64::from(h & 0x3ff);
            let v = if e == 0 {
                m * 2f64.powi(-24)
            } else {
                (1024.0 + m) * 2f64.powi(i32::from(e) - 25)
            };
            let v = if h & 0x8000 != 0 { -v } else { v };
            let got = f64::from(f32::from_bits(f16_to_f32(h)));
            assert_eq!(got.to_bits(), v.to_bits(), "f16 {h:#06x}");
        }
    }

    #[test]
    fn sat_clamps() {
        assert_eq!(f32_sat(0x7fff_ffff), 0);
        assert_eq!(f32_sat(0x8000_0000), 0);
        assert_eq!(f32_sat(0xff80_0000), 0);
        assert_eq!(f32_sat(0x7f80_0000), F32_ONE);
        assert_eq!(f32_sat(0x3f7f_ffff), 0x3f7f_ffff);
        assert_eq!(f32_sat(0x0000_0001), 1);
        assert_eq!(f64_sat(0x3ff0_0000_0000_0001), F64_ONE);
        assert_eq!(f64_sat(0xbff0_0000_0000_0000), 0);
    }
}
