// Directed cases for S1-S9, with expected values derived by hand from IEEE 754 and the PTX
// text (the derivation is in the comment next to each value). Included by
// `reference_selftest.rs` (against the references) and `model_directed.rs` (against the
// cycle-level model); the includer defines the engine under test, `ev` and `mad1x_sat`.

const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

fn ctrl(kind: Kind, rnd: Rnd) -> Ctrl {
    Ctrl::fma(kind, rnd)
}

/// vmad with whole-word operands and every modifier off.
fn vmad_ctrl() -> Ctrl {
    Ctrl {
        kind: Kind::Vmad,
        asel: Sel::W,
        bsel: Sel::W,
        ..Ctrl::default()
    }
}

const ONE: u64 = 0x3f80_0000;
const TWO: u64 = 0x4000_0000;
const NEG_ZERO: u64 = 0x8000_0000;
const INF: u64 = 0x7f80_0000;
const NEG_INF: u64 = 0xff80_0000;
const ONE_D: u64 = 0x3ff0_0000_0000_0000;
const NEG_ZERO_D: u64 = 0x8000_0000_0000_0000;
const INF_D: u64 = 0x7ff0_0000_0000_0000;

fn add(kind: Kind, rnd: Rnd) -> Ctrl {
    Ctrl {
        b_one: true,
        ..ctrl(kind, rnd)
    }
}
fn sub(kind: Kind, rnd: Rnd) -> Ctrl {
    Ctrl {
        b_one: true,
        neg_c: true,
        ..ctrl(kind, rnd)
    }
}
fn mul(kind: Kind, rnd: Rnd) -> Ctrl {
    Ctrl {
        c_zero: true,
        ..ctrl(kind, rnd)
    }
}
fn mixed(fmt: AbFmt, c: Ctrl) -> Ctrl {
    Ctrl { ab_fmt: fmt, ..c }
}
fn ftz(c: Ctrl) -> Ctrl {
    Ctrl { ftz: true, ..c }
}
fn sat(c: Ctrl) -> Ctrl {
    Ctrl { sat: true, ..c }
}

#[test]
fn s1_every_f32_nan_is_7fffffff() {
    for rnd in RNDS {
        let f = ctrl(Kind::F32, rnd);
        assert_eq!(ev(&f, 0x7fc0_0001, ONE, ONE), 0x7fff_ffff); // quiet NaN a
        assert_eq!(ev(&f, ONE, ONE, 0xff80_0001), 0x7fff_ffff); // signalling, negative c
        assert_eq!(ev(&f, INF, 0, ONE), 0x7fff_ffff); // inf * 0
        assert_eq!(ev(&f, INF, ONE, NEG_INF), 0x7fff_ffff); // inf - inf
        assert_eq!(ev(&ftz(f), INF, 0x0000_0001, ONE), 0x7fff_ffff); // inf * flushed subnormal
        assert_eq!(ev(&sub(Kind::F32, rnd), ONE, 0, 0xffc0_0000), 0x7fff_ffff); // sub of -NaN
                                                                                // f32x2: lane 1 NaN, lane 0 1*2+3 = 5 untouched.
        let x2 = ctrl(Kind::F32x2, rnd);
        let got = ev(
            &x2,
            0x7fc0_0000 << 32 | ONE,
            ONE << 32 | TWO,
            ONE << 32 | 0x4040_0000,
        );
        assert_eq!(got, 0x7fff_ffff_40a0_0000);
        // Mixed precision: f16 and bf16 NaNs, and f16 inf * 0.
        let m16 = mixed(AbFmt::F16, f);
        assert_eq!(ev(&m16, 0x7e00, 0x3c00, ONE), 0x7fff_ffff);
        assert_eq!(ev(&m16, 0x7c00, 0x0000, ONE), 0x7fff_ffff);
        assert_eq!(ev(&mixed(AbFmt::Bf16, f), 0xffc1, 0x3f80, ONE), 0x7fff_ffff);
    }
    assert_eq!(
        mad1x_sat(0x7fc0_0000, ONE as u32, ONE as u32, false),
        0x7fff_ffff
    );
    // Bits 63:32 of f32 operands are not part of the value, and of the result are zero.
    let f = ctrl(Kind::F32, Rnd::Rn);
    assert_eq!(ev(&f, 0xdead_beef << 32 | ONE, ONE, ONE), TWO);
}

