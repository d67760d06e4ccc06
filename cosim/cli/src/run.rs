//! `fma-cosim run`: a regression of chunks over workers, with triage of its divergences.

use ptxfma_cli_common::{out, outln};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use ptxfma_cli_common::testfloat::{self, Func};
use ptxfma_cosim_engine::chunk::{self, Chunks, Shard};
use ptxfma_model::ctrl::Rnd;
use ptxfma_ptx::NanConvention;

use crate::args::CompareArg;
use crate::progress::{self, Mode};
use ptxfma_cosim_checks::coverage::{Coverage, CoverageSubscriber};
use ptxfma_cosim_engine::lockstep::Config;
use ptxfma_cosim_engine::ports::{self, Compare};
use ptxfma_cosim_engine::regress::placement::Placement;
use ptxfma_cosim_engine::regress::{self, Progress, Ran};
use ptxfma_cosim_engine::rtl;
use ptxfma_cosim_engine::sides::Sides;
use ptxfma_cosim_engine::stream::Families;
use ptxfma_cosim_engine::temporary;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::results::{ChunkRow, Params, RunResult};
use ptxfma_cosim_outputs::rtlcov;

use crate::args::{families, in_range, number, SidesArgs};
use crate::out_paths::{check_dir_writable, check_out_file};
use crate::triage::{self, Triaged, WaveOpts};
use crate::vectors;

