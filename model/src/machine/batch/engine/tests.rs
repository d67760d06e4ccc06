use super::*;
use crate::machine::pipeline::{stage1 as s1, stage2 as s2, stage3 as s3, stage4 as s4, PipeIn};
use crate::stimulus::{operands_for, Family, Rng};

/// Every bank of every lane of one group of kind `KIND` through `backend`: with the LZA's
/// prediction (`PREDICT`, the registers' values), or as the results are formed.
fn banks<const KIND: u8, const PREDICT: bool>(
    backend: Backend,
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Vec<LaneBanks> {
    assert!(backend.runs_here());
    // SAFETY: as in `group`.
    unsafe {
        match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => avx512::banks::<KIND, PREDICT>(ctrl, a, b, c),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => avx2::banks::<KIND, PREDICT>(ctrl, a, b, c),
            Backend::Portable => portable::banks::<KIND, PREDICT>(ctrl, a, b, c),
            other => panic!("{other} is no lane backend"),
        }
    }
}

/// The banks of one group of `ctrl`'s kind: one group, or one per half for f32x2 and half2.
fn banks_of<const PREDICT: bool>(
    backend: Backend,
    ctrl: &Ctrl,
    a: &[u64; N],
    b: &[u64; N],
    c: &[u64; N],
) -> Vec<Vec<LaneBanks>> {
    match ctrl.kind {
        Kind::F64 => vec![banks::<F64, PREDICT>(backend, ctrl, a, b, c)],
        Kind::Sm1x => vec![banks::<SM1X, PREDICT>(backend, ctrl, a, b, c)],
        Kind::F32x2 => (0..2)
            .map(|h| {
                let [a, b, c] = f32x2_half(ctrl, h, a, b, c);
                banks::<F32, PREDICT>(backend, ctrl, &a, &b, &c)
            })
            .collect(),
        Kind::Half => vec![banks::<HALF, PREDICT>(backend, ctrl, a, b, c)],
        Kind::Half2 => vec![
            banks::<HALF, PREDICT>(backend, ctrl, a, b, c),
            banks::<HALF_HI, PREDICT>(backend, ctrl, a, b, c),
        ],
        _ => vec![banks::<F32, PREDICT>(backend, ctrl, a, b, c)],
    }
}

