//! `fma-cosim dut exhaust`: every input pair of the two-operand half forms a design takes, run
//! through the design alone and compared, one value of `a` at a time, with the H100's
//! fingerprint of that `a` (`make silicon-exhaustive`'s file) or, without the file, with the
//! model's sum of it; an `a` whose sum differs is run again against the model pair by pair and
//! named by its first differing pair (docs/dut.md, "Exhaustion").
//!
//! Where each part lives: [`forms`] (which forms, and the words and operands the design is
//! given), [`drive`] (one `a` through the design), [`judge`] (the sum under the NaN convention,
//! the first difference), [`record`] (the file: progress, findings, resume, merge).

pub mod drive;
pub mod forms;
pub mod judge;
pub mod record;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use ptxfma_cli_common::fingerprints::{self, PER_FORM};
use ptxfma_cosim_engine::regress::Progress;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::command::ShellCommand;
use ptxfma_ptx::NanConvention;

use forms::{Allowed, Form};
use record::{Difference, Exhaustion, FormRecord};

/// Seconds between writes of the file while the run goes.
const SAVE_EVERY: Duration = Duration::from_secs(10);

/// What to exhaust, and where the findings go.
pub struct Options {
    /// `default` (the kit's RTL) or `dut:DIR`.
    pub variant: String,
    /// Forms by spelling (empty: every one the design takes).
    pub forms: Vec<String>,
    /// Give the design the fma of each form even where it takes the form.
    pub via_fma: bool,
    /// The values of `a`, `[first, last + 1)`.
    pub a_range: [u32; 2],
    /// The shard `a_range` is (`--shard`), recorded so that a merge knows the whole split.
    pub shard: Option<record::ShardOf>,
    pub jobs: usize,
    /// The findings (and the state a rerun with `resume` continues).
    pub json: PathBuf,
    pub resume: bool,
    /// The fingerprint file; `None`: the checkout's, or the model where it is not there.
    pub fingerprints: Option<PathBuf>,
}

/// The sums an `a` is compared with.
enum Expected {
    H100(Vec<Vec<u64>>),
    Model,
}

impl Expected {
    fn sum(&self, form: &Form, a: u16, scratch: &mut [u64]) -> u64 {
        match self {
            Expected::H100(gpu) => gpu[form.k][a as usize],
            Expected::Model => fingerprints::model_sum(&form.ctrl, a, scratch),
        }
    }
}

/// The fingerprints, from `path` or the checkout's file; the model's sums when no path was
/// given and the checkout's file is not there (a binary copied away from its checkout).
fn expected(path: Option<&Path>) -> Result<Expected, Error> {
    let (path, given) = match path {
        Some(p) => (p.to_path_buf(), true),
        None => (fingerprints::default_path(), false),
    };
    match std::fs::read(&path) {
        Ok(bytes) => fingerprints::parse(&bytes)
            .map(Expected::H100)
            .map_err(|e| Error::new(format!("--fingerprints {}: {e}", path.display()))),
        Err(e) if given || e.kind() != std::io::ErrorKind::NotFound => Err(Error::new(format!(
            "--fingerprints {}: {e}",
            path.display()
        ))),
        Err(_) => Ok(Expected::Model),
    }
}

/// What a design takes, from its record; the kit's pipe takes everything, and a built-in
/// design with only result ports (`rtl/alt/`, `--rtl alt`) only `fma.rnd{.ftz}{.sat}.f32`,
/// so no half form at all.
fn allowed(variant: &str) -> Result<Allowed, Error> {
    let Some(rec) = ptxfma_cosim_engine::dut::record_of(variant)? else {
        let pipe = ptxfma_cosim_engine::rtl::variant(variant)?.registers;
        return Ok(Allowed {
            families: (!pipe).then(|| vec![ptxfma_cosim_engine::stim::Family::F32]),
            forms: None,
        });
    };
    Ok(Allowed {
        families: Some(
            rec.families
                .iter()
                .filter_map(|f| ptxfma_cosim_engine::stim::Family::parse(f))
                .collect(),
        ),
        forms: rec.forms(),
    })
}

/// The command that replays pair `(a, x)` of `form` on `variant`.
pub fn replay_line(variant: &str, form: &Form, a: u16, x: u16) -> String {
    let (a, b, c) = form.operands(a, x);
    let cmd = ShellCommand::cosim().arg("replay");
    let cmd = match variant.strip_prefix("dut:") {
        Some(dir) => cmd.arg("--dut").path(Path::new(dir)),
        None => cmd.args(["--rtl", variant]),
    };
    cmd.args(["--ctrl", &form.issued_spelling()])
        .args(["--a", &format!("{a:#06x}")])
        .args(["--b", &format!("{b:#06x}")])
        .args(["--c", &format!("{c:#06x}")])
        .to_string()
}