/// Largest `--count`: beyond this a run is a farm's job, split with `--shard`.
const MAX_COUNT: u64 = ptxfma_cosim_outputs::results::check::MAX_COUNT;
/// Largest `--batch`: one batch of frames is held in memory per worker.
const MAX_BATCH: u64 = 65_536;
/// The memory a run may keep for its chunks' results (each chunk's outcome, summary row, JSON
/// and, when sampled, coverage counts): a run that would keep more is refused before it starts.
const KEPT_BUDGET: u64 = 1 << 30;
/// About what a run keeps per chunk besides coverage: its outcome, its row, its JSON.
const KEPT_PER_CHUNK: u64 = 2048;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seed of the run; each chunk's stream seed derives from it.
    #[arg(long, default_value = "1", value_parser = number)]
    seed: u64,
    /// Operations in the whole run, split evenly over the families.
    #[arg(long, default_value = "1000000", value_parser = in_range(1, MAX_COUNT))]
    count: u64,
    /// Families, comma-separated: f32, f64, f32x2, mixed, sm1x, addsubmul, vmad, or all.
    #[arg(long, default_value = "all", value_parser = families, value_name = "FAMILIES")]
    filter: Families,
    #[command(flatten)]
    sides: SidesArgs,
    /// Operations per chunk (each chunk runs from reset and replays alone).
    #[arg(long, default_value_t = chunk::DEFAULT_SIZE, value_parser = in_range(1, ptxfma_cosim_outputs::results::check::MAX_CHUNK_SIZE))]
    chunk_size: u64,
    /// Workers, each with its own RTL and model [default: the available cores].
    #[arg(long, value_parser = in_range(1, 1024))]
    jobs: Option<u64>,
    /// Run only shard K of N of the chunk list (1 <= K <= N).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Divergent operations to collect before stopping (grouped by signature).
    #[arg(long, default_value = "1",
          value_parser = in_range(1, ptxfma_cosim_outputs::results::MAX_DIVERGENCES as u64))]
    max_divergences: u64,
    /// Divergences listed per signature in the report, the JSON and the JUnit XML (the first
    /// N, in chunk and cycle order); every divergence is still counted.
    #[arg(long, value_name = "N",
          default_value_t = ptxfma_cosim_outputs::results::DEFAULT_MAX_EXAMPLES as u64,
          value_parser = in_range(1, ptxfma_cosim_outputs::results::check::MAX_EXAMPLES))]
    max_examples: u64,
    /// Cycles of the waveform written for each divergence signature.
    #[arg(long, default_value = "32", value_parser = in_range(1, crate::reproduce::MAX_WINDOW))]
    window: u64,
    /// Directory for the waveforms.
    #[arg(long, default_value = crate::reproduce::DEFAULT_WAVES_DIR, value_name = "DIR")]
    waves_dir: PathBuf,
    /// Write the waveforms as FST instead of VCD.
    #[arg(long)]
    fst: bool,
    /// Write the result as JSON (schema: docs/results.md).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write JUnit XML (a testsuite per family, a testcase per chunk).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the run as one self-contained HTML page: the verdict and where the run stopped,
    /// each divergence signature's first divergence (fields, operands and results decoded,
    /// the RTL module driving the field, replay commands, waveform links), parameters and the
    /// command that reproduces it, families, the coverage closure curve, the thinnest bins,
    /// throughput per worker (samples coverage).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Sample functional coverage (docs/coverage.md), print its headline and write the counts
    /// to FILE (`fma-cosim coverage FILE` reports them); the JSON result carries them too.
    #[arg(long, value_name = "FILE")]
    coverage: Option<PathBuf>,
    /// With --coverage: print the per-group coverage table too (before the summary, which
    /// stays last); without it one line says what was hit.
    #[arg(long, requires = "coverage")]
    coverage_table: bool,
    /// Draw the RTL's initial state (every flop before the reset) at random, from a seed derived
    /// from SEED and the chunk (`+verilator+rand+reset+2`): a result that changes shows a flop
    /// the reset does not clear. Only with a variant Verilated with --x-initial unique
    /// (`--rtl random_init`, cargo feature `random-init`).
    #[arg(long, value_name = "SEED", value_parser = number, conflicts_with = "vectors")]
    random_init: Option<u64>,
    /// Write the RTL's line and toggle coverage (Verilator `.dat`, for `verilator_coverage`) to
    /// FILE and print its summary. Only with `--rtl coverage` (cargo feature `rtl-coverage`).
    #[arg(long, value_name = "FILE", conflicts_with = "vectors")]
    rtl_coverage: Option<PathBuf>,
    /// Cycles per RTL batch.
    #[arg(long, default_value_t = ptxfma_cosim_engine::lockstep::DEFAULT_BATCH as u64,
          value_parser = in_range(1, MAX_BATCH))]
    batch: u64,
    /// Where the model runs: its own thread when a core is spare (auto), or always/never.
    #[arg(long, value_enum, default_value = "auto")]
    golden_thread: Placement,
    /// Progress on stderr: a bar on a terminal, a line every ~10 s otherwise.
    #[arg(long, value_enum, default_value = "auto")]
    progress: Mode,
    /// What is compared: `registers`, every cycle's output ports and stage registers against
    /// the model's (the RTL must be this pipe); or `ports`, only the retired results, matched
    /// to the issued operations by tag, for a design of any latency (docs/dut.md).
    /// [default: registers where the RTL has them, else ports (`--dut` designs)]
    #[arg(long, value_enum)]
    compare: Option<CompareArg>,
    /// A `dut build` design with a handshake: `out_ready_i` low in PERCENT of its cycles, at
    /// random (a stress mode; the same for any --jobs).
    #[arg(long, value_name = "PERCENT", default_value = "0", value_parser = in_range(0, 90))]
    backpressure: u64,
    /// With --compare ports: an operation must retire within N cycles of its issue; the
    /// stream is followed by N bubbles to drain the design.
    /// [default: a `dut build` design's manifest's, else 64]
    #[arg(long, value_name = "N",
          value_parser = in_range(*ports::BOUND_RANGE.start(), *ports::BOUND_RANGE.end()))]
    latency_bound: Option<u64>,
    /// Run the vectors of FILE (plain or gzipped) instead of generated stimulus, and check each
    /// retired result against the file too: `fma-model eval` lines with an optional expected
    /// column, or TestFloat output with --testfloat.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "json", "junit", "html", "compare"])]
    vectors: Option<PathBuf>,
    /// The --vectors file is testfloat_gen output for FUNCTION: f32_mulAdd, f64_mulAdd, or
    /// f32/f64 _add, _sub, _mul.
    #[arg(long, value_name = "FUNCTION", requires = "vectors", value_parser = Func::parse)]
    testfloat: Option<Func>,
    /// TestFloat's rounding mode, spelled as for testfloat_gen: -rnear_even (the default),
    /// -rminMag, -rmin, -rmax.
    #[arg(short = 'r', value_name = "MODE", requires = "testfloat", value_parser = testfloat::parse_rounding)]
    rounding: Option<Rnd>,
    /// With --vectors: NaN results must match the file bit for bit (by default any f32 NaN
    /// matches any NaN, as PTX leaves it open, and TestFloat's NaNs are SoftFloat's). Not with
    /// --dut, whose manifest's contract.nan says how its NaNs are judged.
    #[arg(long, requires = "vectors")]
    strict_nan: bool,
}

