//! The `fma-model` command line as a whole: help, version, usage errors, arguments that are not
//! UTF-8, and a stdout that is closed under it. The subcommands' own behaviour is tested in
//! `eval_cli.rs` and `check_cli.rs`.

use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_fma-model");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run fma-model")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// Exit status 2, nothing on stdout, and one line on stderr, `error: ...`, containing `needle`.
fn assert_usage_error(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line:\n{err}");
    assert!(err.contains(needle), "wanted `{needle}` in {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(o.stdout.is_empty(), "{o:?}");
}

#[test]
fn top_level_help_lists_the_commands_with_examples() {
    for flag in ["--help", "-h"] {
        let o = run(&[flag]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert!(o.stderr.is_empty(), "{o:?}");
        let out = text(&o.stdout);
        for needle in [
            "Usage: fma-model <COMMAND>",
            "eval",
            "check",
            "--version",
            "TestFloat",
            "Examples:",
            "fma-model eval '",
            "| fma-model eval",
            "fma-model check -rmin f64_mulAdd",
        ] {
            assert!(out.contains(needle), "{flag}: no `{needle}` in\n{out}");
        }
    }
}

#[test]
fn short_and_long_help_are_the_same_full_text() {
    for sub in [&[][..], &["eval"], &["check"]] {
        let long = run(&[sub, &["--help"][..]].concat());
        let short = run(&[sub, &["-h"][..]].concat());
        assert_eq!(long.status.code(), Some(0));
        assert_eq!(text(&long.stdout), text(&short.stdout), "{sub:?}");
    }
    // `help <command>` is the command's help too.
    let o = run(&["help", "check"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(text(&o.stdout).contains("--strict-nan"), "{o:?}");
}

#[test]
fn version() {
    for flag in ["--version", "-V"] {
        let o = run(&[flag]);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        assert_eq!(text(&o.stdout), "fma-model 0.1.0\n");
        assert!(o.stderr.is_empty(), "{o:?}");
    }
}

#[test]
fn usage_errors_are_one_line_and_exit_2() {
    assert_usage_error(&run(&[]), "no command given");
    assert_usage_error(&run(&["frobnicate"]), "unknown command `frobnicate`");
    assert_usage_error(&run(&["--frobnicate"]), "unknown option `--frobnicate`");
    assert_usage_error(&run(&["-q"]), "unknown option `-q`");
    assert_usage_error(&run(&["eval", "--bogus"]), "unknown option `--bogus`");
    assert_usage_error(&run(&["check", "--bogus"]), "unknown option `--bogus`");
    assert_usage_error(
        &run(&["check", "--strict-nam", "f32_mulAdd"]),
        "did you mean `--strict-nan`?",
    );
    // A huge or hostile option is not echoed whole.
    let huge = format!("--{}", "z".repeat(100_000));
    let o = run(&["check", &huge]);
    assert_usage_error(&o, "unknown option `--zzz");
    assert!(o.stderr.len() < 300, "{} bytes", o.stderr.len());
    let o = run(&["eval", "--\x1b[31mred\x07"]);
    assert_usage_error(&o, "unknown option `--\\u{1b}[31mred\\u{7}`");
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_a_one_line_error() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let bad = || OsString::from_vec(vec![0x66, 0xff]);
    for args in [
        vec![bad()],
        vec!["eval".into(), bad()],
        vec!["check".into(), bad()],
        vec!["check".into(), "-r".into(), bad(), "f32_mulAdd".into()],
    ] {
        let o = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_usage_error(&o, "argument `f\\xff` is not valid UTF-8");
    }
}

/// Runs `fma-model args` with its stdout a pipe whose read end is closed before the program
/// starts, so its first write fails (EPIPE). It must end quietly, with `status`: that of what
/// it did before.
#[cfg(unix)]
fn into_closed_pipe(args: &[&str], status: i32) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_quiet_end(&o, args, status);
}

/// Nothing on stderr, and exit `status`.
#[cfg(unix)]
fn assert_quiet_end(o: &Output, what: &[&str], status: i32) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.is_empty(), "{what:?}: {err}");
    assert_eq!(o.status.code(), Some(status), "{what:?}");
}

/// Many lines of output: more than a pipe holds, so some write fails even if the reader was
/// still open for the first ones.
const MANY: usize = 20_000;

#[cfg(unix)]
#[test]
fn help_into_a_closed_pipe_ends_quietly() {
    into_closed_pipe(&["eval", "--help"], 0);
    into_closed_pipe(&["check", "--help"], 0);
    into_closed_pipe(&["--help"], 0);
    into_closed_pipe(&["--version"], 0);
}

#[cfg(unix)]
#[test]
fn eval_output_into_a_closed_pipe_ends_quietly() {
    let line = "fma.rn.f32 0x3f800000 0x40000000 0x3f800000";
    let mut args = vec!["eval"];
    args.extend(std::iter::repeat_n(line, MANY));
    into_closed_pipe(&args, 0);
}

#[cfg(unix)]
#[test]
fn check_output_into_a_closed_pipe_ends_quietly() {
    use std::io::Write;
    // Every vector a mismatch, all of them reported: many lines of output.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let p = dir.join("cli-closed-pipe-check.txt");
    let mut f = std::fs::File::create(&p).unwrap();
    for _ in 0..MANY / 4 {
        f.write_all(b"3F800000 40000000 3F000000 00000000 00\n")
            .unwrap();
    }
    drop(f);
    let n = (MANY / 4).to_string();
    // A mismatch was found before the pipe closed: status 1.
    into_closed_pipe(
        &[
            "check",
            "--max-report",
            &n,
            "f32_mulAdd",
            p.to_str().unwrap(),
        ],
        1,
    );
}

/// The other way round: the reader goes away after the program started, as with `| head`.
#[cfg(unix)]
#[test]
fn reader_closing_after_start_ends_quietly() {
    let mut child = Command::new(BIN)
        .args(["eval", "--help"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_quiet_end(&o, &["eval", "--help"], 0);

    let line = "fma.rn.f32 0x3f800000 0x40000000 0x3f800000";
    let mut child = Command::new(BIN)
        .arg("eval")
        .args(std::iter::repeat_n(line, MANY))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    // MANY results do not fit in a pipe, so some write met the closed pipe: the status is
    // still that of the lines, all good.
    assert_quiet_end(&o, &["eval", "(many lines)"], 0);
}
