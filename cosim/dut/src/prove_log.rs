//! `dut prove`'s log and its progress. A proof runs for minutes to hours, so it says where it
//! is as it goes: the tools' output is appended, as they write it, to a log in plain sight
//! (`--log`, by default `OUT.log` beside `--out`), named before anything runs and kept whatever
//! the outcome (the run's own directory is a hidden temporary until it is renamed into place,
//! and is removed on failure, so a log there would be out of sight and then gone); and each
//! step of the bounded check is printed as yosys-smtbmc starts it and when it ends, with the
//! time, and what that step compares (before the first compare step, nothing).

use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use ptxfma_cli_common::outln;
use ptxfma_cosim_engine::Error;

/// The log's first line: what marks a file as an earlier log, which a later run may replace.
pub const HEADER: &str = "# fma-cosim dut prove: the log of Yosys and yosys-smtbmc";

/// The default log: `OUT.log`, beside `--out` (`dut-prove.log` for `dut-prove`).
pub fn default_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".log");
    out.with_file_name(name)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(format!("dut prove: log {}: {e}", path.display()))
}

/// Starts the log at `path` (created, or an earlier log replaced) and returns its absolute
/// path; a file there that is not an earlier log (its first line not [`HEADER`]) is refused
/// and left as it was, and so is a path inside `out` (absolute), the run's directory, which
/// is replaced when the run ends.
pub fn create(path: &Path, manifest: &Path, out: &Path) -> Result<PathBuf, Error> {
    let abs = std::env::current_dir()
        .map(|d| d.join(path))
        .unwrap_or_else(|_| path.to_path_buf());
    if abs.starts_with(out) {
        return Err(Error::new(format!(
            "dut prove: --log {}: inside --out {}, which the run replaces: name a file outside it",
            path.display(),
            out.display()
        )));
    }
    if path.is_dir() {
        return Err(Error::new(format!(
            "dut prove: --log {}: a directory, not a file",
            path.display()
        )));
    }
    if path.exists() {
        let mut first = String::new();
        let _ = std::fs::File::open(path)
            .and_then(|f| f.take(HEADER.len() as u64).read_to_string(&mut first));
        if first != HEADER {
            return Err(Error::new(format!(
                "dut prove: --log {} exists and is not a log of `dut prove`: remove it or name \
                 another with --log",
                path.display()
            )));
        }
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    std::fs::write(
        path,
        format!("{HEADER}\n# manifest {}\n", manifest.display()),
    )
    .map_err(io(path))?;
    path.canonicalize().map_err(io(path))
}

/// Appends a section heading for the next tool and returns the log's length after it: where
/// that tool's output starts.
pub fn section(path: &Path, title: &str) -> Result<u64, Error> {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io(path))?;
    writeln!(f, "\n## {title}").map_err(io(path))?;
    f.seek(SeekFrom::End(0)).map_err(io(path))
}

/// What step `step` of the miter's bounded check compares: reset in step 0, an operation issued
/// in step s compared in step s + `edges`, so steps 1 to `edges` compare nothing.
pub fn step_checks(step: u64, edges: u64) -> String {
    match step {
        0 => "reset; nothing compared".to_string(),
        s if s <= edges => format!(
            "no result compared yet (the first, of an operation issued in step 1, in step {})",
            edges + 1
        ),
        s => format!(
            "compares the result of the operation issued in step {}",
            s - edges
        ),
    }
}

/// Follows yosys-smtbmc's part of the log and prints each step as it starts and ends.
pub struct Steps {
    log: PathBuf,
    /// Bytes of the log read so far (whole lines only).
    read: u64,
    t0: Instant,
    depth: u64,
    edges: u64,
    /// The step being checked and when it started.
    current: Option<(u64, Instant)>,
    started: Vec<u64>,
}

impl Steps {
    /// From byte `from` of `log` (the solver's section), for a check of `depth` steps that
    /// compares results `edges` steps after their issue; times counted from `t0`.
    pub fn new(log: &Path, from: u64, t0: Instant, depth: u64, edges: u64) -> Steps {
        Steps {
            log: log.to_path_buf(),
            read: from,
            t0,
            depth,
            edges,
            current: None,
            started: Vec::new(),
        }
    }

    /// Reads what the solver wrote since the last call and prints the steps it started.
    pub fn poll(&mut self) {
        let Ok(mut f) = std::fs::File::open(&self.log) else {
            return;
        };
        let mut text = String::new();
        if f.seek(SeekFrom::Start(self.read)).is_err() || f.read_to_string(&mut text).is_err() {
            return;
        }
        // Whole lines only: the rest is read again next time.
        let Some(end) = text.rfind('\n') else {
            return;
        };
        self.read += end as u64 + 1;
        for line in text[..end].lines() {
            if let Some(step) = step_started(line) {
                self.start(step);
            }
        }
    }

    fn start(&mut self, step: u64) {
        let now = Instant::now();
        if let Some((prev, at)) = self.current.take() {
            let _ = outln!(
                "  step {prev}: {} ({:.1} s)",
                step_ended(prev, self.edges, "no divergence"),
                now.duration_since(at).as_secs_f64()
            );
        }
        let _ = outln!(
            "  step {step} of 0..{} started at {:.0} s: {}",
            self.depth - 1,
            now.duration_since(self.t0).as_secs_f64(),
            step_checks(step, self.edges)
        );
        self.current = Some((step, now));
        self.started.push(step);
    }

    /// The solver ended: the step it was on ends with `how` (no divergence, a divergence, cut
    /// off by the time limit).
    pub fn end(&mut self, how: &str) {
        if let Some((step, at)) = self.current.take() {
            let how = step_ended(step, self.edges, how);
            let _ = outln!("  step {step}: {how} ({:.1} s)", at.elapsed().as_secs_f64());
        }
    }