#[test]
fn s2_f64_nan_propagation_and_s9() {
    // Measured on an H100 (sm_90): the first NaN in order b, c, a, quieted (bit 51), payload
    // and sign kept; an invalid operation without a NaN operand gives 0xfff8000000000000.
    const DEFAULT_NAN_D: u64 = 0xfff8_0000_0000_0000;
    for rnd in RNDS {
        let f = ctrl(Kind::F64, rnd);
        // b and c NaN: b; b is signalling, so quieted.
        assert_eq!(
            ev(&f, ONE_D, 0x7ff0_0000_0000_0123, 0xfff8_0000_0000_0456),
            0x7ff8_0000_0000_0123
        );
        // a and b NaN: b, not a.
        assert_eq!(
            ev(&f, 0xfff0_0000_0000_0001, 0x7ff8_0000_0000_0002, ONE_D),
            0x7ff8_0000_0000_0002
        );
        // a and c NaN: c (the silicon example fma.rn.f64 qNaN, 0, qNaN(0x12345678)).
        assert_eq!(
            ev(&f, 0x7ff8_0000_0000_0000, 0, 0x7ff8_0000_1234_5678),
            0x7ff8_0000_1234_5678
        );
        // a signalling, b negative signalling: b, quieted, sign kept (silicon example).
        assert_eq!(
            ev(&f, 0x7ff0_0000_0000_0001, 0xfff4_0000_0000_0000, 0),
            0xfffc_0000_0000_0000
        );
        // All three NaN: b.
        assert_eq!(
            ev(
                &f,
                0x7ff8_0000_0000_0001,
                0xfff8_0000_0000_0002,
                0x7ff8_0000_0000_0003
            ),
            0xfff8_0000_0000_0002
        );
        // Only c, signalling: quieted.
        assert_eq!(
            ev(&f, ONE_D, ONE_D, 0x7ff4_0000_0000_0000),
            0x7ffc_0000_0000_0000
        );
        // Only a, negative signalling: quieted, sign kept.
        assert_eq!(
            ev(&f, 0xfff0_0000_0000_0009, ONE_D, ONE_D),
            0xfff8_0000_0000_0009
        );
        // Invalid without a NaN operand: inf * 0, 0 * inf, inf - inf.
        assert_eq!(ev(&f, INF_D, 0, ONE_D), DEFAULT_NAN_D);
        assert_eq!(ev(&f, NEG_ZERO_D, INF_D, ONE_D), DEFAULT_NAN_D);
        assert_eq!(
            ev(&f, INF_D, ONE_D, 0xfff0_0000_0000_0000),
            DEFAULT_NAN_D
        );
        // Invalid product but a NaN c: the NaN operand wins.
        assert_eq!(
            ev(&f, INF_D, 0, 0x7ff8_0000_0000_0abc),
            0x7ff8_0000_0000_0abc
        );
        // mul's c is a substituted zero, never a NaN operand; mul reads b, then a.
        let m = mul(Kind::F64, rnd);
        assert_eq!(ev(&m, INF_D, 0, 0x7ff8_0000_0000_0001), DEFAULT_NAN_D);
        assert_eq!(
            ev(
                &m,
                0x4000_0000_0000_0000,
                0x4008_0000_0000_0000,
                0x7ff8_0000_0000_0001
            ),
            0x4018_0000_0000_0000
        );
        assert_eq!(
            ev(&m, 0x7ff8_0000_0000_0011, 0xfff0_0000_0000_0022, 0),
            0xfff8_0000_0000_0022
        );
        assert_eq!(
            ev(&m, 0x7ff0_0000_0000_0011, ONE_D, 0),
            0x7ff8_0000_0000_0011
        );
        // add's b is +1.0, never a NaN operand; add reads c, then a (silicon example
        // add.rn.f64 qNaN, qNaN(0x12345678)).
        let ad = add(Kind::F64, rnd);
        assert_eq!(
            ev(&ad, ONE_D, 0x7ff8_0000_0000_0001, 0x4000_0000_0000_0000),
            0x4008_0000_0000_0000
        );
        assert_eq!(
            ev(&ad, 0x7ff8_0000_0000_0000, 0, 0x7ff8_0000_1234_5678),
            0x7ff8_0000_1234_5678
        );
        assert_eq!(ev(&ad, INF_D, 0, 0xfff0_0000_0000_0000), DEFAULT_NAN_D);
        // S9: sub negates c, but a NaN c comes out as given (sign not flipped), and before a.
        let s = sub(Kind::F64, rnd);
        assert_eq!(
            ev(&s, ONE_D, 0, 0x7ff8_0000_0000_0005),
            0x7ff8_0000_0000_0005
        );
        assert_eq!(
            ev(&s, ONE_D, 0, 0xfff0_0000_0000_0007),
            0xfff8_0000_0000_0007
        );
        assert_eq!(
            ev(&s, 0x7ff0_0000_0000_0003, 0, 0xfff8_0000_0000_0007),
            0xfff8_0000_0000_0007
        );
        assert_eq!(
            ev(&s, 0x7ff0_0000_0000_0003, 0, ONE_D),
            0x7ff8_0000_0000_0003
        );
        // inf - inf.
        assert_eq!(ev(&s, INF_D, 0, INF_D), DEFAULT_NAN_D);
        // Non-NaN c is negated: 1 - 1 = +0 (rn/rz/rp), -0 under rm.
        let z = if rnd == Rnd::Rm { NEG_ZERO_D } else { 0 };
        assert_eq!(ev(&s, ONE_D, 0, ONE_D), z);
    }
}

#[test]
fn s3_sat() {
    for rnd in RNDS {
        let f = sat(ctrl(Kind::F32, rnd));
        assert_eq!(ev(&f, 0x3fc0_0000, ONE, 0), ONE); // 1.5 -> 1.0
        assert_eq!(ev(&f, ONE, ONE, 0), ONE); // exactly 1.0 stays
        assert_eq!(ev(&f, 0x3f00_0000, ONE, 0), 0x3f00_0000); // 0.5 stays
        assert_eq!(ev(&f, 0xbf00_0000, ONE, 0), 0); // -0.5 -> +0
        assert_eq!(ev(&f, NEG_ZERO, ONE, NEG_ZERO), 0); // -0 -> +0
        assert_eq!(ev(&f, NEG_INF, ONE, ONE), 0); // -inf -> +0
        assert_eq!(ev(&f, INF, ONE, ONE), ONE); // +inf -> 1.0
        assert_eq!(ev(&f, 0x7fc0_0000, ONE, ONE), 0); // NaN -> +0
        assert_eq!(ev(&f, INF, 0, ONE), 0); // invalid -> NaN -> +0
                                            // A positive subnormal result survives .sat but not .ftz.sat:
                                            // 2^-64 * 2^-64 = 2^-128 = 0x00200000.
        assert_eq!(ev(&f, 0x1f80_0000, 0x1f80_0000, 0), 0x0020_0000);
        assert_eq!(ev(&ftz(f), 0x1f80_0000, 0x1f80_0000, 0), 0);
    }
    // Rounding first: 1 - 2^-24 + 2^-26 (a = 1, b = 1 - 2^-24, c = 2^-26) rounds up to 1.0
    // under rp, down to 1 - 2^-24 under rz; .sat sees those rounded values.
    let (a, b, c) = (ONE, 0x3f7f_ffff, 0x3280_0000);
    assert_eq!(ev(&sat(ctrl(Kind::F32, Rnd::Rp)), a, b, c), ONE);
    assert_eq!(ev(&sat(ctrl(Kind::F32, Rnd::Rz)), a, b, c), 0x3f7f_ffff);
    // Mixed precision: 1.0 (f16) + 0.5 = 1.5 -> 1.0; 1.0 (bf16) - 2.0 = -1 -> +0.
    assert_eq!(
        ev(
            &sat(mixed(AbFmt::F16, add(Kind::F32, Rnd::Rn))),
            0x3c00,
            0,
            0x3f00_0000
        ),
        ONE
    );
    assert_eq!(
        ev(
            &sat(mixed(AbFmt::Bf16, sub(Kind::F32, Rnd::Rn))),
            0x3f80,
            0,
            TWO
        ),
        0
    );
    // sm_1x: 2^64 * 2^64 - 2^127 = 2^127 -> 1.0; NaN -> +0.
    assert_eq!(
        mad1x_sat(0x5f80_0000, 0x5f80_0000, 0xff00_0000, true),
        0x3f80_0000
    );
    assert_eq!(mad1x_sat(0x7fc0_0000, 0, 0, true), 0);
}

