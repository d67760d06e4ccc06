//! Regressions as a farm runs them: chunks over workers, shards, JSON results, `merge`, JUnit.
//! The injected fault (`fault_sticky_rz`) gives divergences to find, so this needs the
//! `fault-sticky` feature (`make test` runs it).

use crate::common;

use std::path::{Path, PathBuf};

use common::{cosim, read_json, run_in, run_json, scratch};
use serde_json::Value;

/// The instruction families of the default stream (each has its JUnit suite).
const FAMILIES: usize = ptxfma_model::stimulus::Family::ALL.len();

/// Runs `fma-cosim run` with `args` plus `--json` into `dir`; returns (exit code, stdout, JSON).
fn run_named(dir: &Path, name: &str, args: &[&str]) -> (i32, String, Value) {
    let json = dir.join(format!("{name}.json"));
    let (code, out, _, v) = run_json(&dir.join(format!("{name}-waves")), &json, args);
    (code, out, v)
}

/// The JSON without what legitimately differs between equal runs: times, worker count,
/// shard, and the waveform directory.
fn canonical(v: &Value) -> Value {
    common::canonical_result(v.clone())
}

/// Report text contains the waves directory's path in the waveform line, and the reproduce
/// lines name it (`--waves-dir DIR`, last on the line or before the note); drop both.
fn without_paths(mut v: Value) -> Value {
    let no_dir = |l: &str| match l.split_once(" --waves-dir ") {
        Some((head, rest)) => match rest.split_once("   # ") {
            Some((_, note)) => format!("{head}   # {note}"),
            None => head.to_string(),
        },
        None => l.to_string(),
    };
    if let Some(ds) = v["divergences"].as_array_mut() {
        for d in ds {
            let r = d["report"].as_str().unwrap_or_default().to_string();
            let kept: Vec<String> = r
                .lines()
                .filter(|l| !l.contains("waveform"))
                .map(no_dir)
                .collect();
            d["report"] = Value::String(kept.join("\n"));
            if let Some(lines) = d["reproduce"].as_array_mut() {
                for l in lines {
                    *l = Value::String(no_dir(l.as_str().unwrap_or_default()));
                }
            }
        }
    }
    v
}

const FAULT: &[&str] = &[
    "--rtl",
    "fault_sticky_rz",
    "--filter",
    "f64,f32,vmad",
    "--count",
    "30000",
    "--chunk-size",
    "10",
    "--seed",
    "11",
];

