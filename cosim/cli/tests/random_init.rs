//! Random initial state: no result may depend on a flop the reset does not clear.
//!
//! The `random_init*` variants (cargo feature `random-init`) are Verilated with `--x-initial
//! unique --x-assign unique`; `run --random-init SEED` draws every flop's initial value before
//! the reset (`+verilator+rand+reset+2`, a seed per chunk). The clean RTL must agree with the
//! model whatever the seed; the injected fault `FAULT_S1_TAG_NO_RESET` (s1_q.tag left out of
//! the reset) must pass with zero initial values, as it would without this test, and diverge
//! with random ones.

use crate::common;

use common::{cosim, scratch};

/// 12,000 operations in chunks of `chunk` on two workers.
fn run(rtl: &str, chunk: &str, extra: &[&str], name: &str) -> (i32, String, String) {
    let dir = scratch(name);
    let waves = dir.to_str().unwrap();
    let mut args = vec![
        "run",
        "--rtl",
        rtl,
        "--count",
        "12000",
        "--chunk-size",
        chunk,
        "--jobs",
        "2",
        "--progress",
        "off",
        "--waves-dir",
        waves,
    ];
    args.extend_from_slice(extra);
    cosim(&args)
}

#[test]
fn clean_rtl_agrees_from_any_random_initial_state() {
    for seed in ["1", "2", "0x5eed"] {
        let (code, out, err) = run("random_init", "3000", &["--random-init", seed], "ri-clean");
        assert_eq!(code, 0, "seed {seed}:\n{out}\n{err}");
        assert!(out.contains("with random initial state"), "{out}");
    }
}

#[test]
fn a_flop_without_reset_passes_from_zero_and_diverges_from_random() {
    // One chunk: a worker's RTL is reset between its chunks, and the tag of the last operation
    // of one chunk would survive into the next (see cosim/README.md).
    let (code, out, err) = run("random_init_fault_reset", "12000", &[], "ri-fault-zero");
    assert_eq!(
        code, 0,
        "zero initial state must hide the fault:\n{out}\n{err}"
    );
    let (code, out, err) = run(
        "random_init_fault_reset",
        "12000",
        &["--random-init", "3"],
        "ri-fault-random",
    );
    assert_eq!(
        code, 1,
        "random initial state must expose the fault:\n{out}\n{err}"
    );
    // The stale tag reaches s2 on the first edge after reset.
    let field = |label: &str| {
        out.lines()
            .find_map(|l| l.trim_start().strip_prefix(label))
            .map(|r| r.split_whitespace().next().unwrap_or("").to_string())
            .unwrap_or_else(|| panic!("no `{label}` line in:\n{out}"))
    };
    assert_eq!(field("stage"), "s2", "{out}");
    assert_eq!(field("field"), "tag", "{out}");
    assert_eq!(field("cycle"), "0", "{out}");
}

#[test]
fn the_same_divergence_for_any_number_of_jobs() {
    let summary = |jobs: &str| {
        let (code, out, err) = cosim(&[
            "run",
            "--rtl",
            "random_init_fault_reset",
            "--random-init",
            "9",
            "--count",
            "8000",
            "--chunk-size",
            "2000",
            "--jobs",
            jobs,
            "--max-divergences",
            "4",
            "--progress",
            "off",
            "--waves-dir",
            scratch(&format!("ri-jobs-{jobs}")).to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{out}\n{err}");
        out.lines()
            .filter(|l| l.starts_with("divergence in chunk") || l.contains("expected"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let one = summary("1");
    assert!(!one.is_empty());
    assert_eq!(one, summary("2"));
}

#[test]
fn random_init_needs_a_variant_built_for_it() {
    let (code, out, err) = run("default", "3000", &["--random-init", "1"], "ri-bad");
    assert_eq!(code, 2, "{out}\n{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--x-initial unique"), "{err}");
}
