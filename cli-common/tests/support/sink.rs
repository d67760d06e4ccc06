//! Shared by the output tests of `fma-cosim` and `fma-model` (`#[path]` from each): a command
//! run with its stdout and stderr sent where a full disk, a closed stream or a dead pipe sends
//! them.

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
