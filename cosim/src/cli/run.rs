//! `fma-cosim run`: a regression of chunks over workers, with triage of its divergences.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::chunk::{self, Chunk, Shard};
use crate::golden;
use ptxfma_model::machine::ctrl::Rnd;
use ptxfma_ptx::testfloat::{self, Func};

use crate::coverage::Coverage;
use crate::lockstep::{self, Config, Divergence};
use crate::ports::{self, Compare};
use crate::progress::{self, Mode};
use crate::regress::{self, Placement, Progress, Sides};
use crate::report::{self, Origin};
use crate::results::{ChunkRow, DivergenceRow, Params, RunResult};
use crate::rtl;
use crate::rtlcov;
use crate::stim;
use crate::stim::Family;
use crate::stream::Families;
use crate::temporary;
use crate::waves;
use crate::Error;

use super::{
    check_dir_writable, check_out_file, commands, families, in_range, number, vectors, SidesArgs,
};

/// Largest `--count`: beyond this a run is a farm's job, split with `--shard`.
const MAX_COUNT: u64 = 1 << 40;
/// Largest `--window`: the waveform replays this many cycles and holds them all in memory.
pub const MAX_WINDOW: u64 = 100_000;
/// Largest `--batch`: one batch of frames is held in memory per worker.
const MAX_BATCH: u64 = 65_536;

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
    #[arg(long, default_value_t = chunk::DEFAULT_SIZE, value_parser = in_range(1, 1 << 32))]
    chunk_size: u64,
    /// Workers, each with its own RTL and model [default: the available cores].
    #[arg(long, value_parser = in_range(1, 1024))]
    jobs: Option<u64>,
    /// Run only shard K of N of the chunk list (1 <= K <= N).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Divergent operations to collect before stopping (grouped by signature).
    #[arg(long, default_value = "1", value_parser = in_range(1, 1_000_000))]
    max_divergences: u64,
    /// Cycles of the waveform written for each divergence signature.
    #[arg(long, default_value = "32", value_parser = in_range(1, MAX_WINDOW))]
    window: u64,
    /// Directory for the waveforms.
    #[arg(long, default_value = "waves", value_name = "DIR")]
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
    /// Sample functional coverage (docs/coverage.md), print its summary and write the counts
    /// to FILE (`fma-cosim coverage FILE` reports them); the JSON result carries them too.
    #[arg(long, value_name = "FILE")]
    coverage: Option<PathBuf>,
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
    #[arg(long, default_value = "4096", value_parser = in_range(1, MAX_BATCH))]
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
    #[arg(long, value_enum, default_value = "registers")]
    compare: CompareArg,
    /// With --compare ports: an operation must retire within N cycles of its issue; the
    /// stream is followed by N bubbles to drain the design.
    #[arg(long, value_name = "N", default_value_t = ports::DEFAULT_BOUND,
          value_parser = in_range(ptxfma_model::machine::pipeline::LATENCY as u64, 1 << 20))]
    latency_bound: u64,
    /// Run the vectors of FILE (plain or gzipped) instead of generated stimulus, and check each
    /// retired result against the file too: `fma-model eval` lines with an optional expected
    /// column, or TestFloat output with --testfloat.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "json", "junit", "compare"])]
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
    /// matches any NaN, as PTX leaves it open, and TestFloat's NaNs are SoftFloat's).
    #[arg(long, requires = "vectors")]
    strict_nan: bool,
}

/// `--compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CompareArg {
    Registers,
    Ports,
}

