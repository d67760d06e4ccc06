// S3, S4, S10-S13 on the half-precision kinds. binary16: 1.0 = 0x3C00, 2.0 = 0x4000,
// -2.0 = 0xC000, the smallest normal 2^-14 = 0x0400, inf = 0x7C00; bfloat16: 1.0 = 0x3F80.

fn h(kind: Kind, fmt: AbFmt, flags: &str) -> Ctrl {
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    Ctrl {
        kind,
        ab_fmt: fmt,
        ftz: has("ftz"),
        sat: has("sat"),
        relu: has("relu"),
        oob: has("oob"),
        b_one: has("add") || has("sub"),
        neg_c: has("sub"),
        c_zero: has("mul"),
        ..Ctrl::fma(kind, Rnd::Rn)
    }
}

#[test]
fn s10_every_half_nan_is_0x7fff() {
    let f16 = h(Kind::Half, AbFmt::F16, "");
    let bf16 = h(Kind::Half, AbFmt::Bf16, "add");
    // inf * 0 is invalid; a signalling NaN operand and a negative quiet one alike give 0x7FFF.
    assert_eq!(ev(&f16, 0x7C00, 0x0000, 0x3C00), 0x7FFF);
    assert_eq!(ev(&f16, 0x7C01, 0x3C00, 0x3C00), 0x7FFF);
    assert_eq!(ev(&bf16, 0xFFC1, 0, 0x3F80), 0x7FFF);
    // Two lanes: a NaN in lane 1 leaves lane 0 (1 * 1 + 1 = 2) alone.
    let x2 = h(Kind::Half2, AbFmt::F16, "");
    assert_eq!(ev(&x2, 0x7E00_3C00, 0x3C00_3C00, 0x3C00_3C00), 0x7FFF_4000);
    // .sat maps the NaN to +0 (S3 in binary16).
    let sat = h(Kind::Half, AbFmt::F16, "sat");
    assert_eq!(ev(&sat, 0x7C00, 0x0000, 0x3C00), 0x0000);
    // .sat: 1 * 2 + 0 = 2 clamps to 1.0; 1 * -2 + 0 to +0; 0.5 stays.
    assert_eq!(ev(&sat, 0x3C00, 0x4000, 0x0000), 0x3C00);
    assert_eq!(ev(&sat, 0x3C00, 0xC000, 0x0000), 0x0000);
    assert_eq!(ev(&sat, 0x3800, 0x3C00, 0x0000), 0x3800);
}

#[test]
fn s11_relu_clamps_negatives_and_keeps_the_nan() {
    let relu = h(Kind::Half, AbFmt::F16, "relu");
    // 1 * -2 + 0 = -2 -> +0; -0 * 1 + -0 = -0 -> +0; 1 * 1 + 1 = 2 kept; NaN -> 0x7FFF.
    assert_eq!(ev(&relu, 0x3C00, 0xC000, 0x0000), 0x0000);
    assert_eq!(ev(&relu, 0x8000, 0x3C00, 0x8000), 0x0000);
    assert_eq!(ev(&relu, 0x3C00, 0x3C00, 0x3C00), 0x4000);
    assert_eq!(ev(&relu, 0xFE00, 0x3C00, 0x3C00), 0x7FFF);
    // -inf -> +0.
    assert_eq!(ev(&relu, 0xFC00, 0x3C00, 0x0000), 0x0000);
}

#[test]
fn s12_the_oob_nan_in_a_or_b_forces_plus_zero() {
    let oob = h(Kind::Half, AbFmt::F16, "oob");
    // 0x7FF7 or 0xFFF7 in a or b: +0, even beside a NaN c.
    assert_eq!(ev(&oob, 0x7FF7, 0x3C00, 0x7E00), 0x0000);
    assert_eq!(ev(&oob, 0x3C00, 0xFFF7, 0x3C00), 0x0000);
    // In c it is an ordinary NaN; 0x7FFF in a is one too.
    assert_eq!(ev(&oob, 0x3C00, 0x3C00, 0x7FF7), 0x7FFF);
    assert_eq!(ev(&oob, 0x7FFF, 0x3C00, 0x3C00), 0x7FFF);
    // Without .oob the pattern is a NaN like any other.
    let plain = h(Kind::Half, AbFmt::F16, "");
    assert_eq!(ev(&plain, 0x7FF7, 0x3C00, 0x3C00), 0x7FFF);
    // Per lane, bfloat16: lane 0's a is the OOB NaN (+0); lane 1 is 1 * 1 + 0 = 1.0.
    let x2 = h(Kind::Half2, AbFmt::Bf16, "oob");
    assert_eq!(ev(&x2, 0x3F80_7FF7, 0x3F80_3F80, 0), 0x3F80_0000);
}

#[test]
fn s4_ftz_on_binary16_flushes_what_is_tiny_at_11_bits() {
    let ftz = h(Kind::Half, AbFmt::F16, "mul ftz");
    // -(1 - 2^-11) * 2^-14 is exact at 11 bits and below 2^-14: flushed to -0, though the
    // subnormal quantum (2^-24) would round it up to the normal -2^-14 (0x8400).
    assert_eq!(ev(&ftz, 0xBBFF, 0x0400, 0), 0x8000);
    // (1 - 2^-10)(1 + 2^-10) * 2^-14 = (1 - 2^-20) * 2^-14 reaches 2^-14 at 11 bits: kept.
    assert_eq!(ev(&ftz, 0x3BFE, 0x0401, 0), 0x0400);
    // A subnormal input is flushed: 0x0001 * 1.0 = +0.
    assert_eq!(ev(&ftz, 0x0001, 0x3C00, 0), 0x0000);
    let plain = h(Kind::Half, AbFmt::F16, "mul");
    assert_eq!(ev(&plain, 0xBBFF, 0x0400, 0), 0x8400);
}

#[test]
fn s13_bf16_fma_in_a_directed_mode_is_f16_through_binary32() {
    let via = |rnd| Ctrl {
        rnd,
        via_f32: true,
        ..h(Kind::Half, AbFmt::F16, "")
    };
    // The operands read as binary16: 1.0 * 1.0 + 2^-7 (0x2000) = 1.0078125, exact.
    assert_eq!(ev(&via(Rnd::Rz), 0x3C00, 0x3C00, 0x2000), 0x3C08);
    // The exact zero sum takes the direction's sign: under rm +0 + -0 = -0 (one rounding to
    // nearest would give +0).
    assert_eq!(ev(&via(Rnd::Rm), 0x50BC, 0x0000, 0x8000), 0x8000);
    // a = 1 + 2^-10 (0x3C01), b = 1 - 2^-11 (0x3BFF): a * b = 1 + 2^-11 - 2^-21; c = 9 * 2^-24
    // (0x0009) = 2^-21 + 2^-24; the sum is 1 + 2^-11 + 2^-24. binary32 rz drops the 2^-24
    // (below its ulp 2^-23 at 1), leaving 1 + 2^-11, a binary16 tie that rounds to even: 1.0.
    // Rounded once to nearest in binary16 the sum is above the tie: 1 + 2^-10.
    assert_eq!(ev(&via(Rnd::Rz), 0x3C01, 0x3BFF, 0x0009), 0x3C00);
    let once = h(Kind::Half, AbFmt::F16, "");
    assert_eq!(ev(&once, 0x3C01, 0x3BFF, 0x0009), 0x3C01);
}
