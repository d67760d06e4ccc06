//! Self-test of the independent references (`ptxfma_model::reference`).
//!
//! 1. The two IEEE engines against each other: the host FMA3 instruction and `rustc_apfloat`,
//!    on millions of edge-biased and random f32/f64 operands in all four rounding modes, and the
//!    whole PTX layer (S1-S9) on top of each. These need x86-64 with FMA3; elsewhere they print
//!    a note and pass.
//! 2. Portable cross-checks between the references where their definitions overlap (sm_1x mad
//!    with an exact product is fma.rn.ftz; vmad against an arithmetic restatement).
//! 3. Directed cases for S1-S9 with expected values derived by hand from IEEE 754 and the PTX
//!    text (the derivation is in the comment next to each value).
//!
//! Run the bulk loops in release mode: `cargo test --release -p ptxfma-model --test
//! reference_selftest`. `PTXFMA_SELFTEST_SCALE=<n>` multiplies the vector counts (debug builds
//! run a tenth of them).

// Off x86-64 the host comparison is compiled out and some stimulus helpers go unused.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};
use ptxfma_model::reference::{ptx, sm1x, soft, vmad};
use ptxfma_model::stimulus::VMAD_EDGES;

// ---------------------------------------------------------------------------------------------
// Deterministic stimulus (local on purpose: the references must not depend on model code).

/// splitmix64: tiny, seedable, good enough to spread bits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bit(&mut self) -> bool {
        self.next() & 1 != 0
    }
}

/// Vector count for a bulk loop: `base` in release builds, a tenth in debug builds (where the
/// loops are ~20x slower, so a plain `cargo test` stays quick), times `PTXFMA_SELFTEST_SCALE`.
fn count(base: u64) -> u64 {
    let scale: u64 = std::env::var("PTXFMA_SELFTEST_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let base = if cfg!(debug_assertions) {
        base / 10
    } else {
        base
    };
    base * scale
}

/// An IEEE format described by its field widths, so one edge generator serves f32 and f64.
#[derive(Clone, Copy)]
struct Fmt {
    exp_bits: u32,
    man_bits: u32,
}

const F32: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 23,
};
const F64: Fmt = Fmt {
    exp_bits: 11,
    man_bits: 52,
};

impl Fmt {
    fn emax(self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    fn man_mask(self) -> u64 {
        (1 << self.man_bits) - 1
    }
    fn pack(self, sign: bool, exp: u64, man: u64) -> u64 {
        (u64::from(sign) << (self.exp_bits + self.man_bits))
            | (exp << self.man_bits)
            | (man & self.man_mask())
    }

    /// Edge-biased operand: zeros, infinities, quiet and signalling NaNs, subnormals, exponents
    /// near the bottom, the top, 1.0 and +-precision, walking ones/zeros and runs in the
    /// significand, and uniformly random bits.
    fn operand(self, r: &mut Rng) -> u64 {
        let sign = r.bit();
        let bias = self.emax() >> 1;
        let p = u64::from(self.man_bits);
        let man = match r.below(6) {
            0 => r.next(),
            1 => 1 << r.below(p),
            2 => !(1 << r.below(p)),
            3 => (1 << r.below(p + 1)) - 1,
            4 => !((1 << r.below(p + 1)) - 1),
            _ => 0,
        } & self.man_mask();
        let exp = match r.below(12) {
            0 => 0,
            1 => self.emax(),
            2 => r.below(3) + 1,
            3 => self.emax() - 1 - r.below(3),
            4 | 5 => bias - 3 + r.below(7),
            6 => bias - p - 2 + r.below(5),
            7 => bias + p - 2 + r.below(5),
            _ => r.below(self.emax() + 1),
        };
        match r.below(40) {
            0 => self.pack(sign, 0, 0),
            1 => self.pack(sign, self.emax(), 0),
            2 => self.pack(sign, self.emax(), man | 1 << (p - 1)),
            3 => self.pack(sign, self.emax(), (man & !(1 << (p - 1))).max(1)),
            4..=11 => r.next() >> (63 - self.exp_bits - self.man_bits),
            _ => self.pack(sign, exp, man),
        }
    }
}

/// An f32 triple, sometimes with c close to -(a*b) so that the sum cancels heavily.
fn triple32(r: &mut Rng) -> (u32, u32, u32) {
    let a = F32.operand(r) as u32;
    let b = F32.operand(r) as u32;
    let c = if r.below(4) == 0 {
        // The f64 product of two f32 is exact; rounding it to f32 and negating leaves c within
        // an ulp of -(a*b). Then nudge the last bits.
        let p = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b));
        let c = (-(p as f32)).to_bits();
        c.wrapping_add((r.below(5) as u32).wrapping_sub(2))
    } else {
        F32.operand(r) as u32
    };
    (a, b, c)
}