/// A fresh file for `opts`, nothing done.
fn fresh(
    opts: &Options,
    forms: &[Form],
    nan: NanConvention,
    against: &str,
) -> Result<Exhaustion, Error> {
    Ok(Exhaustion {
        schema: record::SCHEMA.into(),
        design: opts.variant.clone(),
        library_sha256: ptxfma_cosim_engine::dut::record_of(&opts.variant)?
            .map(|r| r.sha256.library.clone()),
        nan: nan.describe(),
        against: against.into(),
        a_range: opts.a_range,
        shard: opts.shard,
        forms: forms
            .iter()
            .map(|f| FormRecord {
                form: f.name().into(),
                issued: f.issued_spelling(),
                done: Vec::new(),
                differ: Vec::new(),
            })
            .collect(),
        complete: false,
        seconds: 0.0,
    })
}

/// The file to start from: `fresh`, or with `resume` what `opts.json` holds of the same
/// exhaustion; an unfinished file is not overwritten without `resume`.
fn start(opts: &Options, fresh: Exhaustion) -> Result<Exhaustion, Error> {
    let path = &opts.json;
    let at = |m: String| Error::new(format!("{}: {m}", path.display()));
    if !opts.resume {
        if path.exists() {
            let old = Exhaustion::read(path).map_err(|_| {
                at("exists and is not the file of an exhaustion; choose another --json".into())
            })?;
            if !old.complete {
                return Err(at(
                    "holds an unfinished exhaustion: continue it with --resume, or \
                               remove it"
                        .into(),
                ));
            }
        }
        return Ok(fresh);
    }
    let old = Exhaustion::read(path).map_err(|e| Error::new(format!("--resume: {e}")))?;
    if let Some(why) = fresh.mismatch(&old) {
        return Err(at(format!("not this exhaustion to resume: {why}")));
    }
    let names = |e: &Exhaustion| -> Vec<(String, String)> {
        e.forms
            .iter()
            .map(|f| (f.form.clone(), f.issued.clone()))
            .collect()
    };
    if old.a_range != fresh.a_range || names(&old) != names(&fresh) {
        return Err(at(format!(
            "not this exhaustion to resume: it covers a {}..{} of {}, this run a {}..{} of {}",
            old.a_range[0],
            old.a_range[1],
            old.forms
                .iter()
                .map(|f| f.form.as_str())
                .collect::<Vec<_>>()
                .join(","),
            fresh.a_range[0],
            fresh.a_range[1],
            fresh
                .forms
                .iter()
                .map(|f| f.form.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )));
    }
    Ok(old)
}

/// What one worker reports of one `a`.
type Done = Result<(usize, u16, Option<Difference>), Error>;

/// The plan of a run: its forms and the file it starts from, for the command to say before it
/// starts (and to know the pairs left, for the progress).
pub struct Plan {
    pub forms: Vec<Form>,
    pub file: Exhaustion,
    pub nan: NanConvention,
    bound: u64,
    expected: Expected,
}

impl Plan {
    /// Values of `a` left to run, over every form.
    pub fn left(&self) -> u64 {
        let [lo, hi] = self.file.a_range;
        self.file
            .forms
            .iter()
            .map(|f| {
                let d = record::flags(&f.done);
                (lo..hi).filter(|&a| !d[a as usize]).count() as u64
            })
            .sum()
    }
}

/// What every worker reads.
struct Job {
    forms: Vec<Form>,
    nan: NanConvention,
    bound: u64,
    expected: Expected,
}

/// Reads the design, the forms and the file to start from; every error is one line.
pub fn plan(opts: &Options) -> Result<Plan, Error> {
    let forms =
        forms::select(&allowed(&opts.variant)?, &opts.forms, opts.via_fma).map_err(Error::new)?;
    let nan = ptxfma_cosim_engine::dut::nan_convention(&opts.variant)?;
    let bound = ptxfma_cosim_engine::dut::latency_bound(&opts.variant)?;
    let expected = expected(opts.fingerprints.as_deref())?;
    let against = match expected {
        Expected::H100(_) => "h100",
        Expected::Model => "model",
    };
    let file = start(opts, fresh(opts, &forms, nan, against)?)?;
    Ok(Plan {
        forms,
        file,
        nan,
        bound,
        expected,
    })
}

/// Runs `plan` on `jobs` instances of the design until done or `progress.stop` (Ctrl-C),
/// writing the file every [`SAVE_EVERY`] and at the end; returns the file as written.
pub fn run(opts: &Options, plan: Plan, progress: &Progress) -> Result<Exhaustion, Error> {
    let t0 = Instant::now();
    let Plan {
        forms,
        mut file,
        nan,
        bound,
        expected,
    } = plan;
    let job = Job {
        forms,
        nan,
        bound,
        expected,
    };
    let spent = file.seconds;
    let [lo, hi] = file.a_range;
    let mut done: Vec<Vec<bool>> = file.forms.iter().map(|f| record::flags(&f.done)).collect();
    let work: Vec<(usize, u16)> = (0..job.forms.len())
        .flat_map(|fi| (lo..hi).map(move |a| (fi, a as u16)))
        .filter(|&(fi, a)| !done[fi][a as usize])
        .collect();
    // Written before the first `a`, so that a --json that cannot be written is said at once.
    snapshot(&file, &done, spent).write(&opts.json)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Done>();
    let mut failed = None;
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            let tx = tx.clone();
            let (work, next, job) = (&work, &next, &job);
            s.spawn(move || worker(&opts.variant, job, work, next, progress, &tx));
        }
        drop(tx);
        let mut saved = Instant::now();
        loop {
            let msg = match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(m) => Some(m),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            match msg {
                Some(Ok((fi, a, diff))) => {
                    done[fi][a as usize] = true;
                    if let Some(d) = diff {
                        progress.divergences.fetch_add(1, Ordering::Relaxed);
                        file.forms[fi].differ.push(d);
                    }
                }
                Some(Err(e)) => {
                    progress.stop.store(true, Ordering::SeqCst);
                    failed.get_or_insert(e);
                }
                None => {}
            }
            if saved.elapsed() >= SAVE_EVERY && failed.is_none() {
                saved = Instant::now();
                let snapshot = snapshot(&file, &done, spent + t0.elapsed().as_secs_f64());
                if let Err(e) = snapshot.write(&opts.json) {
                    progress.stop.store(true, Ordering::SeqCst);
                    failed = Some(e);
                }
            }
        }
    });
    let file = snapshot(&file, &done, spent + t0.elapsed().as_secs_f64());
    // What was done before an error is kept for --resume; the error is still the outcome.
    file.write(&opts.json)?;
    match failed {
        Some(e) => Err(e),
        None => Ok(file),
    }
}

