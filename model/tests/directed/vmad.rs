// Directed vmad cases (S8), included through `cases.rs`.

/// vmad with whole-word operands and every modifier off.
fn vmad_ctrl() -> Ctrl {
    Ctrl {
        kind: Kind::Vmad,
        asel: Sel::W,
        bsel: Sel::W,
        ..Ctrl::default()
    }
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
    let ss_shr = |s: Scale| {
        move |k: &mut Ctrl| {
            ss(k);
            k.scale = s;
        }
    };
    assert_eq!(vm(ss_shr(Scale::Shr7), 0xffff_ff00, 1, 0), 0xffff_fffe);
    assert_eq!(vm(ss_shr(Scale::Shr15), 0xffff_ffff, 1, 0), 0xffff_ffff);
    // c is sign-extended whatever the final type: 0 + 0xffffffff >> 7 is -1 >> 7 = -1 for a
    // signed and an unsigned result alike (the pseudo-code zero-extended: 0x01ffffff).
    assert_eq!(vm(ss_shr(Scale::Shr7), 0, 0, m), 0xffff_ffff);
    // Result bits 63:32 are zero.
    assert_eq!(vm(ss, m, m, m) >> 32, 0);
}

