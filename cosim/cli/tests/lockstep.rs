//! The co-simulation machinery, checked with the RTL as its own reference (so these tests hold
//! for any RTL, stub or real) and with a reference that differs on purpose.

use crate::common;

use common::{cosim, num, run_in, scratch, Flip, Vcd};
use ptxfma_cosim_engine::frame::Bank;
use ptxfma_cosim_engine::lockstep::{self, Config, Divergence, Outcome, Stream};
use ptxfma_cosim_engine::reference::{ModelReference, Reference, RtlReference};
use ptxfma_cosim_engine::rtl::{self, variant::VariantMeta, Rtl};
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::stream::{self, Families};
use ptxfma_cosim_outputs::waves;
use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};

/// Runs `inputs` (from a file or the command line, as far as the lockstep knows).
fn run(rtl: &mut Rtl, golden: &mut dyn Reference, inputs: &[PipeIn], cfg: &Config) -> Outcome {
    lockstep::run(rtl, golden, stream::decoded(inputs.to_vec()), cfg).unwrap()
}

fn stream(seed: u64, fam: Family, n: u64) -> Vec<PipeIn> {
    Stream::new(seed, &Families::one(fam), n).inputs().collect()
}

#[test]
fn rtl_against_itself_agrees_on_every_family() {
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = RtlReference::new("default").unwrap();
    for fam in Family::ALL {
        let inputs = stream(5, fam, 3000);
        let cfg = Config {
            batch: 1000,
            ..Config::default()
        };
        let out = run(&mut rtl, &mut g, &inputs, &cfg);
        assert!(
            out.divergences.is_empty(),
            "{}: {:?}",
            fam.name(),
            out.divergences[0]
        );
        assert_eq!(out.vectors, 3000);
        assert_eq!(out.cycles, inputs.len() as u64);
        // Bubbles are mixed in, and the stream ends with an idle drain.
        assert!(inputs.len() > 3000 + LATENCY + 50, "{}", inputs.len());
        assert!(inputs[inputs.len() - LATENCY..].iter().all(|p| !p.valid));
    }
}

/// Resets land at random cycles of the default stream with operations in flight; after each,
/// the RTL and the model agree on every register (the frame of the reset cycle itself is all
/// zero on both sides) and carry on with the rest of the stream.
#[test]
fn reset_mid_stream_clears_both_sides_and_they_carry_on() {
    let n = 60_000;
    let inputs: Vec<PipeIn> = Stream::new(11, &Families::all(), n).inputs().collect();
    let resets: Vec<usize> = (0..inputs.len()).filter(|&i| inputs[i].reset).collect();
    let in_flight = |r: usize| (r.saturating_sub(LATENCY - 1)..r).any(|i| inputs[i].valid);
    assert!(
        resets.iter().filter(|&&r| in_flight(r)).count() >= 3,
        "resets {resets:?}"
    );
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut model = ModelReference::new();
    let cfg = Config {
        batch: 1000,
        retired: true,
        ..Config::default()
    };
    let out = run(&mut rtl, &mut model, &inputs, &cfg);
    assert!(out.divergences.is_empty(), "{:?}", out.divergences[0]);
    // Operations presented in a reset cycle are not counted (nor executed).
    assert_eq!(out.vectors, n);
    // Whatever was in flight at a reset never retires; everything else does.
    let lost: usize = resets
        .iter()
        .map(|&r| {
            (r.saturating_sub(LATENCY - 1)..r)
                .filter(|&i| inputs[i].valid)
                .count()
        })
        .sum();
    assert!(lost > 0);
    assert_eq!(out.retired.len() as u64 + lost as u64, n);
}

#[test]
fn stream_is_replayable_by_index() {
    let all = stream(9, Family::Vmad, 400);
    for i in [0u64, 1, 77, 399, all.len() as u64 - 1] {
        let fams = Families::one(Family::Vmad);
        assert_eq!(Stream::nth(9, &fams, 400, i), Some(all[i as usize]));
    }
    let fams = Families::one(Family::Vmad);
    assert_eq!(Stream::nth(9, &fams, 400, all.len() as u64), None);
    // Tags number the cycles.
    assert!(all.iter().enumerate().all(|(i, p)| p.tag == i as u16));
}

