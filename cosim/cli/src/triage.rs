//! Triage of a run's divergences: each is given a signature (stage, field, family,
//! instruction) and counted; the first of each signature is reported in full, replayed alone,
//! and gets a waveform; the next ones, up to `--max-examples` per signature, are listed as the
//! same signature; the rest are only counted, so that a million divergences stay a few lines
//! and a few MB of JSON.

use ptxfma_cli_common::{errln, out, outln};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use ptxfma_cosim_engine::chunk::Chunk;
use ptxfma_cosim_engine::frame;
use ptxfma_cosim_engine::lockstep::Divergence;
use ptxfma_cosim_engine::reference;
use ptxfma_cosim_engine::regress::Ran;
use ptxfma_cosim_engine::sides::Sides;
use ptxfma_cosim_engine::stim;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::report::{self, Origin};
use ptxfma_cosim_outputs::results::{hex, DivergenceRow, FieldRow};
use ptxfma_cosim_outputs::waves;

use ptxfma_cosim_outputs::command::{with_note, ShellCommand};

/// Where the waveforms go, and how many cycles each holds.
pub struct WaveOpts<'a> {
    pub dir: &'a Path,
    pub window: u64,
    pub fst: bool,
}

/// What triage found.
pub struct Triaged {
    /// The divergences listed: the first `max_examples` of each signature.
    pub divergences: Vec<DivergenceRow>,
    /// Per chunk of the run (in `Ran`'s order), every divergence counted by signature.
    pub by_signature: Vec<BTreeMap<String, usize>>,
    /// Ctrl-C came during triage: some divergences have no replay or waveform.
    pub stopped: bool,
}

/// Counts every divergence of `ran` and reports the first `max_examples` of each signature;
/// after Ctrl-C (`stop`) they are still listed, without replays or waveforms.
pub fn triage(
    ran: &Ran,
    sides: &Sides,
    waves: &WaveOpts<'_>,
    max_examples: usize,
    stop: &AtomicBool,
) -> Result<Triaged, Error> {
    let (cosim, model) = (ShellCommand::cosim(), ShellCommand::model_eval());
    let mut divergences = Vec::new();
    let mut by_signature = Vec::with_capacity(ran.chunks.len());
    // Per signature, the divergences listed so far.
    let mut listed: HashMap<String, usize> = HashMap::new();
    let mut triage_stopped = false;
    let mut replayer: Option<ptxfma_cosim_engine::replay::Replayer> = None;
    for (c, out) in &ran.chunks {
        let origin = Origin {
            stream_args: Some(c.replay_args()),
            family: c.families.to_string(),
            seed: Some(c.seed),
            sides_args: sides.args(),
            rtl: sides.rtl.clone(),
            golden: sides.golden.clone(),
            window: waves.window as usize,
            waves_args: crate::reproduce::waves_args(waves.dir, waves.fst),
            cosim: cosim.clone(),
            model: model.clone(),
        };
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for d in &out.divergences {
            let sig = signature(c, d, &sides.rtl);
            *counts.entry(sig.clone()).or_default() += 1;
            let n = listed.entry(sig).or_default();
            // Counted above; the summary says how many are not listed.
            if *n >= max_examples {
                continue;
            }
            *n += 1;
            let first = *n == 1;
            let stopped = stop.load(Ordering::Relaxed);
            triage_stopped |= stopped;
            if replayer.is_none() && !stopped {
                let reference = reference::from_spec(&sides.golden)?;
                replayer = Some(ptxfma_cosim_engine::replay::Replayer::new(
                    &sides.rtl,
                    reference.as_ref(),
                )?);
            }
            // A ports divergence is not replayed alone: the design's latency is its own.
            let replay = match d {
                Divergence::Registers { .. } if !stopped => replayer.as_mut(),
                _ => None,
            };
            let mut row = record(c, d, &origin, replay)?;
            if first {
                out!("\n{}", row.report)?;
                if !stopped {
                    if let Some((path, save, time)) =
                        wave_for(c, d, sides, waves.dir, waves.window, waves.fst)?
                    {
                        row.waveform = Some(path);
                        row.waveform_save = save;
                        row.waveform_mismatch_time = Some(time);
                    }
                }
            } else {
                outln!(
                    "\ndivergence in chunk {} cycle {}: same signature as an earlier one ({})",
                    c.index,
                    d.cycle(),
                    row.signature
                )?;
            }
            divergences.push(row);
        }
        by_signature.push(counts);
    }
    Ok(Triaged {
        divergences,
        by_signature,
        stopped: triage_stopped,
    })
}

