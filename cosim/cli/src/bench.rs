//! `fma-cosim bench`: throughput of the RTL alone, the model alone and the lockstep, and the
//! lockstep's scaling over workers. Ratios within one run, best of several interleaved rounds,
//! so a busy neighbour on a shared machine does not decide them.

use ptxfma_cli_common::outln;
use std::time::Instant;

use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};

use ptxfma_cosim_engine::chunk;
use ptxfma_cosim_engine::lockstep::{self, Config};
use ptxfma_cosim_engine::ports::Compare;
use ptxfma_cosim_engine::reference::{self, ModelReference, Reference};
use ptxfma_cosim_engine::regress::placement::Placement;
use ptxfma_cosim_engine::regress::{self, Progress};
use ptxfma_cosim_engine::rtl::{self, Rtl};
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::stim::Stimulus;
use ptxfma_cosim_engine::stream::{Cycle, Families};
use ptxfma_cosim_engine::Error;

use crate::args::{families, in_range, number, SidesArgs};

/// Rounds of each interleaved measurement; the best is reported.
const ROUNDS: usize = 3;
/// Targets (issue 9): the RTL alone on the default mix, in operations per second, and the
/// lockstep co-simulation as a fraction of it.
const RTL_TARGET: f64 = 1.0e6;
const LOCKSTEP_TARGET: f64 = 0.9;
/// Target (issue 23): the model with its frames written, as a fraction of the model alone.
const FRAMES_TARGET: f64 = 0.8;
/// Targets (issue 39): `run --jobs 1` with the model in the worker's thread, as a fraction of
/// the RTL alone, for binary64 alone and for any other mix.
const PACE_F64_TARGET: f64 = 0.75;
const PACE_TARGET: f64 = 0.6;
/// Largest `--count`: the inputs are held in memory (about 100 bytes each).
const MAX_COUNT: u64 = 50_000_000;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Operations per measurement.
    #[arg(long, default_value = "300000", value_parser = in_range(1, MAX_COUNT))]
    count: u64,
    #[arg(long, default_value = "1", value_parser = number)]
    seed: u64,
    #[arg(long, default_value = "all", value_parser = families, value_name = "FAMILIES")]
    filter: Families,
    #[command(flatten)]
    sides: SidesArgs,
    /// Workers of the scaling measurement (compared with one worker).
    #[arg(long, default_value = "2", value_parser = in_range(1, 1024))]
    jobs: u64,
    /// Only step the RTL through --count cycles of the stream in its C++ loop and exit: what
    /// `make bench` counts host instructions of (callgrind, `--toggle-collect` on the loop).
    #[arg(long)]
    spin_only: bool,
}

impl Args {
    pub(super) fn sides_mut(&mut self) -> &mut SidesArgs {
        &mut self.sides
    }
}

