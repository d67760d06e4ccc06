//! Operand generators: TestFloat-style edge-biased floats, boundary-biased vmad integers, and the
//! per-control-word choice between them.

use super::rng::Rng;
use crate::ctrl::{AbFmt, Ctrl, Kind};

// ---------------------------------------------------------------------------------------------
// Float operands
// ---------------------------------------------------------------------------------------------

pub use crate::format::{Fmt, BF16, F16, F32, F64};

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
fn fma_operands(ab: Fmt, cf: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
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
fn sm1x_range_operands(rng: &mut Rng) -> (u64, u64, u64) {
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

// ---------------------------------------------------------------------------------------------
// vmad operands
// ---------------------------------------------------------------------------------------------

/// The vmad sources at each byte, half and word boundary, so that every selector reads its own
/// edges: the directed silicon vectors and the reference self-test take them all.
pub const VMAD_EDGES: [u32; 11] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
];

/// A 32-bit vmad source: word, half and byte boundaries (so every selector sees its own edge
/// values), powers of two and their neighbours, or random.
pub fn int_operand(rng: &mut Rng) -> u64 {
    const WORDS: [u32; 16] = [
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x100,
        0x7fff,
        0x8000,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_fffe,
        0xffff_ffff,
    ];
    const BYTES: [u32; 7] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff];
    const HALVES: [u32; 6] = [0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff];
    if rng.chance(1, 4) {
        return rng.next_u64() & 0xffff_ffff;
    }
    let v = match rng.below(4) {
        0 => *rng.pick(&WORDS),
        1 => (0..4).fold(0u32, |acc, i| {
            let byte = if rng.chance(1, 5) {
                rng.below(256) as u32
            } else {
                *rng.pick(&BYTES)
            };
            acc | byte << (8 * i)
        }),
        2 => (0..2).fold(0u32, |acc, i| {
            let half = if rng.chance(1, 5) {
                rng.below(1 << 16) as u32
            } else {
                *rng.pick(&HALVES)
            };
            acc | half << (16 * i)
        }),
        _ => {
            let one = 1u32 << rng.below(32);
            match rng.below(3) {
                0 => one,
                1 => one.wrapping_sub(1),
                _ => !one,
            }
        }
    };
    v as u64
}

// ---------------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------------

/// One operation: control word and the three 64-bit source buses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vector {
    pub ctrl: Ctrl,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

impl Vector {
    /// This vector presented to the pipe as a valid input with `tag`.
    pub fn input(&self, tag: u16) -> crate::machine::pipe_in::PipeIn {
        crate::machine::pipe_in::PipeIn {
            valid: true,
            tag,
            ctrl: self.ctrl.encode(),
            a: self.a,
            b: self.b,
            c: self.c,
            reset: false,
        }
    }
}

/// Operands for a fixed control word. Operands the instruction does not read are zero (`b` of
/// add/sub, `c` of mul, bits 63:16 of f16/bf16 and 63:32 of f32 and vmad sources), so that a
/// vector replays exactly from its `fma-model eval` line (`ptxfma_ptx::print::eval_line`).
pub fn operands_for(ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    operands_inline(ctrl, rng)
}

/// [`operands_for`], inlined into the generator's loop ([`super::Stimulus`]).
#[inline(always)]
pub(super) fn operands_inline(ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    // Each arm names its formats as constants (those of `Ctrl::operand_formats`), so that
    // `fma_operands` compiles once per pair.
    let zero_c = |(a, b, c): (u64, u64, u64)| (a, b, if ctrl.c_zero { 0 } else { c });
    match ctrl.kind {
        Kind::Vmad => (int_operand(rng), int_operand(rng), int_operand(rng)),
        Kind::F64 => zero_c(fma_operands(F64, F64, ctrl, rng)),
        Kind::F32x2 => {
            let (mut a, mut b, mut c) = (0, 0, 0);
            for lane in 0..2 {
                let (la, lb, lc) = fma_operands(F32, F32, ctrl, rng);
                a |= la << (32 * lane);
                b |= lb << (32 * lane);
                c |= lc << (32 * lane);
            }
            zero_c((a, b, c))
        }
        Kind::Sm1x => {
            if rng.chance(1, 5) {
                sm1x_range_operands(rng)
            } else {
                fma_operands(F32, F32, ctrl, rng)
            }
        }
        Kind::F32 => zero_c(match ctrl.ab_fmt {
            AbFmt::F16 => fma_operands(F16, F32, ctrl, rng),
            AbFmt::Bf16 => fma_operands(BF16, F32, ctrl, rng),
            AbFmt::Native => fma_operands(F32, F32, ctrl, rng),
        }),
        Kind::Half | Kind::Half2 => {
            if ctrl.ab_fmt == AbFmt::Bf16 {
                half_lanes(BF16, ctrl, rng)
            } else {
                half_lanes(F16, ctrl, rng)
            }
        }
    }
}

