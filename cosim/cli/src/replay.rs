//! `fma-cosim replay`: one cycle of a chunk's stream (with a window of cycles before it), or
//! one operation from the command line, from reset on both sides (the replaying itself is the
//! engine's `replay`, hence the same name).

use ptxfma_cli_common::{out, outln};
use std::path::PathBuf;

use ptxfma_model::ctrl::{legal, Ctrl, CtrlField, CTRL_BITS, CTRL_FIELDS};
use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};
use ptxfma_ptx::{self as op, Target};

use ptxfma_cosim_engine::lockstep::{self, Config, Stream};
use ptxfma_cosim_engine::reference;
use ptxfma_cosim_engine::stim;
use ptxfma_cosim_engine::stream::{self, Families};
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::report::{self, Origin};
use ptxfma_cosim_outputs::waves::{self, print_waves};

use crate::reproduce::{ports_reproduce, waves_args, DEFAULT_WAVES_DIR, MAX_WINDOW};
use ptxfma_cosim_engine::ports::{self, Compare};

use crate::args::{families, in_range, number, CompareArg, SidesArgs};
use crate::out_paths::check_dir_writable;
use ptxfma_cosim_outputs::command::ShellCommand;

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("stream").args(["seed", "filter", "count", "index", "window"]).multiple(true).conflicts_with("op")))]
#[command(group(clap::ArgGroup::new("op").args(["ctrl", "a", "b", "c", "target"]).multiple(true)))]
pub struct Args {
    /// Stream seed (a chunk's seed, as the report prints it).
    #[arg(long, value_parser = number, requires_all = ["count", "index"])]
    seed: Option<u64>,
    /// The stream's families, as the report prints them; with --dut, by default every family of
    /// the design's manifest, interleaved (the stream `run --dut` draws without --filter).
    #[arg(long, value_parser = families, value_name = "FAMILY")]
    filter: Option<Families>,
    /// Operations in the stream.
    #[arg(long, value_parser = in_range(1, 1 << 32))]
    count: Option<u64>,
    /// Cycle to replay (from 0 after reset).
    #[arg(long, value_parser = number)]
    index: Option<u64>,
    /// Cycles before --index to replay too.
    #[arg(long, value_parser = in_range(0, MAX_WINDOW))]
    window: Option<u64>,
    /// The operation's control word: hex, or a PTX spelling such as `fma.rz.ftz.f32`.
    #[arg(long, requires_all = ["a", "b", "c"])]
    ctrl: Option<String>,
    #[arg(long, value_parser = number)]
    a: Option<u64>,
    #[arg(long, value_parser = number)]
    b: Option<u64>,
    #[arg(long, value_parser = number)]
    c: Option<u64>,
    /// Target for a PTX spelling in --ctrl.
    #[arg(long, default_value = "sm_100")]
    target: String,
    #[command(flatten)]
    sides: SidesArgs,
    /// Directory for the waveform written on divergence.
    #[arg(long, default_value = DEFAULT_WAVES_DIR, value_name = "DIR")]
    waves_dir: PathBuf,
    /// Write the waveform as FST instead of VCD.
    #[arg(long)]
    fst: bool,
    /// What is compared, as `run --compare`: `registers` every cycle, or `ports`, the retired
    /// results matched by tag (the replayed cycles are followed by --latency-bound idle ones).
    /// [default: registers where the RTL has them, else ports (`--dut` designs)]
    #[arg(long, value_enum)]
    compare: Option<CompareArg>,
    /// With --compare ports: an operation must retire within N cycles of its issue.
    /// [default: a `dut build` design's manifest's, else 64]
    #[arg(long, value_name = "N",
          value_parser = in_range(*ports::BOUND_RANGE.start(), *ports::BOUND_RANGE.end()))]
    latency_bound: Option<u64>,
}

impl Args {
    pub(super) fn sides_mut(&mut self) -> &mut SidesArgs {
        &mut self.sides
    }
}

/// The control word of `--ctrl`: a number of at most `CTRL_BITS` bits that some PTX
/// instruction encodes to, or a PTX spelling.
pub fn parse_ctrl(s: &str, target: &str) -> Result<u32, Error> {
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        let v = number(s).map_err(Error::new)?;
        if v >> CTRL_BITS != 0 {
            return Err(Error::new(format!(
                "--ctrl {v:#x} is wider than {CTRL_BITS} bits"
            )));
        }
        let w = v as u32;
        // `decode` maps a reserved code to some valid one, so the word would be replayed as
        // another: refuse it, and a combination of fields no instruction sets.
        let ctrl = Ctrl::decode(w);
        let code = |f: &CtrlField, w: u32| (w >> f.lsb) & ((1 << f.width) - 1);
        if let Some(f) = CTRL_FIELDS
            .iter()
            .find(|f| code(f, w) != code(f, ctrl.encode()))
        {
            return Err(Error::new(format!(
                "--ctrl {w:#x}: field `{}` holds {}, a code no instruction uses",
                f.name,
                code(f, w)
            )));
        }
        if !legal::is_legal(&ctrl) {
            return Err(Error::new(format!(
                "--ctrl {w:#x}: no PTX instruction encodes to this control word (its fields are \
                 a combination none sets); give the instruction, as in --ctrl fma.rn.f32"
            )));
        }
        return Ok(w);
    }
    let t = Target::parse(target).map_err(|e| Error::new(format!("--target: {}", e.message())))?;
    let ctrl = op::decode(s, t).map_err(|e| Error::new(format!("--ctrl: {}", e.message())))?;
    Ok(ctrl.encode())
}