impl Args {
    pub(super) fn sides_mut(&mut self) -> &mut SidesArgs {
        &mut self.sides
    }
}

pub fn run(mut a: Args) -> Result<u8, Error> {
    let outputs = [
        ("--json", a.json.as_deref()),
        ("--junit", a.junit.as_deref()),
        ("--coverage", a.coverage.as_deref()),
        ("--rtl-coverage", a.rtl_coverage.as_deref()),
        ("--html", a.html.as_deref()),
    ];
    crate::out_paths::distinct_outputs(&outputs)?;
    crate::out_paths::not_an_input(&outputs, a.vectors.as_slice())?;
    // Ctrl-C from here on stops the run cleanly.
    let progress: &'static Progress = Box::leak(Box::default());
    progress::on_interrupt(progress);
    let sides = sides(&a)?;
    if let Some(dir) = sides.rtl.strip_prefix("dut:") {
        if a.strict_nan {
            return Err(Error::new(
                "--strict-nan: a --dut design's NaN results are judged by its manifest's \
                 contract.nan (ptx, canonical or any)",
            ));
        }
        dut_defaults(&mut a, std::path::Path::new(dir))?;
    }
    if a.backpressure > 0 {
        let handshake =
            ptxfma_cosim_engine::dut::record_of(&sides.rtl)?.is_some_and(|r| r.handshake);
        if !handshake {
            return Err(Error::new(
                "--backpressure needs a `dut build` design with contract.handshake",
            ));
        }
        ptxfma_cosim_engine::dut::handshake::set_backpressure(a.backpressure);
    }
    let jobs = a
        .jobs
        .map_or_else(regress::placement::available_cores, |j| j as usize);
    check_dir_writable(&a.waves_dir, "waves directory")?;
    if let Some(path) = a.vectors.take() {
        let src = vectors::Source {
            path,
            testfloat: a.testfloat.map(|f| (f, a.rounding.unwrap_or(Rnd::Rn))),
            strict_nan: a.strict_nan,
        };
        return vectors::run(&src, &sides, &a.waves_dir);
    }
    for p in [&a.json, &a.junit, &a.coverage, &a.rtl_coverage, &a.html]
        .into_iter()
        .flatten()
    {
        check_out_file(p, "output file")?;
    }
    let plan = plan(&a, &sides, jobs)?;
    let (ran, seconds) = regress(&a, &plan, &sides, progress)?;
    if ptxfma_cosim_engine::dut::record_of(&sides.rtl)?.is_some_and(|r| r.handshake) {
        let (stalls, held) = ptxfma_cosim_engine::dut::handshake::totals();
        outln!(
            "handshake: {stalls} design cycle(s) with an operation held (in_ready_o low), \
             {held} with a result held (out_ready_i low, --backpressure {})",
            a.backpressure
        )?;
    }
    let waves = WaveOpts {
        dir: &a.waves_dir,
        window: a.window,
        fst: a.fst,
    };
    let triaged = triage::triage(
        &ran,
        &sides,
        &waves,
        a.max_examples as usize,
        &progress.stop,
    )?;
    write(&a, &plan, &ran, seconds, triaged)
}