    /// The steps the solver started, in order.
    pub fn started(&self) -> &[u64] {
        &self.started
    }
}

/// How step `step` ended, said as `how` unless that is "no divergence" in a step that
/// compares nothing ([`step_checks`]): such a step cannot have found no divergence.
pub fn step_ended(step: u64, edges: u64, how: &str) -> &str {
    if how == "no divergence" && step <= edges {
        "done, nothing compared"
    } else {
        how
    }
}

/// The step of a yosys-smtbmc line `... Checking assertions in step N..`.
pub fn step_started(line: &str) -> Option<u64> {
    let s = line.split("Checking assertions in step ").nth(1)?;
    s.trim_end_matches('.').trim().parse().ok()
}

/// What an out-of-time run checked, honestly: steps 0 to `steps - 1` of `depth` were checked
/// in full; results are compared from step `edges + 1` on, so a run cut off before that
/// compared nothing at all.
pub fn out_of_time(seconds: f64, steps: u64, depth: u64, edges: u64) -> String {
    let first = edges + 1;
    let head = format!("out of time after {seconds:.0} s");
    let checked = match steps {
        0 => "no step of the check finished".to_string(),
        1 => "step 0 (reset) checked".to_string(),
        n => format!("steps 0-{} checked", n - 1),
    };
    if steps <= first {
        format!(
            "{head}: {checked}, but no result is compared before step {first} (an operation \
             issued in step 1 retires {edges} edges later): no result was compared, nothing is \
             proved (raise --timeout, or lower --depth)"
        )
    } else {
        let last_issue = steps - 1 - edges;
        let issues = if last_issue == 1 {
            "step 1".to_string()
        } else {
            format!("steps 1-{last_issue}")
        };
        format!(
            "{head}: {checked} of 0..{}: every result of the operations issued in {issues} \
             was the kit's, after any operations before them; those issued in steps {}-{} \
             were not compared: not proved (raise --timeout, or lower --depth)",
            depth - 1,
            last_issue + 1,
            depth - 1 - edges
        )
    }
}

/// `r`, or None after Ctrl-C stopped the proof (said on stderr, with `log`, where the tools'
/// output is): both modes then exit 130. Any other error is returned.
pub fn or_interrupted<T>(log: &Path, r: Result<T, Error>) -> Result<Option<T>, Error> {
    match r {
        Err(_) if crate::children::interrupted() => {
            ptxfma_cli_common::errln!(
                "fma-cosim dut prove: interrupted; nothing was written but the log, {}",
                log.display()
            )?;
            Ok(None)
        }
        r => r.map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_time_says_whether_anything_was_compared() {
        // Four edges: results are first compared in step 5. Steps 0-4 done: nothing compared.
        let s = out_of_time(900.0, 5, 9, 4);
        assert!(s.contains("steps 0-4 checked"), "{s}");
        assert!(
            s.contains("no result was compared, nothing is proved"),
            "{s}"
        );
        assert!(!s.contains("no divergence"), "{s}");
        let s = out_of_time(10.0, 0, 6, 4);
        assert!(s.contains("no step of the check finished"), "{s}");
        // Steps 0-6 of 9: the operations issued in steps 1 and 2 were compared.
        let s = out_of_time(900.0, 7, 9, 4);
        assert!(s.contains("issued in steps 1-2 was the kit's"), "{s}");
        assert!(
            s.contains("those issued in steps 3-4 were not compared"),
            "{s}"
        );
        assert!(s.contains("not proved"), "{s}");
    }

    #[test]
    fn each_step_says_what_it_compares() {
        assert_eq!(step_checks(0, 4), "reset; nothing compared");
        assert!(step_checks(4, 4).contains("no result compared yet"));
        assert!(step_checks(4, 4).contains("in step 5"));
        assert_eq!(
            step_checks(6, 4),
            "compares the result of the operation issued in step 2"
        );
        assert_eq!(
            step_started("##   0:00:03  Checking assertions in step 12.."),
            Some(12)
        );
        assert_eq!(step_started("Checking assumptions in step 1.."), None);
        assert_eq!(step_ended(4, 4, "no divergence"), "done, nothing compared");
        assert_eq!(step_ended(5, 4, "no divergence"), "no divergence");
        assert_eq!(step_ended(2, 4, "a divergence"), "a divergence");
    }

    #[test]
    fn a_file_that_is_not_a_log_is_not_replaced() {
        let d = std::env::temp_dir().join(format!("ptxfma-prove-log-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let theirs = d.join("notes.log");
        std::fs::write(&theirs, "mine\n").unwrap();
        let e = create(&theirs, Path::new("m.toml"), &d.join("out")).unwrap_err();
        assert!(e.to_string().contains("is not a log of `dut prove`"), "{e}");
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "mine\n");
        let ours = d.join("p.log");
        let e = create(&d.join("out/x.log"), Path::new("m.toml"), &d.join("out")).unwrap_err();
        assert!(e.to_string().contains("inside --out"), "{e}");
        let p = create(&ours, Path::new("m.toml"), &d.join("out")).unwrap();
        let at = section(&p, "yosys").unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"x\n")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap()[at as usize..], *"x\n");
        // An earlier log is replaced.
        create(&ours, Path::new("m.toml"), &d.join("out")).unwrap();
        assert!(!std::fs::read_to_string(&p).unwrap().contains("x\n"));
        let _ = std::fs::remove_dir_all(&d);
        assert_eq!(
            default_path(Path::new("a/dut-prove")),
            Path::new("a/dut-prove.log")
        );
    }
}
