//! A regression: a list of chunks run by `jobs` workers in one process.
//!
//! Each worker owns a Verilated RTL (with its own `VerilatedContext`) and a reference, takes
//! the next chunk in list order, and runs it from reset. Results are kept by chunk index, and
//! everything that is reported is derived from them in chunk order, so the summary and the
//! first divergence (lowest chunk, then cycle) are the same for any number of workers.
//!
//! `--max-divergences N` cuts the run deterministically: the run covers the chunks up to the
//! first one at which the divergences of all chunks so far reach N. A worker skips a chunk
//! once the chunks before it are known to reach that count.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::chunk::{chunk_seed, Chunk, Chunks};
use crate::lockstep::{self, Config, Hooks, Outcome};
use crate::reference;
use crate::rtl::Rtl;
use crate::Error;

pub mod placement;

use crate::sides::Sides;

/// What a running regression shares with the thread that watches it.
#[derive(Default)]
pub struct Progress {
    /// Set to stop every worker after its current batch (Ctrl-C).
    pub stop: AtomicBool,
    /// Valid operations compared so far.
    pub done: AtomicU64,
    /// Divergences found so far.
    pub divergences: AtomicU64,
    /// Chunks finished.
    pub chunks: AtomicUsize,
}

/// The outcome of each chunk the run covers, in chunk order.
#[derive(Debug)]
pub struct Ran {
    pub chunks: Vec<(Chunk, Outcome)>,
    /// Some chunk before the cut did not run to its end (Ctrl-C).
    pub interrupted: bool,
}

/// Most chunks one run keeps the outcome of (see [`run`]): a longer list is refused, not
/// allocated.
pub const MAX_CHUNKS: u64 = 1 << 20;

/// The outcomes so far, by position in the list, and how far the finished prefix goes.
struct Results {
    outs: Vec<Option<Outcome>>,
    /// The chunks before this position have all finished ...
    done: usize,
    /// ... and hold this many divergences.
    divergences: usize,
    /// The first position `j` at which the chunks before it hold `max_divergences`.
    cut: Option<usize>,
}

impl Results {
    fn put(&mut self, i: usize, out: Outcome, max: usize) {
        self.outs[i] = Some(out);
        while let Some(Some(o)) = self.outs.get(self.done) {
            self.divergences += o.divergences.len();
            self.done += 1;
            if self.cut.is_none() && self.divergences >= max {
                self.cut = Some(self.done);
            }
        }
    }
}

/// Runs `chunks` with `jobs` workers, each taking the next chunk as it is made.
/// `cfg.max_divergences` applies to the whole list. The outcome of each chunk is kept until
/// the end, so a list of more than [`MAX_CHUNKS`] is refused.
pub fn run(
    chunks: &Chunks,
    sides: &Sides,
    cfg: &Config,
    jobs: usize,
    progress: &Progress,
) -> Result<Ran, Error> {
    if chunks.len() > MAX_CHUNKS {
        return Err(Error::new(format!(
            "{} chunks: a run keeps the outcome of each, at most {MAX_CHUNKS}",
            chunks.len()
        )));
    }
    let n = chunks.len() as usize;
    let jobs = jobs.clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Results {
        outs: (0..n).map(|_| None).collect(),
        done: 0,
        divergences: 0,
        cut: None,
    });
    let failure: Mutex<Option<(usize, Error)>> = Mutex::new(None);

    let cov_failure: Mutex<Option<Error>> = Mutex::new(None);

    std::thread::scope(|s| {
        for worker in 0..jobs {
            let (next, results, failure, cov_failure) = (&next, &results, &failure, &cov_failure);
            s.spawn(move || {
                let mut sides_built = None;
                let mut work = || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n || progress.stop.load(Ordering::Relaxed) {
                        return;
                    }
                    // The chunks before `i`, all finished, already hold max_divergences.
                    if lock(results).cut.is_some_and(|j| j <= i) {
                        continue;
                    }
                    let Some(chunk) = chunks.get(i as u64) else {
                        return;
                    };
                    let r = run_chunk(&chunk, sides, cfg, progress, &mut sides_built);
                    match r {
                        Ok(out) => {
                            progress
                                .divergences
                                .fetch_add(out.divergences.len() as u64, Ordering::Relaxed);
                            progress.chunks.fetch_add(1, Ordering::Relaxed);
                            lock(results).put(i, out, cfg.max_divergences);
                        }
                        Err(e) => {
                            let mut f = lock(failure);
                            if f.as_ref().is_none_or(|(j, _)| i < *j) {
                                *f = Some((i, e));
                            }
                            progress.stop.store(true, Ordering::Relaxed);
                            return;
                        }
                    }
                };
                work();
                if let (Some(file), Some((rtl, _))) = (&sides.rtl_coverage, &mut sides_built) {
                    // A temporary, registered by the caller (cli::run) until merged.
                    let part = worker_file(file, worker);
                    if let Err(e) = crate::temporary::create_with(|| rtl.write_coverage(&part)) {
                        *lock(cov_failure) = Some(e);
                    }
                }
            });
        }
    });

    if let Some((i, e)) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        let args = chunks.get(i as u64).map(|c| c.stream_args());
        return Err(Error::new(format!(
            "chunk {i} ({}): {e}",
            args.unwrap_or_default()
        )));
    }
    if let Some(e) = cov_failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner()).outs;
    let mut ran = Ran {
        chunks: Vec::new(),
        interrupted: false,
    };
    let mut total = 0;
    for (chunk, out) in chunks.iter().zip(results) {
        match out {
            Some(out) => {
                ran.interrupted |= out.interrupted;
                total += out.divergences.len();
                ran.chunks.push((chunk, out));
                if total >= cfg.max_divergences {
                    break;
                }
            }
            None => ran.interrupted = true,
        }
    }
    Ok(ran)
}

/// One chunk from reset, on this worker's sides (built on first use). A panic of the
/// reference becomes an error naming the chunk.
fn run_chunk(
    chunk: &Chunk,
    sides: &Sides,
    cfg: &Config,
    progress: &Progress,
    built: &mut Option<(Rtl, Box<dyn reference::Reference>)>,
) -> Result<Outcome, Error> {
    if let Some(seed) = sides.random_init {
        // A fresh RTL per chunk, so that its initial state depends on the chunk alone.
        let rtl = Rtl::with_random_init(
            &sides.rtl,
            false,
            Some(chunk_seed(seed, chunk.index as u64)),
        )?;
        match built {
            Some((r, _)) => *r = rtl,
            None => *built = Some((rtl, reference::from_spec(&sides.golden)?)),
        }
    }
    if built.is_none() {
        *built = Some((
            Rtl::new(&sides.rtl, false)?,
            reference::from_spec(&sides.golden)?,
        ));
    }
    let (rtl, golden) = built.as_mut().expect("built above");
    let hooks = Hooks {
        stop: Some(&progress.stop),
        done: Some(&progress.done),
    };
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| {
        lockstep::run_with(rtl, golden.as_mut(), chunk.stream(), cfg, hooks)
    }));
    match r {
        Ok(r) => r,
        Err(p) => {
            // The sides are in an unknown state: build new ones for the next chunk.
            *built = None;
            Err(Error::new(format!(
                "the reference panicked: {}",
                lockstep::panic_text(&p)
            )))
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The file worker `k` writes its RTL coverage counts to, next to `file`: a temporary of this
/// process (`.NAME.worker<k>.tmp<pid>@<host>`), swept if the process is killed outright.
pub fn worker_file(file: &Path, k: usize) -> PathBuf {
    crate::temporary::beside_name(file, &format!("worker{k}.tmp"))
}
