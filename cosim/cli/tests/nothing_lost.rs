//! Nothing lost: a request of any size runs in bounded memory or is refused in one line; a
//! `--dut` design is driven only with what it implements, by every command; and a call that
//! fails leaves no directory or file behind.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::outside::{one_line_error, Outside, FORMS};
use common::{cosim, scratch};

/// `fma-cosim ARGS` under an address-space limit of about 4 GB (`ulimit -v 4000000`).
fn limited(args: &[&str]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("ulimit -v 4000000 && exec \"$0\" \"$@\"")
        .arg(common::bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Waits for `child` at most `secs` seconds (killing it past them); (exit code, stdout,
/// stderr), the code -1 for a signal.
fn wait_at_most(mut child: std::process::Child, secs: u64) -> (i32, String, String) {
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {secs} s\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A run of 10^12 operations, or of 10^8 one-operation chunks, does not allocate its chunk list
/// or its results whole (it aborted: `memory allocation of 4150390880 bytes failed`, exit 134):
/// under a 4 GB address-space limit each is refused at once, in one line that says why and
/// what to do, exit 2, and leaves nothing behind.
#[test]
fn a_run_too_large_to_keep_is_refused_in_one_line_not_aborted() {
    let dir = scratch("lost-huge");
    let waves = dir.join("waves");
    let json = dir.join("out/r.json");
    for count in [
        &["--count", "1000000000000"][..],
        &["--count", "100000000", "--chunk-size", "1"],
    ] {
        let mut args = vec!["run", "--progress", "off", "--jobs", "1"];
        args.extend_from_slice(count);
        args.extend_from_slice(&["--waves-dir", waves.to_str().unwrap()]);
        args.extend_from_slice(&["--json", json.to_str().unwrap()]);
        let (code, out, err) = wait_at_most(limited(&args).spawn().unwrap(), 60);
        assert_ne!(code, 134, "aborted: {count:?}\n{out}{err}");
        assert!(!err.contains("panicked"), "{count:?}\n{err}");
        let line = one_line_error((code, out, err));
        assert!(
            line.contains("chunks") && line.contains("--shard"),
            "{count:?}: {line}"
        );
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert!(left.is_empty(), "{count:?} left {left:?}");
    }
}

/// The same 10^12 operations split over 100 shards, and 10^9 one-operation chunks over 4,000
/// (250,000 chunks a shard; a list of all 10^9 does not fit under the limit: it aborted,
/// `memory allocation of 3221225472 bytes failed`): one shard starts working under the same
/// limit (its chunks are made as the workers take them, never listed whole), and Ctrl-C stops
/// it with its partial summary.
#[test]
fn a_shard_of_a_huge_run_starts_in_bounded_memory() {
    let dir = scratch("lost-shard");
    for (run, shard) in [
        (
            &["--filter", "f32", "--count", "1000000000000"][..],
            "1/100",
        ),
        (&["--count", "1000000000", "--chunk-size", "1"], "1/4000"),
    ] {
        let mut args = vec!["run", "--progress", "off", "--jobs", "1"];
        args.extend_from_slice(run);
        args.extend_from_slice(&["--shard", shard, "--waves-dir", dir.to_str().unwrap()]);
        let child = limited(&args).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(3000));
        // SAFETY: a signal to our own child (sh exec'd into fma-cosim, same pid).
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
        let (code, out, err) = wait_at_most(child, 60);
        assert!(
            !err.contains("panicked") && !err.contains("memory allocation"),
            "{run:?}: {err}"
        );
        assert_eq!(code, 130, "{run:?}: {out}{err}");
        assert!(out.contains(&format!("shard {shard}")), "{out}");
        assert!(out.contains("INTERRUPTED"), "{out}");
    }
}

/// An f32-only design built outside the checkout, and a build directory for it.
fn f32_design(name: &str) -> (Outside, String) {
    let d = Outside::new(name);
    let manifest = d.manifest("dut.toml", "", FORMS);
    let (code, out, err) = d.build(&manifest, "build");
    assert_eq!(code, 0, "{out}{err}");
    let dut = d.path("build");
    (d, dut)
}

/// `wave --dut` and `replay --dut` refuse an operation the design does not implement, as
/// `run --dut --filter` does, instead of driving the design with it and reporting the
/// difference as a DIVERGENCE: one line naming the instruction and what the design implements,
/// exit 2. An f32 operation still runs.
#[test]
fn wave_and_replay_refuse_what_a_design_does_not_implement() {
    let (d, dut) = f32_design("forms");
    let vcd = d.path("w/w.vcd");
    let waves = d.path("waves");
    for line in [
        "fma.rn.f64 0x3ff0000000000000 0x3ff0000000000000 0x3ff0000000000000",
        "fma.rn.f16x2 0x3c003c00 0x3c003c00 0x3c003c00",
    ] {
        let e = one_line_error(cosim(&["wave", "--dut", &dut, "--vcd", &vcd, line]));
        let spelled = line.split(' ').next().unwrap();
        assert!(e.contains(spelled) && e.contains("f32"), "{line}: {e}");
        assert!(!Path::new(&vcd).exists(), "{line}: wrote {vcd}");
    }
    let e = one_line_error(cosim(&[
        "replay",
        "--dut",
        &dut,
        "--ctrl",
        "fma.rn.f64",
        "--a",
        "0x3ff0000000000000",
        "--b",
        "0x3ff0000000000000",
        "--c",
        "0x3ff0000000000000",
        "--waves-dir",
        &waves,
    ]));
    assert!(e.contains("fma.rn.f64") && e.contains("f32"), "{e}");
    let e = one_line_error(cosim(&[
        "replay",
        "--dut",
        &dut,
        "--seed",
        "1",
        "--filter",
        "vmad",
        "--count",
        "10",
        "--index",
        "0",
        "--waves-dir",
        &waves,
    ]));
    assert!(e.contains("vmad") && e.contains("f32"), "{e}");
    // What the design implements runs (1.0 * 1.0 + 1.0 = 2.0, no divergence).
    let (code, out, err) = cosim(&[
        "wave",
        "--dut",
        &dut,
        "--vcd",
        &vcd,
        "fma.rn.f32 0x3f800000 0x3f800000 0x3f800000",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("DIVERGENCE"), "{out}");
}

/// [`f32_design`] built quickly, for runs that need no waveform: no traced model, `-O0`.
fn quick_f32_design(name: &str) -> (Outside, String) {
    let d = Outside::new(name);
    let manifest = d.manifest("dut.toml", "", FORMS);
    let dut = d.path("build");
    let (code, out, err) = cosim(&[
        "dut",
        "build",
        &manifest,
        "--out",
        &dut,
        "--no-trace",
        "--cxx-opt",
        "0",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    (d, dut)
}

/// `run --vectors FILE --dut DIR` refuses a file holding a line the design does not implement,
/// as `wave` and `replay` do, before anything runs: one line naming the file, the line and the
/// instruction, exit 2, nothing printed on stdout and no directory made. A file of lines it
/// does implement is not refused for its forms.
#[test]
fn run_vectors_refuses_a_line_a_design_does_not_implement_before_it_runs() {
    let (d, dut) = quick_f32_design("vectors-forms");
    let f32_line = "fma.rn.f32 0x3f800000 0x3f800000 0x3f800000 0x40000000";
    let f64_one = "0x3ff0000000000000";
    // (file, its text, --testfloat FUNCTION or none, the line refused, the instruction)
    let f64_line = format!("fma.rn.f64 {f64_one} {f64_one} {f64_one}");
    let cases = [
        (
            "eval.txt",
            format!("// f32 then f64\n{f32_line}\n\n{f64_line}\n{f32_line}\n"),
            None,
            4,
            "fma.rn.f64",
        ),
        (
            "half.txt",
            format!("{f32_line}\nfma.rn.f16x2 0x3c003c00 0x3c003c00 0x3c003c00\n"),
            None,
            2,
            "fma.rn.f16x2",
        ),
        (
            "testfloat.txt",
            "3FF0000000000000 3FF0000000000000 3FF0000000000000 4000000000000000 00\n".into(),
            Some("f64_mulAdd"),
            1,
            "fma.rn.f64",
        ),
    ];
    let waves = d.0.join("nd/waves");
    for (file, text, testfloat, line, spelled) in cases {
        let path = d.path(file);
        std::fs::write(&path, text).unwrap();
        let before = names(&d.0);
        let mut args = vec![
            "run",
            "--progress",
            "off",
            "--dut",
            &dut,
            "--vectors",
            &path,
        ];
        if let Some(f) = testfloat {
            args.extend_from_slice(&["--testfloat", f]);
        }
        args.extend_from_slice(&["--waves-dir", waves.to_str().unwrap()]);
        let (code, out, err) = cosim(&args);
        assert!(out.is_empty(), "{file}: ran before refusing: {out}");
        let e = one_line_error((code, out, err));
        assert!(
            e.contains(&format!("{path} line {line}: `{spelled}`")) && e.contains("f32"),
            "{file}: {e}"
        );
        assert_eq!(names(&d.0), before, "{file}: left something");
    }
    // A file of what the design implements is not refused for its forms: it gets as far as the
    // run (whose banner is printed first).
    let path = d.path("f32.txt");
    std::fs::write(&path, format!("{f32_line}\n{f32_line}\n")).unwrap();
    let (_, out, err) = cosim(&[
        "run",
        "--progress",
        "off",
        "--dut",
        &dut,
        "--vectors",
        &path,
        "--waves-dir",
        waves.to_str().unwrap(),
    ]);
    assert!(out.starts_with("fma-cosim run --vectors"), "{out}{err}");
    assert!(
        !err.contains("the design implements only") && !err.contains("forms of its manifest"),
        "{out}{err}"
    );
}

/// `merge --verify` runs a `--dut` design again only with what it implements: shards that are
/// consistent with themselves but say they ran the f32-only design on f64 (a real f64 run of the
/// built-in RTL checked by its ports, its `params` then those of the design's run) are refused
/// in one line naming the family, exit 2, nothing written, instead of driving the design with
/// f64 words and reporting the shards as disagreeing.
#[test]
fn merge_verify_refuses_a_family_the_design_does_not_implement() {
    let (d, dut) = quick_f32_design("verify-forms");
    let waves = d.path("waves");
    let run = |extra: &[&str], json: &str| {
        let json = d.path(json);
        let mut args = vec!["run", "--progress", "off", "--count", "4000"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--json", &json, "--waves-dir", &waves]);
        let (code, out, err) = cosim(&args);
        assert_eq!(code, 0, "{args:?}\n{out}{err}");
        common::read_json::<serde_json::Value>(std::path::Path::new(&json))
    };
    let of_design = run(&["--dut", &dut, "--filter", "f32"], "design.json");
    let mut files = Vec::new();
    for k in ["1/2", "2/2"] {
        let name = format!("shard{}.json", &k[..1]);
        let extra = [
            "--filter",
            "f64",
            "--chunk-size",
            "2000",
            "--compare",
            "ports",
            "--shard",
            k,
        ];
        let mut v = run(&extra, &name);
        for field in ["rtl", "latency_bound", "nan"] {
            v["params"][field] = of_design["params"][field].clone();
        }
        std::fs::write(d.0.join(&name), v.to_string()).unwrap();
        files.push(d.path(&name));
    }
    let merged = d.path("merged.json");
    let e = one_line_error(cosim(&[
        "merge",
        &files[0],
        &files[1],
        "--verify",
        "1",
        "--verify-seed",
        "1",
        "--json",
        &merged,
    ]));
    assert!(
        e.contains("params.filter names f64") && e.contains("forms.families: f32"),
        "{e}"
    );
    assert!(!Path::new(&merged).exists(), "wrote {merged}");
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A call that fails creates nothing: each command's output options name files in directories
/// that do not exist yet (`nd/...`), and each call fails (a bad line, a missing input, a bad
/// option found after the outputs are checked); afterwards the scratch directory is as it was.
#[test]
fn a_failing_call_leaves_no_directory_or_file() {
    let dir = scratch("lost-nothing");
    let p = |s: &str| dir.join(s).to_str().unwrap().to_string();
    let missing = p("no-such-results.json");
    std::fs::write(p("bad-vectors.txt"), "this is not a vector line\n").unwrap();
    let before = names(&dir);
    let calls: [Vec<String>; 9] = [
        vec![
            "wave".into(),
            "--vcd".into(),
            p("nd/w.vcd"),
            "fma.rn.f33 0x1 0x2 0x3".into(),
        ],
        vec![
            "merge".into(),
            missing.clone(),
            "--json".into(),
            p("nd/m.json"),
        ],
        vec![
            "merge".into(),
            missing.clone(),
            "--junit".into(),
            p("nd/m.xml"),
        ],
        vec![
            "merge".into(),
            missing.clone(),
            "--html".into(),
            p("nd/a/m.html"),
        ],
        vec![
            "coverage".into(),
            missing.clone(),
            "--json".into(),
            p("nd/c.json"),
        ],
        vec![
            "coverage".into(),
            missing.clone(),
            "--html".into(),
            p("nd/c.html"),
        ],
        // A count below the number of families is refused after the outputs are checked.
        vec![
            "run".into(),
            "--progress".into(),
            "off".into(),
            "--count".into(),
            "2".into(),
            "--json".into(),
            p("nd/r.json"),
            "--junit".into(),
            p("nd2/r.xml"),
            "--html".into(),
            p("nd3/r.html"),
            "--coverage".into(),
            p("nd4/c.json"),
            "--waves-dir".into(),
            p("nd5/deep/waves"),
        ],
        vec![
            "run".into(),
            "--progress".into(),
            "off".into(),
            "--vectors".into(),
            p("bad-vectors.txt"),
            "--waves-dir".into(),
            p("nd/waves"),
        ],
        vec![
            "replay".into(),
            "--seed".into(),
            "1".into(),
            "--filter".into(),
            "f32".into(),
            "--count".into(),
            "10".into(),
            "--index".into(),
            "1000000".into(),
            "--waves-dir".into(),
            p("nd/waves"),
        ],
    ];
    for call in &calls {
        let args: Vec<&str> = call.iter().map(String::as_str).collect();
        let (code, out, err) = cosim(&args);
        assert_eq!(code, 2, "{args:?}\n{out}{err}");
        assert_eq!(names(&dir), before, "{args:?} left something\n{out}{err}");
    }
}
