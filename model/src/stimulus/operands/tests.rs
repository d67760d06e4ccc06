//! The operand generators over the whole stream: every family, field and edge class seen,
//! operands the instruction does not read left zero, and the formats' conversions to f64 that
//! the cancelling c is computed with.

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
            if fam == Family::Sm1x && p.abs() >= 2f64.powi(128) && (p + cv).abs() < 2f64.powi(128) {
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