/// The lanes of a half kind (one, or two for `Half2`), each of `fmt` ([`Ctrl::half_fmt`]).
#[inline(always)]
fn half_lanes(fmt: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
    let lanes = if ctrl.kind == Kind::Half2 { 2 } else { 1 };
    let (mut a, mut b, mut c) = (0, 0, 0);
    for lane in 0..lanes {
        let (la, lb, lc) = half_operands(fmt, ctrl, rng);
        a |= la << (16 * lane);
        b |= lb << (16 * lane);
        c |= lc << (16 * lane);
    }
    (a, b, c)
}

/// One half-precision lane's operands: the edge-biased FMA operands of the format, and under
/// `.oob` now and then the OOB NaN (either sign) in `a` or `b` (S12).
#[inline(always)]
fn half_operands(f: Fmt, ctrl: &Ctrl, rng: &mut Rng) -> (u64, u64, u64) {
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

/// One vector of a fixed control word.
pub fn vector_for(ctrl: &Ctrl, rng: &mut Rng) -> Vector {
    let (a, b, c) = operands_for(ctrl, rng);
    Vector {
        ctrl: *ctrl,
        a,
        b,
        c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctrl::legal::is_legal;
    use crate::ctrl::legal::FloatOp;
    use crate::stimulus::family::{RNDS, SELS, VMAD_FORMS};
    use crate::stimulus::{Family, FamilyFilter, Stimulus};
    use std::collections::HashMap;

    /// Edge classes of one operand, decided from its bits alone.
    fn classes(fmt: Fmt, bits: u64, out: &mut HashMap<&'static str, usize>) {
        let e = fmt.exp_of(bits);
        let f = bits & fmt.frac_mask();
        let top = fmt.exp_max();
        let bias = fmt.bias() as u64;
        let mut add = |k| *out.entry(k).or_default() += 1;
        match (e, f) {
            (0, 0) => add("zero"),
            (0, _) => add("subnormal"),
            (x, 0) if x == top => add("inf"),
            (x, f) if x == top && f & fmt.quiet_bit() != 0 => add("qnan"),
            (x, _) if x == top => add("snan"),
            _ => {}
        }
        if e == 1 {
            add("emin");
        }
        if e == 2 {
            add("emin+1");
        }
        if e == top - 1 {
            add("emax");
        }
        if e == bias || e == bias - 1 {
            add("near one");
        }
        if e == bias + fmt.frac_bits as u64 + 1 {
            add("2^p");
        }
        if e != 0 && e != top {
            if f.count_ones() == 1 {
                add("walking one");
            }
            if f.count_ones() == fmt.frac_bits - 1 {
                add("walking zero");
            }
            if f == fmt.frac_mask() {
                add("all ones");
            }
        }
    }

    #[test]
    fn coverage_over_100k_vectors() {
        let mut fams: HashMap<Family, usize> = HashMap::new();
        let mut fields: HashMap<String, usize> = HashMap::new();
        let mut edges: HashMap<&'static str, HashMap<&'static str, usize>> = HashMap::new();
        let mut cancel = HashMap::<String, usize>::new();
        let mut vmad_vals: HashMap<u64, usize> = HashMap::new();
        let mut seen_sm1x_comeback = 0;
        for v in Stimulus::new(2024, FamilyFilter::all()).take(100_000) {
            let c = v.ctrl;
            assert!(is_legal(&c), "illegal {c:?}");
            let fam = Family::of(&c);
            *fams.entry(fam).or_default() += 1;
            let mut field = |k: String| *fields.entry(k).or_default() += 1;
            field(format!("{fam:?} rnd {:?}", c.rnd));
            field(format!("{fam:?} ftz {}", c.ftz));
            field(format!("{fam:?} sat {}", c.sat));
            field(format!("{fam:?} {:?}", FloatOp::of(&c)));
            field(format!("{fam:?} {:?} {:?}", c.kind, c.ab_fmt));
            if fam == Family::Vmad {
                field(format!("asel {:?}", c.asel));
                field(format!("bsel {:?}", c.bsel));
                field(format!("scale {:?}", c.scale));
                field(format!(
                    "signs {} {} {} {} {}",
                    c.a_signed, c.b_signed, c.neg_ab, c.neg_c, c.po
                ));
                for x in [v.a, v.b, v.c] {
                    assert_eq!(x >> 32, 0);
                    *vmad_vals.entry(x).or_default() += 1;
                }
                continue;
            }
            let (ab, _, cf) = c.operand_formats();
            let lanes = if c.kind == Kind::F32x2 { 2 } else { 1 };
            for lane in 0..lanes {
                let sh = 32 * lane;
                let (a, b, cc) = (v.a >> sh, v.b >> sh, v.c >> sh);
                let (a, b, cc) = (a & ab.mask(), b & ab.mask(), cc & cf.mask());
                let ka = if ab == F16 {
                    "f16"
                } else if ab == BF16 {
                    "bf16"
                } else if ab == F64 {
                    "f64"
                } else {
                    "f32"
                };
                classes(ab, a, edges.entry(ka).or_default());
                if !c.b_one {
                    classes(ab, b, edges.entry(ka).or_default());
                }
                if !c.c_zero {
                    classes(
                        cf,
                        cc,
                        edges
                            .entry(if cf == F64 { "f64" } else { "f32" })
                            .or_default(),
                    );
                }
                // Near-total cancellation, judged in exact-enough f64 arithmetic.
                let p = if c.b_one {
                    ab.to_f64(a)
                } else {
                    ab.to_f64(a) * ab.to_f64(b)
                };
                let cv = if c.neg_c {
                    -cf.to_f64(cc)
                } else {
                    cf.to_f64(cc)
                };
                if !c.c_zero && p.is_finite() && p != 0.0 && cv != 0.0 {
                    let r = (p + cv).abs() / p.abs();
                    if r < 2f64.powi(-16) {
                        *cancel
                            .entry(format!("{fam:?} {:?}", FloatOp::of(&c)))
                            .or_default() += 1;
                    }
                }
                if fam == Family::Sm1x
                    && p.abs() >= 2f64.powi(128)
                    && (p + cv).abs() < 2f64.powi(128)
                {
                    seen_sm1x_comeback += 1;
                }
            }
        }
        for f in Family::ALL {
            assert!(fams.get(&f).copied().unwrap_or(0) > 5000, "{f:?}: {fams:?}");
        }
        let need = |k: String| {
            assert!(fields.get(&k).copied().unwrap_or(0) > 0, "never saw `{k}`");
        };
        for f in [
            Family::F32,
            Family::F64,
            Family::F32x2,
            Family::Mixed,
            Family::AddSubMul,
        ] {
            for r in RNDS {
                need(format!("{f:?} rnd {r:?}"));
            }
        }
        for f in [Family::F32, Family::F32x2, Family::Sm1x, Family::AddSubMul] {
            need(format!("{f:?} ftz true"));
            need(format!("{f:?} ftz false"));
        }
        for f in [
            Family::F32,
            Family::Mixed,
            Family::Sm1x,
            Family::AddSubMul,
            Family::Vmad,
        ] {
            need(format!("{f:?} sat true"));
        }
        for op in ["Add", "Sub", "Fma"] {
            need(format!("Mixed Some({op})"));
        }
        for op in ["Add", "Sub", "Mul"] {
            need(format!("AddSubMul Some({op})"));
        }
        need("AddSubMul F64 Native".into());
        need("AddSubMul F32 Native".into());
        need("Mixed F32 F16".into());
        need("Mixed F32 Bf16".into());
        for s in SELS {
            need(format!("asel {s:?}"));
            need(format!("bsel {s:?}"));
        }
        for s in ["None", "Shr7", "Shr15"] {
            need(format!("scale {s}"));
        }
        for a_s in [false, true] {
            for b_s in [false, true] {
                for (n_ab, n_c, po) in VMAD_FORMS {
                    need(format!("signs {a_s} {b_s} {n_ab} {n_c} {po}"));
                }
            }
        }
        for fmt in ["f16", "bf16", "f32", "f64"] {
            let e = &edges[fmt];
            for k in [
                "zero",
                "subnormal",
                "inf",
                "qnan",
                "snan",
                "emin",
                "emin+1",
                "emax",
                "near one",
                "2^p",
                "walking one",
                "walking zero",
                "all ones",
            ] {
                assert!(e.get(k).copied().unwrap_or(0) > 0, "{fmt}: no {k}: {e:?}");
            }
        }
        for k in [
            "F32 Some(Fma)",
            "F64 Some(Fma)",
            "F32x2 Some(Fma)",
            "Sm1x Some(Fma)",
            "Mixed Some(Fma)",
            "Mixed Some(Add)",
            "Mixed Some(Sub)",
            "AddSubMul Some(Add)",
            "AddSubMul Some(Sub)",
        ] {
            assert!(cancel.get(k).copied().unwrap_or(0) > 50, "{k}: {cancel:?}");
        }
        assert!(seen_sm1x_comeback > 10, "{seen_sm1x_comeback}");
        for x in [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xff, 0x8000] {
            assert!(
                vmad_vals.get(&x).copied().unwrap_or(0) > 0,
                "vmad never {x:#x}"
            );
        }
        // Uniform random words appear too: plenty of distinct values.
        assert!(vmad_vals.len() > 10_000, "{}", vmad_vals.len());
    }

    #[test]
    fn unused_operand_bits_are_zero() {
        let mut r = Rng::new(5);
        for f in Family::ALL {
            for c in f.ctrls().iter().step_by(7) {
                for _ in 0..50 {
                    let (a, b, cc) = operands_for(c, &mut r);
                    let ab_bits = match (c.kind, c.ab_fmt) {
                        (Kind::F64 | Kind::F32x2, _) => 64,
                        (Kind::F32, AbFmt::F16 | AbFmt::Bf16) | (Kind::Half, _) => 16,
                        _ => 32,
                    };
                    let c_bits = match c.kind {
                        Kind::F64 | Kind::F32x2 => 64,
                        Kind::Half => 16,
                        _ => 32,
                    };
                    let fits = |v: u64, n: u32| n == 64 || v >> n == 0;
                    assert!(
                        fits(a, ab_bits) && fits(b, ab_bits) && fits(cc, c_bits),
                        "{c:?}"
                    );
                    if c.b_one {
                        assert_eq!(b, 0);
                    }
                    if c.c_zero {
                        assert_eq!(cc, 0);
                    }
                }
            }
        }
    }

    #[test]
    fn fmt_to_f64_matches_host_conversions() {
        let mut r = Rng::new(11);
        for _ in 0..10_000 {
            let x = r.next_u64() as u32;
            let h = f32::from_bits(x) as f64;
            let m = F32.to_f64(x as u64);
            assert!(
                h.to_bits() == m.to_bits() || (h.is_nan() && m.is_nan()),
                "{x:#x}"
            );
            let bf = (x >> 16) as u64;
            let hb = f32::from_bits((bf as u32) << 16) as f64;
            let mb = BF16.to_f64(bf);
            assert!(
                hb.to_bits() == mb.to_bits() || (hb.is_nan() && mb.is_nan()),
                "{bf:#x}"
            );
        }
        // f16 spot values from the IEEE 754 definition.
        assert_eq!(F16.to_f64(0x3c00), 1.0);
        assert_eq!(F16.to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(F16.to_f64(0x7bff), 65504.0);
        assert_eq!(F16.to_f64(0xc000), -2.0);
        assert_eq!(F16.to_f64(0x7c00), f64::INFINITY);
        assert!(F16.to_f64(0x7c01).is_nan());
    }
}