#[test]
fn s4_ftz() {
    for rnd in RNDS {
        let f = ctrl(Kind::F32, rnd);
        // Subnormal input -> zero of the same sign: +0 * 1 + -0 = +0 except -0 under rm.
        let pz = if rnd == Rnd::Rm { NEG_ZERO } else { 0 };
        assert_eq!(ev(&ftz(f), 0x0000_0001, ONE, NEG_ZERO), pz);
        assert_eq!(ev(&ftz(f), 0x8000_0001, ONE, NEG_ZERO), NEG_ZERO);
        assert_eq!(ev(&f, 0x0000_0001, ONE, NEG_ZERO), 1); // exact without ftz
                                                           // Subnormal c flushed: 1*1 + 0 = 1 exactly in every mode.
        assert_eq!(ev(&ftz(f), ONE, ONE, 0x0000_0001), ONE);
        // Subnormal result (2^-128 = 0x00200000, exact) -> signed zero.
        assert_eq!(ev(&f, 0x1f80_0000, 0x1f80_0000, 0), 0x0020_0000);
        assert_eq!(ev(&ftz(f), 0x1f80_0000, 0x1f80_0000, 0), 0);
        assert_eq!(ev(&ftz(f), 0x9f80_0000, 0x1f80_0000, 0), NEG_ZERO);
        // mul.ftz: the -0 / +0 addend does not disturb the flushed sign.
        assert_eq!(
            ev(&ftz(mul(Kind::F32, rnd)), 0x9f80_0000, 0x1f80_0000, 0),
            NEG_ZERO
        );
        assert_eq!(
            ev(&ftz(mul(Kind::F32, rnd)), 0x1f80_0000, 0x1f80_0000, 0),
            0
        );
        // f64 never flushes, even with the ftz bit set.
        let d = ftz(ctrl(Kind::F64, rnd));
        assert_eq!(ev(&d, 1, ONE_D, NEG_ZERO_D), 1);
    }
    // Without ftz, subnormal c counts: 1 + 2^-149 rounds up under rp.
    assert_eq!(ev(&ctrl(Kind::F32, Rnd::Rp), ONE, ONE, 1), 0x3f80_0001);
    // The band just below 2^-126 (measured on an H100, sm_90): a result flushes when the exact
    // value rounded to 24 bits with an unbounded exponent is below 2^-126 (tininess after
    // rounding). (1 - 2^-24) * 2^-126 = (2^24 - 1) * 2^-150 is exact in 24 bits and below
    // 2^-126, so it flushes in every mode, although at the subnormal quantum 2^-149 it is the
    // tie between 0x007fffff and 0x00800000 and the IEEE rn (and rp) result is 0x00800000.
    let (a, b) = (0x3f7f_ffff, 0x0080_0000);
    assert_eq!(ev(&ctrl(Kind::F32, Rnd::Rn), a, b, 0), 0x0080_0000);
    assert_eq!(ev(&ctrl(Kind::F32, Rnd::Rp), a, b, 0), 0x0080_0000);
    assert_eq!(ev(&ctrl(Kind::F32, Rnd::Rz), a, b, 0), 0x007f_ffff);
    for rnd in RNDS {
        assert_eq!(ev(&ftz(ctrl(Kind::F32, rnd)), a, b, 0), 0);
        assert_eq!(ev(&ftz(ctrl(Kind::F32, rnd)), a, b | 1 << 31, 0), NEG_ZERO);
        assert_eq!(ev(&ftz(mul(Kind::F32, rnd)), a, b, 0), 0);
        assert_eq!(ev(&sat(ftz(ctrl(Kind::F32, rnd))), a, b, 0), 0);
    }
    // rp: (1 - 3 * 2^-24)(1 + 2^-23) * 2^-126 = (1 - 2^-24 - 3 * 2^-47) * 2^-126 rounds up to
    // 2^-126 at the quantum 2^-149 but only to (1 - 2^-24) * 2^-126 at 24 bits: flushed.
    assert_eq!(ev(&ctrl(Kind::F32, Rnd::Rp), 0x3f7f_fffd, 0x0080_0001, 0), 0x0080_0000);
    assert_eq!(ev(&ftz(ctrl(Kind::F32, Rnd::Rp)), 0x3f7f_fffd, 0x0080_0001, 0), 0);
    // Kept: (1 + 2^-23) * 2^-1 * (2 - 2^-22) * 2^-126 = (1 - 2^-46) * 2^-126, below 2^-126
    // before rounding, rounds to 2^-126 at 24 bits in rn (and rp; rm for a negative value).
    let (a, b) = (0x3f00_0001, 0x00ff_fffe);
    assert_eq!(ev(&ftz(ctrl(Kind::F32, Rnd::Rn)), a, b, 0), 0x0080_0000);
    assert_eq!(ev(&ftz(ctrl(Kind::F32, Rnd::Rp)), a, b, 0), 0x0080_0000);
    assert_eq!(ev(&ftz(ctrl(Kind::F32, Rnd::Rm)), a, b | 1 << 31, 0), 0x8080_0000);
    // rz, and rm on a positive value, keep 24 bits below 2^-126: flushed.
    assert_eq!(ev(&ftz(ctrl(Kind::F32, Rnd::Rz)), a, b, 0), 0);
    assert_eq!(ev(&ftz(ctrl(Kind::F32, Rnd::Rm)), a, b, 0), 0);
    // f32x2 lanes follow the same rule: lane 1 flushed in the band, lane 0 kept.
    let x2 = ftz(ctrl(Kind::F32x2, Rnd::Rn));
    assert_eq!(
        ev(&x2, 0x3f7f_ffff << 32 | 0x3f00_0001, 0x0080_0000 << 32 | 0x00ff_fffe, 0),
        0x0080_0000
    );
    // f32x2 flushes per lane: lane 0 subnormal input, lane 1 subnormal result.
    let x2 = ctrl(Kind::F32x2, Rnd::Rz);
    let (a, b, c) = (0x1f80_0000 << 32 | 1, 0x1f80_0000 << 32 | ONE, NEG_ZERO);
    assert_eq!(ev(&x2, a, b, c), 0x0020_0000 << 32 | 1);
    assert_eq!(ev(&ftz(x2), a, b, c), 0);
}

