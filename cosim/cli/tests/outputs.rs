//! No crash on any output: every `fma-cosim` command with its standard output full
//! (`/dev/full`), closed (`>&-`) or a pipe nobody reads (EPIPE, `| head`), and with its
//! standard error full; a file size limit (`ulimit -f`); two outputs on one file; the
//! temporaries of a run killed outright; `merge` of shards that are not one run's.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use common::scratch;
#[path = "../../../cli-common/tests/support/sink.rs"]
mod sink;
use sink::{check_stdout_sinks, run_to, text, Sink, WhenGone};

/// `fma-cosim ARGS` with stdout to `out` and stderr to `err`.
fn cosim_to<S: AsRef<OsStr>>(args: &[S], out: Sink, err: Sink) -> Output {
    run_to(
        env!("CARGO_BIN_EXE_fma-cosim"),
        args,
        Stdio::null(),
        out,
        err,
    )
}

/// Files the commands read, made once: a shard's results and a coverage file, a vectors file,
/// a manifest that does not exist (so `dut build` stops at it).
struct Inputs {
    dir: PathBuf,
}

fn inputs() -> &'static Inputs {
    static I: OnceLock<Inputs> = OnceLock::new();
    I.get_or_init(|| {
        let dir = scratch("outputs-inputs");
        let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
        let o = cosim_to(
            &[
                "run",
                "--count",
                "20",
                "--filter",
                "f32",
                "--jobs",
                "1",
                "--json",
                &p("result.json"),
                "--coverage",
                &p("coverage.json"),
                "--waves-dir",
                &p("waves"),
            ],
            Sink::Read,
            Sink::Read,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        std::fs::write(
            dir.join("vectors.txt"),
            "fma.rn.f32 0x3f800000 0x40000000 0x3f800000\n",
        )
        .unwrap();
        Inputs { dir }
    })
}

/// Every command, with small arguments that write to stdout; `dir` takes what they write.
fn commands(dir: &Path) -> Vec<Vec<String>> {
    let i = inputs();
    let inp = |n: &str| i.dir.join(n).to_str().unwrap().to_string();
    let out = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let waves = out("waves");
    let lines: &[&[&str]] = &[
        &[
            "run",
            "--count",
            "9",
            "--filter",
            "f32",
            "--jobs",
            "1",
            "--waves-dir",
            &waves,
        ],
        &[
            "run",
            "--vectors",
            &inp("vectors.txt"),
            "--waves-dir",
            &waves,
        ],
        &[
            "replay",
            "--seed",
            "1",
            "--filter",
            "f32",
            "--count",
            "9",
            "--index",
            "4",
            "--waves-dir",
            &waves,
        ],
        &[
            "replay",
            "--ctrl",
            "fma.rn.f32",
            "--a",
            "0x3f800000",
            "--b",
            "0x40000000",
            "--c",
            "0",
            "--waves-dir",
            &waves,
        ],
        &[
            "wave",
            "--vcd",
            &out("one.vcd"),
            "fma.rn.f32 0x3f800000 0x40000000 0x3f800000",
        ],
        &["merge", &inp("result.json")],
        &["bench", "--count", "200", "--filter", "f32", "--jobs", "1"],
        &["variants"],
        &["coverage", &inp("coverage.json")],
        // Says what it builds before it starts, then stops at the missing manifest.
        &[
            "dut",
            "build",
            &inp("no-such-manifest.toml"),
            "--out",
            &out("build"),
        ],
        &["--help"],
        &["--version"],
        &["run", "--help"],
    ];
    lines
        .iter()
        .map(|l| l.iter().map(|s| s.to_string()).collect())
        .collect()
}

#[test]
fn every_command_reports_a_full_or_closed_stdout_and_ends_quietly_on_a_closed_pipe() {
    let dir = scratch("outputs-stdout");
    for args in commands(&dir) {
        check_stdout_sinks(&args.join(" "), WhenGone::AsWhenRead, |out, err| {
            cosim_to(&args, out, err)
        });
    }
}

/// A full or closed stderr: the error goes to stdout, in one line after what was printed there.
#[test]
fn an_error_goes_to_stdout_when_stderr_cannot_take_it() {
    let waves = scratch("outputs-stderr")
        .join("waves")
        .display()
        .to_string();
    for (args, says) in [
        (
            &["merge", "/nonexistent/shard.json"][..],
            "/nonexistent/shard.json",
        ),
        (&["run", "--bogus"], "unknown option `--bogus`"),
        (
            &[
                "replay",
                "--ctrl",
                "0x7ffffff",
                "--a",
                "0",
                "--b",
                "0",
                "--c",
                "0",
                "--waves-dir",
                &waves,
            ],
            "--ctrl",
        ),
        // The usage on stderr cannot be written: that is the error.
        (&[], "cannot write to standard error"),
    ] {
        for sink in [Sink::Full, Sink::Closed] {
            let o = cosim_to(args, Sink::Read, sink);
            let out = text(&o.stdout);
            assert_eq!(o.status.code(), Some(2), "{args:?} {sink:?}: {out}");
            assert_eq!(out.lines().count(), 1, "{args:?} {sink:?}: {out}");
            assert!(
                out.starts_with("error: ") && out.contains(says),
                "{args:?}: {out}"
            );
        }
    }
}

