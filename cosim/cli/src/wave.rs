//! `fma-cosim wave`: the waveform of any instruction sequence, whether or not it diverges.

use ptxfma_cli_common::outln;
use std::io::BufRead;
use std::path::PathBuf;

use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};
use ptxfma_ptx::{self as op, Target};

use ptxfma_cosim_engine::reference;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::report;
use ptxfma_cosim_outputs::waves;

use crate::args::SidesArgs;
use crate::out_paths::check_out_file;

/// Operations whose results are printed.
const SHOWN: usize = 50;
/// Most instructions in one waveform.
const MAX_LINES: usize = 100_000;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// `fma-model eval` lines (PTX spelling, hex operands), one per argument; read from stdin
    /// when none. Each is presented in its own cycle, back to back; `.target sm_NN` lines and
    /// `//` comments are allowed.
    #[arg(value_name = "INSTRUCTION")]
    lines: Vec<String>,
    /// The waveform to write: VCD, or FST when the name ends in `.fst`.
    #[arg(long, default_value = "waves/wave.vcd", value_name = "FILE")]
    vcd: PathBuf,
    #[command(flatten)]
    sides: SidesArgs,
}

impl Args {
    pub(super) fn sides_mut(&mut self) -> &mut SidesArgs {
        &mut self.sides
    }
}

/// The operations of `lines`, one cycle each, tagged by cycle.
pub fn parse_lines(lines: &[String]) -> Result<Vec<PipeIn>, Error> {
    let mut target = Target::default();
    let mut out = Vec::new();
    for (n, raw) in lines.iter().enumerate() {
        let line = raw.split("//").next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let at = |msg: &str| Error::new(format!("line {}: {msg}", n + 1));
        if let Some(t) = line.strip_prefix(".target") {
            target = Target::parse(t.trim()).map_err(|e| at(e.message()))?;
            continue;
        }
        let i = op::parse_line(line, target).map_err(|e| at(e.message()))?;
        if out.len() == MAX_LINES {
            return Err(at(&format!("more than {MAX_LINES} instructions")));
        }
        out.push(PipeIn {
            valid: true,
            tag: out.len() as u16,
            ctrl: i.ctrl.encode(),
            a: i.a,
            b: i.b,
            c: i.c,
            reset: false,
        });
    }
    if out.is_empty() {
        return Err(Error::new("no instruction given"));
    }
    Ok(out)
}

pub fn wave(a: Args) -> Result<u8, Error> {
    let sides = a.sides.sides()?;
    check_out_file(&a.vcd, "waveform")?;
    let lines = if a.lines.is_empty() {
        let mut v = Vec::new();
        for l in std::io::stdin().lock().lines() {
            v.push(l.map_err(|e| Error::new(format!("stdin: {e}")))?);
            if v.len() > 4 * MAX_LINES {
                return Err(Error::new(format!(
                    "more than {} lines on stdin",
                    4 * MAX_LINES
                )));
            }
        }
        v
    } else {
        a.lines.clone()
    };
    let inputs = parse_lines(&lines)?;
    crate::args::design_takes(&sides.rtl, &inputs)?;
    let reference = reference::from_spec(&sides.golden)?;
    if !ptxfma_cosim_engine::rtl::variant(&sides.rtl)?.registers {
        return ports_wave(&a, &sides, reference.as_ref(), inputs);
    }
    let w = waves::write_window(&a.vcd, &sides.rtl, reference.as_ref(), &inputs, 0)?;
    say_waveform(
        &w,
        &sides.rtl,
        &sides.golden,
        &format!(
            "{} operation(s) in cycles 0..{} plus {LATENCY} drain cycles (cycle N at N ns)",
            inputs.len(),
            inputs.len() - 1
        ),
        "",
    )?;
    let mut replayer = ptxfma_cosim_engine::replay::Replayer::new(&sides.rtl, reference.as_ref())?;
    for (k, inp) in inputs.iter().enumerate().take(SHOWN) {
        let alone = replayer.alone(inp)?;
        let ctrl = ptxfma_model::ctrl::Ctrl::decode(inp.ctrl);
        outln!(
            "  cycle {k:>5}  {}  d = {}{}",
            ptxfma_cosim_engine::stim::ptx_spelling(&ctrl),
            report::result(&ctrl, alone.expected_d),
            if alone.actual_d == alone.expected_d {
                String::new()
            } else {
                format!("  RTL: {}", report::result(&ctrl, alone.actual_d))
            }
        )?;
    }
    if inputs.len() > SHOWN {
        outln!("  ... and {} more", inputs.len() - SHOWN)?;
    }
    if w.mismatches.is_empty() {
        outln!("no divergence")?;
        Ok(0)
    } else {
        let cycles: Vec<String> = w.mismatches.iter().map(u64::to_string).collect();
        outln!(
            "DIVERGENCE after the edge of cycle(s) {} (cosim.mismatch in the waveform)",
            cycles.join(", ")
        )?;
        Ok(1)
    }
}