/// An f64 triple, sometimes with c close to -(a*b).
fn triple64(r: &mut Rng) -> (u64, u64, u64) {
    let a = F64.operand(r);
    let b = F64.operand(r);
    let c = if r.below(4) == 0 {
        let p = f64::from_bits(a) * f64::from_bits(b);
        (-p).to_bits().wrapping_add(r.below(5).wrapping_sub(2))
    } else {
        F64.operand(r)
    };
    (a, b, c)
}

fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}
fn is_nan64(x: u64) -> bool {
    x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
}

// ---------------------------------------------------------------------------------------------
// 1. Host FMA3 vs rustc_apfloat.

#[cfg(target_arch = "x86_64")]
mod host_vs_soft {
    use super::*;
    use ptxfma_model::reference::host::Host;
    use ptxfma_model::reference::Ieee;

    /// Result class of a left-aligned IEEE value with `e` sign+exponent bits:
    /// 0 zero, 1 subnormal, 2 normal, 3 infinity, 4 NaN.
    fn class(x: u64, e: u32) -> usize {
        let exp = (x << 1) >> (65 - e);
        let man = x << e;
        match (exp, man) {
            (0, 0) => 0,
            (0, _) => 1,
            (m, 0) if m == (1 << (e - 1)) - 1 => 3,
            (m, _) if m == (1 << (e - 1)) - 1 => 4,
            _ => 2,
        }
    }

    /// The stimulus must reach every result class (zeros, subnormals, normals, infinities,
    /// NaNs) often enough for the comparison to mean something there.
    fn check_classes(what: &str, classes: &[u64; 5], n: u64) {
        eprintln!("{what}: {n} vectors, results zero/subnormal/normal/inf/NaN = {classes:?}");
        for (k, &count) in classes.iter().enumerate() {
            assert!(
                count * 200 > n,
                "{what}: result class {k} reached only {count} times"
            );
        }
    }

    fn host() -> Option<Host> {
        let h = Host::detect();
        if h.is_none() {
            eprintln!("note: this x86-64 host has no FMA3; host-vs-soft checks SKIPPED");
        }
        h
    }

    #[test]
    fn ieee_f32_all_modes() {
        let Some(h) = host() else { return };
        let n = count(10_000_000);
        let mut r = Rng(0x5eed_0f32);
        let mut classes = [0u64; 5];
        for i in 0..n {
            let (a, b, c) = triple32(&mut r);
            let rnd = RNDS[(i % 4) as usize];
            let x = h.fma32(a, b, c, rnd);
            let y = soft::fma32(a, b, c, rnd);
            // NaN payloads are engine-specific (the PTX layer replaces them); all else is exact.
            let same = x == y || (is_nan32(x) && is_nan32(y));
            assert!(
                same,
                "f32 {rnd:?} a={a:#010x} b={b:#010x} c={c:#010x}: host {x:#010x} soft {y:#010x}"
            );
            classes[class(u64::from(x) << 32, 9)] += 1;
        }
        check_classes("f32", &classes, n);
    }

    #[test]
    fn ieee_f64_all_modes() {
        let Some(h) = host() else { return };
        let n = count(10_000_000);
        let mut r = Rng(0x5eed_0f64);
        let mut classes = [0u64; 5];
        for i in 0..n {
            let (a, b, c) = triple64(&mut r);
            let rnd = RNDS[(i % 4) as usize];
            let x = h.fma64(a, b, c, rnd);
            let y = soft::fma64(a, b, c, rnd);
            let same = x == y || (is_nan64(x) && is_nan64(y));
            assert!(
                same,
                "f64 {rnd:?} a={a:#018x} b={b:#018x} c={c:#018x}: host {x:#018x} soft {y:#018x}"
            );
            classes[class(x, 12)] += 1;
        }
        check_classes("f64", &classes, n);
    }