/// A `dut build` design: the families it implements unless --filter names some (which it must
/// implement), and its manifest's latency bound unless --latency-bound is given.
fn dut_defaults(a: &mut Args, dir: &std::path::Path) -> Result<(), Error> {
    let rec = &ptxfma_cosim_engine::dut::load::open(dir)?.record;
    crate::args::design_families(
        &ptxfma_cosim_engine::dut::load::variant_name(dir),
        &mut a.filter,
    )?;
    a.latency_bound.get_or_insert(rec.latency_bound);
    Ok(())
}

/// The two sides, once the RTL variant is known to support what was asked of it.
fn sides(a: &Args) -> Result<Sides, Error> {
    let mut sides = a.sides.sides()?;
    let meta = rtl::variant(&sides.rtl)?;
    if a.random_init.is_some() && !meta.random_init() {
        return Err(Error::new(format!(
            "--random-init needs an RTL variant Verilated with --x-initial unique; `{}` is not \
             (build with the cargo feature `random-init` and use --rtl random_init)",
            sides.rtl
        )));
    }
    if a.rtl_coverage.is_some() && !meta.coverage() {
        return Err(Error::new(format!(
            "--rtl-coverage needs an RTL variant Verilated with coverage; `{}` is not (build with \
             the cargo feature `rtl-coverage` and use --rtl coverage)",
            sides.rtl
        )));
    }
    sides.random_init = a.random_init;
    sides.rtl_coverage = a.rtl_coverage.clone();
    sides.backpressure = a.backpressure;
    Ok(sides)
}

/// What a run will do: the whole chunk list, the chunks of this shard, the workers, and the
/// lockstep's knobs.
struct Plan {
    all: Chunks,
    chunks: Chunks,
    params: Params,
    jobs: usize,
    cfg: Config,
}

/// Plans the run and prints its banner.
fn plan(a: &Args, sides: &Sides, jobs: usize) -> Result<Plan, Error> {
    let all = Chunks::new(a.seed, a.count, &a.filter, a.chunk_size)?;
    let chunks = all.clone().sharded(a.shard);
    check_kept(a, &chunks)?;
    let compare_arg = CompareArg::resolve(a.compare, &sides.rtl)?;
    let bound = a.latency_bound.unwrap_or(ports::DEFAULT_BOUND);
    let nan = ptxfma_cosim_engine::dut::nan_convention(&sides.rtl)?;
    let params = Params {
        seed: a.seed,
        count: a.count,
        filter: a.filter.0.iter().map(|f| f.name().to_string()).collect(),
        chunk_size: a.chunk_size,
        rtl: sides.rtl.clone(),
        golden: sides.golden.clone(),
        max_divergences: a.max_divergences as usize,
        max_examples: a.max_examples as usize,
        window: a.window as usize,
        compare: compare_arg.name().into(),
        latency_bound: (compare_arg == CompareArg::Ports).then_some(bound),
        nan: (compare_arg == CompareArg::Ports).then(|| nan.describe()),
    };
    let compare = match compare_arg {
        CompareArg::Registers => Compare::Registers,
        CompareArg::Ports => Compare::Ports { bound, nan },
    };
    if compare == Compare::Registers && !rtl::variant(&sides.rtl)?.registers {
        return Err(Error::new(format!(
            "RTL variant `{}` has only result ports: check it with --compare ports",
            sides.rtl
        )));
    }
    // More workers than chunks would idle.
    let jobs = jobs.min(usize::try_from(chunks.len()).unwrap_or(usize::MAX).max(1));
    let overlap = a
        .golden_thread
        .overlap(jobs, regress::placement::available_cores());
    outln!(
        "fma-cosim run: seed {}, {} operations over {} famil{} in {} chunk(s){}, {jobs} job(s) \
         (model in {}), {}{} vs {}{} ({})",
        a.seed,
        a.count,
        a.filter.0.len(),
        if a.filter.0.len() == 1 { "y" } else { "ies" },
        all.len(),
        a.shard.map_or(String::new(), |s| format!(
            " (shard {s}: {} chunks)",
            chunks.len()
        )),
        if overlap {
            "its own thread"
        } else {
            "the worker's thread"
        },
        ptxfma_cosim_engine::dut::describe(&sides.rtl),
        a.random_init.map_or(String::new(), |s| format!(
            " with random initial state (seed {s})"
        )),
        sides.golden,
        match compare {
            Compare::Registers => String::new(),
            Compare::Ports { bound, nan } if nan != NanConvention::Ptx => format!(
                ", ports only (latency bound {bound}, NaN convention {})",
                nan.describe()
            ),
            Compare::Ports { bound, .. } => format!(", ports only (latency bound {bound})"),
        },
        rtl::variant::VERILATOR_VERSION
    )?;
    if chunks.is_empty() {
        outln!("  this shard holds no chunk: the run has fewer chunks than shards")?;
    }
    let cfg = Config {
        batch: a.batch as usize,
        max_divergences: a.max_divergences as usize,
        window: a.window as usize,
        overlap,
        retired: false,
        subscribe: (a.coverage.is_some() || a.html.is_some()).then_some(CoverageSubscriber::boxed),
        compare,
    };
    Ok(Plan {
        all,
        chunks,
        params,
        jobs,
        cfg,
    })
}