#[test]
fn s5_f32x2_lanes_are_independent() {
    // Lane 0: 1 * 1 + 2^-24, a tie: rn -> 1.0 (even), rp -> 1 + 2^-23.
    // Lane 1: 1 * 1 - 2^-24 = 1 - 2^-24 exactly (0x3f7fffff) in every mode.
    let a = ONE << 32 | ONE;
    let b = ONE << 32 | ONE;
    let c = 0xb380_0000 << 32 | 0x3380_0000;
    assert_eq!(
        ev(&ctrl(Kind::F32x2, Rnd::Rn), a, b, c),
        0x3f7f_ffff_3f80_0000
    );
    assert_eq!(
        ev(&ctrl(Kind::F32x2, Rnd::Rp), a, b, c),
        0x3f7f_ffff_3f80_0001
    );
    assert_eq!(
        ev(&ctrl(Kind::F32x2, Rnd::Rz), a, b, c),
        0x3f7f_ffff_3f80_0000
    );
    // 2 * 3 + 1 = 7 in lane 1, 1 * 1 + 0 = 1 in lane 0.
    let got = ev(
        &ctrl(Kind::F32x2, Rnd::Rn),
        TWO << 32 | ONE,
        0x4040_0000 << 32 | ONE,
        ONE << 32,
    );
    assert_eq!(got, 0x40e0_0000_3f80_0000);
}

#[test]
fn s6_mixed_precision() {
    let f16 = |rnd| mixed(AbFmt::F16, ctrl(Kind::F32, rnd));
    let bf16 = |rnd| mixed(AbFmt::Bf16, ctrl(Kind::F32, rnd));
    // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20, exact in f32.
    assert_eq!(ev(&f16(Rnd::Rn), 0x3c01, 0x3c01, 0), 0x3f80_4008);
    // 65504^2 = 2047^2 * 2^10 = 0x3ff001 * 2^10, exact: 0x4f7fc004.
    assert_eq!(ev(&f16(Rnd::Rz), 0x7bff, 0x7bff, 0), 0x4f7f_c004);
    // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 (bf16 0x3f81).
    assert_eq!(ev(&bf16(Rnd::Rz), 0x3f81, 0x3f81, 0), 0x3f82_0200);
    // Subnormal sources are not flushed: f16 2^-24 -> f32 0x33800000; bf16 0x0001 -> f32
    // subnormal 0x00010000.
    assert_eq!(
        ev(
            &mixed(AbFmt::F16, add(Kind::F32, Rnd::Rn)),
            0x0001,
            0,
            NEG_ZERO
        ),
        0x3380_0000
    );
    assert_eq!(
        ev(&mixed(AbFmt::Bf16, add(Kind::F32, Rnd::Rn)), 0x0001, 0, 0),
        0x0001_0000
    );
    // The f32 op rounds after the exact conversion: 1 + 2^-30 -> rp 0x3f800001, rn 1.0.
    let add_bf = |rnd| mixed(AbFmt::Bf16, add(Kind::F32, rnd));
    assert_eq!(ev(&add_bf(Rnd::Rp), 0x3f80, 0, 0x3080_0000), 0x3f80_0001);
    assert_eq!(ev(&add_bf(Rnd::Rn), 0x3f80, 0, 0x3080_0000), ONE);
    // add's b is +1.0 whatever the b register holds; only bits 15:0 of a are read.
    assert_eq!(ev(&add_bf(Rnd::Rn), 0xffff_0000_3f80, 0x7e00, ONE), TWO);
    // sub: 1 - 1 = +0, but -0 under rm.
    let sub16 = |rnd| mixed(AbFmt::F16, sub(Kind::F32, rnd));
    assert_eq!(ev(&sub16(Rnd::Rn), 0x3c00, 0, ONE), 0);
    assert_eq!(ev(&sub16(Rnd::Rm), 0x3c00, 0, ONE), NEG_ZERO);
}