    #[test]
    fn host_leaves_mxcsr_alone() {
        // The asm block must restore MXCSR: a plain Rust f32 addition that depends on the
        // rounding direction still rounds to nearest afterwards.
        let Some(h) = host() else { return };
        for rnd in RNDS {
            h.fma32(0x3f80_0000, 0x3f80_0000, 0x3380_0001, rnd);
            h.fma64(0x3ff0_0000_0000_0000, 0x7ff0_0000_0000_0000, 0, rnd); // inf*1: sets no flag
            h.fma64(0x7ff0_0000_0000_0000, 0, 0, rnd); // inf*0: invalid, flag must not leak
        }
        // 1 +- 2^-30 is 1.0 under round-to-nearest only: rp would give 1 + 2^-23 for the sum,
        // rz and rm would give 1 - 2^-24 for the difference.
        let x = std::hint::black_box(1.0f32);
        let y = std::hint::black_box(f32::from_bits(0x3080_0000));
        assert_eq!((x + y).to_bits(), 0x3f80_0000);
        assert_eq!((x - y).to_bits(), 0x3f80_0000);
        // Subnormals still work (no FTZ/DAZ left behind).
        let t = std::hint::black_box(f32::from_bits(0x0000_0001));
        assert_eq!((t + t).to_bits(), 0x0000_0002);
    }

    #[test]
    fn host_rounding_modes_by_hand() {
        // 1 + 2^-24 + 2^-47 (a = 1, b = 1, c = 2^-24 (1 + 2^-23)): above the midpoint of
        // [1, 1 + 2^-23], so rn and rp give 1 + 2^-23, rz and rm give 1.
        let Some(h) = host() else { return };
        let (a, b, c) = (0x3f80_0000, 0x3f80_0000, 0x3380_0001);
        assert_eq!(h.fma32(a, b, c, Rnd::Rn), 0x3f80_0001);
        assert_eq!(h.fma32(a, b, c, Rnd::Rp), 0x3f80_0001);
        assert_eq!(h.fma32(a, b, c, Rnd::Rz), 0x3f80_0000);
        assert_eq!(h.fma32(a, b, c, Rnd::Rm), 0x3f80_0000);
        // Negated: -(1 + 2^-24 + 2^-47); rm goes away from zero, rp toward it.
        let (a, c) = (0xbf80_0000, 0xb380_0001);
        assert_eq!(h.fma32(a, b, c, Rnd::Rm), 0xbf80_0001);
        assert_eq!(h.fma32(a, b, c, Rnd::Rp), 0xbf80_0000);
        // f64: 1 + 2^-53 is the exact midpoint; ties-to-even gives 1, rp gives 1 + 2^-52.
        let one = 0x3ff0_0000_0000_0000;
        let tiny = 0x3ca0_0000_0000_0000; // 2^-53
        assert_eq!(h.fma64(one, one, tiny, Rnd::Rn), one);
        assert_eq!(h.fma64(one, one, tiny, Rnd::Rp), one + 1);
        // Gradual underflow is on: 2^-1074 * 1 + 0 is the smallest subnormal, not zero.
        assert_eq!(h.fma64(1, one, 0, Rnd::Rn), 1);
        assert_eq!(h.fma32(1, 0x3f80_0000, 0, Rnd::Rn), 1);
    }

    /// A random control word of a float kind, restricted to what the references define.
    fn float_ctrl(r: &mut Rng) -> Ctrl {
        let kind = [Kind::F32, Kind::F32x2, Kind::F64, Kind::Sm1x][r.below(4) as usize];
        let mut c = Ctrl::fma(kind, RNDS[r.below(4) as usize]);
        c.ftz = r.bit();
        c.sat = r.bit();
        c.ab_fmt = [AbFmt::Native, AbFmt::F16, AbFmt::Bf16][r.below(3) as usize];
        match r.below(4) {
            0 => c.b_one = true,
            1 => {
                c.b_one = true;
                c.neg_c = true;
            }
            2 => c.c_zero = true,
            _ => {}
        }
        c
    }

