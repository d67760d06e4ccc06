use super::super::test_util::*;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd};

// ---- fma / mad, f32 ----

#[test]
fn fma_f32_every_modifier_combination() {
    for (rs, r) in RNDS {
        for ftz in [false, true] {
            for sat in [false, true] {
                let m = format!(
                    "fma.{rs}{}{}.f32",
                    if ftz { ".ftz" } else { "" },
                    if sat { ".sat" } else { "" }
                );
                let want = Ctrl {
                    ftz,
                    sat,
                    ..fw(Kind::F32, r, "")
                };
                for target in ["sm_20", "sm_90", "sm_100", "sm_120"] {
                    assert_eq!(ok(&m, target), want, "{m} {target}");
                }
                // mad.rnd.f32 is the same operation on sm_20+.
                assert_eq!(ok(&m.replacen("fma", "mad", 1), "sm_20"), want);
            }
        }
    }
}

#[test]
fn modifiers_before_the_type_in_any_order() {
    let want = fw(Kind::F32, Rnd::Rz, "ftz sat");
    for m in [
        "fma.rz.ftz.sat.f32",
        "fma.sat.ftz.rz.f32",
        "fma.ftz.rz.sat.f32",
        "fma.sat.rz.ftz.f32",
    ] {
        assert_eq!(ok(m, "sm_100"), want, "{m}");
    }
}

#[test]
fn fma_f32_needs_sm20_and_a_rounding_modifier() {
    err(
        "fma.rn.f32",
        "sm_13",
        &["fma.f32 requires sm_20 or higher", "target is sm_13"],
    );
    err("fma.rn.f32", "sm_10", &["fma.f32 requires sm_20"]);
    err("fma.f32", "sm_90", &["requires a rounding modifier"]);
    err(
        "fma.ftz.sat.f32",
        "sm_100",
        &["requires a rounding modifier"],
    );
}

#[test]
fn mad_f32_sm1x_is_the_truncating_form() {
    let want = |ftz, sat| Ctrl {
        ftz,
        sat,
        ..fw(Kind::Sm1x, Rnd::Rn, "")
    };
    for target in ["sm_10", "sm_11", "sm_12", "sm_13"] {
        assert_eq!(ok("mad.f32", target), want(false, false));
        assert_eq!(ok("mad.ftz.f32", target), want(true, false));
        assert_eq!(ok("mad.sat.f32", target), want(false, true));
        assert_eq!(ok("mad.ftz.sat.f32", target), want(true, true));
        assert_eq!(ok("mad.sat.ftz.f32", target), want(true, true));
        // Flushing is part of Sm1x whether or not `.ftz` was written.
        assert!(ok("mad.f32", target).flush());
        for (rs, _) in RNDS {
            err(
                &format!("mad.{rs}.f32"),
                target,
                &[
                    "rounding modifiers on mad.f32 require sm_20",
                    &format!("target is {target}"),
                ],
            );
        }
    }
}

#[test]
fn mad_f32_sm20_requires_rounding() {
    for target in ["sm_20", "sm_21", "sm_90", "sm_100"] {
        err(
            "mad.f32",
            target,
            &["mad.f32 on sm_20+ requires a rounding modifier"],
        );
        err(
            "mad.ftz.sat.f32",
            target,
            &["mad.f32 on sm_20+ requires a rounding modifier"],
        );
    }
}

// ---- f64 ----

#[test]
fn f64_forms() {
    for (rs, r) in RNDS {
        let want = fw(Kind::F64, r, "");
        for target in ["sm_13", "sm_20", "sm_100"] {
            assert_eq!(ok(&format!("fma.{rs}.f64"), target), want);
            assert_eq!(ok(&format!("mad.{rs}.f64"), target), want);
        }
    }
    // Legacy mad.f64 = mad.rn.f64.
    assert_eq!(ok("mad.f64", "sm_13"), fw(Kind::F64, Rnd::Rn, ""));
    err(
        "mad.f64",
        "sm_100",
        &[
            "mad.f64 requires a rounding modifier",
            "legacy mad.f64 is sm_1x only",
        ],
    );
    err("mad.f64", "sm_20", &["requires a rounding modifier"]);
}