#[test]
fn the_summary_and_first_divergence_do_not_depend_on_jobs() {
    let dir = scratch("jobs");
    let mut seen: Option<(Value, String)> = None;
    for jobs in ["1", "2", "3"] {
        let mut args = FAULT.to_vec();
        args.extend_from_slice(&["--jobs", jobs, "--max-divergences", "7"]);
        let (code, out, v) = run_named(&dir, &format!("j{jobs}"), &args);
        assert_eq!(code, 1, "{out}");
        let divs = v["divergences"].as_array().unwrap();
        assert!(divs.len() >= 7, "{out}");
        // The cut spans several chunks, so workers raced for them.
        let chunks_hit: std::collections::BTreeSet<u64> =
            divs.iter().map(|d| d["chunk"].as_u64().unwrap()).collect();
        assert!(chunks_hit.len() >= 3, "{chunks_hit:?}");
        // Chunk order, then cycle order, whatever the job count.
        let first: Vec<(u64, u64)> = divs
            .iter()
            .map(|d| (d["chunk"].as_u64().unwrap(), d["cycle"].as_u64().unwrap()))
            .collect();
        let mut sorted = first.clone();
        sorted.sort();
        assert_eq!(first, sorted, "divergences out of order");
        let table: String = out
            .lines()
            .skip_while(|l| !l.starts_with("family"))
            .collect::<Vec<_>>()
            .join("\n");
        // Rates differ between runs: compare the table without its vectors/s column.
        let table: String = table
            .lines()
            .map(|l| {
                let mut c: Vec<&str> = l.split_whitespace().collect();
                let row = c.first().is_some_and(|w| {
                    *w == "total" || ptxfma_cosim_engine::stim::Family::parse(w).is_some()
                });
                if row && c.len() >= 4 {
                    c.remove(3);
                }
                c.join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n");
        let v = without_paths(canonical(&v));
        match &seen {
            None => seen = Some((v, table)),
            Some((v1, t1)) => {
                assert_eq!(&v, v1, "--jobs {jobs} differs from --jobs 1");
                assert_eq!(&table, t1, "--jobs {jobs} prints another summary");
            }
        }
    }
}

#[test]
fn a_passing_run_is_the_same_for_every_job_count() {
    let dir = scratch("jobs-pass");
    let args = ["--count", "14000", "--chunk-size", "1000", "--seed", "5"];
    let (_, _, one) = run_named(&dir, "one", &[&args[..], &["--jobs", "1"]].concat());
    let (_, _, two) = run_named(&dir, "two", &[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(canonical(&one), canonical(&two));
    assert_eq!(one["passed"], true);
    assert_eq!(one["chunks"].as_array().unwrap().len(), 14);
    let vectors: u64 = one["families"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["vectors"].as_u64().unwrap())
        .sum();
    assert_eq!(vectors, 14000);
}

/// Runs `n` shards of `args` and merges them; returns the merge's (code, stdout, stderr) and
/// the merged JSON path.
fn shards_and_merge(dir: &Path, args: &[&str], n: u32) -> (Vec<PathBuf>, PathBuf, PathBuf) {
    let mut files = Vec::new();
    for k in 1..=n {
        let shard = format!("{k}/{n}");
        let mut a = args.to_vec();
        a.extend_from_slice(&["--shard", &shard, "--jobs", "1"]);
        let name = format!("shard{k}");
        let _ = run_named(dir, &name, &a);
        files.push(dir.join(format!("{name}.json")));
    }
    (files, dir.join("merged.json"), dir.join("junit.xml"))
}

fn merge(files: &[PathBuf], json: &Path, junit: &Path) -> (i32, String, String) {
    let mut a: Vec<String> = vec!["merge".into()];
    a.extend(files.iter().map(|f| f.display().to_string()));
    a.extend([
        "--json".into(),
        json.display().to_string(),
        "--junit".into(),
        junit.display().to_string(),
    ]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    cosim(&a)
}

#[test]
fn shards_merge_to_exactly_the_unsharded_run() {
    let dir = scratch("shards-pass");
    let args = ["--count", "21000", "--chunk-size", "2000", "--seed", "3"];
    let (_, _, whole) = run_named(&dir, "whole", &[&args[..], &["--jobs", "2"]].concat());
    let (files, json, junit) = shards_and_merge(&dir, &args, 4);
    // Each shard holds a part; together, every chunk once.
    let mut counts = 0;
    for f in &files {
        let v: Value = read_json(f);
        let n = v["chunks"].as_array().unwrap().len();
        assert!(n > 0 && n < 14, "{f:?} holds {n} chunks");
        counts += n;
    }
    assert_eq!(counts, whole["chunks"].as_array().unwrap().len());
    let (code, out, err) = merge(&files, &json, &junit);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASSED"), "{out}");
    let merged: Value = read_json(&json);
    assert_eq!(canonical(&merged), canonical(&whole));
    assert_eq!(merged["shard"], Value::Null);
    let x = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(x.matches("<testsuite ").count(), FAMILIES, "{x}");
    // A testcase per chunk in each family's suite: every chunk of the interleaved stream holds
    // operations of every family.
    let chunks = whole["chunks"].as_array().unwrap();
    let cases: usize = chunks
        .iter()
        .map(|c| {
            c["by_family"]
                .as_object()
                .unwrap()
                .values()
                .filter(|n| n.as_u64().unwrap() > 0)
                .count()
        })
        .sum();
    assert_eq!(cases, FAMILIES * chunks.len());
    assert_eq!(x.matches("<testcase ").count(), cases);
    assert!(!x.contains("<failure"));
}

#[test]
fn merged_fault_run_carries_every_divergence_into_junit() {
    let dir = scratch("shards-fault");
    let mut args = FAULT.to_vec();
    args.extend_from_slice(&["--max-divergences", "5"]);
    let (code, _, whole) = run_named(&dir, "whole", &[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(code, 1);
    let (files, json, junit) = shards_and_merge(&dir, &args, 3);
    let (code, out, err) = merge(&files, &json, &junit);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAILED"), "{out}");
    let merged: Value = read_json(&json);
    assert_eq!(
        without_paths(canonical(&merged)),
        without_paths(canonical(&whole))
    );
    // Every signature's first occurrence has a waveform on disk.
    for s in merged["signatures"].as_array().unwrap() {
        let w = s["waveform"].as_str().expect("a waveform per signature");
        let text = std::fs::read_to_string(w).unwrap();
        assert!(text.contains("$enddefinitions"), "{w}");
    }
    // JUnit: a failure per divergence, each carrying its report.
    let x = std::fs::read_to_string(&junit).unwrap();
    let n = merged["divergences"].as_array().unwrap().len();
    assert_eq!(x.matches("<failure ").count(), n, "{x}");
    assert!(x.contains("lane0.align_sticky"), "{x}");
    assert!(x.contains("DIVERGENCE: RTL `fault_sticky_rz`"), "{x}");
    let failures: usize = x
        .split("<testsuite ")
        .skip(1)
        .map(|s| {
            let f = s.split("failures=\"").nth(1).unwrap();
            f[..f.find('"').unwrap()].parse::<usize>().unwrap()
        })
        .sum();
    assert_eq!(failures, n);
}

#[test]
fn merge_names_missing_duplicated_and_foreign_shards() {
    let dir = scratch("shards-bad");
    let args = ["--count", "7000", "--chunk-size", "1000", "--seed", "4"];
    let (files, json, junit) = shards_and_merge(&dir, &args, 3);
    // Missing: named, exit 2, and what is there is still written, the gap as a JUnit error.
    let (code, _, err) = merge(&files[..2], &json, &junit);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shard 3/3 missing"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let v: Value = read_json(&json);
    assert_eq!(v["passed"], false);
    assert_eq!(v["problems"][0], "shard 3/3 missing");
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(
        x.contains("<error type=\"incomplete\" message=\"shard 3/3 missing\""),
        "{x}"
    );
    std::fs::remove_file(&json).unwrap();
    // Duplicated.
    let dup = vec![
        files[0].clone(),
        files[1].clone(),
        files[1].clone(),
        files[2].clone(),
    ];
    let (code, _, err) = merge(&dup, &json, &junit);
    assert_eq!(code, 2);
    assert!(err.contains("shard 2/3 given twice"), "{err}");
    assert!(!json.exists(), "a refused merge wrote {json:?}");
    // From another run.
    let other_dir = scratch("shards-bad-other");
    let other = ["--count", "7000", "--chunk-size", "1000", "--seed", "5"];
    let (others, _, _) = shards_and_merge(&other_dir, &other, 3);
    let mixed = vec![files[0].clone(), others[1].clone(), files[2].clone()];
    let (code, _, err) = merge(&mixed, &json, &junit);
    assert_eq!(code, 2);
    assert!(err.contains("seed = 4") && err.contains("5 in"), "{err}");
    // Not a results file.
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{\"a\": 1}").unwrap();
    let (code, _, err) = merge(&[junk], &json, &junit);
    assert_eq!(code, 2);
    assert!(err.contains("not a fma-cosim results file"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A short run of the faulty RTL on binary32 operations: it finds divergences.
const FAULTY_F32: [&str; 6] = [
    "--rtl",
    "fault_sticky_rz",
    "--filter",
    "f32",
    "--count",
    "3000",
];

#[test]
fn run_writes_junit_directly() {
    let dir = scratch("run-junit");
    let junit = dir.join("j.xml");
    let args = [&FAULTY_F32[..], &["--junit", junit.to_str().unwrap()]].concat();
    let (code, out, err) = run_in(&dir, &args);
    assert_eq!(code, 1, "{out}{err}");
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(x.starts_with("<?xml"), "{x}");
    assert!(x.contains("<testsuite name=\"fma-cosim.f32\""), "{x}");
    assert_eq!(x.matches("<failure ").count(), 1, "{x}");
}

/// Every waveform in `dir` (VCD or FST) is whole (it parses, and a VCD ends after the drain),
/// and nothing temporary is left.
fn waveforms_are_whole(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "temporary left behind: {name}");
        if name.ends_with(".vcd") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            assert!(text.contains("$enddefinitions"), "{name} is cut");
            assert!(text.ends_with('\n'), "{name} is cut");
        }
        if name.ends_with(".vcd") || name.ends_with(".fst") {
            let _ = common::Vcd::open(&e.path());
            n += 1;
        }
    }
    n
}

#[test]
fn ctrl_c_at_any_time_leaves_no_cut_waveform_and_no_temporary() {
    let dir = scratch("sigint-waves");
    // (ms before Ctrl-C, ms before a second one). The run compares for about 0.2 s, then
    // writes the waveforms of its 11 signatures one after the other (about 0.1 s each on two
    // cores), then the JSON and JUnit files: the presses are spread over all of it, a second
    // one mostly while a waveform (VCD, or FST every third run) is under its temporary name.
    // 0 ms: both signals at once (they may count as one).
    let presses = [
        (80, None),
        (120, Some(5)),
        (160, None),
        (220, Some(5)),
        (260, Some(0)),
        (300, None),
        (340, Some(1)),
        (400, Some(5)),
        (450, Some(20)),
        (520, Some(2)),
        (600, Some(0)),
        (680, Some(5)),
        (760, Some(1)),
        (850, Some(10)),
        (950, Some(3)),
        (1100, Some(5)),
    ];
    let mut seen_130 = 0;
    for (k, (delay_ms, second_ms)) in presses.into_iter().enumerate() {
        let waves = dir.join(format!("w{k}"));
        std::fs::create_dir_all(&waves).unwrap();
        let json = waves.join("r.json");
        let junit = waves.join("r.xml");
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fma-cosim"));
        cmd.args([
            "run",
            "--progress",
            "off",
            "--rtl",
            "fault_sticky_rz",
            "--filter",
            "f32,f64,f32x2",
            "--count",
            "300000",
            "--max-divergences",
            "3000",
            "--window",
            "400",
        ])
        .arg("--waves-dir")
        .arg(&waves)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
        if k % 3 == 2 {
            cmd.arg("--fst");
        }
        let child = cmd.spawn().unwrap();
        let what = format!("Ctrl-C after {delay_ms} ms, again after {second_ms:?} ms");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        if let Some(ms) = second_ms {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(
            matches!(code, Some(1) | Some(130)),
            "{what}: {:?} {err}",
            out.status
        );
        assert!(!err.contains("panicked"), "{what}: {err}");
        if code == Some(130) {
            seen_130 += 1;
        }
        let n = waveforms_are_whole(&waves);
        eprintln!(
            "{what}: {code:?}, {n} waveform(s), results {}",
            json.exists()
        );
        // The results are written together, and say what the exit status says.
        assert_eq!(json.exists(), junit.exists(), "{what}");
        if json.exists() {
            let v: serde_json::Value = read_json(&json);
            assert_eq!(v["interrupted"], code == Some(130), "{what}");
            let xml = std::fs::read_to_string(&junit).unwrap();
            assert!(xml.trim_end().ends_with("</testsuites>"), "{what}: {xml}");
        }
    }
    assert!(
        seen_130 >= 2,
        "only {seen_130} runs were interrupted: the delays are too long"
    );
}
