//! `make bench` (C ABI part): `ptxfma_eval_batch` against the model's own `Pipeline::run` on the
//! same operations, in one run, as a ratio with its verdict (target: >= 0.8x). Two streams: one
//! control word (`fma.rn.f32`, where `run` uses its lane engine) and the co-simulator's mix of
//! every family. Each engine is timed `RUNS` times and the best kept, since the machine is
//! shared and single runs vary. `FFI_BENCH_OPS` sets the operations per run (default 1,000,000).

use ptxfma::ptxfma_eval_batch;
use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};
use ptxfma_model::regs::Out;
use ptxfma_model::stimulus::{FamilyFilter, Stimulus};
use std::hint::black_box;
use std::time::Instant;

const RUNS: usize = 7;
/// Inputs per `Pipeline::run` call, as in the model's own bench.
const BLOCK: usize = 4096;

/// Operations per second of `f` over `n` operations, best of `RUNS`.
fn rate(n: usize, mut f: impl FnMut() -> u64) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    n as f64 / best
}

fn main() {
    let n: usize = std::env::var("FFI_BENCH_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let f32rn = Ctrl::fma(Kind::F32, Rnd::Rn).encode();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x & 0xBFFF_FFFF
    };
    let one: Vec<(u32, u64, u64, u64)> = (0..n).map(|_| (f32rn, next(), next(), next())).collect();
    let mix: Vec<(u32, u64, u64, u64)> = Stimulus::new(1, FamilyFilter::all())
        .take(n)
        .map(|v| (v.ctrl.encode(), v.a, v.b, v.c))
        .collect();
    let mut ok = true;
    println!("C ABI batch evaluate vs the model's Pipeline::run ({n} operations, best of {RUNS})");
    for (name, ops) in [("fma.rn.f32", &one), ("every family", &mix)] {
        let ctrl: Vec<u32> = ops.iter().map(|o| o.0).collect();
        let a: Vec<u64> = ops.iter().map(|o| o.1).collect();
        let b: Vec<u64> = ops.iter().map(|o| o.2).collect();
        let c: Vec<u64> = ops.iter().map(|o| o.3).collect();
        let inputs: Vec<PipeIn> = ops
            .iter()
            .map(|&(ctrl, a, b, c)| PipeIn {
                valid: true,
                tag: 0,
                ctrl,
                a,
                b,
                c,
                reset: false,
            })
            .collect();
        let mut d = vec![0u64; n];
        let mut outs = vec![Out::default(); BLOCK];
        let run = rate(n, || {
            let mut p = Pipeline::new();
            let mut s = 0u64;
            for chunk in inputs.chunks(BLOCK) {
                p.run(chunk, &mut outs[..chunk.len()]);
                s = s.wrapping_add(outs[0].d);
            }
            s
        });
        let batch = rate(n, || {
            // SAFETY: five arrays of `n` elements, `d` writable and separate.
            let st = unsafe {
                ptxfma_eval_batch(
                    ctrl.as_ptr(),
                    a.as_ptr(),
                    b.as_ptr(),
                    c.as_ptr(),
                    d.as_mut_ptr(),
                    n,
                )
            };
            assert_eq!(st, 0);
            d[n - 1]
        });
        let ratio = batch / run;
        let met = ratio >= 0.8;
        ok &= met;
        println!(
            "  {name:<14} run {:7.2} M ops/s  ptxfma_eval_batch {:7.2} M ops/s  {ratio:.2}x  {} \
             (target >= 0.8x)",
            run / 1e6,
            batch / 1e6,
            if met { "MET" } else { "MISSED" }
        );
    }
    if !ok {
        eprintln!("note: a MISSED ratio on a loaded shared machine may be noise; rerun to confirm");
    }
}