    #[test]
    fn ptx_layer_on_both_engines() {
        // S1-S9 make every result, NaNs included, a single bit pattern: the two engines under
        // the same PTX layer must agree bit for bit.
        let Some(h) = host() else { return };
        let n = count(4_000_000);
        let mut r = Rng(0x5eed_09e7);
        for _ in 0..n {
            let ctrl = float_ctrl(&mut r);
            let (a, b, c) = match ctrl.kind {
                Kind::F64 => triple64(&mut r),
                _ => {
                    let (a0, b0, c0) = triple32(&mut r);
                    let (a1, b1, c1) = triple32(&mut r);
                    let w = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
                    (w(a0, a1), w(b0, b1), w(c0, c1))
                }
            };
            let x = ptx::eval_with(&h, &ctrl, a, b, c);
            let y = ptx::eval_with(&soft::Soft, &ctrl, a, b, c);
            assert_eq!(
                x, y,
                "{ctrl:?} a={a:#018x} b={b:#018x} c={c:#018x}: host {x:#018x} soft {y:#018x}"
            );
            if ctrl.kind != Kind::F64 && ctrl.kind != Kind::F32x2 {
                assert_eq!(x >> 32, 0, "f32 result with upper bits set: {ctrl:?}");
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[test]
fn host_vs_soft_skipped() {
    eprintln!("note: not an x86-64 host; host FMA3 vs rustc_apfloat checks SKIPPED");
}

// ---------------------------------------------------------------------------------------------
// 2. Portable cross-checks between references.

fn ev(c: &Ctrl, a: u64, b: u64, cc: u64) -> u64 {
    ptx::eval(c, a, b, cc)
}

#[test]
fn sm1x_equals_fma_rn_ftz_when_the_product_is_exact() {
    // With b a power of two the exact product has at most 24 significant bits, so truncating it
    // changes nothing; the exact sum rounded once to nearest-even and flushed is then what the
    // IEEE fma.rn.ftz.f32 computes, and for c = +-0, mul.rn then + 0 is the same rounding.
    let n = count(1_000_000);
    let mut r = Rng(0x5eed_0001);
    let ftz = Ctrl {
        ftz: true,
        ..ctrl(Kind::F32, Rnd::Rn)
    };
    for _ in 0..n {
        let a = F32.operand(&mut r) as u32;
        let b = ((r.below(254) + 1) as u32) << 23 | (r.next() as u32 & 0x8000_0000);
        let c = if r.below(8) == 0 {
            (r.next() as u32) & 0x8000_0000
        } else {
            F32.operand(&mut r) as u32
        };
        let x = sm1x::mad(a, b, c, false);
        let y = ev(&ftz, a.into(), b.into(), c.into()) as u32;
        // One difference, by definition: with c = +0 (or a positive subnormal c, flushed), a
        // product that flushes to -0 is added to +0 giving +0 on sm_1x, while the fused IEEE
        // result of the nonzero exact value flushes to -0.
        let c_is_pos_zero = c & 0xff80_0000 == 0;
        let y = if c_is_pos_zero && y == 0x8000_0000 {
            0
        } else {
            y
        };
        assert_eq!(x, y, "a={a:#010x} b={b:#010x} c={c:#010x}");
    }
}

#[test]
fn sm1x_with_zero_c_is_mul_rn_ftz_then_add() {
    // c = +-0: mul.rn.ftz.f32 (on the IEEE reference), then + c with IEEE signed-zero rules.
    let n = count(1_000_000);
    let mut r = Rng(0x5eed_0002);
    let mul = Ctrl {
        ftz: true,
        c_zero: true,
        ..ctrl(Kind::F32, Rnd::Rn)
    };
    for _ in 0..n {
        let a = F32.operand(&mut r) as u32;
        let b = F32.operand(&mut r) as u32;
        let c_neg = r.bit();
        let c = if c_neg { 0x8000_0000 } else { 0 };
        let p = ev(&mul, a.into(), b.into(), 0) as u32;
        let want = if p == 0x8000_0000 && !c_neg { 0 } else { p };
        assert_eq!(
            sm1x::mad(a, b, c, false),
            want,
            "a={a:#010x} b={b:#010x} c={c:#010x}"
        );
        // A subnormal c flushes to a signed zero first, so it takes the same path.
        let c_sub = c | (r.below(0x7f_ffff) as u32 + 1);
        assert_eq!(
            sm1x::mad(a, b, c_sub, false),
            want,
            "a={a:#010x} b={b:#010x} c={c_sub:#010x}"
        );
    }
}

/// vmad as sm_90 computes it (S8) restated as plain integer arithmetic: ~t + 1 = -t, and
/// sext(~c) + 1 = -sext(c), so the result is (+-P) + c' (+1 for .po) with c' = c as i32, or
/// -(c as i32) under c.negate; a whole word is an i32, and `.sat` clamps the 64-bit window read
/// as i64 to the final type's range.
fn vmad_arith(k: &Ctrl, a: u32, b: u32, c: u32) -> u32 {
    let pick = |x: u32, signed: bool, sel: Sel| -> i128 {
        let (v, w) = match sel {
            Sel::B0 => (x & 0xff, 8),
            Sel::B1 => (x >> 8 & 0xff, 8),
            Sel::B2 => (x >> 16 & 0xff, 8),
            Sel::B3 => (x >> 24, 8),
            Sel::H0 => (x & 0xffff, 16),
            Sel::H1 => (x >> 16, 16),
            Sel::W => return i128::from(x as i32),
        };
        let v = i128::from(v);
        if signed && v >= 1 << (w - 1) {
            v - (1 << w)
        } else {
            v
        }
    };
    let p = pick(a, k.a_signed, k.asel) * pick(b, k.b_signed, k.bsel);
    let signed_final = k.a_signed || k.b_signed || k.neg_ab || k.neg_c;
    let cv = i128::from(c as i32);
    let v = if k.po {
        p + cv + 1
    } else if k.neg_ab {
        -p + cv
    } else if k.neg_c {
        p - cv
    } else {
        p + cv
    };
    let shift = match k.scale {
        Scale::None => 0,
        Scale::Shr7 => 7,
        Scale::Shr15 => 15,
    };
    // A signed result is an arithmetic shift of the value; an unsigned one a logical shift of
    // its 64-bit two's complement (the H100, S8).
    let v = if signed_final {
        v >> shift
    } else {
        i128::from((v as u64) >> shift)
    };
    let r64 = v as u64 as i64; // bits 63:0, read as signed
    let r = if !k.sat {
        r64
    } else if signed_final {
        r64.clamp(i32::MIN.into(), i32::MAX.into())
    } else {
        r64.clamp(0, u32::MAX.into())
    };
    r as u32
}

#[test]
fn vmad_every_combination_against_arithmetic_restatement() {
    let sels = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
    let scales = [Scale::None, Scale::Shr7, Scale::Shr15];
    // The boundaries of every selector, and bytes that are all negative or all positive.
    let edge: Vec<u32> = VMAD_EDGES
        .into_iter()
        .chain([0x8080_8080, 0x7f7f_7f7f])
        .collect();
    let mut r = Rng(0x5eed_0003);
    let mut checked = 0u64;
    for bits in 0..(1u32 << 6) {
        for &asel in &sels {
            for &bsel in &sels {
                for &scale in &scales {
                    let k = Ctrl {
                        a_signed: bits & 1 != 0,
                        b_signed: bits & 2 != 0,
                        neg_ab: bits & 4 != 0,
                        neg_c: bits & 8 != 0,
                        po: bits & 16 != 0,
                        sat: bits & 32 != 0,
                        asel,
                        bsel,
                        scale,
                        ..vmad_ctrl()
                    };
                    for i in 0..40 {
                        let mut pick = |j: u64| {
                            if i < 8 {
                                edge[((i as u64 + j * 5) % edge.len() as u64) as usize]
                            } else {
                                r.next() as u32
                            }
                        };
                        let (a, b, c) = (pick(0), pick(1), pick(2));
                        let got = ev(&k, a.into(), b.into(), c.into());
                        assert_eq!(
                            got,
                            u64::from(vmad_arith(&k, a, b, c)),
                            "{k:?} a={a:#x} b={b:#x} c={c:#x}"
                        );
                        assert_eq!(u64::from(vmad::eval(&k, a, b, c)), got);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 64 * 49 * 3 * 40);
}

// ---------------------------------------------------------------------------------------------
// 3. Directed cases, S1-S9. Constants: ONE = 1.0f32, f64 ONE_D = 1.0.

/// sm_1x mad through its own reference.
fn mad1x_sat(a: u32, b: u32, c: u32, sat: bool) -> u32 {
    sm1x::mad(a, b, c, sat)
}

include!("directed/cases.rs");