fn mad1x(a: u32, b: u32, c: u32) -> u32 {
    mad1x_sat(a, b, c, false)
}

#[test]
fn s7_sm1x_truncation_vs_rounding() {
    // a = b = 1 + 2^-12 + 2^-23 (0x3f800801): a*b = 1 + 2^-11 + 2^-22 + 2^-24 + 2^-34 + 2^-46.
    // Truncated to 24 bits (ulp 2^-23): 1 + 2^-11 + 2^-22. With c = -2^-20 (0xb5800000) the
    // exact sum 1 + 2^-11 + 2^-22 - 2^-20 is representable: 0x3f800000 + 0x1000 + 2 - 8.
    let a = 0x3f80_0801;
    assert_eq!(mad1x(a, a, 0xb580_0000), 0x3f80_0ffa);
    // The fused IEEE result keeps 2^-24 + ... > half an ulp and rounds up one ulp.
    assert_eq!(
        ev(&ctrl(Kind::F32, Rnd::Rn), a.into(), a.into(), 0xb580_0000),
        0x3f80_0ffb
    );
    // Truncation is toward zero for a negative product too.
    assert_eq!(mad1x(a | 1 << 31, a, 0x3580_0000), 0xbf80_0ffa);
    // Through the pipeline-facing entry point, whatever .rnd says.
    for rnd in RNDS {
        assert_eq!(
            ev(&ctrl(Kind::Sm1x, rnd), a.into(), a.into(), 0xb580_0000),
            0x3f80_0ffa
        );
    }
}

#[test]
fn s7_sm1x_c_zero_exception() {
    let a = 0x3f80_0801;
    // c = +-0: mul.rn, i.e. the product is ROUNDED: 1 + 2^-11 + 2^-22 + 2^-23 = 0x3f801003.
    assert_eq!(mad1x(a, a, 0), 0x3f80_1003);
    assert_eq!(mad1x(a, a, 0x8000_0000), 0x3f80_1003);
    // A tiny negative product (-2^-70 * 2^-70 = -2^-140, subnormal) flushes to -0 in the mul,
    // then -0 + +0 = +0 under rn; with c = -0 it stays -0.
    assert_eq!(mad1x(0x9c80_0000, 0x1c80_0000, 0), 0);
    assert_eq!(mad1x(0x9c80_0000, 0x1c80_0000, 0x8000_0000), 0x8000_0000);
    // The S4 band in the mul: (1 - 2^-24) * 2^-126 is exact in 24 bits and below 2^-126, so
    // it flushes (to -0 for a negative product, then -0 + +0 = +0), although mul.rn with
    // gradual underflow gives 2^-126. (1 - 2^-46) * 2^-126 rounds to 2^-126 at 24 bits: kept.
    assert_eq!(mad1x(0x3f7f_ffff, 0x0080_0000, 0), 0);
    assert_eq!(mad1x(0xbf7f_ffff, 0x0080_0000, 0), 0);
    assert_eq!(mad1x(0xbf7f_ffff, 0x0080_0000, 0x8000_0000), 0x8000_0000);
    assert_eq!(mad1x(0x3f00_0001, 0x00ff_fffe, 0), 0x0080_0000);
    assert_eq!(mad1x(0xbf00_0001, 0x00ff_fffe, 0), 0x8080_0000);
    // -2^-63 * 2^-63 = -2^-126 is normal: kept.
    assert_eq!(mad1x(0xa000_0000, 0x2000_0000, 0), 0x8080_0000);
    // Overflow in the mul: 2^64 * 2^64 = 2^128 -> +inf, + 0 = +inf.
    assert_eq!(mad1x(0x5f80_0000, 0x5f80_0000, 0), 0x7f80_0000);
    // Zero products: signed-zero addition rules under rn.
    assert_eq!(mad1x(0x8000_0000, 0x3f80_0000, 0x8000_0000), 0x8000_0000);
    assert_eq!(mad1x(0x8000_0000, 0x3f80_0000, 0), 0);
    assert_eq!(mad1x(0, 0xbf80_0000, 0), 0);
}

#[test]
fn s7_sm1x_unbounded_product_exponent() {
    // 2^64 * 2^64 = 2^128 exceeds f32, but the exponent is preserved: - 2^127 gives 2^127.
    assert_eq!(mad1x(0x5f80_0000, 0x5f80_0000, 0xff00_0000), 0x7f00_0000);
    // (2^64 (1 + 2^-23))^2 = 2^128 (1 + 2^-22 + 2^-46), truncated 2^128 (1 + 2^-22);
    // - 2^127 = 2^127 (1 + 2^-21) = 0x7f000004.
    assert_eq!(mad1x(0x5f80_0001, 0x5f80_0001, 0xff00_0000), 0x7f00_0004);
    // 2^128 + 2^127 does overflow: +inf; -2^128 + 2^127 = -2^127.
    assert_eq!(mad1x(0x5f80_0000, 0x5f80_0000, 0x7f00_0000), 0x7f80_0000);
    assert_eq!(mad1x(0xdf80_0000, 0x5f80_0000, 0x7f00_0000), 0xff00_0000);
    // A product below the f32 range is not flushed either: -2^-75 * 2^-75 = -2^-150, and
    // (1 + 2^-23) * 2^-126 - 2^-150 = 2^-126 + 2^-150 is the tie between 0x00800000 and
    // 0x00800001 -> even 0x00800000 (a flushed product would leave 0x00800001).
    assert_eq!(mad1x(0x9a00_0000, 0x1a00_0000, 0x0080_0001), 0x0080_0000);
    // 2^-126 - 2^-150 is exact in 24 bits and below 2^-126: tiny after rounding, so it flushes
    // to +0 (S4), although the IEEE rn result, the even tie 0x00800000, is normal.
    assert_eq!(mad1x(0x9a00_0000, 0x1a00_0000, 0x0080_0000), 0);
    // Slightly more negative (-2^-150 (1 + 2^-20)): rounds down to the subnormal 0x007fffff,
    // which flushes to +0 (sign of the exact sum).
    assert_eq!(mad1x(0x9a00_0008, 0x1a00_0000, 0x0080_0000), 0);
}

