//! One operation replayed alone from reset on both sides, to tell a divergence of the
//! operation itself from one that needs its neighbours. (The `replay` command of
//! `ptxfma-cosim`, `cosim/cli/src/replay.rs`, is the same thing a level up: it asks for this.)

use ptxfma_model::machine::pipeline::{PipeIn, LATENCY};

use crate::frame::{self, Bank};
use crate::reference::Reference;
use crate::rtl::Rtl;
use crate::Error;

/// The operation replayed alone from reset on both sides.
#[derive(Clone, Debug)]
pub struct Alone {
    pub expected_d: u64,
    pub actual_d: u64,
    /// First (cycle, bank, field) that differs, if any.
    pub first: Option<(u64, Bank, String)>,
}

/// Replays single operations from reset, reusing one RTL and one reference.
pub struct Replayer {
    rtl: Rtl,
    golden: Box<dyn Reference>,
}

impl Replayer {
    pub fn new(variant: &str, golden: &dyn Reference) -> Result<Replayer, Error> {
        Ok(Replayer {
            rtl: Rtl::new(variant, false)?,
            golden: golden.fresh()?,
        })
    }

    /// Runs `input` alone from reset (then idle cycles) on both sides.
    pub fn alone(&mut self, input: &PipeIn) -> Result<Alone, Error> {
        let mut all = vec![*input];
        all.extend((1..LATENCY as u16).map(|k| PipeIn {
            tag: input.tag.wrapping_add(k),
            ..PipeIn::default()
        }));
        self.rtl.reset()?;
        let mut act = vec![0u32; all.len() * frame::WORDS];
        self.rtl.run(&all, &mut act)?;
        self.golden.reset()?;
        let mut exp = vec![0u32; all.len() * frame::WORDS];
        self.golden.run(&all, &mut exp)?;
        Ok(compare_alone(&exp, &act))
    }
}

/// Runs `input` alone from reset (then idle cycles) on a fresh RTL and a fresh reference.
pub fn replay_alone(variant: &str, golden: &dyn Reference, input: &PipeIn) -> Result<Alone, Error> {
    Replayer::new(variant, golden)?.alone(input)
}

/// The result words and the first differing field of a replay's frames.
fn compare_alone(exp: &[u32], act: &[u32]) -> Alone {
    let d = |f: &[u32]| {
        let last = &f[(LATENCY - 1) * frame::WORDS..];
        last[2] as u64 | (last[3] as u64) << 32
    };
    let mut first = None;
    for (i, (e, a)) in exp
        .chunks_exact(frame::WORDS)
        .zip(act.chunks_exact(frame::WORDS))
        .enumerate()
    {
        if let Some(&bank) = frame::differing_banks(e, a).first() {
            let f = frame::differing_fields(bank, e, a);
            first = Some((i as u64, bank, f[0].name.clone()));
            break;
        }
    }
    Alone {
        expected_d: d(exp),
        actual_d: d(act),
        first,
    }
}