pub fn run(a: Args) -> Result<u8, Error> {
    // Ctrl-C from here on stops the run cleanly.
    let progress: &'static Progress = Box::leak(Box::default());
    progress::on_interrupt(progress);
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
    let jobs = a.jobs.map_or_else(regress::available_cores, |j| j as usize);
    check_dir_writable(&a.waves_dir, "waves directory")?;
    if let Some(path) = a.vectors {
        let src = vectors::Source {
            path,
            testfloat: a.testfloat.map(|f| (f, a.rounding.unwrap_or(Rnd::Rn))),
            strict_nan: a.strict_nan,
        };
        return vectors::run(&src, &sides, &a.waves_dir);
    }
    for p in [&a.json, &a.junit, &a.coverage, &a.rtl_coverage]
        .into_iter()
        .flatten()
    {
        check_out_file(p, "output file")?;
    }
    let plan = chunk::plan(a.seed, a.count, &a.filter, a.chunk_size)?;
    let chunks: Vec<Chunk> = match a.shard {
        Some(s) => plan.iter().filter(|c| s.holds(c.index)).cloned().collect(),
        None => plan.clone(),
    };
    let params = Params {
        seed: a.seed,
        count: a.count,
        filter: a.filter.0.iter().map(|f| f.name().to_string()).collect(),
        chunk_size: a.chunk_size,
        rtl: sides.rtl.clone(),
        golden: sides.golden.clone(),
        max_divergences: a.max_divergences as usize,
        window: a.window as usize,
        compare: match a.compare {
            CompareArg::Registers => "registers",
            CompareArg::Ports => "ports",
        }
        .into(),
        latency_bound: (a.compare == CompareArg::Ports).then_some(a.latency_bound),
    };
    let compare = match a.compare {
        CompareArg::Registers => Compare::Registers,
        CompareArg::Ports => Compare::Ports {
            bound: a.latency_bound,
        },
    };
    if compare == Compare::Registers && !rtl::variant(&sides.rtl)?.registers {
        return Err(Error::new(format!(
            "RTL variant `{}` has only result ports: check it with --compare ports",
            sides.rtl
        )));
    }
    // More workers than chunks would idle.
    let jobs = jobs.min(chunks.len().max(1));
    let overlap = a.golden_thread.overlap(jobs, regress::available_cores());
    println!(
        "fma-cosim run: seed {}, {} operations over {} famil{} in {} chunk(s){}, {jobs} job(s) \
         (model in {}), RTL `{}`{} vs {}{} ({})",
        a.seed,
        a.count,
        a.filter.0.len(),
        if a.filter.0.len() == 1 { "y" } else { "ies" },
        plan.len(),
        a.shard.map_or(String::new(), |s| format!(
            " (shard {s}: {} chunks)",
            chunks.len()
        )),
        if overlap {
            "its own thread"
        } else {
            "the worker's thread"
        },
        sides.rtl,
        a.random_init.map_or(String::new(), |s| format!(
            " with random initial state (seed {s})"
        )),
        sides.golden,
        match compare {
            Compare::Registers => String::new(),
            Compare::Ports { bound } => format!(", ports only (latency bound {bound})"),
        },
        rtl::VERILATOR_VERSION
    );
    if chunks.is_empty() {
        println!("  this shard holds no chunk: the run has fewer chunks than shards");
    }

    let cfg = Config {
        batch: a.batch as usize,
        max_divergences: a.max_divergences as usize,
        window: a.window as usize,
        overlap,
        retired: false,
        coverage: a.coverage.is_some(),
        compare,
    };
    // The workers' RTL coverage files, temporaries until merged: not even a second Ctrl-C
    // leaves them behind.
    let _worker_parts: Vec<temporary::Temporary> = a
        .rtl_coverage
        .iter()
        .flat_map(|f| (0..jobs).map(|k| temporary::Temporary::new(rtlcov::worker_file(f, k))))
        .collect();
    let total: u64 = chunks.iter().map(|c| c.ops).sum();
    let t0 = std::time::Instant::now();
    let finished = AtomicBool::new(false);
    let ran = std::thread::scope(|s| {
        let h = s.spawn(|| {
            let r = regress::run(&chunks, &sides, &cfg, jobs, progress);
            finished.store(true, Ordering::Release);
            r
        });
        progress::watch(progress, total, a.progress, || {
            finished.load(Ordering::Acquire)
        });
        h.join()
            .unwrap_or_else(|p| Err(Error::new(crate::lockstep::panic_text(&p))))
    })?;
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(file) = &a.rtl_coverage {
        let points = rtlcov::merge_workers(file, jobs)?;
        println!(
            "RTL coverage ({}, {} points):\n{}",
            file.display(),
            points.len(),
            rtlcov::Summary::new(&points).table()
        );
    }

    let (cosim_cmd, model_cmd) = commands();
    let mut rows = Vec::new();
    let mut divergences = Vec::new();
    let mut signatures: Vec<String> = Vec::new();
    let mut triage_stopped = false;
    let mut replayer: Option<report::Replayer> = None;
    for (c, out) in &ran.chunks {
        rows.push(ChunkRow {
            index: c.index,
            stream: c.families.to_string(),
            seed: c.seed,
            ops: c.ops,
            vectors: out.vectors,
            by_family: c
                .families
                .0
                .iter()
                .map(|f| (f.name().to_string(), out.by_family[family_position(*f)]))
                .collect(),
            cycles: out.cycles,
            seconds: out.seconds,
            divergences: out.divergences.len(),
            interrupted: out.interrupted,
        });
        let origin = Origin {
            stream_args: Some(c.stream_args()),
            family: c.families.to_string(),
            seed: Some(c.seed),
            sides_args: sides.args(),
            rtl: sides.rtl.clone(),
            golden: sides.golden.clone(),
            window: a.window as usize,
            cosim_cmd: cosim_cmd.clone(),
            model_cmd: model_cmd.clone(),
        };
        for d in &out.divergences {
            // After Ctrl-C the divergences are still listed, without replays or waveforms.
            let stopped = progress.stop.load(Ordering::Relaxed);
            triage_stopped |= stopped;
            let sig = signature(c, d);
            let first = !signatures.contains(&sig);
            if replayer.is_none() && !stopped {
                let reference = golden::from_spec(&sides.golden)?;
                replayer = Some(report::Replayer::new(&sides.rtl, reference.as_ref())?);
            }
            // A ports divergence is not replayed alone: the design's latency is its own.
            let replay = if stopped || d.ports.is_some() {
                None
            } else {
                replayer.as_mut()
            };
            let mut row = triage(c, d, &origin, replay, &sides)?;
            if first {
                signatures.push(sig);
                print!("\n{}", row.report);
                if !stopped {
                    if let Some((path, time)) =
                        wave_for(c, d, &sides, &a.waves_dir, a.window, a.fst)
                    {
                        row.waveform = Some(path);
                        row.waveform_mismatch_time = Some(time);
                    }
                }
            } else {
                println!(
                    "\ndivergence in chunk {} cycle {}: same signature as an earlier one ({})",
                    c.index, d.cycle, row.signature
                );
            }
            divergences.push(row);
        }
    }
    let mut result = RunResult::new(
        rtl::VERILATOR_VERSION,
        params,
        a.shard,
        plan.len(),
        jobs,
        seconds,
        rows,
        divergences,
    );
    if a.coverage.is_some() {
        let mut total = Coverage::new();
        for (_, out) in &ran.chunks {
            if let Some(c) = &out.coverage {
                total.merge(c);
            }
        }
        result.coverage = Some(total);
    }
    let interrupted = ran.interrupted || triage_stopped;
    if interrupted {
        result.interrupted = true;
        result.passed = false;
    }
    println!("\n{}", result.table());
    if interrupted {
        println!("interrupted: the summary covers the part that ran");
    }
    if let (Some(c), Some(p)) = (&result.coverage, &a.coverage) {
        println!(
            "functional coverage ({} operations sampled):\n{}",
            c.operations(),
            c.summary()
        );
        c.write_json(p)?;
    }
    if let (Some(seed), false) = (a.random_init, result.passed) {
        println!(
            "note: the RTL started from random initial state (--random-init {seed}); replays and \
             waveforms start from zeros, so rerun this command to reproduce"
        );
    }
    println!("{}", result.verdict());
    // Renamed into place together, after which a second Ctrl-C no longer makes the exit status
    // 130: the files and the status agree on whether the run was interrupted.
    let mut outputs = Vec::new();
    if let Some(p) = &a.json {
        outputs.push(temporary::stage(p, result.json()?.as_bytes())?);
    }
    if let Some(p) = &a.junit {
        outputs.push(temporary::stage(p, result.junit().as_bytes())?);
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

/// What makes two divergences the same bug as far as triage can tell: the first differing
/// stage and field, the family, and the instruction with its modifiers.
fn signature(c: &Chunk, d: &Divergence) -> String {
    format!(
        "{} {} | {} | {}",
        d.bank.name(),
        first_field(d),
        family(c, d),
        instruction(d)
    )
}

/// The family of the divergent operation (the stream's for a bubble or the reset state).
fn family(c: &Chunk, d: &Divergence) -> String {
    match &d.input {
        Some(inp) if inp.valid => Family::ALL[lockstep::family_index(inp.ctrl)].name().into(),
        _ => c.families.to_string(),
    }
}

/// The position of `f` in [`Family::ALL`], where [`lockstep::Outcome::by_family`] counts it.
fn family_position(f: Family) -> usize {
    Family::ALL.iter().position(|&x| x == f).unwrap_or(0)
}

fn first_field(d: &Divergence) -> &str {
    d.fields.first().map_or("?", |f| f.name.as_str())
}

fn instruction(d: &Divergence) -> String {
    match &d.input {
        Some(inp) if inp.valid => {
            stim::ptx_spelling(&ptxfma_model::machine::ctrl::Ctrl::decode(inp.ctrl))
        }
        Some(_) => "bubble".to_string(),
        None => "reset".to_string(),
    }
}

/// The record of one divergence: its signature, report and reproduce lines. With `replay`, the
/// report says what the operation gives replayed alone.
fn triage(
    c: &Chunk,
    d: &Divergence,
    origin: &Origin,
    replay: Option<&mut report::Replayer>,
    sides: &Sides,
) -> Result<DivergenceRow, Error> {
    let alone = match (&d.input, replay) {
        (Some(inp), Some(r)) => r
            .alone(inp)
            .map_err(|e| eprintln!("warning: replaying the operation alone failed: {e}"))
            .ok(),
        _ => None,
    };
    let reproduce = match (&d.ports, &d.input, d.issue) {
        (Some(p), input, _) => {
            let mut lines = vec![format!(
                "{} run {} --chunk-size {} --compare ports --latency-bound {}{}",
                origin.cosim_cmd,
                c.stream_args(),
                c.ops,
                p.bound,
                sides.args()
            )];
            lines.extend(input.and_then(|i| origin.model_line(&i)));
            lines
        }
        (None, Some(inp), Some(issue)) => origin.reproduce(inp, issue, d.cycle),
        _ => Vec::new(),
    };
    let report = match &d.ports {
        Some(p) => report::ports_divergence(d, p, origin, &reproduce),
        None => report::divergence(d, origin, alone.as_ref()),
    };
    Ok(DivergenceRow {
        chunk: c.index,
        family: family(c, d),
        cycle: d.cycle,
        issue: d.issue,
        stage: d.bank.name().into(),
        signature: signature(c, d),
        field: first_field(d).to_string(),
        instruction: instruction(d),
        report,
        reproduce,
        waveform: None,
        waveform_mismatch_time: None,
    })
}

/// Writes the waveform of `d` (the `window` cycles up to it, regenerated from the chunk's
/// stream) and prints where it is; returns its path and the trace time of the divergence's
/// edge, where `cosim.mismatch` rises.
fn wave_for(
    c: &Chunk,
    d: &Divergence,
    sides: &Sides,
    dir: &std::path::Path,
    window: u64,
    fst: bool,
) -> Option<(String, u64)> {
    let first = (d.cycle + 1).saturating_sub(window);
    let inputs: Vec<_> = c
        .stream()
        .skip(first as usize)
        .take((d.cycle + 1 - first) as usize)
        .collect();
    let path = dir.join(waves::file_name(
        &c.families.to_string(),
        c.seed,
        d.cycle,
        fst,
    ));
    let reference = match golden::from_spec(&sides.golden) {
        Ok(g) => g,
        Err(e) => {
            println!("  waveform    not written: {e}");
            return None;
        }
    };
    // At the ports the model's results come at its own latency: mark the divergence's cycle.
    let marks = d.ports.as_ref().map(|_| [d.cycle]);
    let w = waves::write_window_marked(
        &path,
        &sides.rtl,
        reference.as_ref(),
        &inputs,
        first,
        marks.as_ref().map(|m| &m[..]),
    );
    print_waves(&w, d.cycle);
    w.ok()
        .map(|w| (w.path.display().to_string(), w.edge_time(d.cycle)))
}

/// The report's waveform lines.
pub fn print_waves(w: &Result<waves::Waves, Error>, cycle: u64) {
    match w {
        Ok(w) => {
            let marked = w.mismatches.contains(&cycle);
            println!(
                "  waveform    {}\n              cycles {}..{} plus drain; model registers under \
                 `model`, RTL under `TOP`; cosim.mismatch rises at time {} (cycle {cycle}){}",
                w.path.display(),
                w.first_cycle,
                cycle,
                w.edge_time(cycle),
                if marked {
                    ""
                } else {
                    "\n              WARNING: the replayed window does not reproduce the \
                     divergence (state older than the window?)"
                }
            );
        }
        Err(e) => println!("  waveform    not written: {e}"),
    }
}
