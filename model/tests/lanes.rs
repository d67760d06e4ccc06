//! Bulk agreement of the lane engine with the independent references, on every lane backend
//! this CPU runs (the portable one on every CPU, AVX2 and AVX-512 where the CPU has them),
//! whichever backend `Pipeline::run` would pick.
//!
//! For every float family x rounding mode x ftz setting, `PTXFMA_VECTORS` (default 20,000)
//! edge-biased vectors go through `Pipeline::run_on` in runs of `LANES` inputs per control word
//! and every result is compared bit for bit with `reference::ptx::eval`. The lane engine must
//! have taken nearly all of them: a test passing on the scalar fallback would prove nothing.
//! (The field-for-field comparison with the scalar stages is in `batch`'s unit tests; the
//! longer bulk test of the whole model is `tests/tests/bulk.rs`.)

use ptxfma_model::ctrl::{Ctrl, Kind};
use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::LANES;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline, LATENCY};
use ptxfma_model::reference::ptx;
use ptxfma_model::regs::Out;
use ptxfma_model::stimulus::{self, Family, Rng};
use std::collections::BTreeMap;

fn vectors_per_group() -> usize {
    match std::env::var("PTXFMA_VECTORS") {
        Err(_) => 20_000,
        Ok(v) => v
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| panic!("PTXFMA_VECTORS={v:?} is not a positive vector count")),
    }
}

/// The float families' control words, by family, rounding mode and ftz.
fn groups() -> Vec<(String, Vec<Ctrl>)> {
    let mut out = Vec::new();
    for fam in Family::ALL.into_iter().filter(|&f| f != Family::Vmad) {
        let mut by: BTreeMap<(u8, bool), Vec<Ctrl>> = BTreeMap::new();
        // The six words that round through binary32 first (S13) have no lane form: they run
        // on the scalar stages (`batch::supported`), which the H100 answers check.
        for c in fam.ctrls().into_iter().filter(|c| !c.via_f32) {
            assert_ne!(c.kind, Kind::Vmad);
            by.entry((c.rnd as u8, c.ftz)).or_default().push(c);
        }
        for ((rnd, ftz), ctrls) in by {
            let r = ["rn", "rz", "rm", "rp"][rnd as usize];
            let name = format!("{}.{r}{}", fam.name(), if ftz { ".ftz" } else { "" });
            out.push((name, ctrls));
        }
    }
    out
}

/// Streams `n` vectors of one group through `run_on(backend)`; returns the mismatch lines and
/// how many inputs the lane engine took.
fn run_group(
    backend: Backend,
    name: &str,
    ctrls: &[Ctrl],
    n: usize,
    seed: u64,
) -> (Vec<String>, usize) {
    let mut rng = Rng::new(seed);
    let mut want = Vec::with_capacity(n);
    let mut inputs = Vec::with_capacity(n + LATENCY - 1);
    for i in 0..n {
        let ctrl = ctrls[(i / LANES) % ctrls.len()];
        let (a, b, c) = stimulus::operands_for(&ctrl, &mut rng);
        want.push((ctrl, a, b, c));
        inputs.push(PipeIn {
            valid: true,
            tag: i as u16,
            ctrl: ctrl.encode(),
            a,
            b,
            c,
            reset: false,
        });
    }
    inputs.extend(std::iter::repeat_n(PipeIn::default(), LATENCY - 1));
    let mut outs = vec![Out::default(); inputs.len()];
    let laned = Pipeline::new().run_on(backend, &inputs, &mut outs);
    let mut bad = Vec::new();
    for (&(ctrl, a, b, c), out) in want.iter().zip(&outs[LATENCY - 1..]) {
        let expect = ptx::eval(&ctrl, a, b, c);
        if (!out.valid || out.d != expect) && bad.len() < 8 {
            bad.push(format!(
                "{backend}: {name}: ctrl {:#08x} a {a:#x} b {b:#x} c {c:#x} want {expect:#x} got {:#x} (valid {})",
                ctrl.encode(),
                out.d,
                out.valid
            ));
        }
    }
    (bad, laned)
}

#[test]
fn every_lane_backend_matches_the_references_on_every_float_family() {
    let backends = Backend::lanes_here();
    assert!(backends.contains(&Backend::Portable), "{backends:?}");
    println!("lane backends this CPU runs: {backends:?}");
    let n = vectors_per_group();
    let groups = groups();
    assert!(groups.len() >= 20, "only {} groups", groups.len());
    let mut bad = Vec::new();
    for backend in backends {
        for (k, (name, ctrls)) in groups.iter().enumerate() {
            let (b, laned) = run_group(backend, name, ctrls, n, 0x1A4E_0000 + k as u64);
            bad.extend(b);
            // All but the first and last three inputs, in whole groups.
            let expect = (n - (LATENCY - 1)) / LANES * LANES;
            assert!(
                n < 2 * LANES || laned >= expect,
                "{backend}: {name}: only {laned} of {n} inputs went through the lane engine"
            );
        }
    }
    assert!(
        bad.is_empty(),
        "the lane engine disagrees with the references:\n{}",
        bad.join("\n")
    );
}

/// A reset in the middle of `run`'s input clears the banks as `tick` does, on every backend:
/// the same outputs cycle by cycle and the same banks at the end, with resets landing on
/// operations in flight, inside runs the lane engine would take, and back to back.
#[test]
fn run_with_resets_equals_tick_on_every_backend() {
    let ctrls = Family::F32.ctrls();
    let mut rng = Rng::new(17);
    let n = 40 * LANES;
    let inputs: Vec<PipeIn> = (0..n)
        .map(|i| {
            let ctrl = ctrls[(i / LANES) % ctrls.len()];
            let (a, b, c) = stimulus::operands_for(&ctrl, &mut rng);
            // Resets: an isolated one now and then, and a pair back to back.
            let reset = rng.below(3 * LANES as u64) == 0 || i == 5 * LANES || i == 5 * LANES + 1;
            PipeIn {
                valid: true,
                tag: i as u16,
                ctrl: ctrl.encode(),
                a,
                b,
                c,
                reset,
            }
        })
        .collect();
    let resets = inputs.iter().filter(|p| p.reset).count();
    assert!(resets >= 10, "only {resets} resets");
    let mut ticked = Pipeline::new();
    let want: Vec<Out> = inputs.iter().map(|p| ticked.tick(p)).collect();
    assert!(want.iter().filter(|o| o.valid).count() > n / 2);
    let mut backends = Backend::lanes_here();
    backends.push(Backend::Scalar);
    for backend in backends {
        let mut p = Pipeline::new();
        let mut outs = vec![Out::default(); n];
        let laned = p.run_on(backend, &inputs, &mut outs);
        assert_eq!(outs, want, "{backend}");
        assert_eq!(
            (&p.s1, &p.s2, &p.s3, &p.out),
            (&ticked.s1, &ticked.s2, &ticked.s3, &ticked.out),
            "{backend}"
        );
        if backend.is_lanes() {
            assert!(laned >= n / 4, "{backend}: only {laned} of {n} laned");
        }
    }
}