#[test]
fn s7_sm1x_flushing_and_specials() {
    // Subnormal inputs flush: a = 2^-127 (0x00400000) would give 2^-127 * 2^126 + 1 = 1.5.
    assert_eq!(mad1x(0x0040_0000, 0x7e80_0000, 0x3f80_0000), 0x3f80_0000);
    // A subnormal c becomes +0 and selects the c = 0 path: 1 * 1 = 1.
    assert_eq!(mad1x(0x3f80_0000, 0x3f80_0000, 0x0000_0001), 0x3f80_0000);
    assert_eq!(mad1x(0x8040_0000, 0x3f80_0000, 0x8000_0000), 0x8000_0000);
    // Subnormal result flushed with the sign of the exact sum:
    // 2^-62 * 2^-63 = 2^-125; - 1.25 * 2^-125 = -2^-127 -> -0; - 0.75 * 2^-125 = 2^-127 -> +0.
    assert_eq!(mad1x(0x2080_0000, 0x2000_0000, 0x8120_0000), 0x8000_0000);
    assert_eq!(mad1x(0x2080_0000, 0x2000_0000, 0x80c0_0000), 0);
    // Exact zero sum -> +0.
    assert_eq!(mad1x(0x3f80_0000, 0x3f80_0000, 0xbf80_0000), 0);
    assert_eq!(mad1x(0xbf80_0000, 0x3f80_0000, 0x3f80_0000), 0);
    // NaN / inf as IEEE, with S1.
    assert_eq!(mad1x(0x7f80_0000, 0, 0x3f80_0000), 0x7fff_ffff); // inf * 0
    assert_eq!(mad1x(0x7f80_0000, 0x0000_0001, 0x3f80_0000), 0x7fff_ffff); // inf * flushed
    assert_eq!(mad1x(0x7f80_0000, 0x4000_0000, 0xff80_0000), 0x7fff_ffff); // inf - inf
    assert_eq!(mad1x(0x7f80_0000, 0xc000_0000, 0x3f80_0000), 0xff80_0000);
    assert_eq!(mad1x(0x3f80_0000, 0x3f80_0000, 0x7f80_0000), 0x7f80_0000);
    assert_eq!(mad1x(0x5f80_0000, 0x5f80_0000, 0xff80_0000), 0xff80_0000);
    assert_eq!(mad1x(0x3f80_0000, 0xffc0_0000, 0x3f80_0000), 0x7fff_ffff);
}

fn vm(f: impl FnOnce(&mut Ctrl), a: u32, b: u32, c: u32) -> u64 {
    let mut k = vmad_ctrl();
    f(&mut k);
    ev(&k, a.into(), b.into(), c.into())
}