pub fn replay(a: Args) -> Result<u8, Error> {
    let sides = a.sides.sides()?;
    check_dir_writable(&a.waves_dir, "waves directory")?;
    let mut origin = Origin {
        stream_args: None,
        family: "command line".into(),
        seed: None,
        sides_args: sides.args(),
        rtl: sides.rtl.clone(),
        golden: sides.golden.clone(),
        window: a.window.unwrap_or(0) as usize,
        waves_args: waves_args(&a.waves_dir, a.fst),
        cosim: ShellCommand::cosim(),
        model: ShellCommand::model_eval(),
    };
    let mut drain_from = None;
    let (inputs, first, name) = if let Some(ctrl) = &a.ctrl {
        let ctrl = parse_ctrl(ctrl, &a.target)?;
        let inp = PipeIn {
            valid: true,
            tag: 0,
            ctrl,
            a: a.a.unwrap_or(0),
            b: a.b.unwrap_or(0),
            c: a.c.unwrap_or(0),
            reset: false,
        };
        (
            vec![inp],
            0,
            format!(
                "replay-ctrl{ctrl:06x}.{}",
                if a.fst { "fst" } else { "vcd" }
            ),
        )
    } else {
        let fams = match &a.filter {
            Some(f) => Some(f.clone()),
            None => design_default(&sides.rtl, a.seed.is_some())?,
        };
        let (Some(seed), Some(fams), Some(count), Some(index)) = (a.seed, &fams, a.count, a.index)
        else {
            return Err(Error::new(
                "give a stream (--seed, --filter, --count, --index) or an operation (--ctrl, \
                 --a, --b, --c)",
            ));
        };
        let window = a.window.unwrap_or(0);
        let Some(first) = index.checked_sub(window) else {
            return Err(Error::new(format!(
                "--window {window} reaches before cycle 0 (--index {index})"
            )));
        };
        let inputs: Vec<PipeIn> = Stream::new(seed, fams, count)
            .inputs()
            .skip(first as usize)
            .take((index - first + 1) as usize)
            .collect();
        let cycles = Stream::new(seed, fams, count).count() as u64;
        if index >= cycles {
            return Err(Error::new(format!(
                "--index {index} is past the end of the stream ({cycles} cycles for --count \
                 {count}, the last {LATENCY} of them the drain)"
            )));
        }
        drain_from = Some(cycles - LATENCY as u64);
        origin.stream_args = Some(ptxfma_cosim_engine::chunk::stream_words(seed, fams, count));
        origin.family = fams.to_string();
        origin.seed = Some(seed);
        let base = waves::file_name(&fams.to_string(), seed, index, a.fst);
        let name = if window > 0 {
            format!("replay-w{window}-{base}")
        } else {
            format!("replay-{base}")
        };
        (inputs, first, name)
    };
    // A design is replayed only with what it implements, as `run` draws only that (the
    // default, the manifest's families, is that already).
    if let Some(fams) = &a.filter {
        crate::args::design_families(&sides.rtl, &mut fams.clone())?;
    }
    crate::args::design_takes(&sides.rtl, &inputs)?;

    if CompareArg::resolve(a.compare, &sides.rtl)? == CompareArg::Ports {
        let bound = match a.latency_bound {
            Some(b) => b,
            None => ptxfma_cosim_engine::dut::latency_bound(&sides.rtl)?,
        };
        let compare = Compare::Ports {
            bound,
            nan: ptxfma_cosim_engine::dut::nan_convention(&sides.rtl)?,
        };
        return replay_ports(&a, &sides, &origin, &inputs, first, &name, compare);
    }
    if a.latency_bound.is_some() {
        return Err(Error::new(
            "--latency-bound applies to --compare ports (the registers are compared every cycle)",
        ));
    }
    let mut rtl = ptxfma_cosim_engine::rtl::Rtl::new(&sides.rtl, false)?;
    let mut golden = reference::from_spec(&sides.golden)?;
    let mut all = inputs.clone();
    all.extend((0..LATENCY).map(|_| PipeIn::default()));
    let cfg = Config {
        batch: all.len(),
        max_divergences: 1,
        window: all.len(),
        overlap: false,
        retired: false,
        subscribe: None,
        compare: ptxfma_cosim_engine::ports::Compare::Registers,
    };
    let out = lockstep::run(&mut rtl, golden.as_mut(), stream::decoded(all), &cfg)?;
    if let Some(d) = out.divergences.first() {
        let mut d = d.clone();
        d.shift(first);
        let alone = d
            .input()
            .map(|inp| ptxfma_cosim_engine::replay::replay_alone(&sides.rtl, golden.as_ref(), inp))
            .transpose()?;
        out!("{}", report::divergence(&d, &origin, alone.as_ref()))?;
        print_waves(
            &waves::write_window(
                &a.waves_dir.join(name),
                &sides.rtl,
                golden.as_ref(),
                &out.window,
                out.window_start + first,
            ),
            d.cycle(),
        )?;
        return Ok(1);
    }
    let last = first + inputs.len() as u64 - 1;
    out!(
        "no divergence: {} and {} agree on cycles {first}..{last} plus drain",
        ptxfma_cosim_engine::dut::describe(&sides.rtl),
        sides.golden
    )?;
    let at_index = inputs.last().copied().unwrap_or_default();
    if at_index.issues() {
        let alone =
            ptxfma_cosim_engine::replay::replay_alone(&sides.rtl, golden.as_ref(), &at_index)?;
        let ctrl = Ctrl::decode(at_index.ctrl);
        outln!(
            "; the operation of cycle {last} ({}) gives d = {}",
            stim::ptx_spelling(&ctrl),
            report::result(&ctrl, alone.expected_d)
        )?;
    } else if let Some(drain) = drain_from {
        let what = if at_index.reset {
            "a reset cycle (rst_ni low; its other inputs are ignored)"
        } else if last >= drain {
            "a drain cycle after the last operation"
        } else {
            "a bubble (valid = 0)"
        };
        outln!("; cycle {last} holds no operation: it is {what}")?;
    } else {
        outln!()?;
    }
    Ok(0)
}

