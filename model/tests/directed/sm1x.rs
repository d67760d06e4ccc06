// Directed sm_1x `mad.f32` cases (S7), included through `cases.rs`; the includer defines
// `mad1x_sat`.

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

