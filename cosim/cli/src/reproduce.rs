//! The replay commands a run prints to reproduce a divergence, and the limits and defaults they
//! share with the commands that take them back (`run`, `replay`, `vectors`, the triage).

use std::path::Path;

use ptxfma_model::machine::pipeline::PipeIn;

use ptxfma_cosim_outputs::command::with_note;
use ptxfma_cosim_outputs::report::{self, Origin};

/// Largest `--window`: the waveform replays this many cycles and holds them all in memory.
pub const MAX_WINDOW: u64 = ptxfma_cosim_outputs::results::check::MAX_WINDOW;
/// Where `run` and `replay` write waveforms unless told.
pub const DEFAULT_WAVES_DIR: &str = "waves";

/// The replay commands of a ports divergence of operation `input` (issued in cycle `issue`):
/// the operation alone after reset, then with the cycles before it.
pub fn ports_reproduce(
    origin: &Origin,
    input: &PipeIn,
    issue: Option<u64>,
    bound: u64,
) -> Vec<String> {
    let ports: Vec<String> = ["--compare", "ports", "--latency-bound"]
        .map(String::from)
        .into_iter()
        .chain([bound.to_string()])
        .collect();
    let mut lines = Vec::new();
    match (&origin.stream_args, issue) {
        (Some(args), Some(issue)) => {
            let index = ["--index".to_string(), issue.to_string()];
            lines.push(
                origin
                    .replay(args)
                    .args(index.clone())
                    .args(origin.tail(&ports))
                    .to_string(),
            );
            let window = (origin.window as u64).min(issue);
            if window > 0 {
                let line = origin
                    .replay(args)
                    .args(index)
                    .args(["--window".to_string(), window.to_string()])
                    .args(origin.tail(&ports));
                lines.push(with_note(line, &report::before(window)));
            }
        }
        _ => lines.push(origin.replay_operation(input, &ports).to_string()),
    }
    lines
}

/// The `--waves-dir` and `--fst` arguments that write a waveform where `dir` and `fst` say
/// (none for the defaults).
pub fn waves_args(dir: &Path, fst: bool) -> Vec<String> {
    let mut a = Vec::new();
    if dir != Path::new(DEFAULT_WAVES_DIR) {
        a.extend([
            "--waves-dir".to_string(),
            dir.to_string_lossy().into_owned(),
        ]);
    }
    if fst {
        a.push("--fst".to_string());
    }
    a
}