/// `run`'s progress lines go to stderr: a full one stops the run (about ten seconds in, at
/// the first line) with exit 2 and the error on stdout, after the banner.
#[test]
fn a_run_whose_progress_cannot_be_written_stops_with_exit_2() {
    let dir = scratch("outputs-progress");
    let t0 = std::time::Instant::now();
    let o = cosim_to(
        &[
            "run",
            "--count",
            "1000000000",
            "--jobs",
            "1",
            "--progress",
            "lines",
            "--json",
            dir.join("r.json").to_str().unwrap(),
            "--waves-dir",
            dir.join("waves").to_str().unwrap(),
        ],
        Sink::Read,
        Sink::Full,
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.starts_with("fma-cosim run: "), "{out}");
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("error: cannot write to standard error: No space left on device"),
        "{out}"
    );
    assert!(t0.elapsed().as_secs() < 120, "{:?}", t0.elapsed());
    assert!(!dir.join("r.json").exists());
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Under `ulimit -f` the write fails with EFBIG (SIGXFSZ is ignored) and is reported in one
/// line: no death by signal, no temporary, and no directory the run created, left.
#[test]
fn a_file_size_limit_is_a_one_line_error_that_leaves_nothing() {
    let dir = scratch("outputs-ulimit");
    let bin = env!("CARGO_BIN_EXE_fma-cosim");
    // --html samples coverage, which the JSON carries: far over the limit.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "cd '{}' && ulimit -f 50 && exec '{bin}' run --count 100 --filter f32 --jobs 1 \
             --json X --html H --waves-dir waves",
            dir.display()
        ))
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot write X: File too large"), "{err}");
    // Not even the waves directory the run made for itself: the call failed.
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
}

/// A divergence's waveform under a file size limit: Verilator's own trace writes fail (its
/// tracer hangs on such a failure unless the kit's trace file absorbs it), the report says the
/// waveform was not written and why, the run ends with its status (1) and leaves no temporary.
#[cfg(feature = "fault-sticky")]
#[test]
fn a_waveform_under_a_file_size_limit_is_said_not_written_and_nothing_hangs() {
    let dir = scratch("outputs-ulimit-waves");
    let bin = env!("CARGO_BIN_EXE_fma-cosim");
    let o = Command::new("timeout")
        .arg("300")
        .arg("sh")
        .arg("-c")
        .arg(format!(
            "cd '{}' && ulimit -f 8 && exec '{bin}' run --rtl fault_sticky_rz --filter f32 \
             --count 100000 --jobs 1 --window 3000 --waves-dir waves",
            dir.display()
        ))
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    assert!(
        out.lines().any(
            |l| l.starts_with("  waveform    not written: cannot write ")
                && l.ends_with(".vcd: File too large")
        ),
        "{out}"
    );
    assert!(names(&dir.join("waves")).is_empty());
}

