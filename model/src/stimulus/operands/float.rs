//! Float operands, the way Berkeley TestFloat builds them: an exponent from a short list of
//! boundaries, a significand from a short list of bit patterns, the special values, a quarter
//! uniformly random; and the c that nearly cancels a product. Every float kind draws from here.

use crate::ctrl::Ctrl;
use crate::format::{Fmt, BF16, F16, F32, F64};
use crate::stimulus::rng::Rng;

/// A significand pattern of `n` bits: TestFloat-style walking ones and zeros, runs of ones and
/// zeros from either end or inside, and random fill.
pub fn frac_pattern(n: u32, rng: &mut Rng) -> u64 {
    frac_pattern_inline(n, rng)
}

/// [`frac_pattern`], inlined where `n` is a constant (the stimulus's inner loop).
#[inline(always)]
fn frac_pattern_inline(n: u32, rng: &mut Rng) -> u64 {
    let all = (1u64 << n) - 1;
    let ones = |k: u32| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
    let k = rng.below(n as u64 + 1) as u32; // 0..=n
    let pos = rng.below(n as u64) as u32;
    match rng.below(12) {
        0 => 0,
        1 => all,
        2 => 1 << pos,                         // walking one
        3 => all ^ (1 << pos),                 // walking zero
        4 => ones(k) << (n - k),               // run of ones from the top
        5 => ones(k),                          // run of ones from the bottom
        6 => all ^ (ones(k) << (n - k)),       // run of zeros from the top
        7 => all ^ ones(k),                    // run of zeros from the bottom
        8 => (ones(k) << pos) & all,           // run of ones inside
        9 => all ^ ((ones(k) << pos) & all),   // run of zeros inside
        10 => (1 << (n - 1)) | 1 | (1 << pos), // both ends (rounding/sticky edges)
        _ => rng.next_u64() & all,
    }
}

/// A biased exponent from TestFloat's boundary list: 1 and 2 (emin), the top (emax and below),
/// around the bias (values near 1.0), around the bias +- the precision (where an addend stops
/// overlapping a product) and +- half the range (products that overflow or underflow), or random.
#[inline(always)]
fn edge_exponent(fmt: Fmt, rng: &mut Rng) -> u64 {
    let bias = fmt.bias();
    let emax = fmt.exp_max() as i64 - 1;
    let p = fmt.frac_bits as i64 + 1;
    let e = match rng.below(7) {
        0 => rng.range(1, 3),
        1 => rng.range(emax - 2, emax),
        2 => bias + rng.range(-2, 2),
        3 => bias + p + rng.range(-1, 1),
        4 => bias - p + rng.range(-1, 1),
        5 => bias + (if rng.bit() { 1 } else { -1 }) * (bias / 2) + rng.range(-2, 2),
        _ => rng.range(1, emax),
    };
    e.clamp(1, emax) as u64
}

/// One edge-biased operand of `fmt`, in the low bits of the result.
#[inline]
pub fn float_operand(fmt: Fmt, rng: &mut Rng) -> u64 {
    // One compiled copy per format, its field widths folded in: a constant `fmt` picks it here.
    if fmt == F64 {
        float_operand_f64(rng)
    } else if fmt == F32 {
        float_operand_f32(rng)
    } else if fmt == F16 {
        float_operand_f16(rng)
    } else if fmt == BF16 {
        float_operand_bf16(rng)
    } else {
        edge_float(fmt, rng)
    }
}

#[inline(never)]
fn float_operand_f64(rng: &mut Rng) -> u64 {
    edge_float(F64, rng)
}

#[inline(never)]
fn float_operand_f32(rng: &mut Rng) -> u64 {
    edge_float(F32, rng)
}

#[inline(never)]
fn float_operand_f16(rng: &mut Rng) -> u64 {
    edge_float(F16, rng)
}

#[inline(never)]
fn float_operand_bf16(rng: &mut Rng) -> u64 {
    edge_float(BF16, rng)
}

/// [`float_operand`]'s body: a quarter uniformly random, else a signed zero, infinity, NaN
/// (quiet or signalling, patterned payload), subnormal, or an edge exponent with a patterned
/// significand. Written so that one [`frac_pattern`] serves every case, drawn after the
/// exponent, as the draws have always been ordered.
#[inline(always)]
fn edge_float(fmt: Fmt, rng: &mut Rng) -> u64 {
    if rng.chance(1, 4) {
        return rng.next_u64() & fmt.mask();
    }
    let sign = rng.bit();
    let top = fmt.exp_max();
    let payload_mask = fmt.quiet_bit() - 1;
    let case = rng.below(16);
    match case {
        0 => return fmt.assemble(sign, 0, 0),
        1 => return fmt.assemble(sign, top, 0),
        _ => {}
    }
    // 2, 3: NaN payloads (one bit narrower); 4, 5: subnormals; 6..: an edge exponent.
    let exp = if case >= 6 {
        edge_exponent(fmt, rng)
    } else {
        0
    };
    let bits = if case < 4 {
        fmt.frac_bits - 1
    } else {
        fmt.frac_bits
    };
    let f = frac_pattern_inline(bits, rng);
    match case {
        2 => fmt.assemble(sign, top, fmt.quiet_bit() | (f & payload_mask)),
        3 => fmt.assemble(sign, top, (f & payload_mask).max(1)),
        4 | 5 => fmt.assemble(sign, 0, f.max(1)),
        _ => fmt.assemble(sign, exp, f),
    }
}