#[test]
fn s8_vmad_by_hand() {
    let u = |_: &mut Ctrl| {};
    let m = u32::MAX;
    // A whole word is read as s32 whatever its type, and c is sign-extended (S8, sm_90):
    // vmad.u32.u32.u32 0xffffffff 0xffffffff 0xffffffff is (-1)(-1) + (-1) = 0, so .sat and
    // .shr15 give 0 too. (The pseudo-code read 2^64 - 2^32: .sat U32_MAX, .shr15 0xfffe0000.)
    assert_eq!(vm(u, m, m, m), 0);
    assert_eq!(vm(|k| k.sat = true, m, m, m), 0);
    assert_eq!(vm(|k| k.scale = Scale::Shr15, m, m, m), 0);
    // The H100's answers (S8): vmad.u32.u32.u32.sat 0 0 0x80000000: c = -2^31, clamped to 0;
    // .shr7: -2^31 >> 7 = -2^24 = 0xff000000; c = 0xffffffff: -1 >> 7 = -1.
    assert_eq!(vm(|k| k.sat = true, 0, 0, 0x8000_0000), 0);
    assert_eq!(vm(|k| k.scale = Scale::Shr7, 0, 0, 0x8000_0000), 0xff00_0000);
    assert_eq!(vm(|k| k.scale = Scale::Shr7, 0, 0, m), 0xffff_ffff);
    // ...but an unsigned result is scaled as unsigned, from the 64-bit window (the H100:
    // vmad.u32.u32.u32.sat.shr7 0.b0 0.b0 0x80000000 is 0xffffffff): 0xffffffff80000000 >> 7
    // = 0x01ffffffff000000, clamped high; .shr15 alike. A signed result shifts in ones:
    // vmad.s32.s32.s32.sat.shr7 0 0 0x80000000 is -2^24 = 0xff000000.
    let sat_shr = |s: Scale| {
        move |k: &mut Ctrl| {
            k.sat = true;
            k.scale = s;
            k.asel = Sel::B0;
            k.bsel = Sel::B0;
        }
    };
    assert_eq!(vm(sat_shr(Scale::Shr7), 0, 0, 0x8000_0000), 0xffff_ffff);
    assert_eq!(vm(sat_shr(Scale::Shr15), 0, 0, m), 0xffff_ffff);
    let signed_sat_shr = |k: &mut Ctrl| {
        sat_shr(Scale::Shr7)(k);
        k.a_signed = true;
        k.b_signed = true;
    };
    assert_eq!(vm(signed_sat_shr, 0, 0, 0x8000_0000), 0xff00_0000);
    // An unsigned .sat still clamps high: 0x7fffffff * 3 = 0x17ffffffd > U32_MAX, while
    // 0x7fffffff * 2 = 0xfffffffe is in range.
    assert_eq!(vm(|k| k.sat = true, 0x7fff_ffff, 3, 0), 0xffff_ffff);
    assert_eq!(vm(|k| k.sat = true, 0x7fff_ffff, 2, 0), 0xffff_fffe);
    // vmad.u32.u32.u32.sat 0x1.b0 0x80000000 0: 1 * (-2^31) = -2^31 < 0, clamped to 0; with
    // .po, -2^31 + 1 likewise.
    let b0a_sat = |k: &mut Ctrl| {
        k.asel = Sel::B0;
        k.sat = true;
    };
    assert_eq!(vm(b0a_sat, 1, 0x8000_0000, 0), 0);
    assert_eq!(
        vm(
            |k| {
                b0a_sat(k);
                k.po = true
            },
            1,
            0x8000_0000,
            0
        ),
        0
    );
    // vmad.s32.u32.s32.sat 0x80000000 0x1.b0 0: the u32 word is -2^31, times 1: S32_MIN (the
    // pseudo-code read +2^31 and clamped to S32_MAX).
    let us_sat = |k: &mut Ctrl| {
        k.b_signed = true;
        k.bsel = Sel::B0;
        k.sat = true;
    };
    assert_eq!(vm(us_sat, 0x8000_0000, 1, 0), 0x8000_0000);
    // vmad.s32.u32.u32.sat -0x1.b0 0x80000000 0: -(1 * (-2^31)) = +2^31, clamped to S32_MAX.
    let nab_sat = |k: &mut Ctrl| {
        k.neg_ab = true;
        k.asel = Sel::B0;
        k.sat = true;
    };
    assert_eq!(vm(nab_sat, 1, 0x8000_0000, 0), 0x7fff_ffff);
    // The PTX example: vmad.u32.u32.u32.shr15 0x12345678.h0 0x9abcdef0.h0 3:
    // (0x5678 * 0xdef0 + 3) >> 15 = 1263345795 >> 15 = 38554 = 0x969a.
    let ex = |k: &mut Ctrl| {
        k.asel = Sel::H0;
        k.bsel = Sel::H0;
        k.scale = Scale::Shr15;
    };
    assert_eq!(vm(ex, 0x1234_5678, 0x9abc_def0, 3), 0x969a);
    // Byte selects with sign extension: 0xff.b0 (s) = -1, 0x80.b0 (s) = -128: product 128.
    let ss = |k: &mut Ctrl| {
        k.a_signed = true;
        k.b_signed = true;
    };
    let b0 = |k: &mut Ctrl| {
        ss(k);
        k.asel = Sel::B0;
        k.bsel = Sel::B0;
    };
    assert_eq!(vm(b0, 0xff, 0x80, 0), 0x80);
    // u32 * s32: 0xff.b0 unsigned = 255, times -128 = -32640 = 0xffff8080.
    let us = |k: &mut Ctrl| {
        k.b_signed = true;
        k.asel = Sel::B0;
        k.bsel = Sel::B0;
    };
    assert_eq!(vm(us, 0xff, 0x80, 0), 0xffff_8080);
    // h1 signed * h1 unsigned: -32768 * 2 = -65536.
    let h1 = |k: &mut Ctrl| {
        k.a_signed = true;
        k.asel = Sel::H1;
        k.bsel = Sel::H1;
    };
    assert_eq!(vm(h1, 0x8000_0000, 0x0002_0000, 0), 0xffff_0000);
    // b3: 0x7f * 3 = 381.
    assert_eq!(vm(|k| k.asel = Sel::B3, 0x7f00_0000, 3, 0), 381);
    // -(s32 * s32) + s32: ~15 + 20 + 1 = 5; with c = 0: -15.
    let nab = |k: &mut Ctrl| {
        ss(k);
        k.neg_ab = true;
    };
    assert_eq!(vm(nab, 3, 5, 20), 5);
    assert_eq!(vm(nab, 3, 5, 0), 0xffff_fff1);
    // -(u32 * u32) + s32 with both words 0xffffffff: -((-1)(-1)) = -1, in range for .sat
    // (the pseudo-code's -(2^64 - 2^33 + 1) wrapped to 2^33 - 1 and clamped to S32_MAX).
    let nabu = |k: &mut Ctrl| k.neg_ab = true;
    assert_eq!(vm(nabu, m, m, 0), 0xffff_ffff);
    assert_eq!(
        vm(
            |k| {
                nabu(k);
                k.sat = true
            },
            m,
            m,
            0
        ),
        0xffff_ffff
    );
    // (u32 * u32) - u32: 2 * 3 - 5 = 1.
    let nc = |k: &mut Ctrl| k.neg_c = true;
    assert_eq!(vm(nc, 2, 3, 5), 1);
    // -c: c = 0x80000000 -> ~c = 0x7fffffff, sext, +1: +2^31, so .sat gives S32_MAX.
    // c = 0xffffffff -> ~c = 0, +1: +1. -c subtracts c read as s32, like every c.
    assert_eq!(vm(nc, 0, 0, 0x8000_0000), 0x8000_0000);
    assert_eq!(
        vm(
            |k| {
                nc(k);
                k.sat = true
            },
            0,
            0,
            0x8000_0000
        ),
        0x7fff_ffff
    );
    assert_eq!(
        vm(
            |k| {
                nc(k);
                k.sat = true
            },
            0,
            0,
            0xffff_ffff
        ),
        1
    );
    // Signed saturation: i32::MIN * 2 = -2^32 -> S32_MIN; i32::MAX * 2 = 2^32 - 2 -> S32_MAX.
    let ssat = |k: &mut Ctrl| {
        ss(k);
        k.sat = true;
    };
    assert_eq!(vm(ss, 0x8000_0000, 2, 0), 0);
    assert_eq!(vm(ssat, 0x8000_0000, 2, 0), 0x8000_0000);
    assert_eq!(vm(ss, 0x7fff_ffff, 2, 0), 0xffff_fffe);
    assert_eq!(vm(ssat, 0x7fff_ffff, 2, 0), 0x7fff_ffff);
    // .po: 1 * 1 + 1 + 1 = 3; whole words are s32: (-1) * 1 + (-1) + 1 = -1; >> 7 = -1.
    let po = |k: &mut Ctrl| k.po = true;
    assert_eq!(vm(po, 1, 1, 1), 3);
    assert_eq!(vm(po, m, 1, m), 0xffff_ffff);
    assert_eq!(
        vm(
            |k| {
                po(k);
                k.scale = Scale::Shr7
            },
            m,
            1,
            m
        ),
        0xffff_ffff
    );
    // Scaling sign-extends a signed result: -256 >> 7 = -2; -1 >> 15 = -1.
    assert_eq!(
        vm(
            |k| {
                ss(k);
                k.scale = Scale::Shr7
            },
            0xffff_ff00,
            1,
            0
        ),
        0xffff_fffe
    );
    assert_eq!(
        vm(
            |k| {
                ss(k);
                k.scale = Scale::Shr15
            },
            0xffff_ffff,
            1,
            0
        ),
        0xffff_ffff
    );
    // c is sign-extended whatever the final type: 0 + 0xffffffff >> 7 is -1 >> 7 = -1 for a
    // signed and an unsigned result alike (the pseudo-code zero-extended: 0x01ffffff).
    assert_eq!(
        vm(
            |k| {
                ss(k);
                k.scale = Scale::Shr7
            },
            0,
            0,
            m
        ),
        0xffff_ffff
    );
    // Result bits 63:32 are zero.
    assert_eq!(vm(ss, m, m, m) >> 32, 0);
}