/// Two outputs on one file are refused before anything runs: one line, exit 2, nothing
/// printed or written.
#[test]
fn two_outputs_on_one_file_are_refused_before_the_run() {
    let dir = scratch("outputs-same-file");
    std::fs::create_dir(dir.join("sub")).unwrap();
    let one = dir.join("x");
    let spellings = [
        one.clone(),
        dir.join(".").join("x"),
        dir.join("sub").join("..").join("x"),
    ];
    let i = inputs();
    let shard = i.dir.join("result.json");
    let cov = i.dir.join("coverage.json");
    let waves = dir.join("w");
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &[
                "run",
                "--count",
                "9",
                "--filter",
                "f32",
                "--waves-dir",
                waves.to_str().unwrap(),
            ],
            &[
                "--json",
                "--junit",
                "--coverage",
                "--rtl-coverage",
                "--html",
            ],
        ),
        (
            &["merge", shard.to_str().unwrap()],
            &["--json", "--junit", "--html"],
        ),
        (&["coverage", cov.to_str().unwrap()], &["--json", "--html"]),
    ];
    for (base, flags) in cases {
        for (k, a) in flags.iter().enumerate() {
            for (m, b) in flags.iter().enumerate().skip(k + 1) {
                let mut args: Vec<String> = base.iter().map(|s| s.to_string()).collect();
                args.extend([a.to_string(), spellings[k % 3].display().to_string()]);
                args.extend([b.to_string(), spellings[(m + 1) % 3].display().to_string()]);
                let o = cosim_to(&args, Sink::Read, Sink::Read);
                let err = text(&o.stderr);
                assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
                assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
                assert!(err.contains("are one file"), "{args:?}: {err}");
                assert!(err.contains(a) && err.contains(b), "{args:?}: {err}");
                assert!(o.stdout.is_empty(), "{args:?}: ran: {}", text(&o.stdout));
                assert_eq!(names(&dir), ["sub"], "{args:?}");
            }
        }
    }
    // Different files in one directory are fine.
    let o = cosim_to(
        &[
            "merge",
            shard.to_str().unwrap(),
            "--json",
            dir.join("a.json").to_str().unwrap(),
            "--junit",
            dir.join("a.xml").to_str().unwrap(),
        ],
        Sink::Read,
        Sink::Read,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

/// An output on one of the inputs (`merge a.json --json a.json`, `coverage c.json --html
/// ./c.json`, `run --vectors v.txt --coverage v.txt`) is refused before anything is written: one line, exit 2, the input as it was.
#[test]
fn an_output_on_an_input_is_refused_and_the_input_kept() {
    let dir = scratch("outputs-on-input");
    let i = inputs();
    let shard = dir.join("result.json");
    let cov = dir.join("coverage.json");
    std::fs::copy(i.dir.join("result.json"), &shard).unwrap();
    std::fs::copy(i.dir.join("coverage.json"), &cov).unwrap();
    let before = [std::fs::read(&shard).unwrap(), std::fs::read(&cov).unwrap()];
    let dot = |p: &Path| dir.join(".").join(p.file_name().unwrap());
    let mut cases: Vec<Vec<String>> = Vec::new();
    for flag in ["--json", "--junit", "--html"] {
        cases.push(vec![
            "merge".into(),
            path(&shard),
            flag.into(),
            path(&dot(&shard)),
        ]);
    }
    for flag in ["--json", "--html"] {
        cases.push(vec!["coverage".into(), path(&cov), flag.into(), path(&cov)]);
        cases.push(vec![
            "coverage".into(),
            path(&shard),
            flag.into(),
            path(&dot(&shard)),
        ]);
    }
    // `run --vectors`: its coverage on the vectors file.
    let vectors = dir.join("v.txt");
    std::fs::write(&vectors, "fma.rn.f32 0x3f800000 0x40000000 0x3f800000\n").unwrap();
    let v = path(&vectors);
    cases.push(
        ["run", "--vectors", &v, "--coverage", &v]
            .map(String::from)
            .to_vec(),
    );
    for args in cases {
        let o = cosim_to(&args, Sink::Read, Sink::Read);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("is the input"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: ran: {}", text(&o.stdout));
        let now = [std::fs::read(&shard).unwrap(), std::fs::read(&cov).unwrap()];
        assert!(now == before, "{args:?}: an input was changed");
    }
    let kept = std::fs::read_to_string(&vectors).unwrap();
    assert_eq!(kept, "fma.rn.f32 0x3f800000 0x40000000 0x3f800000\n");
    assert_eq!(names(&dir), ["coverage.json", "result.json", "v.txt"]);
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// The host name as the temporaries carry it.
fn host() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    name.trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A run killed outright (SIGKILL) leaves its temporaries: the next write to the directory
/// removes those whose process is gone (outputs, workers' RTL coverage, `dut build`'s work
/// directory), and keeps a live process's, another host's, a link, and anything else.
#[test]
fn a_dead_runs_temporaries_are_removed_at_the_next_write_there() {
    let dir = scratch("outputs-dead-temporaries");
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let live = std::process::id();
    let h = host();
    let planted = [
        (format!(".result.json.tmp{dead}@{h}"), false),
        (format!(".w.vcd.rtl.tmp{dead}@{h}"), false),
        (format!(".result.json.tmp{live}@{h}"), true),
        (format!(".result.json.tmp{dead}@not-{h}"), true),
        (format!(".notes.txt.bak{dead}@{h}"), true),
        (format!(".rtl.dat.worker1.tmp{dead}@{h}"), false),
    ];
    for (name, _) in &planted {
        std::fs::write(dir.join(name), "left by a killed run").unwrap();
    }
    let build = dir.join(format!(".build.building.tmp{dead}@{h}"));
    std::fs::create_dir_all(build.join("build/fast")).unwrap();
    std::fs::write(build.join("build/fast/Vdut.cpp"), "half built").unwrap();
    let target = dir.join("kept-target");
    std::fs::create_dir(&target).unwrap();
    let link = dir.join(format!(".other.building.tmp{dead}@{h}"));
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let o = cosim_to(
        &[
            "run",
            "--count",
            "9",
            "--filter",
            "f32",
            "--jobs",
            "1",
            "--json",
            dir.join("result.json").to_str().unwrap(),
            "--waves-dir",
            dir.join("waves").to_str().unwrap(),
        ],
        Sink::Read,
        Sink::Read,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for (name, kept) in &planted {
        assert_eq!(dir.join(name).exists(), *kept, "{name}");
    }
    assert!(!build.exists(), "{}", build.display());
    assert!(link.symlink_metadata().is_ok() && target.is_dir());
    assert!(dir.join("result.json").is_file());
}

/// Two shards of one run, written once.
fn shards() -> &'static (PathBuf, PathBuf) {
    static S: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    S.get_or_init(|| {
        let dir = scratch("outputs-shards");
        let shard = |k: &str| {
            let p = dir.join(format!("shard-{k}.json"));
            let o = cosim_to(
                &[
                    "run",
                    "--count",
                    "18",
                    "--chunk-size",
                    "6",
                    "--filter",
                    "f32",
                    "--jobs",
                    "1",
                    "--shard",
                    &format!("{k}/2"),
                    "--json",
                    p.to_str().unwrap(),
                    "--waves-dir",
                    dir.join("waves").to_str().unwrap(),
                ],
                Sink::Read,
                Sink::Read,
            );
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
            p
        };
        (shard("1"), shard("2"))
    })
}

/// `merge` of the two shards, the second edited by `edit`, in both orders: each refused in
/// one line that names the edited file and `says`.
fn merge_refuses(name: &str, says: &str, edit: impl Fn(&mut serde_json::Value)) {
    let (one, two) = shards();
    let dir = scratch(&format!("outputs-merge-{name}"));
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(two).unwrap()).unwrap();
    edit(&mut v);
    let edited = dir.join("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    for files in [[one, &edited], [&edited, one]] {
        let o = cosim_to(
            &[
                "merge",
                files[0].to_str().unwrap(),
                files[1].to_str().unwrap(),
            ],
            Sink::Read,
            Sink::Read,
        );
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(edited.to_str().unwrap()), "{name}: {err}");
        assert!(err.contains(says), "{name}: wanted `{says}` in {err}");
        assert!(o.stdout.is_empty(), "{name}: {}", text(&o.stdout));
    }
}

#[test]
fn merge_takes_the_shards_of_one_run() {
    let (one, two) = shards();
    for files in [[one, two], [two, one]] {
        let o = cosim_to(
            &[
                "merge",
                files[0].to_str().unwrap(),
                files[1].to_str().unwrap(),
            ],
            Sink::Read,
            Sink::Read,
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(text(&o.stdout).contains("PASSED"), "{}", text(&o.stdout));
    }
}

#[test]
fn merge_refuses_a_shard_that_is_not_the_runs() {
    merge_refuses(
        "planned",
        "chunks_planned 1000000000000000000 disagrees",
        |v| v["chunks_planned"] = serde_json::json!(1_000_000_000_000_000_000u64),
    );
    merge_refuses("zero", "shard 0/0 cannot be", |v| {
        v["shard"] = serde_json::json!({"index": 0, "count": 0})
    });
    merge_refuses("past", "shard 5/3 cannot be", |v| {
        v["shard"] = serde_json::json!({"index": 5, "count": 3})
    });
    merge_refuses("seed", "is from another run", |v| {
        v["params"]["seed"] = 7.into()
    });
    merge_refuses("count", "is from another run", |v| {
        v["params"]["count"] = 24.into()
    });
    merge_refuses("chunk-size", "is from another run", |v| {
        v["params"]["chunk_size"] = 9.into()
    });
    merge_refuses("filter", "is from another run", |v| {
        v["params"]["filter"] = serde_json::json!(["f64"])
    });
    merge_refuses("compare", "is from another run", |v| {
        v["params"]["compare"] = "ports".into()
    });
    merge_refuses("design", "is from another run", |v| {
        v["params"]["rtl"] = "fault_sticky_rz".into()
    });
    merge_refuses("chunk-seed", "chunk 1 is not the run's chunk 1", |v| {
        v["chunks"][0]["seed"] = 12345.into()
    });
    // Shard 2/2's chunk under the name of shard 1/2, merged alone.
    let (_, two) = shards();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(two).unwrap()).unwrap();
    v["shard"]["index"] = 1.into();
    let edited = scratch("outputs-merge-shard").join("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    let o = cosim_to(&["merge", edited.to_str().unwrap()], Sink::Read, Sink::Read);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("chunk 1 is not one of shard 1/2's"), "{err}");
}