#[test]
fn a_flipped_field_is_pinned_to_its_stage_field_and_operation() {
    // The operation presented in cycle 127 (the last of the second 64-cycle batch) is in s2
    // after the edge of cycle 128, the first cycle of the next batch: its input must be found
    // in the history of the previous batch.
    let inputs = stream(3, Family::F64, 500);
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = Flip::new(&[(Bank::S2, "lane1.eref", 127)]);
    let cfg = Config {
        batch: 64,
        max_divergences: 1,
        window: 32,
        ..Config::default()
    };
    let out = run(&mut rtl, &mut g, &inputs, &cfg);
    assert_eq!(out.divergences.len(), 1);
    let Divergence::Registers {
        cycle,
        bank,
        banks,
        fields,
        issue,
        input,
        family,
        ..
    } = &out.divergences[0]
    else {
        panic!("{:?}", out.divergences[0]);
    };
    assert_eq!(*cycle, 128);
    assert_eq!(*bank, Bank::S2);
    assert_eq!(*banks, vec![Bank::S2]);
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].name, "lane1.eref");
    assert_eq!(fields[0].width, 14);
    assert_eq!(fields[0].expected[0] ^ fields[0].actual[0], 1);
    assert_eq!(*issue, Some(127));
    assert_eq!(*input, Some(inputs[127]));
    assert_eq!(*family, Some(Family::F64));
    // The run stopped right there, and kept the last 32 cycles as the waveform window.
    assert_eq!(out.cycles, 129);
    let valid = inputs[..129].iter().filter(|p| p.valid).count() as u64;
    assert_eq!(out.vectors, valid);
    assert_eq!(out.window_start, 97);
    assert_eq!(out.window, inputs[97..=128].to_vec());
}

#[test]
fn earliest_bank_is_named_first() {
    // In cycle 52, s1 holds operation 52 and s3 holds operation 50: both differ.
    let inputs = stream(4, Family::F32, 200);
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = Flip::new(&[(Bank::S3, "lane0.sign", 50), (Bank::S1, "lane0.sign_p", 52)]);
    let out = run(&mut rtl, &mut g, &inputs, &Config::default());
    let d = &out.divergences[0];
    let Divergence::Registers { banks, .. } = d else {
        panic!("{d:?}");
    };
    assert_eq!(d.cycle(), 52);
    assert_eq!(d.stage(), Bank::S1);
    assert_eq!(*banks, vec![Bank::S1, Bank::S3]);
    assert_eq!(d.first_field(), "lane0.sign_p");
    assert_eq!(d.issue(), Some(52));
}

#[test]
fn divergences_count_operations_not_cycles() {
    // Operation 10 goes wrong in s1 and again in s2 (one divergence); operation 40 in out_q;
    // operation 60 only on the output ports.
    let inputs = stream(6, Family::Vmad, 300);
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = Flip::new(&[
        (Bank::S1, "vm.vm_inv", 10),
        (Bank::S2, "vm_tmp", 10),
        (Bank::Out, "d", 40),
        (Bank::Ports, "out_d_o", 60),
    ]);
    let cfg = Config {
        max_divergences: 10,
        ..Config::default()
    };
    let out = run(&mut rtl, &mut g, &inputs, &cfg);
    let got: Vec<(u64, Bank, Option<u64>)> = out
        .divergences
        .iter()
        .map(|d| (d.cycle(), d.stage(), d.issue()))
        .collect();
    assert_eq!(
        got,
        vec![
            (10, Bank::S1, Some(10)),
            (43, Bank::Out, Some(40)),
            (63, Bank::Ports, Some(60)),
        ]
    );
    assert_eq!(out.divergences[2].first_field(), "out_d_o");
    assert_eq!(out.cycles, inputs.len() as u64);
}

