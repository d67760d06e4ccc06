//! The injected fault must be caught: the RTL built with `+define+FAULT_STICKY_RZ` (which drops
//! a sticky bit in round-toward-zero operations) is compared with a clean reference, and the
//! report must name the stage and the sticky field, and the waveform must mark the cycle.
//!
//! Needs the `fault-sticky` feature (`cargo test -p ptxfma-cosim --features fault-sticky
//! --test fault`; `make test` runs it).

mod common;

use std::path::PathBuf;

use common::{cosim, scratch, Vcd};

/// What the report says, read back from its text.
struct Report {
    cycle: u64,
    stage: String,
    field: String,
    instruction: String,
    waveform: PathBuf,
    edge_time: u64,
}

fn parse(out: &str) -> Report {
    let line = |label: &str| -> String {
        let l = out
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"));
        l.trim_start()[label.len()..].trim().to_string()
    };
    let cycle = line("cycle")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let stage = line("stage").split_whitespace().next().unwrap().to_string();
    let field = line("field").split_whitespace().next().unwrap().to_string();
    let wave = line("waveform");
    let edge = out
        .split("cosim.mismatch rises at time ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no marker time in:\n{out}"));
    Report {
        cycle,
        stage,
        field,
        instruction: line("instruction"),
        waveform: PathBuf::from(wave),
        edge_time: edge.parse().unwrap(),
    }
}

fn check_fault_caught(golden: &str) {
    let dir = scratch(&format!("fault-{}", golden.replace(':', "-")));
    let (code, out, err) = cosim(&[
        "run",
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
        "--waves-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "the fault was not caught:\n{out}{err}");
    let r = parse(&out);
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
    assert!(out.contains("FAILED: 1 divergence"), "{out}");
    assert!(
        out.contains("--rtl fault_sticky_rz"),
        "replay command lacks the variant:\n{out}"
    );

    // The waveform exists, and at the reported cycle's edge the marker rises and the two
    // sides' copies of the named field differ.
    assert!(r.waveform.starts_with(&dir), "{}", r.waveform.display());
    let mut v = Vcd::open(&r.waveform);
    let rises: Vec<u64> = v
        .changes(&["cosim"], "mismatch")
        .into_iter()
        .filter(|(_, b)| b == "1")
        .map(|(t, _)| t)
        .collect();
    assert_eq!(rises.first(), Some(&r.edge_time), "{rises:?}");
    assert_eq!(
        u64::from_str_radix(&v.value_at(&["cosim"], "cycle", r.edge_time), 2).unwrap(),
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
    let m = v.value_at(&model, &name, r.edge_time);
    let a = v.value_at(&rtl, &name, r.edge_time);
    assert_ne!(
        m, a,
        "the waveform shows no difference in {} at {}",
        r.field, r.edge_time
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