/// Every register field of every lane, and the result, equal the scalar stage functions,
/// for every control word of the float families (f32, f64, mixed, add/sub/mul, f32x2, sm_1x,
/// half and half2, but the six `via_f32` words, which run on the scalar stages) on edge-biased
/// operands, through `backend`.
fn lanes_equal_the_scalar_stages(backend: Backend) {
    let mut rng = Rng::new(11);
    let mut words = 0;
    let mut finite_groups = 0;
    let mut stand_ins = 0;
    let families = [
        Family::F32,
        Family::F64,
        Family::Mixed,
        Family::AddSubMul,
        Family::F32x2,
        Family::Sm1x,
        Family::Half,
        Family::Half2,
    ];
    for fam in families {
        for ctrl in fam.ctrls() {
            assert_eq!(supported(&ctrl), !ctrl.via_f32, "{ctrl:?}");
            if ctrl.via_f32 {
                continue;
            }
            words += 1;
            for g in 0..40 {
                // Every other group without an infinite or NaN operand in any lane, so that
                // the special-case unit's skip (stage 1) is taken as well as not.
                let finite = g % 2 == 1;
                let mut ins = [(0u64, 0u64, 0u64); N];
                for x in ins.iter_mut() {
                    *x = (0..1000)
                        .map(|_| operands_for(&ctrl, &mut rng))
                        .find(|&(a, b, c)| !finite || !special(&ctrl, a, b, c))
                        .unwrap_or_else(|| panic!("{ctrl:?}: no finite operands in 1000 draws"));
                }
                finite_groups += finite as u32;
                let v = |k: usize| -> [u64; N] {
                    std::array::from_fn(|i| [ins[i].0, ins[i].1, ins[i].2][k])
                };
                let (a, b, c) = (v(0), v(1), v(2));
                // The lane banks with the LZA's prediction, and as the results are formed,
                // where stage 2's count may be the exact one instead (`stage2`): every other
                // field the same.
                let halves = banks_of::<true>(backend, &ctrl, &a, &b, &c);
                let fast = banks_of::<false>(backend, &ctrl, &a, &b, &c);
                for (h, (p, f)) in halves.iter().zip(&fast).enumerate() {
                    for (i, (p, f)) in p.iter().zip(f).enumerate() {
                        let what = format!("{backend}: {ctrl:?} lane {i} half {h}");
                        let (mut p2, mut f2) = (p.2.clone(), f.2.clone());
                        if f2.lza_cnt != p2.lza_cnt {
                            stand_ins += 1;
                        }
                        (p2.lza_cnt, f2.lza_cnt) = (0, 0);
                        assert_eq!((p.0, &p.1, &p2, &p.4), (f.0, &f.1, &f2, &f.4), "{what}");
                        assert_eq!(p.3, f.3, "S3 with the exact count {what}");
                    }
                }
                let d = results(backend, &ctrl, &a, &b, &c).unwrap();
                for (i, &(a, b, c)) in ins.iter().enumerate() {
                    let inp = input(&ctrl, a, b, c);
                    let what = format!("{backend}: {ctrl:?} a={a:#x} b={b:#x} c={c:#x}");
                    let r1 = s1(&inp);
                    let r2 = s2(&r1);
                    let r3 = s3(&r2);
                    let want_d = s4(&r3).d;
                    assert_eq!(d[i], want_d, "d {what}");
                    let scalar = [
                        (&r1.lane0, &r2.lane0, &r3.lane0),
                        (&r1.lane1, &r2.lane1, &r3.lane1),
                    ];
                    for (h, lanes) in halves.iter().enumerate() {
                        let (prod, l1, l2, l3, dh) = &lanes[i];
                        let (w1, w2, w3) = scalar[h];
                        let what = format!("{what} half {h}");
                        // The lanes hold the product the scalar pair sums to (`product`),
                        // modulo 2^106 as stage 2 adds it.
                        let pair = r1.mul_sum.wrapping_add(r1.mul_carry) & ((1u128 << 106) - 1);
                        assert!(*prod < 1u128 << 106, "S1 product above 2^106 {what}");
                        if matches!(ctrl.kind, Kind::F32x2 | Kind::Half2) {
                            // The scalar array packs both products (lane 1 at bit 56): each
                            // half's product is its share of the scalar one.
                            let m = (1u128 << 48) - 1;
                            assert_eq!(*prod, (pair >> (56 * h)) & m, "S1 product {what}");
                            let w = if ctrl.kind == Kind::Half2 { 16 } else { 32 };
                            let lane_d = (want_d >> (w * h)) & ((1 << w) - 1);
                            assert_eq!(*dh, lane_d, "d {what}");
                        } else {
                            assert_eq!(*prod, pair, "S1 product {what}");
                            assert_eq!(*dh, want_d, "d {what}");
                        }
                        assert_eq!(l1, w1, "S1 {what}");
                        assert_eq!(l2, w2, "S2 {what}");
                        assert_eq!(l3, w3, "S3 {what}");
                    }
                }
            }
        }
    }
    assert!(words > 100, "only {words} control words");
    assert_eq!(finite_groups, 20 * words);
    // The exact count stood in for a prediction one bit off.
    assert!(
        stand_ins > 100,
        "only {stand_ins} exact counts differ from the LZA's"
    );
    // Arbitrary control words (reserved codes, modifiers no instruction combines), as
    // `run` meets them in a stream.
    for _ in 0..300 {
        let ctrl = Ctrl::decode(rng.next_u64() as u32 & ((1 << crate::ctrl::CTRL_BITS) - 1));
        if !supported(&ctrl) {
            continue;
        }
        let ins: [(u64, u64, u64); N] = std::array::from_fn(|_| {
            let (a, b, c) = operands_for(&ctrl, &mut rng);
            // f32x2 operands with both halves live; other kinds with upper bits set too.
            (
                a ^ rng.next_u64() << 32,
                b ^ rng.next_u64() << 32,
                c ^ rng.next_u64() << 32,
            )
        });
        let a = ins.map(|x| x.0);
        let b = ins.map(|x| x.1);
        let c = ins.map(|x| x.2);
        let d = results(backend, &ctrl, &a, &b, &c).unwrap();
        for i in 0..N {
            let want = crate::machine::pipeline::eval(&ctrl, a[i], b[i], c[i]);
            assert_eq!(
                d[i], want,
                "{backend}: {ctrl:?} a={:#x} b={:#x} c={:#x}",
                a[i], b[i], c[i]
            );
        }
    }
    let other = Family::Vmad.ctrls()[0];
    let z = [0; N];
    assert_eq!(results(backend, &other, &z, &z, &z), None);
}

/// Whether an operation has a special result (an infinite or NaN operand in a lane, the
/// scalar stage 1 says).
fn special(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> bool {
    let r1 = s1(&input(ctrl, a, b, c));
    r1.lane0.spec_valid || r1.lane1.spec_valid
}

/// One valid operation of `ctrl` on the pipe's input ports.
fn input(ctrl: &Ctrl, a: u64, b: u64, c: u64) -> PipeIn {
    PipeIn {
        valid: true,
        ctrl: ctrl.encode(),
        a,
        b,
        c,
        ..PipeIn::default()
    }
}

/// The portable backend, which every CPU runs: so the stage code is checked everywhere.
#[test]
fn portable_lanes_equal_the_scalar_stages_field_for_field() {
    lanes_equal_the_scalar_stages(Backend::Portable);
}

/// Every other lane backend this CPU runs (AVX-512 and AVX2 where the CPU has them).
#[test]
fn native_lanes_equal_the_scalar_stages_field_for_field() {
    let here = Backend::lanes_here();
    println!("lane backends this CPU runs: {here:?}");
    for backend in here.into_iter().filter(|&b| b != Backend::Portable) {
        lanes_equal_the_scalar_stages(backend);
    }
}

#[test]
fn scalar_backend_has_no_results() {
    let ctrl = Family::F32.ctrls()[0];
    let z = [0; N];
    assert_eq!(results(Backend::Scalar, &ctrl, &z, &z, &z), None);
}