/// The file with the flags `done` and `seconds`.
fn snapshot(file: &Exhaustion, done: &[Vec<bool>], seconds: f64) -> Exhaustion {
    let mut f = file.clone();
    for (r, d) in f.forms.iter_mut().zip(done) {
        r.done = record::ranges(d);
        r.differ.sort_by_key(|d| d.a);
    }
    f.seconds = seconds;
    f.complete = f.covered();
    f
}

/// One instance of the design taking `a` values from `work` until it is empty or the run stops.
fn worker(
    variant: &str,
    plan: &Job,
    work: &[(usize, u16)],
    next: &AtomicUsize,
    progress: &Progress,
    tx: &mpsc::Sender<Done>,
) {
    let mut driver = match drive::Driver::new(variant, plan.bound) {
        Ok(d) => d,
        Err(e) => {
            let _ = tx.send(Err(e));
            return;
        }
    };
    let mut results = vec![0u64; PER_FORM];
    let mut scratch = vec![0u64; PER_FORM];
    while !progress.stop.load(Ordering::Relaxed) {
        let Some(&(fi, a)) = work.get(next.fetch_add(1, Ordering::Relaxed)) else {
            return;
        };
        let form = &plan.forms[fi];
        let one = driver.results(form, a, &mut results).map(|()| {
            let got = judge::design_sum(form, a, &results, plan.nan);
            let diff = (got != plan.expected.sum(form, a, &mut scratch)).then(|| {
                match judge::first_difference(form, a, &results, plan.nan) {
                    Some((x, g, w)) => Difference {
                        a,
                        x: Some(x),
                        got: judge::describe(g),
                        expected: format!("{w:#06x}"),
                        replay: replay_line(variant, form, a, x),
                    },
                    None => Difference {
                        a,
                        x: None,
                        got: "every result the model's".into(),
                        expected: "a sum the model's results do not make (a collision)".into(),
                        replay: String::new(),
                    },
                }
            });
            progress.done.fetch_add(PER_FORM as u64, Ordering::Relaxed);
            (fi, a, diff)
        });
        let stop = one.is_err();
        if tx.send(one).is_err() || stop {
            return;
        }
    }
}