#[test]
fn f64_errors() {
    err(
        "fma.rn.f64",
        "sm_12",
        &["fma.f64 requires sm_13 or higher", "target is sm_12"],
    );
    err("mad.rn.f64", "sm_10", &["mad.f64 requires sm_13 or higher"]);
    err("mad.f64", "sm_12", &["mad.f64 requires sm_13"]);
    err("add.f64", "sm_12", &["add.f64 requires sm_13"]);
    err("mul.rz.f64", "sm_11", &["mul.f64 requires sm_13"]);
    err(
        "fma.f64",
        "sm_100",
        &["fma.f64 requires a rounding modifier"],
    );
    for op in ["fma.rn", "mad.rn", "mad", "add", "sub.rz", "mul"] {
        err(
            &format!("{op}.sat.f64"),
            "sm_100",
            &["`.sat` is not allowed on .f64"],
        );
        err(
            &format!("{op}.ftz.f64"),
            "sm_100",
            &["`.ftz` is not allowed on .f64"],
        );
    }
}

// ---- f32x2 ----

#[test]
fn f32x2_forms() {
    for (rs, r) in RNDS {
        for target in ["sm_100", "sm_100a", "sm_101", "sm_120"] {
            assert_eq!(
                ok(&format!("fma.{rs}.f32x2"), target),
                fw(Kind::F32x2, r, "")
            );
            assert_eq!(
                ok(&format!("fma.{rs}.ftz.f32x2"), target),
                fw(Kind::F32x2, r, "ftz")
            );
        }
    }
}

#[test]
fn f32x2_errors() {
    err(
        "fma.rn.f32x2",
        "sm_90",
        &["fma.f32x2 requires sm_100 or higher (target is sm_90)"],
    );
    err(
        "fma.rn.f32x2",
        "sm_90a",
        &["fma.f32x2 requires sm_100 or higher (target is sm_90a)"],
    );
    err(
        "fma.rn.sat.f32x2",
        "sm_100",
        &["`.sat` is not allowed on .f32x2"],
    );
    err(
        "fma.f32x2",
        "sm_100",
        &["fma.f32x2 requires a rounding modifier"],
    );
    err("mad.rn.f32x2", "sm_100", &["mad has no .f32x2 form"]);
    err(
        "add.f32x2",
        "sm_90",
        &["add.f32x2 requires sm_100 or higher"],
    );
    err(
        "mul.rn.sat.f32x2",
        "sm_100",
        &["`.sat` is not allowed on .f32x2"],
    );
}

#[test]
fn f32x2_add_sub_mul_are_the_f32_forms_per_lane() {
    // add/sub/mul .f32x2 (PTX ISA 8.6, sm_100) spell the same fields as their .f32 forms,
    // on the two-lane kind; the rounding defaults to .rn.
    for (op, rnd) in [("add", ""), ("sub", ".rz"), ("mul", ".rm")] {
        let x2 = ok(&format!("{op}{rnd}.ftz.f32x2"), "sm_100");
        let f32 = ok(&format!("{op}{rnd}.ftz.f32"), "sm_100");
        assert_eq!(
            x2,
            Ctrl {
                kind: Kind::F32x2,
                ..f32
            },
            "{op}"
        );
    }
}

// ---- mixed precision ----