/// What makes two divergences the same bug as far as triage can tell: the first differing
/// stage and field, the family, and the instruction with its modifiers.
pub(crate) fn signature(c: &Chunk, d: &Divergence, rtl: &str) -> String {
    format!(
        "{} {} | {} | {}",
        d.stage().name(),
        field(d, rtl),
        family(c, d),
        instruction(d)
    )
}

/// The field a divergence names: its first differing field, or the port that went wrong. A
/// design without tag ports (`rtl`'s `contract.tag_width = 0`) has no `out_tag_o`: a result
/// with nothing in flight shows at its `out_valid_o`.
pub(crate) fn field<'a>(d: &'a Divergence, rtl: &str) -> &'a str {
    match d {
        Divergence::Ports { diff, .. }
            if diff.fault == ptxfma_cosim_engine::ports::Fault::Unissued
                && ptxfma_cosim_engine::dut::tagless(rtl) =>
        {
            "out_valid_o"
        }
        _ => d.first_field(),
    }
}

/// The family of the divergent operation (the stream's for a bubble or the reset state).
fn family(c: &Chunk, d: &Divergence) -> String {
    match d.family() {
        Some(f) => f.name().into(),
        None => c.families.to_string(),
    }
}

fn instruction(d: &Divergence) -> String {
    match d.input() {
        Some(inp) if inp.valid => stim::ptx_spelling(&ptxfma_model::ctrl::Ctrl::decode(inp.ctrl)),
        Some(_) => "bubble".to_string(),
        None => "reset".to_string(),
    }
}