#[test]
fn divergence_waveform_has_both_sides_and_the_marker() {
    let inputs = stream(3, Family::F64, 500);
    let mut rtl = Rtl::new("default", false).unwrap();
    let mut g = Flip::new(&[(Bank::S2, "lane1.eref", 127)]);
    let out = run(&mut rtl, &mut g, &inputs, &Config::default());
    let dir = scratch("waves-flip");
    let path = dir.join("flip.vcd");
    let w = waves::write_window(&path, "default", &g, &out.window, out.window_start).unwrap();
    assert_eq!(w.mismatches, vec![128]);
    assert_eq!(w.first_cycle, 97);

    let mut v = Vcd::open(&path);
    assert!(v.has_scope(&["TOP", "ptxfma_top"]));
    assert!(v.has_scope(&["model", "s2_q", "lane1"]));
    assert!(v.has_scope(&["cosim"]));

    // The marker rises exactly once, at a rising clock edge, and falls one cycle later.
    let marker: Vec<(u64, String)> = v.changes(&["cosim"], "mismatch");
    let rises: Vec<u64> = marker
        .iter()
        .filter(|(_, b)| b == "1")
        .map(|c| c.0)
        .collect();
    assert_eq!(rises.len(), 1, "{marker:?}");
    let t = rises[0];
    assert_eq!(t, w.edge_time(128));
    let clk = v.changes(&["TOP"], "clk_i");
    assert!(
        clk.contains(&(t, "1".to_string())),
        "no rising clock edge at {t}"
    );
    assert!(marker.contains(&(t + waves::names::PERIOD, "0".to_string())));
    assert_eq!(num(&v.value_at(&["cosim"], "cycle", t)), 128);

    // Both sides hold operation 127 in s2; their eref differs in the flipped bit only.
    assert_eq!(num(&v.value_at(&["model", "s2_q"], "tag", t)), 127);
    assert_eq!(
        num(&v.value_at(&["TOP", "ptxfma_top", "s2_q"], "tag", t)),
        127
    );
    let m = num(&v.value_at(&["model", "s2_q", "lane1"], "eref", t));
    let r = num(&v.value_at(&["TOP", "ptxfma_top", "s2_q", "lane1"], "eref", t));
    assert_eq!(m ^ r, 1);
    // One cycle earlier the two sides agree.
    let before = t - waves::names::PERIOD;
    assert_eq!(
        v.value_at(&["model", "s1_q"], "tag", before),
        v.value_at(&["TOP", "ptxfma_top", "s1_q"], "tag", before)
    );
    // The window: cycles 97..=128 and the drain, then nothing.
    let cycles = v.changes(&["cosim"], "cycle");
    let numbered: Vec<u64> = cycles
        .iter()
        .filter(|c| !c.1.contains('x'))
        .map(|c| num(&c.1))
        .collect();
    assert_eq!(numbered.first(), Some(&97));
    assert_eq!(numbered.last(), Some(&(128 + LATENCY as u64)));
}

#[test]
fn ports_drifting_from_the_model_are_named() {
    let good = rtl::variant("default").unwrap();
    rtl::check_ports(good).unwrap();
    let ports: Vec<(&'static str, u32)> = good
        .ports
        .iter()
        .map(|&(n, w)| if n == "s2_o" { (n, w - 1) } else { (n, w) })
        .collect();
    let bad = VariantMeta {
        name: "drifted",
        defines: &[],
        flags: &[],
        ports: Box::leak(ports.into_boxed_slice()),
        registers: true,
    };
    let e = rtl::check_ports(&bad).unwrap_err().to_string();
    assert!(e.contains("s2_o is 635 bits"), "{e}");
    assert!(rtl::variant("nope").is_err());
}

#[test]
fn cli_run_prints_a_table_per_family() {
    let dir = scratch("cli-run");
    let count = (1000 * Family::ALL.len()).to_string();
    let (code, out, err) = run_in(&dir, &["--count", &count, "--golden", "rtl:default"]);
    assert_eq!(code, 0, "{out}{err}");
    // The default stream interleaves every family: each gets about its seventh.
    let mut sum = 0;
    for fam in Family::ALL {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(fam.name()))
            .unwrap_or_else(|| panic!("no row for {}: {out}", fam.name()));
        let cols: Vec<&str> = row.split_whitespace().collect();
        let n: u64 = cols[1].parse().unwrap();
        assert!((700..1300).contains(&n), "{row}");
        assert_eq!(cols[2], "0", "{row}");
        sum += n;
    }
    assert_eq!(sum, 1000 * Family::ALL.len() as u64);
    assert!(out.contains("PASSED"));
}

#[test]
fn cli_replay_of_an_agreeing_operation() {
    let (code, out, err) = cosim(&[
        "replay",
        "--ctrl",
        "0x9",
        "--a",
        "0x3f800000",
        "--b",
        "0x40000000",
        "--c",
        "0",
        "--golden",
        "rtl:default",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("no divergence"), "{out}");
    let (code, out, err) = cosim(&[
        "replay",
        "--seed",
        "2",
        "--filter",
        "sm1x",
        "--count",
        "100",
        "--index",
        "50",
        "--window",
        "8",
        "--golden",
        "rtl:default",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("cycles 42..50"), "{out}");
}

#[test]
fn tracing_needs_a_tracing_simulator_and_a_writable_path() {
    let dir = scratch("trace-open");
    let mut plain = Rtl::new("default", false).unwrap();
    let e = plain
        .open_trace(&dir.join("x.vcd"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("without tracing"), "{e}");
    let mut traced = Rtl::new("default", true).unwrap();
    let e = traced
        .open_trace(&dir.join("no-such-dir").join("x.vcd"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot open"), "{e}");
    // A failed open leaves the simulator usable.
    let mut f = vec![0u32; ptxfma_cosim_engine::frame::WORDS];
    traced.run(&[PipeIn::default()], &mut f).unwrap();
}
