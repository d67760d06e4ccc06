//! No crash on any output: every `fma-model` command with its standard output full
//! (`/dev/full`), closed (`>&-`) or a pipe nobody reads (EPIPE, `| head`), and with its standard
//! error full or closed: a one-line error and exit 2 where one stream can take it, a quiet end
//! with the status of what ran on a closed pipe, never a panic.

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[path = "../../cli-common/tests/support/sink.rs"]
mod sink;
use sink::{check_stdout_sinks, run_to, text, Sink, WhenGone};

use fma_model::silicon::files::{write_results, ResultBlock, ResultsHead, VectorsReader};

/// `fma-model ARGS` with stdout to `out` and stderr to `err`.
fn model_to<S: AsRef<OsStr>>(args: &[S], stdin: Stdio, out: Sink, err: Sink) -> Output {
    run_to(env!("CARGO_BIN_EXE_fma-model"), args, stdin, out, err)
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("outputs-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every command, with small arguments that write to stdout.
fn commands(dir: &Path) -> Vec<Vec<String>> {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    // TestFloat's f32_mulAdd line: 1 * 2 + 1 = 3.
    let tf = dir.join("tf.txt");
    std::fs::write(&tf, "3F800000 40000000 3F800000 40400000 00\n").unwrap();
    // A silicon vector file, and the model's answers as a GPU's results file.
    let vectors = dir.join("vectors.bin");
    let o = model_to(
        &[
            "silicon",
            "gen",
            "--count",
            "50",
            "--forms",
            "fma.rn.f32",
            "--out",
            &s(&vectors),
        ],
        Stdio::null(),
        Sink::Read,
        Sink::Read,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut r = VectorsReader::open(&vectors).unwrap();
    let head = ResultsHead {
        fingerprint: r.head.fingerprint,
        info: vec![("gpu".into(), "Test GPU".into())],
        blocks: r.head.blocks,
    };
    let mut blocks = Vec::new();
    while let Some(b) = r.next_block().unwrap() {
        blocks.push(ResultBlock {
            form: b.form,
            count: b.a.len() as u32,
            d: Some(b.model.clone()),
        });
    }
    let results = dir.join("results.bin");
    write_results(&results, &head, &blocks).unwrap();
    // Packages whose generated region is stale: `--check` says so (and writes nothing).
    let root = dir.join("root");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (path, name) in fma_model::rtl_pkg::files(&repo) {
        let to = root.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let mut stale = String::new();
        let mut planted = false;
        for line in text.lines() {
            stale.push_str(line);
            stale.push('\n');
            if !planted && line.trim_start().starts_with("// BEGIN GENERATED") {
                stale.push_str("  // a stale line\n");
                planted = true;
            }
        }
        assert!(planted, "{name}");
        std::fs::write(to, stale).unwrap();
    }
    let fingerprints = repo.join("fma-model/tests/data/h100-half2-fingerprints.bin");
    let lines: &[&[&str]] = &[
        &["eval", "fma.rn.f32 0x3f800000 0x40000000 0x3f800000"],
        &["check", "f32_mulAdd", &s(&tf)],
        &[
            "silicon",
            "gen",
            "--count",
            "50",
            "--forms",
            "fma.rn.f32",
            "--out",
            &s(&dir.join("v2.bin")),
        ],
        &["silicon", "compare", &s(&vectors), &s(&results)],
        &[
            "silicon",
            "exhaustive",
            "--fingerprints",
            &s(&fingerprints),
            "--forms",
            "add.rn.f16",
            "--a",
            "0..1",
        ],
        &["gen-rtl-pkg", "--check", "--root", &s(&root)],
        &["--help"],
        &["--version"],
        &["eval", "--help"],
    ];
    lines
        .iter()
        .map(|l| l.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn every_command_reports_a_full_or_closed_stdout_and_ends_quietly_on_a_closed_pipe() {
    let dir = scratch("stdout");
    for args in commands(&dir) {
        check_stdout_sinks(&args.join(" "), WhenGone::Quiet, |out, err| {
            model_to(&args, Stdio::null(), out, err)
        });
    }
}

/// An error with stderr full or closed is the one line on stdout.
#[test]
fn an_error_goes_to_stdout_when_stderr_cannot_take_it() {
    let dir = scratch("stderr");
    let cases: [(&[&str], &str); 4] = [
        // Its stdin a directory, which cannot be read.
        (&["eval"], "error: cannot read stdin: Is a directory"),
        (&["--bogus"], "error: unknown option `--bogus`"),
        (
            &["check", "f32_mulAdd", "/nonexistent"],
            "error: cannot read",
        ),
        (
            &["silicon", "compare", "/nonexistent/v", "/nonexistent/r"],
            "error: /nonexistent/v",
        ),
    ];
    for (args, says) in cases {
        for sink in [Sink::Full, Sink::Closed] {
            let stdin = if args == ["eval"] {
                File::open(&dir).unwrap().into()
            } else {
                Stdio::null()
            };
            let o = model_to(args, stdin, Sink::Read, sink);
            let out = text(&o.stdout);
            assert_eq!(o.status.code(), Some(2), "{args:?} {sink:?}: {out}");
            assert_eq!(out.lines().count(), 1, "{args:?} {sink:?}: {out}");
            assert!(out.starts_with(says), "{args:?} {sink:?}: {out}");
        }
    }
}

/// `yes ... | fma-model eval | head -1`: the run ends at the closed pipe, quietly, with the
/// status of the lines evaluated (all good: 0), instead of reading forever.
#[test]
fn eval_stops_reading_when_its_reader_is_gone() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_fma-model"))
        .arg("eval")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Fed until the command is gone (EPIPE here ends the feeder).
    let feeder = std::thread::spawn(move || {
        let line = b"fma.rn.f32 0x3f800000 0x40000000 0x3f800000\n".repeat(1000);
        while stdin.write_all(&line).is_ok() {}
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "0x40400000\n");
    // The reader is gone (dropped above).
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed().as_secs() < 60,
            "still reading after its reader left"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    feeder.join().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}
