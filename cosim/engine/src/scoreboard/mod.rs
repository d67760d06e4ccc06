//! The scoreboard: how the RTL's frames are judged against the reference's. [`Registers`]
//! compares whole frames cycle by cycle (output ports and every stage register); [`Ports`]
//! only the retired results, matched to their operations by tag ([`crate::ports`]). Either
//! reports a [`Divergence`] of its own kind.

mod ports;
mod registers;

use std::collections::VecDeque;

use ptxfma_model::machine::pipeline::PipeIn;

use crate::batch::Batch;
use crate::frame::{Bank, FieldDiff};
use crate::ports::PortsDiff;
use crate::stim::Family;
use crate::stream::Cycle;

pub use self::ports::Ports;
pub use registers::Registers;

/// One disagreement between the RTL and the reference.
#[derive(Clone, Debug)]
pub enum Divergence {
    /// A cycle whose frames differ.
    Registers {
        /// Cycle (from 0 after reset) after whose rising edge the banks differ.
        cycle: u64,
        /// Cycle in which the operation now in `bank` was presented; `None` if it is the
        /// reset state that has not yet been replaced.
        issue: Option<u64>,
        /// That operation's input and family.
        input: Option<PipeIn>,
        family: Option<Family>,
        /// The first differing bank in pipeline order.
        bank: Bank,
        /// Its differing fields, most significant first.
        fields: Vec<FieldDiff>,
        /// Every differing bank in this cycle.
        banks: Vec<Bank>,
        /// Both frames of the cycle.
        expected: Vec<u32>,
        actual: Vec<u32>,
    },
    /// A retired result that is wrong, late or never issued.
    Ports {
        /// The cycle it was seen in.
        cycle: u64,
        /// The operation's issue cycle, input and family (none for a tag never issued).
        issue: Option<u64>,
        input: Option<PipeIn>,
        family: Option<Family>,
        diff: PortsDiff,
    },
}

impl Divergence {
    /// The cycle it was seen in.
    pub fn cycle(&self) -> u64 {
        match self {
            Divergence::Registers { cycle, .. } | Divergence::Ports { cycle, .. } => *cycle,
        }
    }

    /// The issue cycle of the operation it is about.
    pub fn issue(&self) -> Option<u64> {
        match self {
            Divergence::Registers { issue, .. } | Divergence::Ports { issue, .. } => *issue,
        }
    }

    /// The input of the operation it is about.
    pub fn input(&self) -> Option<&PipeIn> {
        match self {
            Divergence::Registers { input, .. } | Divergence::Ports { input, .. } => input.as_ref(),
        }
    }

    /// The family of the operation it is about, as the stream drew it.
    pub fn family(&self) -> Option<Family> {
        match self {
            Divergence::Registers { family, .. } | Divergence::Ports { family, .. } => *family,
        }
    }

    /// The stage reports name: the first differing bank, or the ports.
    pub fn stage(&self) -> Bank {
        match self {
            Divergence::Registers { bank, .. } => *bank,
            Divergence::Ports { .. } => Bank::Ports,
        }
    }

    /// The first differing field (for the ports, the port that went wrong).
    pub fn first_field(&self) -> &str {
        match self {
            Divergence::Registers { fields, .. } => fields.first().map_or("?", |f| f.name.as_str()),
            Divergence::Ports { diff, .. } => diff.fault.port(),
        }
    }

    /// The same divergence with its cycles counted `by` cycles later (a replayed window that
    /// starts at stream cycle `by`).
    pub fn shift(&mut self, by: u64) {
        match self {
            Divergence::Registers { cycle, issue, .. } => {
                *cycle += by;
                *issue = issue.map(|c| c + by);
            }
            Divergence::Ports {
                cycle, issue, diff, ..
            } => {
                *cycle += by;
                *issue = issue.map(|c| c + by);
                diff.retired = diff.retired.map(|c| c + by);
            }
        }
    }
}

/// The cycles before the batch in progress, as many as the lockstep keeps.
pub type History = VecDeque<Cycle>;

/// Cycle `c`'s input and family, from the batch or the history before it.
pub(crate) fn cycle_at(hist: &History, b: &Batch, c: u64) -> Cycle {
    if c >= b.start {
        b.cycle((c - b.start) as usize)
    } else {
        hist[hist.len() - (b.start - c) as usize]
    }
}

/// A way of judging the RTL's frames.
pub trait Scoreboard: Send {
    /// Judges one batch (`actual` holds the RTL's frames beside the batch's `expected`),
    /// adding what it finds to `found` until it holds `max`; returns the number of cycles
    /// judged when that stops the run, else `None`.
    fn batch(
        &mut self,
        b: &Batch,
        actual: &[u32],
        hist: &History,
        max: usize,
        found: &mut Vec<Divergence>,
    ) -> Option<usize>;

    /// The end of the stream, `cycle` being the first cycle after it.
    fn finish(&mut self, _cycle: u64, _max: usize, _found: &mut Vec<Divergence>) {}

    /// Per family, results accepted under a NaN convention that PTX's rule would not.
    fn nan_accepted(&self) -> [u64; Family::ALL.len()] {
        [0; Family::ALL.len()]
    }
}