#[test]
fn mixed_precision_forms() {
    for (ts, ab) in [("f16", AbFmt::F16), ("bf16", AbFmt::Bf16)] {
        for sat in [false, true] {
            let s = if sat { ".sat" } else { "" };
            // add/sub default to .rn.
            assert_eq!(
                ok(&format!("add{s}.f32.{ts}"), "sm_100"),
                Ctrl {
                    sat,
                    ab_fmt: ab,
                    ..fw(Kind::F32, Rnd::Rn, "b_one")
                }
            );
            assert_eq!(
                ok(&format!("sub{s}.f32.{ts}"), "sm_100"),
                Ctrl {
                    sat,
                    ab_fmt: ab,
                    ..fw(Kind::F32, Rnd::Rn, "b_one neg_c")
                }
            );
            for (rs, r) in RNDS {
                assert_eq!(
                    ok(&format!("add.{rs}{s}.f32.{ts}"), "sm_120"),
                    Ctrl {
                        sat,
                        ab_fmt: ab,
                        ..fw(Kind::F32, r, "b_one")
                    }
                );
                assert_eq!(
                    ok(&format!("sub.{rs}{s}.f32.{ts}"), "sm_100"),
                    Ctrl {
                        sat,
                        ab_fmt: ab,
                        ..fw(Kind::F32, r, "b_one neg_c")
                    }
                );
                assert_eq!(
                    ok(&format!("fma.{rs}{s}.f32.{ts}"), "sm_100"),
                    Ctrl {
                        sat,
                        ab_fmt: ab,
                        ..fw(Kind::F32, r, "")
                    }
                );
            }
        }
    }
    // .sat after both types, as in the PTX example.
    assert_eq!(
        ok("add.rz.f32.bf16.sat", "sm_100"),
        ok("add.rz.sat.f32.bf16", "sm_100")
    );
    assert_eq!(
        ok("sub.rz.f32.f16.sat", "sm_100"),
        ok("sub.rz.sat.f32.f16", "sm_100")
    );
    assert_eq!(
        ok("fma.rz.f32.f16.sat", "sm_100"),
        ok("fma.rz.sat.f32.f16", "sm_100")
    );
}

#[test]
fn mixed_precision_errors() {
    err(
        "add.f32.f16",
        "sm_90",
        &["add.f32.f16 requires sm_100 or higher (target is sm_90)"],
    );
    err(
        "sub.rn.f32.bf16",
        "sm_89",
        &["sub.f32.bf16 requires sm_100"],
    );
    err("fma.rn.f32.f16", "sm_90a", &["fma.f32.f16 requires sm_100"]);
    err(
        "add.ftz.f32.f16",
        "sm_100",
        &["`.ftz` is not allowed on mixed-precision add"],
    );
    err(
        "sub.rn.ftz.f32.bf16",
        "sm_100",
        &["`.ftz` is not allowed on mixed-precision sub"],
    );
    err(
        "fma.rn.ftz.f32.f16",
        "sm_100",
        &["`.ftz` is not allowed on mixed-precision fma"],
    );
    err(
        "fma.f32.f16",
        "sm_100",
        &["fma.f32.f16 requires a rounding modifier"],
    );
    err(
        "mul.f32.f16",
        "sm_100",
        &["mul has no mixed-precision form"],
    );
    err(
        "mad.rn.f32.bf16",
        "sm_100",
        &["mad has no mixed-precision form"],
    );
    // The PTX example `fma.rz.sat.f32.f16.sat` repeats .sat: rejected.
    err(
        "fma.rz.sat.f32.f16.sat",
        "sm_100",
        &["duplicate modifier `.sat`"],
    );
    err(
        "add.f32.sat.f16",
        "sm_100",
        &["`.sat` must come before the type"],
    );
    err("mad.rn.f16", "sm_100", &["mad has no half-precision form"]);
    err(
        "fma.f16",
        "sm_100",
        &["fma.f16 requires a rounding modifier"],
    );
    err(
        "add.f16.f32",
        "sm_100",
        &["unsupported type combination `.f16.f32`"],
    );
    err("add.f64.f16", "sm_100", &["unsupported type combination"]);
    err("add.f32.f16.bf16", "sm_100", &["too many types"]);
    err(
        "add.f32.f16.rn",
        "sm_100",
        &["`.rn` must come before the type"],
    );
}

// ---- add / sub / mul ----

