//! `fma-cosim dut exhaust` (docs/dut.md, "Exhaustion") on a few values of `a`, not 2^32 pairs:
//! the independent half FMA (`tests/dut/exact_half/`) and the kit's RTL match the H100's
//! fingerprints; exact_half with its planted faults (`FAULT_HALF_SUBNORMAL_CARRY`, two
//! subnormals summing exactly to the smallest normal; `FAULT_HALF_STICKY_PAIR`, one pair of
//! significands, which random operations miss) is found, narrowed to its first pair, and the
//! printed replay line diverges; an fma-only design is exhausted through its fma; Ctrl-C leaves
//! a file that `--resume` continues; shards merge; bad input is one line and exit 2.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::cosim;

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dut/exact_half")
}

/// A directory for this process's builds and files, outside the checkout.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("ptxfma-exhaust-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["exact_half_lane.sv", "exact_half_top.sv"] {
            std::fs::copy(sources().join(f), d.join(f)).unwrap();
        }
        d
    })
}

fn path(name: &str) -> String {
    scratch().join(name).to_str().unwrap().to_string()
}

/// exact_half built once per process as `name`, with `defines` and `forms` (the `[forms]`
/// table's lines); quick to build, no waveform.
fn build(name: &str, defines: &[&str], forms: &str) -> String {
    let quoted: Vec<String> = defines.iter().map(|d| format!("{d:?}")).collect();
    let manifest = format!(
        "[design]\ntop = \"exact_half_top\"\nsources = [\"exact_half_lane.sv\", \
         \"exact_half_top.sv\"]\ndefines = [{}]\n\n[contract]\nlatency_bound = 8\nlatency = 3\n\
         tag_width = 0\nnan = \"canonical\"\n\n[forms]\n{forms}",
        quoted.join(", ")
    );
    let toml = path(&format!("{name}.toml"));
    std::fs::write(&toml, manifest).unwrap();
    let out = path(name);
    let (code, stdout, stderr) = cosim(&[
        "dut",
        "build",
        &toml,
        "--out",
        &out,
        "--no-trace",
        "--cxx-opt",
        "1",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    out
}

const HALF_RN: &str = "families = [\"half\"]\nrounding = [\"rn\"]\nftz = false\nsat = false\n";

fn clean() -> &'static str {
    static B: OnceLock<String> = OnceLock::new();
    B.get_or_init(|| build("clean", &[], HALF_RN))
}

fn faulty() -> &'static str {
    static B: OnceLock<String> = OnceLock::new();
    B.get_or_init(|| build("fault", &["FAULT_HALF_SUBNORMAL_CARRY"], HALF_RN))
}

fn sticky_pair() -> &'static str {
    static B: OnceLock<String> = OnceLock::new();
    B.get_or_init(|| build("pair", &["FAULT_HALF_STICKY_PAIR"], HALF_RN))
}

/// `dut exhaust --progress off ARGS`.
fn exhaust(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["dut", "exhaust", "--progress", "off"];
    all.extend_from_slice(args);
    cosim(&all)
}

fn json(p: &str) -> serde_json::Value {
    common::read_json(Path::new(p))
}

