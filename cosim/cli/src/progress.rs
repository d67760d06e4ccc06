//! Progress of a long run on stderr, and Ctrl-C.
//!
//! On a terminal: an `indicatif` bar (operations done/total, ops/s, ETA, divergences so far).
//! Otherwise (CI logs): one plain line about every ten seconds. Ctrl-C (or SIGTERM) sets the
//! run's stop flag, so the workers finish their batch and the partial summary is printed; a
//! second Ctrl-C removes the files being written and exits at once ([`ptxfma_cosim_engine::temporary`]), unless
//! the JSON and JUnit results are written already: they say how the run ended, and so does the
//! exit status.

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ptxfma_cli_common::errln;
use ptxfma_cli_common::stdio::WriteError;

use ptxfma_cosim_engine::regress::Progress;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// A bar on a terminal, plain lines otherwise.
    Auto,
    Bar,
    /// A line about every ten seconds.
    Lines,
    Off,
}

/// Seconds between plain progress lines.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// Watches `p` until `done()` says the run is over, showing progress of `total` operations.
/// A progress line that cannot be written stops the run (as Ctrl-C does) and is its error:
/// stderr is full or closed, and the run's last word would be lost too.
pub fn watch(
    p: &Progress,
    total: u64,
    mode: Mode,
    done: impl Fn() -> bool,
) -> Result<(), WriteError> {
    let mode = match mode {
        Mode::Auto if std::io::stderr().is_terminal() => Mode::Bar,
        Mode::Auto => Mode::Lines,
        m => m,
    };
    let t0 = Instant::now();
    let bar = (mode == Mode::Bar).then(|| {
        let b = indicatif::ProgressBar::new(total);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} ops  {per_sec}  ETA {eta}  {msg}",
            )
            .expect("a valid template"),
        );
        b
    });
    let mut last_line = Instant::now();
    let mut failed = None;
    while !done() {
        std::thread::sleep(Duration::from_millis(100));
        let ops = p.done.load(Ordering::Relaxed);
        let div = p.divergences.load(Ordering::Relaxed);
        if let Some(b) = &bar {
            b.set_position(ops);
            b.set_message(format!("{div} divergence(s)"));
        } else if mode == Mode::Lines && failed.is_none() && last_line.elapsed() >= LINE_EVERY {
            last_line = Instant::now();
            let secs = t0.elapsed().as_secs_f64();
            let rate = ops as f64 / secs;
            let eta = if rate > 0.0 {
                format!("{:.0} s", (total.saturating_sub(ops)) as f64 / rate)
            } else {
                "-".into()
            };
            let line = errln!(
                "progress: {ops}/{total} operations ({:.1}%), {rate:.0} ops/s, ETA {eta}, \
                 {div} divergence(s)",
                100.0 * ops as f64 / total.max(1) as f64
            );
            if let Err(e) = line {
                p.stop.store(true, Ordering::SeqCst);
                failed = Some(e);
            }
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    failed.map_or(Ok(()), Err)
}

/// The stop flag Ctrl-C sets, installed once per process.
pub fn on_interrupt(p: &'static Progress) {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let r = ctrlc::set_handler(move || {
            if p.stop.swap(true, Ordering::SeqCst) {
                // Returns only when the results are already written: the run then ends as
                // they say.
                ptxfma_cosim_engine::temporary::exit_now(130);
                return;
            }
            // Nothing to do about a stderr that cannot take it: the run ends as interrupted.
            let _ =
                errln!("\ninterrupted: finishing the current batches (Ctrl-C again to quit now)");
        });
        if let Err(e) = r {
            let _ = errln!("warning: Ctrl-C will not stop the run cleanly: {e}");
        }
    });
}
