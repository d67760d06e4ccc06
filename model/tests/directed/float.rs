// Directed float cases (S1-S6, S9 and the signed zeros of add, sub and mul), included through
// `cases.rs`.

const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

fn ctrl(kind: Kind, rnd: Rnd) -> Ctrl {
    Ctrl::fma(kind, rnd)
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