#[test]
fn add_sub_mul_forms() {
    for target in ["sm_20", "sm_100"] {
        assert_eq!(ok("add.f32", target), fw(Kind::F32, Rnd::Rn, "b_one"));
        assert_eq!(ok("sub.f32", target), fw(Kind::F32, Rnd::Rn, "b_one neg_c"));
        assert_eq!(ok("mul.f32", target), fw(Kind::F32, Rnd::Rn, "c_zero"));
        for (rs, r) in RNDS {
            assert_eq!(
                ok(&format!("add.{rs}.ftz.sat.f32"), target),
                fw(Kind::F32, r, "ftz sat b_one")
            );
            assert_eq!(
                ok(&format!("sub.{rs}.sat.f32"), target),
                fw(Kind::F32, r, "sat b_one neg_c")
            );
            assert_eq!(
                ok(&format!("mul.{rs}.ftz.f32"), target),
                fw(Kind::F32, r, "ftz c_zero")
            );
            assert_eq!(
                ok(&format!("add.{rs}.f64"), target),
                fw(Kind::F64, r, "b_one")
            );
            assert_eq!(
                ok(&format!("sub.{rs}.f64"), target),
                fw(Kind::F64, r, "b_one neg_c")
            );
            assert_eq!(
                ok(&format!("mul.{rs}.f64"), target),
                fw(Kind::F64, r, "c_zero")
            );
        }
        assert_eq!(ok("mul.f64", target), fw(Kind::F64, Rnd::Rn, "c_zero"));
    }
}

#[test]
fn add_sub_mul_sm1x_flush_and_round_to_rn_or_rz() {
    for target in ["sm_10", "sm_13"] {
        // ftz is implied on sm_1x, written or not.
        assert_eq!(ok("add.f32", target), fw(Kind::F32, Rnd::Rn, "ftz b_one"));
        assert_eq!(ok("add.ftz.f32", target), ok("add.f32", target));
        assert_eq!(
            ok("sub.rz.sat.f32", target),
            fw(Kind::F32, Rnd::Rz, "ftz sat b_one neg_c")
        );
        assert_eq!(
            ok("mul.rn.f32", target),
            fw(Kind::F32, Rnd::Rn, "ftz c_zero")
        );
        for op in ["add", "sub", "mul"] {
            for rs in ["rm", "rp"] {
                err(
                    &format!("{op}.{rs}.f32"),
                    target,
                    &[&format!("`.{rs}` on {op}.f32 requires sm_20 or higher")],
                );
            }
        }
    }
    // f64 on sm_13 has all four rounding modes and no forced flush.
    assert_eq!(ok("mul.rp.f64", "sm_13"), fw(Kind::F64, Rnd::Rp, "c_zero"));
}

// ---- syntax errors common to the float forms ----

#[test]
fn float_syntax_errors() {
    err("fma.rx.f32", "sm_100", &["unknown modifier `.rx`"]);
    err(
        "fma.rn.ftz.ftz.f32",
        "sm_100",
        &["duplicate modifier `.ftz`"],
    );
    err("fma.rn.rn.f32", "sm_100", &["duplicate modifier `.rn`"]);
    err(
        "fma.rn.rz.f32",
        "sm_100",
        &["conflicting rounding modifiers `.rn` and `.rz`"],
    );
    err(
        "fma.rn.sat.sat.f32",
        "sm_100",
        &["duplicate modifier `.sat`"],
    );
    err("fma.rn.f32.f32", "sm_100", &["duplicate modifier `.f32`"]);
    err("fma.rn", "sm_100", &["missing type"]);
    err("add", "sm_100", &["missing type"]);
    err(
        "fma.rn.f32.ftz",
        "sm_100",
        &["`.ftz` must come before the type"],
    );
    err("fma.f32.rn", "sm_100", &["`.rn` must come before the type"]);
    err(
        "fma.rn.f32.sat",
        "sm_100",
        &["`.sat` must come before the type"],
    );
    err("fma.rn.u32", "sm_100", &["integer type"]);
    err(
        "fma.rn.po.f32",
        "sm_100",
        &["`.po` is only allowed on vmad"],
    );
    err(
        "mad.rn.shr7.f32",
        "sm_100",
        &["`.shr7` is only allowed on vmad"],
    );
    err("fma.rn.h0.f32", "sm_100", &["vmad operand selector"]);
    err("fma..rn.f32", "sm_100", &["empty modifier"]);
    err("fma.rn.f32.", "sm_100", &["empty modifier"]);
    err("fmax.rn.f32", "sm_100", &["unknown instruction `fmax`"]);
    err("FMA.rn.f32", "sm_100", &["unknown instruction `FMA`"]);
    err("div.rn.f32", "sm_100", &["unknown instruction `div`"]);
    err("", "sm_100", &["empty instruction"]);
    err(".rn.f32", "sm_100", &["empty instruction"]);
    err("fma.rn.f16x4", "sm_100", &["unknown modifier `.f16x4`"]);
}

