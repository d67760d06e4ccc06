//! `merge` believes no number of a shard it can recompute: real shards (`run --shard --json`)
//! edited one way each are refused in one line naming the file and the field, exit 2, with no
//! output written; a shard edited to agree with itself (every count zeroed) passes that check
//! and is caught by `merge --verify`, which runs some of its chunks again; untouched shards
//! merge as before, their totals the sums of their chunks.
//!
//! The fault run needs the `fault-sticky` feature (`make test` runs it).

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{cosim, read_json, run_in, scratch};
use serde_json::{json, Value};

/// A passing run: two families, 4 chunks in 2 shards.
const PASS: &[&str] = &[
    "--count",
    "8000",
    "--chunk-size",
    "2000",
    "--filter",
    "f32,f64",
    "--seed",
    "3",
    "--jobs",
    "1",
];

/// A failing run: the injected fault on f32, about one operation in 60 divergent, every
/// divergence counted, 2 examples per signature listed.
const FAULT: &[&str] = &[
    "--rtl",
    "fault_sticky_rz",
    "--filter",
    "f32",
    "--count",
    "8000",
    "--chunk-size",
    "2000",
    "--max-divergences",
    "100000",
    "--max-examples",
    "2",
    "--jobs",
    "1",
];

/// Runs `args` as shards 1/n..n/n (and whole, as `whole.json`) into a scratch directory.
fn shards(name: &str, args: &[&str], n: u32, code: i32) -> Vec<PathBuf> {
    let dir = scratch(name);
    let mut files = Vec::new();
    for k in 0..=n {
        let json = dir.join(if k == 0 {
            "whole.json".to_string()
        } else {
            format!("shard{k}.json")
        });
        let shard = format!("{k}/{n}");
        let mut a = args.to_vec();
        if k > 0 {
            a.extend_from_slice(&["--shard", &shard]);
        }
        a.extend_from_slice(&["--json", json.to_str().unwrap()]);
        let (c, out, err) = run_in(&dir.join("waves"), &a);
        assert_eq!(c, code, "{a:?}\n{out}{err}");
        files.push(json);
    }
    files
}

fn pass_shards() -> &'static Vec<PathBuf> {
    static S: OnceLock<Vec<PathBuf>> = OnceLock::new();
    S.get_or_init(|| shards("merge-checks-pass", PASS, 2, 0))
}

fn fault_shards() -> &'static Vec<PathBuf> {
    static S: OnceLock<Vec<PathBuf>> = OnceLock::new();
    S.get_or_init(|| shards("merge-checks-fault", FAULT, 2, 1))
}