/// Refuses, before anything runs, a run whose chunks' results would need more than
/// [`KEPT_BUDGET`]: each chunk's outcome is kept for the summary and the outputs (and its
/// coverage counts with --coverage or --html), while the chunks themselves are made as the
/// workers take them.
fn check_kept(a: &Args, chunks: &Chunks) -> Result<(), Error> {
    let sampled = a.coverage.is_some() || a.html.is_some();
    let per_chunk = KEPT_PER_CHUNK
        + if sampled {
            Coverage::new().kept_bytes() as u64
        } else {
            0
        };
    let n = chunks.len();
    let most = (KEPT_BUDGET / per_chunk).min(regress::MAX_CHUNKS);
    if n <= most {
        return Ok(());
    }
    Err(Error::new(format!(
        "--count {} in chunks of {} is {n} chunks{}: a run keeps each chunk's result for its \
         summary and outputs{}, at most {most} chunks in {} MiB; raise --chunk-size or split \
         the run with --shard K/N",
        a.count,
        a.chunk_size,
        a.shard.map_or(String::new(), |s| format!(" in shard {s}")),
        if sampled {
            " (with its coverage counts, --coverage or --html)"
        } else {
            ""
        },
        KEPT_BUDGET >> 20,
    )))
}

/// Runs the planned chunks over the workers, with the progress display; then merges and
/// prints the RTL coverage, when asked. Returns what ran and the wall time.
fn regress(
    a: &Args,
    plan: &Plan,
    sides: &Sides,
    progress: &'static Progress,
) -> Result<(Ran, f64), Error> {
    let jobs = plan.jobs;
    // The workers' RTL coverage files, temporaries until merged: not even a second Ctrl-C
    // leaves them behind.
    let _worker_parts: Vec<temporary::Temporary> = a
        .rtl_coverage
        .iter()
        .flat_map(|f| {
            temporary::sweep(f.parent().unwrap_or(std::path::Path::new("")));
            (0..jobs).map(|k| temporary::Temporary::new(regress::worker_file(f, k)))
        })
        .collect();
    let total: u64 = plan.chunks.ops();
    let t0 = std::time::Instant::now();
    let finished = AtomicBool::new(false);
    let (ran, shown) = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let r = regress::run(&plan.chunks, sides, &plan.cfg, jobs, progress);
            finished.store(true, Ordering::Release);
            r
        });
        let shown = progress::watch(progress, total, a.progress, || {
            finished.load(Ordering::Acquire)
        });
        let ran = h
            .join()
            .unwrap_or_else(|p| Err(Error::new(ptxfma_cosim_engine::lockstep::panic_text(&p))));
        (ran, shown)
    });
    // A progress line that could not be written stopped the run: that is its end.
    shown?;
    let ran = ran?;
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(file) = &a.rtl_coverage {
        let points = rtlcov::merge_workers(file, jobs)?;
        outln!(
            "RTL coverage ({}, {} points):\n{}",
            file.display(),
            points.len(),
            rtlcov::Summary::new(&points).table()
        )?;
    }
    Ok((ran, seconds))
}

