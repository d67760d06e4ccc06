//! Shared by the output tests of `fma-cosim` and `fma-model` (`#[path]` from each): a command
//! run with its stdout and stderr sent where a full disk, a closed stream or a dead pipe sends
//! them, and the checks both commands' every command line must pass ([`check_stdout_sinks`]).

use std::ffi::OsStr;
use std::fs::File;
use std::process::{Command, Output, Stdio};

/// Where a command's stdout or stderr goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sink {
    /// Captured, as a person reads it.
    Read,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// Closed before the program starts (`>&-`).
    Closed,
    /// A pipe whose reader is gone: every write fails with EPIPE.
    Gone,
}

fn stdio(s: Sink) -> Stdio {
    match s {
        Sink::Read | Sink::Closed => Stdio::piped(),
        Sink::Full => File::options()
            .write(true)
            .open("/dev/full")
            .unwrap()
            .into(),
        Sink::Gone => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            writer.into()
        }
    }
}

/// `BIN ARGS` with stdin from `stdin`, stdout to `out` and stderr to `err` (a closed one
/// closed by the shell before it starts the program).
pub fn run_to<S: AsRef<OsStr>>(
    bin: &str,
    args: &[S],
    stdin: Stdio,
    out: Sink,
    err: Sink,
) -> Output {
    let close = match (out, err) {
        (Sink::Closed, Sink::Closed) => " >&- 2>&-",
        (Sink::Closed, _) => " >&-",
        (_, Sink::Closed) => " 2>&-",
        _ => "",
    };
    Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\"{close}"))
        .arg(bin)
        .args(args)
        .stdin(stdin)
        .stdout(stdio(out))
        .stderr(stdio(err))
        .output()
        .unwrap()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A run that did not crash: no panic, no Rust's "failed printing", not killed by a signal.
pub fn no_crash(what: &str, o: &Output) {
    let err = text(&o.stderr);
    assert!(
        !err.contains("panicked") && !err.contains("failed printing"),
        "{what}: {err}"
    );
    assert_ne!(o.status.code(), Some(101), "{what}: {err}");
    assert!(o.status.code().is_some(), "{what}: killed by a signal");
}

/// What a command says on stderr when the reader of its stdout is gone.
// Each command's tests name the one that holds for it, so the other is never built there.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WhenGone {
    /// Nothing.
    Quiet,
    /// What it says when its stdout is read (its warnings and its verdict's reasons).
    AsWhenRead,
}

/// The closed-pipe harness: `run(out, err)` runs one command line (`what`) with its stdout and
/// stderr sent to those sinks. Read, it prints something; with the reader gone, it ends with
/// the same status, its stderr as `when_gone` says; with stdout full or closed, it exits 2
/// with one line on stderr that says so; with nowhere to write at all, it still exits 2.
pub fn check_stdout_sinks(what: &str, when_gone: WhenGone, run: impl Fn(Sink, Sink) -> Output) {
    let read = run(Sink::Read, Sink::Read);
    no_crash(what, &read);
    assert!(!read.stdout.is_empty(), "{what}: prints nothing");

    let gone = run(Sink::Gone, Sink::Read);
    no_crash(what, &gone);
    assert_eq!(
        gone.status.code(),
        read.status.code(),
        "{what}: {}",
        text(&gone.stderr)
    );
    match when_gone {
        WhenGone::Quiet => assert!(gone.stderr.is_empty(), "{what}: {}", text(&gone.stderr)),
        WhenGone::AsWhenRead => assert_eq!(text(&gone.stderr), text(&read.stderr), "{what}"),
    }

    for (sink, says) in [
        (
            Sink::Full,
            "error: cannot write to standard output: No space left on device",
        ),
        (
            Sink::Closed,
            "error: cannot write to standard output: it is closed",
        ),
    ] {
        let o = run(sink, Sink::Read);
        no_crash(what, &o);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{what} {sink:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{what} {sink:?}: {err}");
        assert!(err.starts_with(says), "{what} {sink:?}: {err}");
    }
    for sink in [Sink::Full, Sink::Closed] {
        let o = run(sink, sink);
        assert_eq!(o.status.code(), Some(2), "{what} {sink:?} twice");
    }
}