#[test]
fn a_clean_design_matches_the_fingerprints_over_a_range_of_a() {
    let j = path("clean.json");
    let (code, out, err) = exhaust(&[
        "--dut",
        clean(),
        "--forms",
        "mul.rn.f16,add.rn.bf16",
        "--a-range",
        "0x3bff..0x3c02",
        "--jobs",
        "2",
        "--json",
        &j,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("against the H100's fingerprints"), "{out}");
    assert!(out.contains("nan canonical"), "{out}");
    assert!(out.contains("6 of 6 values of a done, 0 differ"), "{out}");
    let v = json(&j);
    assert_eq!(v["complete"], true);
    assert_eq!(v["forms"][0]["done"], serde_json::json!([[0x3bff, 0x3c02]]));
}

#[test]
fn the_planted_fault_is_found_narrowed_and_replayed() {
    let j = path("fault.json");
    let (code, out, err) = exhaust(&[
        "--dut",
        faulty(),
        "--forms",
        "add.rn.f16,mul.rn.f16",
        "--a-range",
        "0x01ff..0x0201",
        "--json",
        &j,
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    // a + x = 2^-14 exactly: the first x of a = 0x01ff is 0x0201, of a = 0x0200 it is 0x0200.
    assert!(
        out.contains(
            "add.rn.f16 a 0x01ff differs; first at x 0x0201: design 0x0000, expected 0x0400"
        ),
        "{out}"
    );
    assert!(
        out.contains("add.rn.f16 a 0x0200 differs; first at x 0x0200"),
        "{out}"
    );
    assert!(
        out.contains("4 values of a done, 2 differ"),
        "mul never reaches it: {out}"
    );
    let replay = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: "))
        .unwrap();
    assert!(
        replay.contains("--ctrl add.rn.f16 --a 0x01ff --b 0x0000 --c 0x0201"),
        "{replay}"
    );
    let run = std::process::Command::new("sh")
        .args(["-c", replay])
        .current_dir(scratch())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{text}");
    assert!(text.contains("wrong result (out_d_o)"), "{text}");
    assert_eq!(json(&j)["forms"][0]["differ"][0]["x"], 0x0201);
}

#[test]
fn a_fault_that_random_operations_miss_is_found_by_exhaustion() {
    // One pair of significands (a's fraction 0x2d5, b's 0x1a6) loses its sticky bit: 100,000
    // random operations pass (and 10,000,000 did, docs/measurements.md) ...
    let (code, out, err) = cosim(&[
        "run",
        "--progress",
        "off",
        "--dut",
        sticky_pair(),
        "--compare",
        "ports",
        "--count",
        "100000",
        "--seed",
        "1",
        "--json",
        &path("pair-run.json"),
        "--waves-dir",
        &path("pair-waves"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // ... and exhaustion of the a with that fraction names its first pair.
    let (code, out, err) = exhaust(&[
        "--dut",
        sticky_pair(),
        "--forms",
        "mul.rn.f16",
        "--a-range",
        "0x3ed4..0x3ed6",
        "--json",
        &path("pair.json"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "mul.rn.f16 a 0x3ed5 differs; first at x 0x05a6: design 0x08d2, expected 0x08d3"
        ),
        "{out}"
    );
    assert!(out.contains("2 of 2 values of a done, 1 differ"), "{out}");
}

#[test]
fn an_fma_only_design_is_exhausted_through_its_fma() {
    // Forced through the fma: mul a, x as fma(a, x, -0), add a, x as fma(a, 1.0, x).
    let (code, out, err) = exhaust(&[
        "--dut",
        faulty(),
        "--via-fma",
        "--forms",
        "sub.rn.f16,mul.rn.bf16",
        "--a-range",
        "0x8200..0x8201",
        "--json",
        &path("via.json"),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("sub.rn.f16 (given as fma.rn.f16)"), "{out}");
    assert!(
        out.contains("sub.rn.f16 a 0x8200 differs; first at x 0x0200"),
        "{out}"
    );
    assert!(
        out.contains("--ctrl fma.rn.f16 --a 0x8200 --b 0x3c00 --c 0x8200"),
        "{out}"
    );
    assert!(out.contains("mul.rn.bf16          fma.rn.bf16"), "{out}");
}

#[test]
fn the_kits_rtl_matches_without_a_dut_build() {
    let (code, out, err) = exhaust(&[
        "--forms",
        "mul.rn.ftz.sat.f16",
        "--a-range",
        "0x3c00..0x3c01",
        "--json",
        &path("kit.json"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("default (nan ptx)"), "{out}");
    assert!(out.contains("1 of 1 values of a done, 0 differ"), "{out}");
}

#[test]
fn ctrl_c_leaves_a_file_that_resume_continues() {
    let j = path("resume.json");
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "dut",
            "exhaust",
            "--progress",
            "off",
            "--dut",
            clean(),
            "--forms",
            "mul.rn.f16",
            "--a-range",
            "0..0x1000",
            "--jobs",
            "1",
            "--json",
        ];
        a.push(Box::leak(j.clone().into_boxed_str()));
        a.extend_from_slice(extra);
        a
    };
    let child = std::process::Command::new(common::bin())
        .args(args(&[]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("--resume"), "{err}");
    let v = json(&j);
    assert_eq!(v["complete"], false);
    let done = v["forms"][0]["done"].as_array().unwrap().clone();
    assert!(!done.is_empty(), "nothing done in 2.5 s: {v}");
    // Without --resume the unfinished file is kept, and said so.
    let (code, _, err) = cosim(&args(&[]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("unfinished exhaustion") && err.lines().count() == 1,
        "{err}"
    );
    // Resumed from a file with only a few values left: the run does those and completes.
    let mut v = v;
    v["forms"][0]["done"] = serde_json::json!([[0, 0xffe]]);
    std::fs::write(&j, serde_json::to_string(&v).unwrap()).unwrap();
    let (code, out, err) = cosim(&args(&["--resume"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("4096 of 4096 values of a done, 0 differ"),
        "{out}"
    );
    let v = json(&j);
    assert_eq!(v["complete"], true);
    assert_eq!(v["forms"][0]["done"], serde_json::json!([[0, 0x1000]]));
}

#[test]
fn shards_merge_into_one_file() {
    let (s1, s2, m) = (path("s1.json"), path("s2.json"), path("merged.json"));
    for (shard, j) in [("1/2", &s1), ("2/2", &s2)] {
        let (code, out, err) = exhaust(&[
            "--forms",
            "add.rn.bf16",
            "--a-range",
            "0x4000..0x4004",
            "--shard",
            shard,
            "--json",
            j,
            "--jobs",
            "1",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("2 of 2 values of a done"), "{out}");
    }
    let (code, out, err) = exhaust(&["--merge", &s1, &s2, "--json", &m]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("4 of 4 values of a done, 0 differ"), "{out}");
    assert_eq!(json(&m)["complete"], true);
    assert_eq!(json(&m)["a_range"], serde_json::json!([0x4000, 0x4004]));
    assert_eq!(
        json(&s2)["shard"]["of"],
        serde_json::json!([0x4000, 0x4004])
    );

    // One shard alone is not the exhaustion: the missing one is named, exit 2.
    let (code, out, err) = exhaust(&["--merge", &s1, "--json", &m]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("2 of 4 values of a done"), "{out}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("incomplete, not checked: shard 2/2 (a 0x4002..0x4004) wrote no file"),
        "{err}"
    );
    assert_eq!(json(&m)["complete"], false);
    // A shard twice, or shards of two splits, are refused.
    let (code, _, err) = exhaust(&["--merge", &s1, &s1, "--json", &m]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("shard 1/2 (a 0x4000..0x4002) is given twice"),
        "{err}"
    );
    let s3 = path("s1-of-3.json");
    let (code, out, err) = exhaust(&[
        "--forms",
        "add.rn.bf16",
        "--a-range",
        "0x4000..0x4003",
        "--shard",
        "1/3",
        "--json",
        &s3,
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = exhaust(&["--merge", &s2, &s3, "--json", &m]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("shards of different splits (`2/2` and `1/3`"),
        "{err}"
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let j = path("bad.json");
    for (args, says) in [
        (vec!["--a-range", "5..3"], "not a range of a"),
        (vec!["--a-range", "0..0x10001"], "not a range of a"),
        (vec!["--forms", "fma.rn.f32"], "not a two-operand half form"),
        (vec!["--shard", "3/2"], "K/N"),
        (
            vec!["--a-range", "0..2", "--shard", "1/3"],
            "cannot be cut into 3 shards",
        ),
        (
            vec!["--resume", "--json", "/nonexistent/x.json"],
            "--resume",
        ),
        (
            vec!["--fingerprints", "/nonexistent/fp.bin"],
            "--fingerprints",
        ),
        (
            vec!["--merge", "/nonexistent/a.json"],
            "/nonexistent/a.json",
        ),
        (vec!["--rtl", "no_such_variant"], "no RTL variant"),
        (
            vec!["--a-range", "0..1", "--json", "/nonexistent/dir/x.json"],
            "/nonexistent/dir",
        ),
    ] {
        let mut all = args.clone();
        if !args.contains(&"--json") {
            all.extend(["--json", &j]);
        }
        let (code, out, err) = exhaust(&all);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!Path::new(&j).exists(), "{args:?} wrote {j}");
    }
    // A form the design's manifest does not allow, directly or through its fma.
    let (code, _, err) = exhaust(&["--dut", clean(), "--forms", "mul.rn.sat.f16", "--json", &j]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("takes neither `mul.rn.sat.f16` nor `fma.rn.sat.f16`"),
        "{err}"
    );
}
