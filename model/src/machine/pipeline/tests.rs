//! Tests of the pipeline: `run_on` against ticking, on every backend.

use super::*;
use crate::ctrl::Rnd;
use crate::stimulus::{Family, FamilyFilter, Stimulus};

/// `run_on` must give the outputs and final banks of ticking each input, for streams that
/// mix kinds, bubbles, reserved words, resets and runs of one control word of every length,
/// on every backend this CPU runs (the portable one everywhere), and the lane backends must
/// really have taken inputs: a test that passed on the scalar fallback would prove nothing.
#[test]
fn run_equals_ticking_each_input_on_every_backend() {
    let backends: Vec<Backend> = Backend::ALL.into_iter().filter(|b| b.runs_here()).collect();
    assert!(backends.contains(&Backend::Portable));
    let mut rng = crate::stimulus::Rng::new(5);
    let all: Vec<_> = Stimulus::new(9, FamilyFilter::all()).take(4_000).collect();
    let mut laned = vec![0; backends.len()];
    for round in 0..60 {
        let mut inputs = Vec::new();
        let len = rng.below(300) as usize;
        while inputs.len() < len {
            let v = &all[rng.below(all.len() as u64) as usize];
            // Runs of one word (long enough for the lanes, or not), with fresh operands.
            let run = 1 + rng.below(2 * LANES as u64 + 8) as usize;
            for k in 0..run {
                let w = &all[rng.below(all.len() as u64) as usize];
                let bubble = rng.chance(1, 10);
                inputs.push(PipeIn {
                    valid: !bubble,
                    tag: (inputs.len() + k) as u16,
                    ctrl: if rng.chance(1, 50) {
                        rng.next_u64() as u32
                    } else {
                        v.ctrl.encode()
                    },
                    a: w.a,
                    b: w.b,
                    c: w.c,
                    reset: rng.chance(1, 60),
                });
            }
        }
        // Start every pipe from a state left by an earlier stream.
        let start = || {
            let mut p = Pipeline::new();
            for v in &all[round..round + 5] {
                p.tick(&v.input(7));
            }
            p
        };
        let mut p = start();
        let want: Vec<Out> = inputs.iter().map(|i| p.tick(i)).collect();
        for (k, &backend) in backends.iter().enumerate() {
            let mut q = start();
            let mut got = vec![Out::default(); inputs.len()];
            laned[k] += q.run_on(backend, &inputs, &mut got);
            assert_eq!(got, want, "{backend}: round {round}");
            assert_eq!(
                (&q.s1, &q.s2, &q.s3, &q.out),
                (&p.s1, &p.s2, &p.s3, &p.out),
                "{backend}: round {round}"
            );
        }
    }
    for (backend, laned) in backends.iter().zip(laned) {
        if backend.is_lanes() {
            assert!(
                laned >= 20 * LANES,
                "{backend}: only {laned} inputs went through the lane engine"
            );
        } else {
            assert_eq!(laned, 0, "{backend}");
        }
    }
}

/// `run` uses the selected backend, which is a lane engine unless `PTXFMA_LANES=scalar`
/// (the portable backend runs everywhere): it must take every group of a long stream.
#[test]
fn run_uses_the_selected_backend() {
    let ctrl = Ctrl::fma(Kind::F32, Rnd::Rn).encode();
    let inputs: Vec<PipeIn> = (0..1000u64)
        .map(|i| PipeIn {
            valid: true,
            tag: i as u16,
            ctrl,
            a: 0x3F80_0000 + i,
            b: 0x4000_0000,
            c: i << 12,
            reset: false,
        })
        .collect();
    let mut out = vec![Out::default(); inputs.len()];
    let laned = Pipeline::new().run(&inputs, &mut out);
    if lanes_available() {
        assert_eq!(laned, (1000 - 2 * (LATENCY - 1)) / LANES * LANES);
    } else {
        assert_eq!(Backend::selected(), Backend::Scalar);
        assert_eq!(laned, 0);
    }
}

/// `tick` (in-place banks, memoised decode) must equal chaining the public pure stage
/// functions, including across bubbles carrying random control words and after a caller
/// overwrites a bank.
#[test]
fn tick_equals_the_pure_stage_functions() {
    let mut p = Pipeline::new();
    let (mut s1, mut s2, mut s3) = (S1::default(), S2::default(), S3::default());
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let vectors = Stimulus::new(3, FamilyFilter::all()).take(20_000);
    for (i, v) in vectors.enumerate() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let inp = if i % 7 == 3 {
            // A bubble with an arbitrary word, reserved codes included.
            PipeIn {
                valid: false,
                tag: 0,
                ctrl: x as u32 & ((1 << CTRL_BITS) - 1),
                a: x,
                b: !x,
                c: x << 3,
                reset: false,
            }
        } else {
            v.input(i as u16)
        };
        let out = stage4(&s3);
        s3 = stage3(&s2);
        s2 = stage2(&s1);
        s1 = stage1(&inp);
        assert_eq!(p.tick(&inp), out, "cycle {i}");
        assert_eq!((&p.s1, &p.s2, &p.s3), (&s1, &s2, &s3), "cycle {i}");
        if i == 10_000 {
            // Overwrite a bank from outside: the decode memo must notice.
            p.s2 = stage2(&S1 {
                ctrl: Family::Vmad.ctrls()[5].encode(),
                ..p.s1.clone()
            });
            s2 = p.s2.clone();
        }
    }
}