/// `merge FILES... EXTRA --json OUT`: (exit code, stdout, stderr, OUT).
fn merge(dir: &Path, files: &[PathBuf], extra: &[&str]) -> (i32, String, String, PathBuf) {
    let out = dir.join("merged.json");
    let _ = std::fs::remove_file(&out);
    let mut a: Vec<String> = vec!["merge".into()];
    a.extend(files.iter().map(|f| f.display().to_string()));
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend(["--json".into(), out.display().to_string()]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = cosim(&a);
    (code, stdout, stderr, out)
}

/// The shards (`files[1..]`) with those of `edited` (by shard number) edited by `edit`,
/// written into scratch directory `name`.
fn edited(
    name: &str,
    files: &[PathBuf],
    which: &[usize],
    edit: impl Fn(&mut Value),
) -> Vec<PathBuf> {
    let dir = scratch(name);
    files[1..]
        .iter()
        .enumerate()
        .map(|(k, f)| {
            if !which.contains(&(k + 1)) {
                return f.clone();
            }
            let mut v: Value = read_json(f);
            edit(&mut v);
            let p = dir.join(format!("edited{}.json", k + 1));
            std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
            p
        })
        .collect()
}

/// Merging `files` is refused: exit 2, one line on stderr naming the edited file and each of
/// `says`, nothing on stdout, no output file.
fn refused(name: &str, files: &[PathBuf], edited: &Path, says: &[&str]) {
    let dir = scratch(&format!("{name}-out"));
    let (code, out, err, json) = merge(&dir, files, &[]);
    assert_eq!(code, 2, "{name}: {out}{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    assert!(err.contains(edited.to_str().unwrap()), "{name}: {err}");
    for s in says {
        assert!(err.contains(s), "{name}: wanted `{s}` in {err}");
    }
    assert!(!err.contains("panicked"), "{name}: {err}");
    assert!(out.is_empty(), "{name}: {out}");
    assert!(!json.exists(), "{name}: a refused merge wrote {json:?}");
}

/// Edits shard `which` of `files` (or every shard, for a parameter: otherwise the shards
/// would only be from two runs) and expects the merge refused naming the first edited file.
fn refuses(
    name: &str,
    files: &[PathBuf],
    which: &[usize],
    says: &[&str],
    edit: impl Fn(&mut Value),
) {
    let e = edited(&format!("merge-checks-{name}"), files, which, edit);
    refused(name, &e, &e[which[0] - 1], says);
}

/// The first chunk row of a shard with at least one divergence.
fn divergent_chunk(v: &Value) -> usize {
    v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["divergences"].as_u64().unwrap() > 0)
        .expect("a chunk with divergences")
}

#[test]
fn a_shard_whose_numbers_disagree_is_refused_naming_file_and_field() {
    let pass = pass_shards();
    refuses(
        "vectors",
        pass,
        &[2],
        &["chunks[0].vectors", "chunk 1"],
        |v| v["chunks"][0]["vectors"] = json!(999_999_999u64),
    );
    refuses(
        "by-family",
        pass,
        &[1],
        &["chunks[0].by_family", "chunk 0"],
        |v| {
            let n = v["chunks"][0]["by_family"]["f32"].as_u64().unwrap();
            v["chunks"][0]["by_family"]["f32"] = json!(n + 100_000);
        },
    );
    refuses("family-row", pass, &[1], &["families[0]"], |v| {
        let n = v["families"][0]["vectors"].as_u64().unwrap();
        v["families"][0]["vectors"] = json!(n + 100_000);
    });
    refuses(
        "total-row",
        pass,
        &[2],
        &["chunks[1].by_family", "chunk 3"],
        |v| {
            // The chunk's vectors alone: its families no longer add up to them.
            let n = v["chunks"][1]["vectors"].as_u64().unwrap();
            v["chunks"][1]["vectors"] = json!(n - 1);
        },
    );
    refuses("seconds", pass, &[1, 2], &["`seconds`"], |v| {
        v["seconds"] = json!(-1e308)
    });
    refuses("chunk-seconds", pass, &[2], &["chunks[1].seconds"], |v| {
        v["chunks"][1]["seconds"] = json!(-1.0)
    });
    // Two shards of 1e308 s each would merge into an infinite time, written as `null`.
    refuses("seconds-huge", pass, &[1, 2], &["`seconds`"], |v| {
        v["seconds"] = json!(1e308)
    });
    refuses(
        "max-examples",
        pass,
        &[1, 2],
        &["params.max_examples"],
        |v| v["params"]["max_examples"] = json!(0),
    );
    refuses("window", pass, &[1, 2], &["params.window"], |v| {
        v["params"]["window"] = json!(0)
    });
    refuses(
        "max-divergences",
        pass,
        &[1, 2],
        &["params.max_divergences"],
        |v| v["params"]["max_divergences"] = json!(0),
    );
    refuses("dropped-chunk", pass, &[1], &["`chunks`", "chunk 2"], |v| {
        v["chunks"].as_array_mut().unwrap().pop();
    });
    refuses("passed", pass, &[1], &["`passed`"], |v| {
        v["passed"] = json!(false)
    });
}

#[test]
fn a_shard_whose_divergences_disagree_is_refused_naming_file_and_field() {
    let (pass, fault) = (pass_shards(), fault_shards());
    let failing: Value = read_json(&fault[1]);
    let k = divergent_chunk(&failing);
    // A divergence pasted into a passing shard, under one of its chunks.
    let mut d = failing["divergences"][0].clone();
    let first_chunk = read_json::<Value>(&pass[1])["chunks"][0]["index"].clone();
    d["chunk"] = first_chunk;
    refuses(
        "pasted",
        pass,
        &[1],
        &["divergences[0].signature"],
        move |v| v["divergences"] = json!([d.clone()]),
    );
    let field = format!("chunks[{k}].divergences");
    refuses("zero-divergences", fault, &[1], &[field.as_str()], |v| {
        v["chunks"][k]["divergences"] = json!(0)
    });
    refuses("no-signatures", fault, &[1], &[field.as_str()], |v| {
        v["chunks"][k]["by_signature"] = json!({})
    });
    refuses("signature-count", fault, &[1], &["signatures[0]"], |v| {
        let n = v["signatures"][0]["count"].as_u64().unwrap();
        v["signatures"][0]["count"] = json!(n + 1)
    });
    refuses("family-divergences", fault, &[1], &["families[0]"], |v| {
        v["families"][0]["divergences"] = json!(0)
    });
    refuses("dropped-example", fault, &[2], &["`divergences`"], |v| {
        v["divergences"].as_array_mut().unwrap().remove(0);
    });
}

/// Every count of a shard zeroed, and its totals and verdict made to agree: a shard that
/// says it compared nothing and found nothing.
fn zeroed(v: &mut Value) {
    for c in v["chunks"].as_array_mut().unwrap() {
        c["vectors"] = json!(0);
        for n in c["by_family"].as_object_mut().unwrap().values_mut() {
            *n = json!(0);
        }
        c["divergences"] = json!(0);
        let c = c.as_object_mut().unwrap();
        c.remove("by_signature");
        c.remove("nan_accepted");
    }
    for f in v["families"].as_array_mut().unwrap() {
        f["vectors"] = json!(0);
        f["divergences"] = json!(0);
        f["seconds"] = json!(0.0);
        f.as_object_mut().unwrap().remove("nan_accepted");
    }
    v["divergences"] = json!([]);
    v["signatures"] = json!([]);
    v["stopped"] = Value::Null;
    v["passed"] = json!(true);
}

#[test]
fn a_zeroed_shard_passes_the_check_and_fails_verify() {
    let fault = fault_shards();
    // Both shards of the failing run zeroed: the merge believes a run that passed.
    let e = edited("merge-checks-zeroed", fault, &[1, 2], zeroed);
    let dir = scratch("merge-checks-zeroed-out");
    let (code, out, err, json) = merge(&dir, &e, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASSED"), "{out}");
    assert!(json.exists());
    // Running one chunk of each again finds it out: exit 1, the file and chunk named,
    // nothing written.
    for seed in ["1", "2", "3"] {
        let (code, out, err, json) = merge(&dir, &e, &["--verify", "1", "--verify-seed", seed]);
        assert_eq!(code, 1, "{out}{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("edited1.json: chunk "), "{err}");
        assert!(err.contains("vectors"), "{err}");
        assert!(out.contains("a shard disagrees"), "{out}");
        assert!(!json.exists(), "a failed verification wrote {json:?}");
    }
    // Only one zeroed, the other honest: whichever chunk of it is drawn, caught.
    let pass = pass_shards();
    let e = edited("merge-checks-zeroed-pass", pass, &[2], zeroed);
    for seed in ["1", "2", "3", "4"] {
        let (code, out, err, _) = merge(&dir, &e, &["--verify", "1", "--verify-seed", seed]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(err.contains("edited2.json: chunk "), "{err}");
    }
}

/// A chunk row's field summed over the rows of a results file.
fn sum(v: &Value, field: &str) -> u64 {
    v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[field].as_u64().unwrap())
        .sum()
}

#[test]
fn untouched_shards_merge_as_before_and_verify_agrees() {
    for (files, code, count) in [(pass_shards(), 0, 8000), (fault_shards(), 1, 8000)] {
        let dir = scratch("merge-checks-untouched");
        let (c, out, err, json) = merge(&dir, &files[1..], &[]);
        assert_eq!(c, code, "{out}{err}");
        let merged: Value = read_json(&json);
        let whole: Value = read_json(&files[0]);
        assert_eq!(
            common::canonical_result(merged.clone()),
            common::canonical_result(whole)
        );
        // The totals are the sums of the shards' chunks.
        let shards: Vec<Value> = files[1..].iter().map(|f| read_json(f)).collect();
        let vectors: u64 = shards.iter().map(|s| sum(s, "vectors")).sum();
        let divergences: u64 = shards.iter().map(|s| sum(s, "divergences")).sum();
        assert_eq!(vectors, count);
        assert_eq!(sum(&merged, "vectors"), vectors);
        let rows: u64 = merged["families"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["vectors"].as_u64().unwrap())
            .sum();
        assert_eq!(rows, vectors);
        let counted: u64 = merged["signatures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["count"].as_u64().unwrap())
            .sum();
        assert_eq!(counted, divergences);
        assert_eq!(code == 1, divergences > 0);
        // Run again, every chunk agrees (the fault run's divergences, signatures and
        // examples too), and the command says what it checked.
        let (c, out, err, json) =
            merge(&dir, &files[1..], &["--verify", "2", "--verify-seed", "9"]);
        assert_eq!(c, code, "{out}{err}");
        assert!(
            out.contains("verified 4 of 4 chunks (2 of each of 2 file(s), --verify 2 --verify-seed 9): all agree"),
            "{out}"
        );
        assert_eq!(
            common::canonical_result(read_json(&json)),
            common::canonical_result(merged)
        );
        // Without a seed one is drawn and printed.
        let (c, out, err, _) = merge(&dir, &files[1..], &["--verify", "1"]);
        assert_eq!(c, code, "{out}{err}");
        assert!(
            out.contains("verified 2 of 4 chunks") && out.contains("--verify-seed "),
            "{out}"
        );
    }
}