#[test]
fn signed_zeros_and_add_sub_mul_mapping() {
    for rnd in RNDS {
        let rm = rnd == Rnd::Rm;
        let z = if rm { NEG_ZERO } else { 0 };
        let zd = if rm { NEG_ZERO_D } else { 0 };
        // Exact zero sum: +0, -0 under rm (f32, f64, f32x2 lanes).
        assert_eq!(ev(&ctrl(Kind::F32, rnd), ONE, ONE, 0xbf80_0000), z);
        assert_eq!(
            ev(&ctrl(Kind::F64, rnd), ONE_D, ONE_D, 0xbff0_0000_0000_0000),
            zd
        );
        let x2 = ev(
            &ctrl(Kind::F32x2, rnd),
            ONE << 32 | ONE,
            ONE << 32 | ONE,
            0xbf80_0000_bf80_0000,
        );
        assert_eq!(x2, z << 32 | z);
        // Like-signed zeros keep their sign.
        assert_eq!(ev(&ctrl(Kind::F32, rnd), NEG_ZERO, ONE, NEG_ZERO), NEG_ZERO);
        // mul: -1 * +0 = -0 and +1 * +0 = +0 in every mode (the substituted addend is -0, or
        // +0 under rm, so it never changes a zero product's sign).
        assert_eq!(ev(&mul(Kind::F32, rnd), 0xbf80_0000, 0, 0), NEG_ZERO);
        assert_eq!(ev(&mul(Kind::F32, rnd), ONE, 0, 0), 0);
        assert_eq!(
            ev(&mul(Kind::F64, rnd), 0xbff0_0000_0000_0000, 0, 0),
            NEG_ZERO_D
        );
        assert_eq!(ev(&mul(Kind::F64, rnd), ONE_D, 0, 0), 0);
        // add = a * 1 + c: +0 + -0 = +0 (rm: -0); -0 + -0 = -0.
        assert_eq!(ev(&add(Kind::F32, rnd), 0, 0, NEG_ZERO), z);
        assert_eq!(ev(&add(Kind::F32, rnd), NEG_ZERO, 0, NEG_ZERO), NEG_ZERO);
        // sub = a * 1 + (-c): +0 - +0 = +0 (rm: -0); -0 - +0 = -0.
        assert_eq!(ev(&sub(Kind::F32, rnd), 0, 0, 0), z);
        assert_eq!(ev(&sub(Kind::F32, rnd), NEG_ZERO, 0, 0), NEG_ZERO);
        assert_eq!(ev(&sub(Kind::F64, rnd), 0, 0, 0), zd);
        // add/sub ignore the b register; mul ignores the c register.
        assert_eq!(ev(&add(Kind::F32, rnd), ONE, 0x7fc0_0000, ONE), TWO);
        assert_eq!(ev(&sub(Kind::F32, rnd), 0x4040_0000, 0, ONE), TWO);
        assert_eq!(ev(&mul(Kind::F32, rnd), ONE, TWO, 0x7fc0_0000), TWO);
    }
    // A nonzero product that rounds to zero keeps its sign: -2^-200 -> -0 (rn, rz, rp), and the
    // smallest negative subnormal under rm.
    let (a, b) = (0x0d80_0000, 0x8d80_0000); // 2^-100, -2^-100
    assert_eq!(ev(&mul(Kind::F32, Rnd::Rn), a, b, 0), NEG_ZERO);
    assert_eq!(ev(&mul(Kind::F32, Rnd::Rz), a, b, 0), NEG_ZERO);
    assert_eq!(ev(&mul(Kind::F32, Rnd::Rp), a, b, 0), NEG_ZERO);
    assert_eq!(ev(&mul(Kind::F32, Rnd::Rm), a, b, 0), 0x8000_0001);
}