/// The replayed cycles judged by the ports: each operation's retired result against the
/// model's, matched by tag, the cycles followed by the latency bound's idle ones. Prints the
/// first divergence's report and waveform (exit 1), or that every operation retired right.
fn replay_ports(
    a: &Args,
    sides: &ptxfma_cosim_engine::sides::Sides,
    origin: &Origin,
    inputs: &[PipeIn],
    first: u64,
    name: &str,
    compare: Compare,
) -> Result<u8, Error> {
    let Compare::Ports { bound, .. } = compare else {
        unreachable!("replay_ports is called with --compare ports");
    };
    let mut rtl = ptxfma_cosim_engine::rtl::Rtl::new(&sides.rtl, false)?;
    let mut golden = reference::from_spec(&sides.golden)?;
    let cfg = Config {
        batch: inputs.len() + bound as usize,
        max_divergences: 1,
        window: 0,
        overlap: false,
        retired: false,
        subscribe: None,
        compare,
    };
    let out = lockstep::run(
        &mut rtl,
        golden.as_mut(),
        stream::decoded(inputs.to_vec()),
        &cfg,
    )?;
    let last = first + inputs.len() as u64 - 1;
    let Some(d) = out.divergences.first() else {
        let ops = inputs.iter().filter(|i| i.issues()).count();
        outln!(
            "no divergence: `{}` retired the {ops} operation(s) of cycles {first}..{last} as {} \
             computes them, each within {bound} cycles (judged by the ports)",
            sides.rtl,
            sides.golden
        )?;
        return Ok(0);
    };
    let mut d = d.clone();
    d.shift(first);
    let reproduce: Vec<String> = d
        .input()
        .map(|inp| {
            let mut lines = ports_reproduce(origin, inp, d.issue(), bound);
            lines.extend(origin.model_line(inp));
            lines
        })
        .unwrap_or_default();
    out!("{}", report::ports_divergence(&d, origin, &reproduce))?;
    // The waveform covers the replayed cycles and the drain up to the divergence.
    let mut shown: Vec<PipeIn> = inputs.to_vec();
    let seen = d.cycle() - first;
    shown.extend((inputs.len() as u64..=seen).map(|_| PipeIn::default()));
    let marks = [d.cycle()];
    let spec = waves::WindowSpec {
        variant: &sides.rtl,
        golden: golden.as_ref(),
        inputs: &shown,
        first_cycle: first,
        marks: Some(&marks),
        focus: Some(d.cycle()),
        issue: d.issue(),
    };
    print_waves(&waves::write(&a.waves_dir.join(name), &spec), d.cycle())?;
    Ok(1)
}

/// The stream's families when `--filter` is not given: a `dut build` design's manifest's, all
/// of them interleaved, as `run --dut` draws without `--filter` (docs/dut.md); the kit's RTL
/// has no such default, so a stream (`--seed`) without `--filter` is refused in one line.
fn design_default(rtl: &str, stream: bool) -> Result<Option<Families>, Error> {
    match ptxfma_cosim_engine::dut::record_of(rtl)? {
        Some(rec) => Ok(Some(Families(
            rec.families
                .iter()
                .filter_map(|f| ptxfma_cosim_engine::stim::Family::parse(f))
                .collect(),
        ))),
        None if stream => Err(Error::new(
            "--seed: give the stream's --filter FAMILY (it defaults to the manifest's families \
             only for a --dut design)",
        )),
        None => Ok(None),
    }
}
