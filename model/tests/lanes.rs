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
use ptxfma_model::lanes::Backend;
use ptxfma_model::pipeline::LANES;
use ptxfma_model::reference::ptx;
use ptxfma_model::regs::Out;
use ptxfma_model::stimulus::{self, Family, Rng};
use ptxfma_model::{PipeIn, Pipeline, LATENCY};
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
        for c in fam.ctrls() {
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
                "{backend}: {name}: `{}` want {expect:#x} got {:#x} (valid {})",
                stimulus::eval_line(&ctrl, a, b, c),
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
