//! Directed vectors for the decisions of `docs/semantics.md`, put at the head of every form's
//! block so that each GPU run measures them whatever the count: every combination of the special
//! values (S1, S2, S3, S9, signed zeros: NaNs with payloads quiet and signalling in each operand
//! position, infinities, zeros, subnormals), the `.ftz` band just below 2^-126 (S4), results at
//! and around 1.0 for `.sat` (S3), exact cancellations (signed zero), and vmad's boundary values
//! under every selector (S8).

use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::AbFmt;
use ptxfma_model::stimulus::VMAD_EDGES;

use super::forms::{Form, Shape};

/// f32 values: zeros, the smallest and largest subnormals, the smallest normal, 0.5, 1, the
/// largest finite, infinities, and NaNs: quiet and signalling, positive and negative, with and
/// without payload.
const F32_SPECIAL: [u64; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x3f00_0000,
    0xbf80_0000,
    0x7f7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7fc1_2345,
    0xffc0_0001,
    0x7f80_0001,
    0xffa0_0000,
    0x3f80_0000,
];

/// The f64 counterparts of [`F32_SPECIAL`].
const F64_SPECIAL: [u64; 16] = [
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x800f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff8_0000_1234_5678,
    0xfff8_0000_0000_0001,
    0x7ff0_0000_0000_0001,
    0xfff4_0000_0000_0000,
    0x3ff0_0000_0000_0000,
];

/// f16 counterparts, for mixed precision's a and b.
const F16_SPECIAL: [u64; 16] = [
    0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3800, 0xbc00, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7e12,
    0xfe01, 0x7c01, 0xfd00, 0x3c00,
];

/// The half kinds' operands: the specials, and the OOB NaN of both signs (S12), which is an
/// ordinary NaN where `.oob` is not written.
const F16_HALF: [u64; 18] = [
    0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3800, 0xbc00, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7e12,
    0xfe01, 0x7c01, 0xfd00, 0x3c00, 0x7ff7, 0xfff7,
];
const BF16_HALF: [u64; 18] = [
    0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x3f00, 0xbf80, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7fc1,
    0xffc1, 0x7f81, 0xffa0, 0x3f80, 0x7ff7, 0xfff7,
];

/// bf16 counterparts.
const BF16_SPECIAL: [u64; 16] = [
    0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x3f00, 0xbf80, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7fc1,
    0xffc1, 0x7f81, 0xffa0, 0x3f80,
];

/// S4: products just below 2^-126, with zero or tiny `c`. `a` near 1 times `b` the smallest
/// normal gives `2^-126 - 2^-150`, which the subnormal quantum rounds (to nearest) up to 2^-126
/// but 24 bits with an unbounded exponent do not; `0x3f000001 * 0x00fffffe` is
/// `2^-126 (1 - 2^-46)`, which both round up: together they tell the three ways of deciding
/// whether a result is subnormal (exact value, x86's rounded value, IEEE's subnormal rounding).
const FTZ_BAND_A: [u64; 6] = [
    0x3f7f_ffff,
    0xbf7f_ffff,
    0x3f7f_fffe,
    0x3f7f_fffd,
    0x3f00_0001,
    0xbf00_0001,
];
const FTZ_BAND_B: [u64; 5] = [
    0x0080_0000,
    0x8080_0000,
    0x0080_0001,
    0x00ff_fffe,
    0x80ff_fffe,
];
const FTZ_BAND_C: [u64; 4] = [0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001];

/// S3: products at and around 1.0, with addends that tip them over or under.
const SAT_A: [u64; 5] = [
    0x3f7f_ffff,
    0x3f80_0000,
    0x3f80_0001,
    0xbf80_0000,
    0x8000_0001,
];
const SAT_B: [u64; 3] = [0x3f80_0000, 0x3f80_0001, 0x3f7f_ffff];
const SAT_C: [u64; 5] = [0, 0x8000_0000, 0x3380_0000, 0xb380_0000, 0x7fc0_0000];

/// Exact cancellations `a*b + c = 0` (1.5 * 2 - 3 and sign variants): the sign of a zero sum.
const CANCEL_F32: [(u64, u64, u64); 4] = [
    (0x3fc0_0000, 0x4000_0000, 0xc040_0000),
    (0xbfc0_0000, 0x4000_0000, 0x4040_0000),
    (0x3fc0_0000, 0xc000_0000, 0x4040_0000),
    (0xbfc0_0000, 0xc000_0000, 0xc040_0000),
];
const CANCEL_F64: [(u64, u64, u64); 4] = [
    (
        0x3ff8_0000_0000_0000,
        0x4000_0000_0000_0000,
        0xc008_0000_0000_0000,
    ),
    (
        0xbff8_0000_0000_0000,
        0x4000_0000_0000_0000,
        0x4008_0000_0000_0000,
    ),
    (
        0x3ff8_0000_0000_0000,
        0xc000_0000_0000_0000,
        0x4008_0000_0000_0000,
    ),
    (
        0xbff8_0000_0000_0000,
        0xc000_0000_0000_0000,
        0xc008_0000_0000_0000,
    ),
];

