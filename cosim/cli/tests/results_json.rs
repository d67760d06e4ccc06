//! The JSON results as a tool reads them: each divergence listed with structured fields (the
//! instruction, control word, operands, tag, expected and actual results, cycles) equal to what
//! its report prints and to an independent decode and evaluation of the instruction; at most
//! `--max-examples` of them per signature while every divergence is counted; and a merge of
//! shards that keeps both.
//!
//! Needs the `alt-design` and `fault-sticky` features (`make test` runs it).

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{read_json, run_in, scratch};
use ptxfma_ptx::Target;
use serde_json::Value;

/// The alt design with its planted fault (`.rp` ignores the sticky bits), checked by its ports:
/// one f32 `.rp` operation in about 60 diverges.
const ALT_FAULT: &[&str] = &[
    "--rtl",
    "alt_fault",
    "--compare",
    "ports",
    "--filter",
    "f32",
];

/// A `0x…` field as a number.
fn hex(v: &Value) -> u64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("not a hex string: {v}"));
    let digits = s.strip_prefix("0x").unwrap_or_else(|| panic!("no 0x: {s}"));
    u64::from_str_radix(digits, 16).unwrap_or_else(|_| panic!("not hex: {s}"))
}

/// The first hex number after `label` in the report's line that starts with `label`.
fn report_hex(report: &str, label: &str, after: &str) -> u64 {
    let line = report
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{report}"));
    let rest = &line[line
        .find(after)
        .unwrap_or_else(|| panic!("no `{after}` in `{line}`"))
        + after.len()..];
    let word = rest
        .trim_start()
        .split(|c: char| !c.is_ascii_hexdigit() && c != 'x')
        .next()
        .unwrap();
    u64::from_str_radix(word.trim_start_matches("0x"), 16)
        .unwrap_or_else(|_| panic!("not hex after `{after}` in `{line}`"))
}

/// The number after `after` in the report's line that starts with `label`.
fn report_num(report: &str, label: &str, after: &str) -> u64 {
    let line = report
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{report}"));
    let rest = &line[line.find(after).unwrap() + after.len()..];
    rest.trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("no number after `{after}` in `{line}`"))
}

/// The instruction decoded by the PTX decoder and evaluated by the reference (rustc_apfloat
/// under PTX's rules), which share no code with the datapath or the report: the control word
/// and the result the JSON must give.
fn decode_and_eval(d: &Value) -> (u32, u64) {
    let instr = d["instruction"].as_str().unwrap();
    let ctrl =
        ptxfma_ptx::decode(instr, Target::SM_100).unwrap_or_else(|e| panic!("{instr}: {e:?}"));
    let d_ = ptxfma_model::reference::ptx::eval(&ctrl, hex(&d["a"]), hex(&d["b"]), hex(&d["c"]));
    (ctrl.encode(), d_)
}

/// Runs `fma-cosim run ARGS --json FILE` in `dir`; returns (stdout, the JSON, its size).
fn run_to_json(dir: &Path, name: &str, args: &[&str]) -> (String, Value, u64) {
    let json = dir.join(format!("{name}.json"));
    let all = [args, &["--json", json.to_str().unwrap()]].concat();
    let (code, out, err) = run_in(dir, &all);
    assert_eq!(code, 1, "{all:?}: the fault was not caught\n{out}{err}");
    let size = std::fs::metadata(&json).unwrap().len();
    (out, read_json(&json), size)
}

/// Per signature, the (chunk, cycle) of its divergences listed.
fn listed(v: &Value) -> BTreeMap<String, Vec<(u64, u64)>> {
    let mut m: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for d in v["divergences"].as_array().unwrap() {
        m.entry(d["signature"].as_str().unwrap().to_string())
            .or_default()
            .push((d["chunk"].as_u64().unwrap(), d["cycle"].as_u64().unwrap()));
    }
    m
}

