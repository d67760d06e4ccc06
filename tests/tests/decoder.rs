//! The decoder through the public API, across targets: which spellings are accepted on which
//! `sm_NN` (a matrix over every target family), what control word they give, and that bad input
//! of any shape gives an error rather than a panic.

use proptest::prelude::*;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};
use ptxfma_ptx::{decode, decode_vmad, parse_line, DecodeError, Target, VmadSrc};

/// One target of each generation, plus the variant spellings.
const TARGETS: &[&str] = &[
    "sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_30", "sm_35", "sm_50", "sm_61",
    "sm_70", "sm_75", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f",
    "sm_101", "sm_103", "sm_120",
];

fn target(s: &str) -> Target {
    Target::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Where a spelling is accepted: sm numbers `lo..=hi`.
#[derive(Clone, Copy)]
struct Range(u32, u32);
const ALL: Range = Range(10, u32::MAX);
const SM13: Range = Range(13, u32::MAX);
const SM20: Range = Range(20, u32::MAX);
const SM100: Range = Range(100, u32::MAX);
const SM1X: Range = Range(10, 13);
const NEVER: Range = Range(1, 0);

/// The acceptance matrix, written from the PTX pages (fma.md, mad.md, vmad.md,
/// mixed-precision.md, floating-point-summary.md, isa-9.1) and issue 2's extras, and where they
/// and `ptxas` disagree, as `ptxas` decides (ptx/tests/ptxas).
const MATRIX: &[(&str, Range)] = &[
    // fma
    ("fma.rn.f32", SM20),
    ("fma.rp.ftz.sat.f32", SM20),
    ("fma.rz.f32x2", SM100),
    ("fma.rm.ftz.f32x2", SM100),
    ("fma.rn.f64", SM13),
    ("fma.rn.sat.f32.f16", SM100),
    ("fma.rz.f32.bf16", SM100),
    ("fma.f32", NEVER),
    ("fma.f64", NEVER),
    ("fma.f32x2", NEVER),
    ("fma.f32.f16", NEVER),
    ("fma.rn.sat.f64", NEVER),
    ("fma.rn.ftz.f64", NEVER),
    ("fma.rn.sat.f32x2", NEVER),
    ("fma.rn.ftz.f32.f16", NEVER),
    // mad
    ("mad.f32", SM1X),
    ("mad.ftz.f32", SM1X),
    ("mad.sat.f32", SM1X),
    ("mad.ftz.sat.f32", SM1X),
    ("mad.rn.f32", SM20),
    ("mad.rm.ftz.sat.f32", SM20),
    ("mad.rn.f64", SM13),
    ("mad.rp.f64", SM13),
    // Legacy: PTX ISA 1.4+ requires the modifier, and sm_20+ needs PTX ISA 2.0+ (ptxas agrees).
    ("mad.f64", Range(13, 13)),
    ("mad.rn.f32x2", NEVER),
    ("mad.rn.f32.f16", NEVER),
    ("mad.sat.f64", NEVER),
    // mixed-precision add/sub
    ("add.f32.f16", SM100),
    ("add.rz.sat.f32.bf16", SM100),
    ("add.rz.f32.bf16.sat", SM100),
    ("sub.rm.f32.f16", SM100),
    ("sub.sat.f32.bf16", SM100),
    ("add.ftz.f32.f16", NEVER),
    ("mul.f32.f16", NEVER),
    // add/sub/mul on the FMA datapath
    ("add.f32", ALL),
    ("sub.rz.sat.f32", ALL),
    ("mul.ftz.f32", ALL),
    ("add.rm.f32", SM20),
    ("mul.rp.sat.f32", SM20),
    ("add.f64", SM13),
    ("sub.rm.f64", SM13),
    ("mul.rp.f64", SM13),
    ("add.sat.f64", NEVER),
    ("mul.ftz.f64", NEVER),
    ("add.rn.f32x2", SM100),
    ("mul.rz.ftz.f32x2", SM100),
    ("sub.rn.sat.f32x2", NEVER),
    // vmad
    ("vmad.u32.u32.u32", SM20),
    ("vmad.s32.s32.u32.sat.shr7", SM20),
    ("vmad.s32.u32.s32.shr15", SM20),
    ("vmad.u32.u32.u32.po.sat", SM20),
    ("vmad.s32.u32.u32", SM20),
    ("vmad.u32.s32.u32", SM20),
    ("vmad.u32.u32.u32.shr7.shr15", NEVER),
    // half precision (sm_53; .relu and bf16 fma sm_80; .oob and bf16 add/sub/mul sm_90)
    ("fma.rn.f16", Range(53, u32::MAX)),
    ("add.f16x2", Range(53, u32::MAX)),
    ("fma.rn.relu.f16", Range(80, u32::MAX)),
    ("fma.rz.bf16", Range(80, u32::MAX)),
    ("fma.rn.oob.bf16x2", Range(90, u32::MAX)),
    ("mul.bf16", Range(90, u32::MAX)),
    ("fma.rz.f16", NEVER),
    ("mad.rn.f16", NEVER),
    // not on this datapath at all
    ("div.rn.f32", NEVER),
    ("fma.rn.relu.f32", NEVER),
];

#[test]
fn acceptance_matrix_over_targets() {
    let mut failures = Vec::new();
    for &(m, Range(lo, hi)) in MATRIX {
        for &ts in TARGETS {
            let t = target(ts);
            let want = (lo..=hi).contains(&t.sm());
            let got = decode(m, t);
            if got.is_ok() != want {
                failures.push(format!("{m} on {ts}: expected accept={want}, got {got:?}"));
            }
            // A rejection always explains itself.
            if let Err(e) = got {
                assert!(!e.message().is_empty() && e.to_string() == e.message());
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn decoded_words_are_canonical_and_survive_encoding() {
    // The RTL receives the encoded word: every decoded control word must come back unchanged.
    for &(m, _) in MATRIX {
        for &ts in TARGETS {
            if let Ok(c) = decode(m, target(ts)) {
                assert_eq!(Ctrl::decode(c.encode()), c, "{m} on {ts}");
            }
        }
    }
}

fn msg(r: Result<Ctrl, DecodeError>) -> String {
    r.expect_err("should be rejected").to_string()
}

#[test]
fn target_errors_name_the_required_and_the_actual_target() {
    let cases = [
        (
            "fma.rn.f32",
            "sm_13",
            "fma.f32 requires sm_20 or higher (target is sm_13)",
        ),
        (
            "fma.rn.f32x2",
            "sm_90",
            "fma.f32x2 requires sm_100 or higher (target is sm_90)",
        ),
        (
            "fma.rn.f32x2",
            "sm_90a",
            "fma.f32x2 requires sm_100 or higher (target is sm_90a)",
        ),
        (
            "fma.rn.f64",
            "sm_12",
            "fma.f64 requires sm_13 or higher (target is sm_12)",
        ),
        (
            "mad.f64",
            "sm_10",
            "mad.f64 requires sm_13 or higher (target is sm_10)",
        ),
        (
            "add.f32.bf16",
            "sm_90",
            "add.f32.bf16 requires sm_100 or higher (target is sm_90)",
        ),
        (
            "vmad.u32.u32.u32",
            "sm_13",
            "vmad requires sm_20 or higher (target is sm_13)",
        ),
    ];
    for (m, ts, want) in cases {
        assert_eq!(msg(decode(m, target(ts))), want, "{m} on {ts}");
    }
    assert!(msg(decode("mad.f32", target("sm_20")))
        .contains("mad.f32 on sm_20+ requires a rounding modifier"));
    assert!(msg(decode("mad.rn.f32", target("sm_13")))
        .contains("rounding modifiers on mad.f32 require sm_20"));
}

#[test]
fn rule_errors_name_the_rule() {
    let t = Target::default();
    let cases = [
        ("fma.rn.sat.f64", "`.sat` is not allowed on .f64"),
        ("mad.ftz.f64", "`.ftz` is not allowed on .f64"),
        ("fma.rn.sat.f32x2", "`.sat` is not allowed on .f32x2"),
        (
            "add.ftz.f32.f16",
            "`.ftz` is not allowed on mixed-precision add",
        ),
        (
            "fma.rn.ftz.f32.bf16",
            "`.ftz` is not allowed on mixed-precision fma",
        ),
        ("fma.rx.f32", "unknown modifier `.rx`"),
        ("fma.rn.ftz.ftz.f32", "duplicate modifier `.ftz`"),
        ("fma.f32", "requires a rounding modifier"),
    ];
    for (m, want) in cases {
        assert!(
            msg(decode(m, t)).contains(want),
            "{m}: {}",
            msg(decode(m, t))
        );
    }
}

#[test]
fn sm1x_single_precision_always_flushes() {
    for ts in ["sm_10", "sm_13"] {
        let mad = decode("mad.f32", target(ts)).unwrap();
        assert_eq!(mad.kind, Kind::Sm1x);
        assert!(mad.flush());
        for m in ["add.f32", "sub.rz.f32", "mul.f32"] {
            let c = decode(m, target(ts)).unwrap();
            assert_eq!(c.kind, Kind::F32);
            assert!(c.ftz && c.flush(), "{m} on {ts}");
        }
    }
    // ...but not on sm_20+ unless asked.
    assert!(!decode("add.f32", target("sm_20")).unwrap().ftz);
    assert!(decode("add.ftz.f32", target("sm_20")).unwrap().ftz);
}

#[test]
fn add_sub_mul_are_fma_with_fixed_operands() {
    let t = Target::default();
    let add = decode("add.rz.f64", t).unwrap();
    assert_eq!(
        (add.kind, add.rnd, add.b_one, add.c_zero, add.neg_c),
        (Kind::F64, Rnd::Rz, true, false, false)
    );
    let sub = decode("sub.f32", t).unwrap();
    assert_eq!(
        (sub.rnd, sub.b_one, sub.c_zero, sub.neg_c),
        (Rnd::Rn, true, false, true)
    );
    let mul = decode("mul.rm.f32", t).unwrap();
    assert_eq!(
        (mul.rnd, mul.b_one, mul.c_zero, mul.neg_c),
        (Rnd::Rm, false, true, false)
    );
    let mixed = decode("sub.rp.f32.bf16", t).unwrap();
    assert_eq!(
        (mixed.kind, mixed.ab_fmt, mixed.b_one, mixed.neg_c),
        (Kind::F32, AbFmt::Bf16, true, true)
    );
    let fma16 = decode("fma.rn.f32.f16", t).unwrap();
    assert_eq!((fma16.ab_fmt, fma16.b_one), (AbFmt::F16, false));
}

#[test]
fn vmad_operand_decorations() {
    let t = Target::default();
    let src = |a_neg, b_neg, c_neg| VmadSrc {
        a_neg,
        b_neg,
        c_neg,
        asel: Sel::H1,
        bsel: Sel::B2,
    };
    let c = decode_vmad("vmad.s32.u32.u32.shr7", t, src(false, true, false)).unwrap();
    assert_eq!(
        (c.kind, c.neg_ab, c.neg_c, c.asel, c.bsel, c.scale),
        (Kind::Vmad, true, false, Sel::H1, Sel::B2, Scale::Shr7)
    );
    assert!(c.signed_final());
    // -a and -b cancel: the plain unsigned form.
    let c = decode_vmad("vmad.u32.u32.u32", t, src(true, true, false)).unwrap();
    assert!(!c.neg_ab && !c.signed_final());
    assert!(
        msg(decode_vmad("vmad.s32.s32.s32", t, src(true, false, true)))
            .contains("vmad cannot negate both the product and c")
    );
    assert!(msg(decode_vmad(
        "vmad.s32.s32.s32.po",
        t,
        src(false, false, true)
    ))
    .contains("vmad .po does not allow a negated product or c"));
    // The dtype is taken as written either way (ptxas does; S8).
    assert_eq!(
        decode_vmad("vmad.u32.u32.u32", t, src(false, false, true)),
        decode_vmad("vmad.s32.u32.u32", t, src(false, false, true))
    );
}

#[test]
fn eval_lines_carry_operands_and_decorations() {
    let t = Target::default();
    let i = parse_line(
        "vmad.u32.u32.u32.shr15 0x12345678.h0 0x9abcdef0.h0 0x00000003",
        t,
    )
    .unwrap();
    assert_eq!((i.a, i.b, i.c), (0x1234_5678, 0x9abc_def0, 3));
    assert_eq!(
        (i.ctrl.asel, i.ctrl.bsel, i.ctrl.scale),
        (Sel::H0, Sel::H0, Scale::Shr15)
    );
    let j = parse_line("vmad.s32.s32.s32 -0x5, 0x7, 0x3;", t).unwrap();
    assert_eq!((j.a, j.b, j.c, j.ctrl.neg_ab), (5, 7, 3, true));
    let k = parse_line("add.f32.f16 0x3c00 0x3f800000", t).unwrap();
    assert_eq!((k.a, k.b, k.c), (0x3c00, 0, 0x3f80_0000));
    let e = parse_line("fma.rn.f32 0x1ffffffff 0x0 0x0", t).unwrap_err();
    assert!(e.message().contains("wider than .f32"), "{e}");
    let e = parse_line("add.f32.f16 0x10000 0x0", t).unwrap_err();
    assert!(e.message().contains("wider than .f16"), "{e}");
    let e = parse_line("fma.rn.f32 0x1 0x2", t).unwrap_err();
    assert!(e.message().contains("expected 3 operands, found 2"), "{e}");
}

/// Pieces that make up plausible and implausible lines, so that random lines reach deep into the
/// decoder rather than failing on the first character.
const PIECES: &[&str] = &[
    "fma",
    "mad",
    "add",
    "sub",
    "mul",
    "vmad",
    "div",
    ".rn",
    ".rz",
    ".rm",
    ".rp",
    ".ftz",
    ".sat",
    ".f32",
    ".f64",
    ".f32x2",
    ".f16",
    ".bf16",
    ".u32",
    ".s32",
    ".po",
    ".shr7",
    ".shr15",
    ".h0",
    ".b3",
    ".",
    " ",
    ",",
    ";",
    "-",
    "0x",
    "0f",
    "0d",
    "1",
    "ff",
    "3f800000",
    "0x3f800000",
    "0xffffffffffffffffff",
    "-0x5.h1",
    "0x7.b0",
    "//",
    "\t",
    "é",
];

proptest! {
    #[test]
    fn random_lines_never_panic(parts in proptest::collection::vec(0..PIECES.len(), 0..24), ts in 0..TARGETS.len()) {
        let line: String = parts.iter().map(|&i| PIECES[i]).collect();
        let t = target(TARGETS[ts]);
        if let Ok(i) = parse_line(&line, t) {
            // Whatever is accepted must also decode on its own and be canonical.
            prop_assert_eq!(Ctrl::decode(i.ctrl.encode()), i.ctrl);
        }
        let _ = decode(&line, t);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,64}") {
        let _ = parse_line(&s, Target::default());
        let _ = decode(&s, Target::default());
        let _ = Target::parse(&s);
    }
}
