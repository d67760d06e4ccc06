//! The injected fault must be caught: the RTL built with `+define+FAULT_STICKY_RZ` (which drops
//! a sticky bit in round-toward-zero operations) is compared with a clean reference, and the
//! report must name the stage and the sticky field, and the waveform must mark the cycle.
//!
//! Needs the `fault-sticky` feature (`cargo test -p ptxfma-cosim --features fault-sticky
//! --test fault`; `make test` runs it).

mod common;

use std::path::PathBuf;

use common::{run_json, scratch, Vcd};
use ptxfma_cosim::results::{DivergenceRow, RunResult};

/// The one divergence of the run's JSON result (`--json`).
fn the_divergence(r: &RunResult) -> &DivergenceRow {
    assert!(!r.passed);
    assert_eq!(r.divergences.len(), 1, "{:?}", r.divergences);
    &r.divergences[0]
}

fn check_fault_caught(golden: &str) {
    let dir = scratch(&format!("fault-{}", golden.replace(':', "-")));
    let json = dir.join("result.json");
    let (code, out, err, result) = run_json::<RunResult>(
        &dir,
        &json,
        &[
            "--rtl",
            "fault_sticky_rz",
            "--golden",
            golden,
            "--filter",
            "f32,f64",
            "--count",
            "20000",
            "--seed",
            "11",
        ],
    );
    assert_eq!(code, 1, "the fault was not caught:\n{out}{err}");
    let r = the_divergence(&result);
    let edge_time = r
        .waveform_mismatch_time
        .expect("the trace time of the divergence's edge");
    // The fault drops a sticky bit, which lives in s1 (alignment) and s2 (the sum).
    assert!(
        r.stage == "s1" || r.stage == "s2",
        "stage {}:\n{out}",
        r.stage
    );
    assert!(r.field.contains("sticky"), "field {}:\n{out}", r.field);
    assert!(
        r.instruction.contains(".rz"),
        "not an .rz operation: {}",
        r.instruction
    );
    assert!(
        r.reproduce
            .iter()
            .any(|c| c.contains("--rtl fault_sticky_rz")),
        "replay command lacks the variant: {:?}",
        r.reproduce
    );
    let waveform = PathBuf::from(r.waveform.as_deref().expect("a waveform"));

    // The waveform exists, and at the reported cycle's edge the marker rises and the two
    // sides' copies of the named field differ.
    assert!(waveform.starts_with(&dir), "{}", waveform.display());
    let mut v = Vcd::open(&waveform);
    let rises: Vec<u64> = v
        .changes(&["cosim"], "mismatch")
        .into_iter()
        .filter(|(_, b)| b == "1")
        .map(|(t, _)| t)
        .collect();
    assert_eq!(rises.first(), Some(&edge_time), "{rises:?}");
    assert_eq!(
        u64::from_str_radix(&v.value_at(&["cosim"], "cycle", edge_time), 2).unwrap(),
        r.cycle
    );
    let mut path: Vec<String> = r.field.split('.').map(str::to_string).collect();
    let name = path.pop().unwrap();
    let bank = format!("{}_q", r.stage);
    let model: Vec<&str> = ["model", bank.as_str()]
        .into_iter()
        .chain(path.iter().map(String::as_str))
        .collect();
    let rtl: Vec<&str> = ["TOP", "ptxfma_top", bank.as_str()]
        .into_iter()
        .chain(path.iter().map(String::as_str))
        .collect();
    let m = v.value_at(&model, &name, edge_time);
    let a = v.value_at(&rtl, &name, edge_time);
    assert_ne!(
        m, a,
        "the waveform shows no difference in {} at {}",
        r.field, edge_time
    );
}

#[test]
fn injected_fault_is_caught_against_the_clean_rtl() {
    check_fault_caught("rtl:default");
}

#[test]
fn injected_fault_is_caught_against_the_model() {
    check_fault_caught("model");
}