/// Per signature, the count the JSON gives.
fn counts(v: &Value) -> BTreeMap<String, u64> {
    v["signatures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["signature"].as_str().unwrap().to_string(),
                s["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn ports_divergences_carry_the_values_of_their_reports_and_of_the_reference() {
    let dir = scratch("results-json-ports");
    let args = |examples| {
        [
            ALT_FAULT,
            &[
                "--count",
                "20000",
                "--seed",
                "5",
                "--max-divergences",
                "100000",
                "--max-examples",
                examples,
            ],
        ]
        .concat()
    };
    let (out, v, capped_size) = run_to_json(&dir, "capped", &args("2"));
    assert_eq!(v["schema_version"], 2);
    assert_eq!(v["params"]["max_examples"], 2);
    let divs = v["divergences"].as_array().unwrap();
    assert!(!divs.is_empty());
    for d in divs {
        let report = d["report"].as_str().unwrap();
        assert_eq!(
            (d["stage"].as_str(), d["field"].as_str()),
            (Some("ports"), Some("out_d_o"))
        );
        assert_eq!(d["family"], "f32");
        // The report's values, field for field.
        assert!(
            report.contains(&format!(
                "instruction {}",
                d["instruction"].as_str().unwrap()
            )),
            "{report}"
        );
        assert_eq!(hex(&d["ctrl"]), report_hex(report, "instruction", "ctrl"));
        assert_eq!(hex(&d["tag"]), report_hex(report, "instruction", "tag"));
        assert_eq!(hex(&d["a"]), report_hex(report, "operands", "a ="));
        assert_eq!(hex(&d["b"]), report_hex(report, "b =", "b ="));
        assert_eq!(hex(&d["c"]), report_hex(report, "c =", "c ="));
        assert_eq!(
            hex(&d["expected"]),
            report_hex(report, "result d", "expected")
        );
        assert_eq!(hex(&d["actual"]), report_hex(report, "result d", "retired"));
        assert_eq!(
            d["issue"].as_u64(),
            Some(report_num(report, "cycles", "issued"))
        );
        assert_eq!(
            d["retire"].as_u64(),
            Some(report_num(report, "cycles", "retired"))
        );
        // The tag is the issue cycle's (modulo 2^16), and the design retires at its latency, 6.
        assert_eq!(hex(&d["tag"]), d["issue"].as_u64().unwrap() % 65536);
        assert_eq!(d["retire"].as_u64(), d["issue"].as_u64().map(|i| i + 6));
        // An independent decode and evaluation of the instruction gives the word and the
        // expected result; the design's differs.
        let (ctrl, expected) = decode_and_eval(d);
        assert_eq!(hex(&d["ctrl"]), ctrl as u64, "{}", d["instruction"]);
        assert_eq!(hex(&d["expected"]), expected, "{}", d["instruction"]);
        assert_ne!(hex(&d["actual"]), expected);
        assert!(d["signature"]
            .as_str()
            .unwrap()
            .starts_with("ports out_d_o | f32 | fma.rp"));
    }

    // At most 2 listed per signature, each signature's count exact: the same run listing every
    // divergence lists `count` of each, the capped run's being the first of them.
    let (_, full, full_size) = run_to_json(&dir, "full", &args("1000000"));
    let (capped, every) = (listed(&v), listed(&full));
    let n = counts(&v);
    assert_eq!(
        n.keys().collect::<Vec<_>>(),
        every.keys().collect::<Vec<_>>()
    );
    for (sig, rows) in &every {
        assert_eq!(n[sig], rows.len() as u64, "{sig}");
        assert_eq!(capped[sig], rows[..rows.len().min(2)], "{sig}");
    }
    assert!(n.values().any(|&k| k > 2), "{n:?}");
    let total: u64 = n.values().sum();
    assert_eq!(v["families"][0]["divergences"].as_u64(), Some(total));
    let in_chunks: u64 = v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["divergences"].as_u64().unwrap())
        .sum();
    assert_eq!(in_chunks, total);
    assert_eq!(counts(&full), n);
    // The printed summary gives the same counts and says how many are not listed.
    for (sig, k) in &n {
        assert!(out.contains(&format!("{k:>8}  {sig}")), "{sig} {k}:\n{out}");
    }
    let listed_n = capped.values().map(Vec::len).sum::<usize>() as u64;
    assert!(
        out.contains(&format!(
            "({} divergence(s) counted but not listed: --max-examples 2 per signature)",
            total - listed_n
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("FAILED: {total} divergence(s)")),
        "{out}"
    );
    assert!(capped_size * 10 < full_size, "{capped_size} vs {full_size}");
}

#[test]
fn register_divergences_carry_stage_field_cycle_and_the_result_replayed_alone() {
    let dir = scratch("results-json-registers");
    let (_, v, _) = run_to_json(
        &dir,
        "regs",
        &[
            "--rtl",
            "fault_sticky_rz",
            "--filter",
            "f32",
            "--count",
            "20000",
            "--seed",
            "11",
            "--max-divergences",
            "3",
        ],
    );
    let divs = v["divergences"].as_array().unwrap();
    assert_eq!(divs.len(), 3);
    for d in divs {
        let report = d["report"].as_str().unwrap();
        assert!(["s1", "s2", "s3", "out"].contains(&d["stage"].as_str().unwrap()));
        assert_eq!(d["retire"], Value::Null);
        let fields = d["fields"].as_array().unwrap();
        assert_eq!(fields[0]["name"], d["field"]);
        // `field       NAME [W bits]: expected X, actual Y`, the report's first field line.
        let f0 = &fields[0];
        let w = f0["width"].as_u64().unwrap();
        assert_eq!(report_num(report, "field", "["), w, "{report}");
        assert_eq!(
            hex(&f0["expected"]),
            report_hex(report, "field", "expected")
        );
        assert_eq!(hex(&f0["actual"]), report_hex(report, "field", "actual"));
        for f in fields {
            assert_ne!(f["expected"], f["actual"], "{f}");
            // Zero-padded to the width.
            assert_eq!(
                f["expected"].as_str().unwrap().len() as u64,
                2 + f["width"].as_u64().unwrap().div_ceil(4)
            );
        }
        assert_eq!(
            d["cycle"].as_u64(),
            Some(report_num(report, "cycle", "cycle"))
        );
        assert!(d["cycle"].as_u64() >= d["issue"].as_u64());
        assert_eq!(hex(&d["tag"]), report_hex(report, "instruction", "tag"));
        assert_eq!(hex(&d["ctrl"]), report_hex(report, "instruction", "ctrl"));
        assert_eq!(hex(&d["c"]), report_hex(report, "c =", "c ="));
        assert_eq!(
            hex(&d["expected"]),
            report_hex(report, "result d", "expected")
        );
        assert_eq!(hex(&d["actual"]), report_hex(report, "result d", "actual"));
        let (ctrl, expected) = decode_and_eval(d);
        assert_eq!(hex(&d["ctrl"]), ctrl as u64);
        assert_eq!(hex(&d["expected"]), expected, "{}", d["instruction"]);
        assert!(d["instruction"].as_str().unwrap().contains(".rz"));
    }
}

#[test]
fn a_merge_of_shards_keeps_the_fields_the_examples_and_the_exact_counts() {
    let dir = scratch("results-json-merge");
    let args = [
        ALT_FAULT,
        &[
            "--count",
            "12000",
            "--chunk-size",
            "3000",
            "--max-divergences",
            "1000",
            "--max-examples",
            "3",
        ],
    ]
    .concat();
    let (_, whole, _) = run_to_json(&dir, "whole", &args);
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let _ = run_to_json(
            &dir,
            &format!("s{k}"),
            &[&args[..], &["--shard", &shard]].concat(),
        );
    }
    let merged = dir.join("merged.json");
    let (code, out, err) = common::cosim(&[
        "merge",
        dir.join("s1.json").to_str().unwrap(),
        dir.join("s2.json").to_str().unwrap(),
        "--json",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let merged: Value = read_json(&merged);
    // Each shard lists up to 3 of a signature; the merge the first 3 of the run.
    assert!(counts(&whole).values().any(|&k| k > 3));
    assert!(listed(&whole).values().all(|r| r.len() <= 3));
    assert_eq!(
        common::canonical_result(merged.clone()),
        common::canonical_result(whole)
    );
    assert!(merged["divergences"][0]["expected"].is_string());
}