/// The record of one divergence: its signature, report and reproduce lines. With `replay`, the
/// report says what the operation gives replayed alone.
fn record(
    c: &Chunk,
    d: &Divergence,
    origin: &Origin,
    replay: Option<&mut ptxfma_cosim_engine::replay::Replayer>,
) -> Result<DivergenceRow, Error> {
    let alone = match (d.input(), replay) {
        (Some(inp), Some(r)) => match r.alone(inp) {
            Ok(a) => Some(a),
            Err(e) => {
                errln!("warning: replaying the operation alone failed: {e}")?;
                None
            }
        },
        _ => None,
    };
    let reproduce = match (d, d.input(), d.issue()) {
        (Divergence::Ports { diff: p, .. }, input, issue) => {
            // The operation replayed (alone, then with the cycles before it), the whole chunk
            // run again, the model's result.
            let mut lines = input.map_or_else(Vec::new, |i| {
                crate::reproduce::ports_reproduce(origin, i, issue, p.bound)
            });
            let run = origin
                .cosim
                .clone()
                .arg("run")
                .args(c.replay_args())
                .args(["--chunk-size".to_string(), c.ops.to_string()])
                .args(origin.tail(&[
                    "--compare".into(),
                    "ports".into(),
                    "--latency-bound".into(),
                    p.bound.to_string(),
                ]));
            lines.push(with_note(run, "the chunk run again"));
            lines.extend(input.and_then(|i| origin.model_line(i)));
            lines
        }
        (Divergence::Registers { .. }, Some(inp), Some(issue)) => {
            origin.reproduce(inp, issue, d.cycle())
        }
        _ => Vec::new(),
    };
    let report = match d {
        Divergence::Ports { .. } => report::ports_divergence(d, origin, &reproduce),
        Divergence::Registers { .. } => report::divergence(d, origin, alone.as_ref()),
    };
    let input = d.input();
    let operand = |k: usize| input.map(|i| hex([i.a, i.b, i.c][k]));
    let (tag, expected, actual, retire, fields) = match d {
        // A design without tag ports never saw one: the row names none (docs/dut.md, "Tag").
        Divergence::Ports { diff: p, .. } => (
            (!ptxfma_cosim_engine::dut::tagless(&origin.rtl)).then_some(p.tag),
            p.expected.map(hex),
            p.actual.map(hex),
            p.retired,
            Vec::new(),
        ),
        Divergence::Registers { fields, .. } => (
            input.map(|i| i.tag),
            alone.as_ref().map(|al| hex(al.expected_d)),
            alone.as_ref().map(|al| hex(al.actual_d)),
            None,
            fields
                .iter()
                .map(|f| FieldRow {
                    name: f.name.clone(),
                    width: f.width,
                    expected: frame::hex(&f.expected, f.width),
                    actual: frame::hex(&f.actual, f.width),
                })
                .collect(),
        ),
    };
    Ok(DivergenceRow {
        chunk: c.index,
        family: family(c, d),
        cycle: d.cycle(),
        issue: d.issue(),
        retire,
        stage: d.stage().name().into(),
        signature: signature(c, d, &origin.rtl),
        field: field(d, &origin.rtl).to_string(),
        instruction: instruction(d),
        ctrl: input.map(|i| hex(i.ctrl.into())),
        a: operand(0),
        b: operand(1),
        c: operand(2),
        tag: tag.map(|t| hex(t.into())),
        expected,
        actual,
        fields,
        report,
        reproduce,
        waveform: None,
        waveform_save: None,
        waveform_mismatch_time: None,
    })
}

/// Writes the waveform of `d` (the `window` cycles up to it, regenerated from the chunk's
/// stream) and prints where it is; returns its path and the trace time of the divergence's
/// edge, where `cosim.mismatch` rises (none when it could not be written).
fn wave_for(
    c: &Chunk,
    d: &Divergence,
    sides: &Sides,
    dir: &Path,
    window: u64,
    fst: bool,
) -> Result<Option<(String, Option<String>, u64)>, Error> {
    let cycle = d.cycle();
    let first = (cycle + 1).saturating_sub(window);
    // A design checked by its ports may retire later than the window reaches back: the window
    // then starts a few cycles before the operation's issue.
    let first = match (d, d.issue()) {
        (Divergence::Ports { .. }, Some(issue)) => first.min(issue.saturating_sub(2)),
        _ => first,
    };
    let inputs: Vec<_> = c
        .stream()
        .inputs()
        .skip(first as usize)
        .take((cycle + 1 - first) as usize)
        .collect();
    let path = dir.join(waves::file_name(
        &c.families.to_string(),
        c.seed,
        cycle,
        fst,
    ));
    let reference = match reference::from_spec(&sides.golden) {
        Ok(g) => g,
        Err(e) => {
            outln!("  waveform    not written: {e}")?;
            return Ok(None);
        }
    };
    // At the ports the model's results come at its own latency: mark the divergence's cycle.
    let marks = matches!(d, Divergence::Ports { .. }).then_some([cycle]);
    let spec = waves::WindowSpec {
        variant: &sides.rtl,
        golden: reference.as_ref(),
        inputs: &inputs,
        first_cycle: first,
        marks: marks.as_ref().map(|m| &m[..]),
        focus: Some(cycle),
        issue: d.issue(),
    };
    let w = waves::write(&path, &spec);
    waves::print_waves(&w, cycle)?;
    Ok(w.ok().map(|w| {
        let save = w.save.as_ref().map(|s| s.display().to_string());
        (w.path.display().to_string(), save, w.edge_time(cycle))
    }))
}