/// `wave` of a design with only result ports: the operations then `bound` idle cycles, judged
/// by the ports (results matched by tag, any latency), with the marker after the edges where
/// a ports divergence shows.
fn ports_wave(
    a: &Args,
    sides: &ptxfma_cosim_engine::sides::Sides,
    reference: &dyn reference::Reference,
    mut inputs: Vec<PipeIn>,
) -> Result<u8, Error> {
    use ptxfma_cosim_engine::frame;
    use ptxfma_cosim_engine::ports::{Checker, Fault};
    let bound = ptxfma_cosim_engine::dut::latency_bound(&sides.rtl)?;
    let ops = inputs.len();
    inputs.extend((ops as u64..ops as u64 + bound).map(|t| PipeIn {
        tag: t as u16,
        ..PipeIn::default()
    }));
    let mut rtl = ptxfma_cosim_engine::rtl::Rtl::new(&sides.rtl, false)?;
    rtl.reset()?;
    let mut act = vec![0u32; inputs.len() * frame::WORDS];
    rtl.run(&inputs, &mut act)?;
    let mut g = reference.fresh()?;
    g.reset()?;
    let mut exp = vec![0u32; inputs.len() * frame::WORDS];
    g.run(&inputs, &mut exp)?;
    let mut checker = Checker::new(bound, ptxfma_cosim_engine::dut::nan_convention(&sides.rtl)?)
        .with_handover(rtl.handover());
    let mut found = Vec::new();
    for (i, inp) in inputs.iter().enumerate() {
        let r = i * frame::WORDS..i * frame::WORDS + frame::PORT_WORDS;
        checker.cycle(i as u64, (*inp, None), &exp[r.clone()], &act[r], &mut found);
    }
    checker.finish(inputs.len() as u64, &mut found);
    let marks: Vec<u64> = found.iter().map(|f| f.cycle).collect();
    let spec = waves::WindowSpec {
        variant: &sides.rtl,
        golden: reference,
        inputs: &inputs,
        first_cycle: 0,
        marks: Some(&marks),
        // The first divergence found: its cycle with its operation's issue.
        focus: found.first().map(|f| f.cycle),
        issue: found.first().and_then(|f| f.issue),
    };
    let w = waves::write(&a.vcd, &spec)?;
    let time = if w.timeline.is_linear() {
        "cycle N at N ns"
    } else {
        "a design cycle per ns, the stream's cycle in cosim.cycle"
    };
    say_waveform(
        &w,
        &sides.rtl,
        &sides.golden,
        &format!(
            "{ops} operation(s) in cycles 0..{} plus {bound} idle cycles (the latency bound; \
             {time})",
            ops - 1
        ),
        if w.tagless {
            ", the model's result for each result the design retires (in issue order) under \
             `model_by_tag`, judged by the ports"
        } else {
            ", the model's result for the tag the design retires under `model_by_tag`, judged by \
             the ports"
        },
    )?;
    // The reference retires operation k at its fixed latency.
    let age = frame::Bank::Ports.age() as usize;
    // A team's design is not one of the kit's RTL variants.
    let who = if sides.rtl.starts_with("dut:") {
        "design"
    } else {
        "RTL"
    };
    for (k, inp) in inputs.iter().enumerate().take(ops.min(SHOWN)) {
        let ctrl = ptxfma_model::ctrl::Ctrl::decode(inp.ctrl);
        let e = &exp[(k + age) * frame::WORDS..];
        let expected = e[2] as u64 | (e[3] as u64) << 32;
        let mine = found.iter().find(|f| f.issue == Some(k as u64));
        let rtl = match mine.map(|f| (f.diff.fault, f.diff.actual)) {
            Some((Fault::Value, Some(d))) => format!("  {who}: {}", report::result(&ctrl, d)),
            Some((Fault::Unretired, _)) => format!("  {who}: not retired within the bound"),
            _ => String::new(),
        };
        outln!(
            "  cycle {k:>5}  {}  d = {}{rtl}",
            ptxfma_cosim_engine::stim::ptx_spelling(&ctrl),
            report::result(&ctrl, expected)
        )?;
    }
    if ops > SHOWN {
        outln!("  ... and {} more", ops - SHOWN)?;
    }
    if found.is_empty() {
        outln!("no divergence")?;
        Ok(0)
    } else {
        let cycles: Vec<String> = marks.iter().map(u64::to_string).collect();
        outln!(
            "DIVERGENCE (ports) at cycle(s) {} (cosim.mismatch in the waveform)",
            cycles.join(", ")
        )?;
        Ok(1)
    }
}

/// The line that says what a waveform holds (`cycles`: its operations and cycles; `also`: what
/// it holds beside the two sides) and how to open it.
fn say_waveform(
    w: &waves::Waves,
    rtl: &str,
    reference: &str,
    cycles: &str,
    also: &str,
) -> Result<(), Error> {
    outln!(
        "waveform {}: {cycles}, {} under `TOP`, {reference} under `model`{also}{}",
        w.path.display(),
        ptxfma_cosim_engine::dut::describe(rtl),
        w.save.as_ref().map_or(String::new(), |s| format!(
            "; open it with `gtkwave {}`",
            s.display()
        ))
    )?;
    Ok(())
}