/// The half-precision family: every modifier rule and target, with control words written
/// field by field (docs/semantics.md, "Decoder decisions", S13).
#[test]
fn half_precision_spellings() {
    let w = |kind, flags: &str| fw(kind, Rnd::Rn, flags);
    assert_eq!(ok("fma.rn.f16", "sm_53"), w(Kind::Half, "f16"));
    assert_eq!(ok("fma.rn.bf16x2", "sm_80"), w(Kind::Half2, "bf16"));
    assert_eq!(
        ok("fma.rn.ftz.sat.f16x2", "sm_90"),
        w(Kind::Half2, "f16 ftz sat")
    );
    // Any order before the type.
    assert_eq!(
        ok("fma.oob.relu.rn.f16", "sm_90"),
        w(Kind::Half, "f16 relu oob")
    );
    assert_eq!(
        ok("fma.rn.sat.oob.f16", "sm_90"),
        w(Kind::Half, "f16 sat oob")
    );
    // add/sub/mul: .rn or nothing, the same word.
    assert_eq!(ok("add.f16", "sm_53"), ok("add.rn.f16", "sm_53"));
    assert_eq!(
        ok("sub.ftz.f16", "sm_53"),
        w(Kind::Half, "f16 ftz b_one neg_c")
    );
    assert_eq!(ok("mul.bf16x2", "sm_90"), w(Kind::Half2, "bf16 c_zero"));
    // S13: bf16 fma in a directed mode: one lane is f16 through binary32 without .relu or .oob;
    // two lanes are the .rn word.
    assert_eq!(
        ok("fma.rz.relu.oob.bf16", "sm_90"),
        fw(Kind::Half, Rnd::Rz, "f16 via_f32")
    );
    assert_eq!(ok("fma.rm.oob.bf16", "sm_90"), ok("fma.rm.bf16", "sm_90"));
    assert_eq!(
        ok("fma.rp.relu.bf16x2", "sm_80"),
        w(Kind::Half2, "bf16 relu")
    );
    for (m, t, why) in [
        ("fma.rz.f16", "sm_100", "not allowed on fma.f16"),
        ("add.rz.bf16", "sm_100", "not allowed on add.bf16"),
        (
            "fma.rn.ftz.bf16",
            "sm_100",
            "`.ftz` is not allowed on .bf16",
        ),
        (
            "mul.sat.bf16x2",
            "sm_100",
            "`.sat` is not allowed on .bf16x2",
        ),
        ("fma.rn.sat.relu.f16", "sm_100", "exclude each other"),
        ("fma.rn.ftz.oob.f16", "sm_100", "not allowed with `.oob`"),
        (
            "add.rn.relu.f16",
            "sm_100",
            "only allowed on half-precision fma",
        ),
        (
            "fma.rn.oob.f32",
            "sm_100",
            "only allowed on half-precision fma",
        ),
        ("fma.rn.f16", "sm_52", "requires sm_53"),
        ("fma.rn.relu.f16", "sm_75", "requires sm_80"),
        ("fma.rn.bf16", "sm_75", "requires sm_80"),
        ("add.bf16", "sm_89", "requires sm_90"),
        ("fma.rn.oob.bf16", "sm_89", "requires sm_90"),
    ] {
        err(m, t, &[why]);
    }
}
