//! Triage of a run's divergences: each is given a signature (stage, field, family,
//! instruction); the first of each signature is reported in full, replayed alone, and gets a
//! waveform; the others are listed as the same signature.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::chunk::Chunk;
use crate::engine::golden;
use crate::engine::lockstep::Divergence;
use crate::engine::regress::Ran;
use crate::engine::sides::Sides;
use crate::engine::stim;
use crate::outputs::report::{self, Origin};
use crate::outputs::results::DivergenceRow;
use crate::outputs::waves;
use crate::Error;

use super::commands;

/// Where the waveforms go, and how many cycles each holds.
pub struct WaveOpts<'a> {
    pub dir: &'a Path,
    pub window: u64,
    pub fst: bool,
}

/// What triage found.
pub struct Triaged {
    pub divergences: Vec<DivergenceRow>,
    /// Ctrl-C came during triage: some divergences have no replay or waveform.
    pub stopped: bool,
}

/// Reports every divergence of `ran`; after Ctrl-C (`stop`) they are still listed, without
/// replays or waveforms.
pub fn triage(
    ran: &Ran,
    sides: &Sides,
    waves: &WaveOpts<'_>,
    stop: &AtomicBool,
) -> Result<Triaged, Error> {
    let (cosim_cmd, model_cmd) = commands();
    let mut divergences = Vec::new();
    let mut signatures: Vec<String> = Vec::new();
    let mut triage_stopped = false;
    let mut replayer: Option<crate::engine::replay::Replayer> = None;
    for (c, out) in &ran.chunks {
        let origin = Origin {
            stream_args: Some(c.stream_args()),
            family: c.families.to_string(),
            seed: Some(c.seed),
            sides_args: sides.args(),
            rtl: sides.rtl.clone(),
            golden: sides.golden.clone(),
            window: waves.window as usize,
            cosim_cmd: cosim_cmd.clone(),
            model_cmd: model_cmd.clone(),
        };
        for d in &out.divergences {
            let stopped = stop.load(Ordering::Relaxed);
            triage_stopped |= stopped;
            let sig = signature(c, d);
            let first = !signatures.contains(&sig);
            if replayer.is_none() && !stopped {
                let reference = golden::from_spec(&sides.golden)?;
                replayer = Some(crate::engine::replay::Replayer::new(
                    &sides.rtl,
                    reference.as_ref(),
                )?);
            }
            // A ports divergence is not replayed alone: the design's latency is its own.
            let replay = match d {
                Divergence::Registers { .. } if !stopped => replayer.as_mut(),
                _ => None,
            };
            let mut row = record(c, d, &origin, replay, sides)?;
            if first {
                signatures.push(sig);
                print!("\n{}", row.report);
                if !stopped {
                    if let Some((path, save, time)) =
                        wave_for(c, d, sides, waves.dir, waves.window, waves.fst)
                    {
                        row.waveform = Some(path);
                        row.waveform_save = save;
                        row.waveform_mismatch_time = Some(time);
                    }
                }
            } else {
                println!(
                    "\ndivergence in chunk {} cycle {}: same signature as an earlier one ({})",
                    c.index,
                    d.cycle(),
                    row.signature
                );
            }
            divergences.push(row);
        }
    }
    Ok(Triaged {
        divergences,
        stopped: triage_stopped,
    })
}

/// What makes two divergences the same bug as far as triage can tell: the first differing
/// stage and field, the family, and the instruction with its modifiers.
fn signature(c: &Chunk, d: &Divergence) -> String {
    format!(
        "{} {} | {} | {}",
        d.stage().name(),
        d.first_field(),
        family(c, d),
        instruction(d)
    )
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
    replay: Option<&mut crate::engine::replay::Replayer>,
    sides: &Sides,
) -> Result<DivergenceRow, Error> {
    let alone = match (d.input(), replay) {
        (Some(inp), Some(r)) => r
            .alone(inp)
            .map_err(|e| eprintln!("warning: replaying the operation alone failed: {e}"))
            .ok(),
        _ => None,
    };
    let reproduce = match (d, d.input(), d.issue()) {
        (Divergence::Ports { diff: p, .. }, input, _) => {
            let mut lines = vec![format!(
                "{} run {} --chunk-size {} --compare ports --latency-bound {}{}",
                origin.cosim_cmd,
                c.stream_args(),
                c.ops,
                p.bound,
                sides.args()
            )];
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
    Ok(DivergenceRow {
        chunk: c.index,
        family: family(c, d),
        cycle: d.cycle(),
        issue: d.issue(),
        stage: d.stage().name().into(),
        signature: signature(c, d),
        field: d.first_field().to_string(),
        instruction: instruction(d),
        report,
        reproduce,
        waveform: None,
        waveform_save: None,
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
    dir: &Path,
    window: u64,
    fst: bool,
) -> Option<(String, Option<String>, u64)> {
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
    let reference = match golden::from_spec(&sides.golden) {
        Ok(g) => g,
        Err(e) => {
            println!("  waveform    not written: {e}");
            return None;
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
    waves::print_waves(&w, cycle);
    w.ok().map(|w| {
        let save = w.save.as_ref().map(|s| s.display().to_string());
        (w.path.display().to_string(), save, w.edge_time(cycle))
    })
}