/// The result: the summary table, the functional coverage, the verdict, and the JSON and
/// JUnit files; returns the exit status.
fn write(a: &Args, plan: &Plan, ran: &Ran, seconds: f64, triaged: Triaged) -> Result<u8, Error> {
    let rows = ran
        .chunks
        .iter()
        .zip(triaged.by_signature)
        .map(|((c, out), by_signature)| ChunkRow {
            index: c.index,
            stream: c.families.to_string(),
            seed: c.seed,
            ops: c.ops,
            vectors: out.vectors,
            by_family: c
                .families
                .0
                .iter()
                .map(|&f| (f.name().to_string(), out.by_family[f as usize]))
                .collect(),
            nan_accepted: c
                .families
                .0
                .iter()
                .map(|&f| (f.name().to_string(), out.nan_accepted[f as usize]))
                .filter(|&(_, n)| n > 0)
                .collect(),
            cycles: out.cycles,
            seconds: out.seconds,
            divergences: out.divergences.len(),
            by_signature,
            interrupted: out.interrupted,
        })
        .collect();
    let mut result = RunResult::new(
        rtl::variant::VERILATOR_VERSION,
        plan.params.clone(),
        a.shard,
        plan.all.total() as usize,
        plan.jobs,
        seconds,
        rows,
        triaged.divergences,
    );
    if a.coverage.is_some() || a.html.is_some() {
        // Where each chunk starts in the run's operations is the closure curve's axis.
        let mut total = Coverage::new();
        for (c, out) in &ran.chunks {
            if let Some(cov) = CoverageSubscriber::of(out) {
                total.merge_at(cov, plan.all.start(c.index as u64));
            }
        }
        // Bins no family of the run samples are outside it, not unhit.
        total.set_families(&a.filter.0);
        result.coverage = Some(total);
    }
    let interrupted = ran.interrupted || triaged.stopped;
    if interrupted {
        result.interrupted = true;
        result.passed = false;
    }
    result.note_stop(plan.chunks.ops());
    // The summary comes last, so that a terminal shows it with the divergence report above it:
    // the coverage table (when asked for) before it, the coverage in one line within it.
    if let (Some(c), true) = (&result.coverage, a.coverage_table) {
        out!("\n{}", ptxfma_cosim_outputs::coverage_text::summary(c))?;
    }
    outln!("\n{}", result.table())?;
    if interrupted {
        outln!("interrupted: the summary covers the part that ran")?;
    }
    if let (Some(c), Some(p)) = (&result.coverage, &a.coverage) {
        outln!(
            "{}",
            ptxfma_cosim_outputs::coverage_text::run_line(
                c,
                result.totals().vectors,
                &result.params.golden,
                (!a.coverage_table).then_some(p.as_path())
            )
        )?;
        c.write_json(p)?;
    }
    if let (Some(seed), false) = (a.random_init, result.passed) {
        outln!(
            "note: the RTL started from random initial state (--random-init {seed}); replays and \
             waveforms start from zeros, so rerun this command to reproduce"
        )?;
    }
    if let Some(line) = result.stopped_line() {
        outln!("{line}")?;
    }
    outln!("{}", result.verdict())?;
    // Renamed into place together, after which a second Ctrl-C no longer makes the exit status
    // 130: the files and the status agree on whether the run was interrupted.
    let mut outputs = Vec::new();
    if let Some(p) = &a.json {
        outputs.push(temporary::stage(p, result.json()?.as_bytes())?);
    }
    if let Some(p) = &a.junit {
        outputs.push(temporary::stage(p, result.junit().as_bytes())?);
    }
    if let Some(p) = &a.html {
        outputs.push(temporary::stage(
            p,
            ptxfma_cosim_outputs::html::run_page::page(
                &result,
                p,
                a.coverage.as_deref().or(a.json.as_deref()),
            )
            .as_bytes(),
        )?);
    }
    temporary::finish(outputs)?;
    Ok(if interrupted {
        130
    } else if result.passed {
        0
    } else {
        1
    })
}