/// Every combination of `a`, `b`, `c` drawn from the three lists.
fn product(a: &[u64], b: &[u64], c: &[u64], out: &mut Vec<(u64, u64, u64)>) {
    for &x in a {
        for &y in b {
            for &z in c {
                out.push((x, y, z));
            }
        }
    }
}

/// The directed vectors of one form, with zero in every operand the instruction does not read
/// (as [`ptxfma_model::stimulus::operands_for`] leaves them).
pub fn vectors(form: &Form) -> Vec<(u64, u64, u64)> {
    let mut v = Vec::new();
    match form.shape() {
        Shape::F32 => {
            product(&F32_SPECIAL, &F32_SPECIAL, &F32_SPECIAL, &mut v);
            product(&FTZ_BAND_A, &FTZ_BAND_B, &FTZ_BAND_C, &mut v);
            product(&SAT_A, &SAT_B, &SAT_C, &mut v);
            v.extend(CANCEL_F32);
        }
        Shape::F64 => {
            product(&F64_SPECIAL, &F64_SPECIAL, &F64_SPECIAL, &mut v);
            v.extend(CANCEL_F64);
        }
        Shape::Mixed => {
            let ab = if form.mnemonic().ends_with("bf16") {
                &BF16_SPECIAL
            } else {
                &F16_SPECIAL
            };
            product(ab, ab, &F32_SPECIAL, &mut v);
        }
        Shape::F32x2 => {
            // Lane 1 takes the specials in another order, so the lanes differ in every vector.
            let lanes = |x: u64, k: usize| x | (F32_SPECIAL[(k * 7 + 3) % 16] << 32);
            for (i, &a) in F32_SPECIAL.iter().enumerate() {
                for (j, &b) in F32_SPECIAL.iter().enumerate() {
                    for (k, &c) in F32_SPECIAL.iter().enumerate() {
                        v.push((lanes(a, i + j), lanes(b, j + k), lanes(c, k + i)));
                    }
                }
            }
        }
        Shape::Vmad => {
            let edges = VMAD_EDGES.map(u64::from);
            product(&edges, &edges, &edges, &mut v)
        }
        Shape::Half | Shape::Half2 => {
            let bf16 = form.ctrl.ab_fmt == AbFmt::Bf16;
            let special: &[u64] = if bf16 { &BF16_HALF } else { &F16_HALF };
            if form.shape() == Shape::Half {
                product(special, special, special, &mut v);
            } else {
                // Lane 1 takes the specials in another order, so the lanes differ.
                let n = special.len();
                let lanes = |x: u64, k: usize| x | (special[(k * 7 + 3) % n] << 16);
                for (i, &a) in special.iter().enumerate() {
                    for (j, &b) in special.iter().enumerate() {
                        for (k, &c) in special.iter().enumerate() {
                            v.push((lanes(a, i + j), lanes(b, j + k), lanes(c, k + i)));
                        }
                    }
                }
            }
        }
    }
    // Clear what the instruction does not read, then drop the repeats that makes.
    let op = (form.ctrl.kind != ptxfma_model::ctrl::Kind::Vmad)
        .then(|| FloatOp::of(&form.ctrl))
        .flatten();
    for x in &mut v {
        match op {
            Some(FloatOp::Add | FloatOp::Sub) => x.1 = 0,
            Some(FloatOp::Mul) => x.2 = 0,
            _ => {}
        }
    }
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(*x));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::silicon::forms::all;
    use ptxfma_model::format::{Fmt, BF16, F16, F32, F64};

    fn classes(fmt: Fmt, values: &[u64]) -> [bool; 6] {
        // zero, subnormal, normal, inf, quiet NaN, signalling NaN
        let mut seen = [false; 6];
        for &x in values {
            let (e, f) = (fmt.exp_of(x), x & fmt.frac_mask());
            let k = match (e, f) {
                (0, 0) => 0,
                (0, _) => 1,
                (e, 0) if e == fmt.exp_max() => 3,
                (e, f) if e == fmt.exp_max() && f & fmt.quiet_bit() != 0 => 4,
                (e, _) if e == fmt.exp_max() => 5,
                _ => 2,
            };
            seen[k] = true;
        }
        seen
    }

    #[test]
    fn specials_hold_every_class_in_every_format() {
        assert_eq!(classes(F32, &F32_SPECIAL), [true; 6]);
        assert_eq!(classes(F64, &F64_SPECIAL), [true; 6]);
        assert_eq!(classes(F16, &F16_SPECIAL), [true; 6]);
        assert_eq!(classes(BF16, &BF16_SPECIAL), [true; 6]);
    }

    #[test]
    fn every_form_gets_its_directed_vectors_with_unread_operands_zero() {
        for f in all() {
            let v = vectors(&f);
            let m = f.mnemonic();
            assert!(v.len() >= 256, "{m}: {}", v.len());
            if m.starts_with("add") || m.starts_with("sub") {
                assert!(v.iter().all(|x| x.1 == 0), "{m}");
            }
            if m.starts_with("mul") {
                assert!(v.iter().all(|x| x.2 == 0), "{m}");
            }
            if f.shape() == Shape::F32 && m.starts_with("fma") {
                // The S4 example of docs/semantics.md is among them.
                assert!(v.contains(&(0x3f7f_ffff, 0x0080_0000, 0)), "{m}");
            }
        }
    }
}