pub fn bench(mut a: Args) -> Result<u8, Error> {
    let sides = a.sides.sides()?;
    let count = a.count;
    // A `dut build` design runs what its manifest says it implements: its families and forms.
    crate::args::design_families(&sides.rtl, &mut a.filter)?;
    let forms = ptxfma_cosim_engine::stim::forms();
    // Each input with its family, as a stream yields them (drawn, not decoded, so that the
    // lockstep's rate counts no decoding).
    let mut cycles: Vec<Cycle> = Stimulus::with_forms(a.seed, &a.filter.0, forms)
        .take(count as usize)
        .enumerate()
        .map(|(i, v)| (v.input(i as u16), Some(Family::of(&v.ctrl))))
        .collect();
    // A design with only result ports is checked by them, its stream drained for the bound.
    let compare = if rtl::variant(&sides.rtl)?.registers {
        Compare::Registers
    } else {
        let bound = ptxfma_cosim_engine::dut::latency_bound(&sides.rtl)?;
        let n = cycles.len() as u64;
        cycles.extend((n..n + bound).map(|i| {
            let idle = PipeIn {
                tag: i as u16,
                ..PipeIn::default()
            };
            (idle, None)
        }));
        Compare::Ports {
            bound,
            nan: ptxfma_cosim_engine::dut::nan_convention(&sides.rtl)?,
        }
    };
    let inputs: Vec<PipeIn> = cycles.iter().map(|&(p, _)| p).collect();
    let enc: Vec<u64> = inputs.iter().flat_map(rtl::encode_input).collect();
    if a.spin_only {
        Rtl::new(&sides.rtl, false)?.spin(&enc, count)?;
        outln!(
            "fma-cosim bench: stepped the RTL `{}` through {count} cycles",
            sides.rtl
        )?;
        return Ok(0);
    }
    let record = ptxfma_cosim_engine::dut::record_of(&sides.rtl)?;
    let design = match record {
        Some(rec) => format!(
            "design `{}` ({}{}), checked by its ports",
            rec.top,
            sides.rtl.trim_start_matches("dut:"),
            forms.map_or(String::new(), |f| format!(", forms {}", f.describe()))
        ),
        None => format!("RTL `{}`", sides.rtl),
    };
    outln!(
        "fma-cosim bench: {count} operations, families {}, {design}, reference {}, {} cores",
        a.filter
            .0
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(","),
        sides.golden,
        regress::placement::available_cores()
    )?;
    // The build of what is measured: a team's design's own (its top, record and library, and
    // who Verilated it), never the kit's.
    match (record, sides.rtl.strip_prefix("dut:")) {
        (Some(rec), Some(dir)) => {
            let dir = std::path::Path::new(dir);
            outln!(
                "  design build: top `{}`, {} ({}), library {}; built by {}, fast model at -O{}{}",
                rec.top,
                dir.join(ptxfma_cosim_engine::dut::RECORD).display(),
                rec.manifest.display(),
                dir.join(&rec.library).display(),
                rec.built_by,
                rec.cxx_opt,
                if rec.traced {
                    ", traced model too"
                } else {
                    ", no traced model"
                }
            )?;
        }
        _ => outln!("  RTL builds: {}", rtl::variant::BUILDS)?,
    }
    // The targets are the kit's own (issues 9, 23, 39), set for its RTL and model: a team's
    // design is measured, not held to them.
    let targets = record.is_none();
    let verdict = |met: bool, target: &str| {
        if targets {
            verdict(met, target)
        } else {
            String::new()
        }
    };

    // 1. The RTL alone, stepped by a pure C++ loop: the limit for the co-simulation. A design
    // with a handshake is the exception: stepped raw it would ignore in_ready_o, so alone it
    // is stepped by the co-simulator's handshake driver, its stalls included, without the model.
    let handshake = ptxfma_cosim_engine::dut::record_of(&sides.rtl)?.is_some_and(|r| r.handshake);
    let mut rtl = Rtl::new(&sides.rtl, false)?;
    rtl.spin(&enc, count.min(10_000))?;
    const SLICE: usize = 4096;
    let mut scratch = vec![0u32; SLICE * ptxfma_cosim_engine::frame::WORDS];
    let mut rtl_alone = |rtl: &mut Rtl| -> Result<f64, Error> {
        let t = Instant::now();
        if handshake {
            rtl.reset()?;
            for slice in enc.chunks(SLICE * rtl::IN_WORDS) {
                let frames = slice.len() / rtl::IN_WORDS * ptxfma_cosim_engine::frame::WORDS;
                rtl.run_encoded(slice, &mut scratch[..frames])?;
            }
        } else {
            rtl.spin(&enc, count)?;
        }
        Ok(count as f64 / t.elapsed().as_secs_f64())
    };
    let mut rtl_rate = rtl_alone(&mut rtl)?;

    // 2. The model alone, and with its registers packed into frames as the lockstep does, in
    // interleaved rounds (best of each).
    let model = std::panic::catch_unwind(|| {
        let alone = || {
            let mut p = Pipeline::new();
            let t = Instant::now();
            for inp in &inputs {
                std::hint::black_box(p.tick(inp));
            }
            count as f64 / t.elapsed().as_secs_f64()
        };
        let packed = || {
            let mut p = Pipeline::new();
            let mut f = vec![0u32; ptxfma_cosim_engine::frame::WORDS];
            let t = Instant::now();
            for inp in &inputs {
                let out = p.tick(inp);
                ptxfma_cosim_engine::frame::write_model(&p, &out, &mut f);
                std::hint::black_box(&f);
            }
            count as f64 / t.elapsed().as_secs_f64()
        };
        // The lockstep's reference: frames assembled from per-operation banks, in batches
        // as the lockstep hands them over.
        let assembled = || {
            let mut r = ModelReference::new();
            let batch = Config::default().batch;
            let mut f = vec![0u32; batch * ptxfma_cosim_engine::frame::WORDS];
            let t = Instant::now();
            for chunk in inputs.chunks(batch) {
                let f = &mut f[..chunk.len() * ptxfma_cosim_engine::frame::WORDS];
                r.run(chunk, f).expect("the model reference does not fail");
                std::hint::black_box(&f);
            }
            count as f64 / t.elapsed().as_secs_f64()
        };
        let (mut best_alone, mut best_packed, mut best_assembled) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..ROUNDS {
            best_alone = best_alone.max(alone());
            best_packed = best_packed.max(packed());
            best_assembled = best_assembled.max(assembled());
        }
        (best_alone, best_packed, best_assembled)
    });
    match &model {
        Ok((alone, packed, assembled)) => {
            outln!("  model alone (tick), best of {ROUNDS}           {alone:>12.0} ops/s")?;
            outln!("  tick + frames, best of {ROUNDS}                {packed:>12.0} ops/s")?;
            let ratio = packed / alone;
            outln!(
                "  tick + frames / tick alone        {ratio:.3}  {}",
                verdict(ratio >= FRAMES_TARGET, &FRAMES_TARGET.to_string())
            )?;
            outln!(
                "  reference: frames from the lane engine's banks ({}), best of {ROUNDS}  \
                 {assembled:>12.0} ops/s, {:.2}x tick + frames",
                Backend::selected(),
                assembled / packed
            )?;
        }
        Err(p) => outln!(
            "  model alone              n/a (the model panicked: {})",
            lockstep::panic_text(p)
        )?,
    }

    // 3. One lockstep stream, model on its own thread, in rounds alternating with the RTL alone.
    let mut golden: Box<dyn Reference> = reference::from_spec(&sides.golden)?;
    let cfg = Config {
        compare,
        ..Config::default()
    };
    let mut best = 0.0f64;
    for round in 0..ROUNDS {
        if round > 0 {
            rtl_rate = rtl_rate.max(rtl_alone(&mut rtl)?);
        }
        let out = lockstep::run(&mut rtl, golden.as_mut(), cycles.iter().copied(), &cfg)?;
        best = best.max(out.cycles as f64 / out.seconds);
        if !out.divergences.is_empty() {
            outln!(
                "  note: the stream diverged after {} cycles; the rate covers those only",
                out.cycles
            )?;
            break;
        }
    }
    outln!(
        "  RTL alone, best of {ROUNDS}    {rtl_rate:>12.0} ops/s  {}{}",
        verdict(rtl_rate >= RTL_TARGET, &format!("{} M", RTL_TARGET / 1e6)),
        if handshake {
            "  (stepped by the handshake driver, stalls included)"
        } else {
            ""
        }
    )?;
    outln!("  lockstep, best of {ROUNDS}     {best:>12.0} ops/s")?;
    let ratio = best / rtl_rate;
    outln!(
        "  co-simulation / RTL alone   {ratio:.3}  {}",
        verdict(ratio >= LOCKSTEP_TARGET, &LOCKSTEP_TARGET.to_string())
    )?;

    // 4. Workers: the regression engine over chunks of the same run, one worker (model on its
    // own thread, and in the worker's thread) against --jobs workers (model in the worker's).
    let jobs = a.jobs as usize;
    let plan = chunk::Chunks::new(a.seed, count, &a.filter, (count / 16).max(1))?;
    let measure = |jobs: usize, placement: Placement| -> Result<f64, Error> {
        let cfg = Config {
            max_divergences: usize::MAX,
            overlap: placement.overlap(jobs, regress::placement::available_cores()),
            compare,
            ..Config::default()
        };
        let t = Instant::now();
        let ran = regress::run(&plan, &sides, &cfg, jobs, &Progress::default())?;
        let ops: u64 = ran.chunks.iter().map(|(_, o)| o.vectors).sum();
        Ok(ops as f64 / t.elapsed().as_secs_f64())
    };
    // The RTL alone on the very cycles the workers check: the chunks' streams, with their
    // bubbles (about one cycle in ten) and resets, which the stream of section 1 lacks. Its
    // rate counts operations, as the workers' does, so the two divide to the worker's pace.
    let run_enc: Vec<u64> = plan
        .iter()
        .flat_map(|c| c.stream().inputs())
        .flat_map(|p| rtl::encode_input(&p))
        .collect();
    let run_cycles = (run_enc.len() / rtl::IN_WORDS) as u64;
    let same_cycles = |rtl: &mut Rtl| -> Result<f64, Error> {
        let t = Instant::now();
        rtl.spin(&run_enc, run_cycles)?;
        Ok(count as f64 / t.elapsed().as_secs_f64())
    };
    let (mut one_thread, mut one_inline, mut many) = (0.0f64, 0.0f64, 0.0f64);
    let mut same_rate = 0.0f64;
    for _ in 0..ROUNDS {
        rtl_rate = rtl_rate.max(rtl_alone(&mut rtl)?);
        if !handshake {
            same_rate = same_rate.max(same_cycles(&mut rtl)?);
        }
        one_thread = one_thread.max(measure(1, Placement::Thread)?);
        one_inline = one_inline.max(measure(1, Placement::Inline)?);
        many = many.max(measure(jobs, Placement::Inline)?);
    }
    outln!(
        "  run --jobs 1, model on its own thread  {one_thread:>12.0} ops/s  (the default for \
         one job on a multi-core machine)"
    )?;
    outln!("  run --jobs 1, model in the worker      {one_inline:>12.0} ops/s")?;
    // Issue 39: one core checks at the RTL's pace (binary64 alone, and any mix).
    let pace = if a.filter.0 == [Family::F64] {
        PACE_F64_TARGET
    } else {
        PACE_TARGET
    };
    let ratio = one_inline / rtl_rate;
    outln!(
        "  run --jobs 1, model in the worker / RTL alone   {ratio:.3}  {}  (RTL alone, best \
         of every round: {rtl_rate:.0} ops/s)",
        verdict(ratio >= pace, &pace.to_string())
    )?;
    if !handshake {
        outln!(
            "  RTL alone on the workers' cycles ({run_cycles} cycles, bubbles and resets \
             included), best of {ROUNDS}  {same_rate:>12.0} ops/s"
        )?;
        let ratio = one_inline / same_rate;
        outln!(
            "  run --jobs 1, model in the worker / RTL alone on the same cycles   {ratio:.3}  {}",
            verdict(ratio >= pace, &pace.to_string())
        )?;
    }
    outln!("  run --jobs {jobs}, model in each worker   {many:>12.0} ops/s")?;
    let scaling = many / one_inline;
    let verdict = if jobs < 2 || !targets {
        String::new()
    } else if scaling >= 0.9 * jobs as f64 {
        format!(": MET (target >= {:.1}x)", 0.9 * jobs as f64)
    } else {
        format!(": MISSED (target >= {:.1}x)", 0.9 * jobs as f64)
    };
    outln!("  scaling --jobs {jobs} / --jobs 1 (same worker)     {scaling:.2}x{verdict}")?;
    outln!(
        "  gain of --jobs {jobs} over the best single job   {:.2}x",
        many / one_thread.max(one_inline)
    )?;
    Ok(0)
}

/// `MET (target >= T)` or `MISSED (target >= T)`.
fn verdict(met: bool, target: &str) -> String {
    format!(
        "{} (target >= {target})",
        if met { "MET" } else { "MISSED" }
    )
}