/// Moves `bits` (a value of `fmt`) a little: unchanged, a few ulps up or down, or its low bits
/// scrambled. Applied to `-(a*b)` it gives the near-total cancellations that exercise the
/// leading-zero anticipator and the normaliser.
fn perturb(fmt: Fmt, bits: u64, rng: &mut Rng) -> u64 {
    match rng.below(3) {
        0 => bits,
        1 => bits.wrapping_add(rng.range(-4, 4) as u64) & fmt.mask(),
        _ => {
            let k = rng.range(1, 12) as u32;
            bits ^ (rng.next_u64() & ((1u64 << k) - 1))
        }
    }
}

/// A `c` (of `fmt`, f32 or f64) close to `-target`.
fn near_negation(fmt: Fmt, target: f64, rng: &mut Rng) -> u64 {
    let neg = -target;
    let bits = if fmt == F64 {
        neg.to_bits()
    } else if fmt == F32 {
        (neg as f32).to_bits() as u64
    } else {
        // binary16 / bfloat16: the nearest value of the format.
        use rustc_apfloat::ieee::{BFloat, Double, Half};
        use rustc_apfloat::{Float, FloatConvert};
        let d = Double::from_bits(neg.to_bits().into());
        let bits = if fmt == crate::format::BF16 {
            FloatConvert::<BFloat>::convert(d, &mut false)
                .value
                .to_bits()
        } else {
            FloatConvert::<Half>::convert(d, &mut false).value.to_bits()
        };
        bits as u64
    };
    perturb(fmt, bits, rng)
}

/// a, b, c for one binary32 or binary64 fma-shaped operation whose a/b are of `ab` and c of
/// `cf`; one in five gets a c that nearly cancels the product: c ~ -(a*b), or c ~ +a for `sub`
/// (`neg_c`), which computes a - c. Inlined where the formats are constants.
#[inline(always)]
pub(super) fn fma_operands(ab: Fmt, cf: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    let b_one = ctrl.b_one;
    let a = float_operand(ab, rng);
    let b = if b_one { 0 } else { float_operand(ab, rng) };
    let c = if rng.chance(1, 5) {
        cancelling_c(ab, cf, ctrl, a, b, rng)
    } else {
        float_operand(cf, rng)
    };
    (a, b, c)
}

/// A c near the negated product of `a` and `b` (see [`fma_operands`]).
#[inline(never)]
fn cancelling_c(ab: Fmt, cf: Fmt, ctrl: &Ctrl, a: u64, b: u64, rng: &mut Rng) -> u64 {
    let pa = ab.to_f64(a);
    // Product exact in f64 for every format narrower than f64; f64 gets the rounded one,
    // whose rounding error is exactly what a fused operation must keep.
    let prod = if ctrl.b_one { pa } else { pa * ab.to_f64(b) };
    near_negation(cf, if ctrl.neg_c { -prod } else { prod }, rng)
}

/// sm_1x cases the generic operands rarely hit: a product beyond the f32 range (its exponent is
/// unbounded in the truncated form) brought back by a large `c` of opposite sign, and a product
/// below the f32 range next to a small normal `c`.
pub(super) fn sm1x_range_operands(rng: &mut Rng) -> (u64, u64, u64) {
    let bias = F32.bias();
    let (ea, eb, ec) = if rng.bit() {
        let t = rng.range(128, 129);
        let ea = rng.range(t - 127, 127);
        (ea, t - ea, rng.range(126, 127))
    } else {
        let t = rng.range(-150, -127);
        let ea = rng.range(-126, (t + 126).min(-1));
        (ea, t - ea, rng.range(-126, -124))
    };
    let sa = rng.bit();
    let sb = rng.bit();
    // Mostly the opposite sign of the product, so c pulls it back; sometimes the same sign.
    let sc = if rng.chance(7, 8) {
        !(sa ^ sb)
    } else {
        sa ^ sb
    };
    let f = |rng: &mut Rng| frac_pattern(F32.frac_bits, rng);
    let a = F32.assemble(sa, (ea + bias) as u64, f(rng));
    let b = F32.assemble(sb, (eb + bias) as u64, f(rng));
    let c = F32.assemble(sc, (ec + bias) as u64, f(rng));
    (a, b, c)
}

/// One half-precision lane's operands: the edge-biased FMA operands of the format, and under
/// `.oob` now and then the OOB NaN (either sign) in `a` or `b` (S12).
#[inline(always)]
pub(super) fn half_operands(f: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    let (mut a, mut b, c) = fma_operands(f, f, ctrl, rng);
    if ctrl.oob && rng.chance(1, 8) {
        let oob = crate::parts::special::OOB_NAN | (rng.bit() as u64) << 15;
        if ctrl.b_one || rng.bit() {
            a = oob;
        } else {
            b = oob;
        }
    }
    (a, b, if ctrl.c_zero { 0 } else { c })
}
