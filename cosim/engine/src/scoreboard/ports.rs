//! Only the retired results, matched to their operations by tag, each within a latency bound
//! (the rules are [`crate::ports`]'s): a design of any latency can be checked.

use super::{Divergence, History, Scoreboard};
use crate::batch::Batch;
use crate::frame;
use crate::ports::{self, Found};
use crate::stim::Family;
use ptxfma_ptx::NanConvention;

pub struct Ports {
    /// The operations in flight.
    inflight: ports::Checker,
    found: Vec<Found>,
    /// A batch stopped the run: the end of the stream is not judged.
    stopped: bool,
}

impl Ports {
    pub fn new(bound: u64, nan: NanConvention, handover: ports::Handover) -> Ports {
        Ports {
            inflight: ports::Checker::new(bound, nan).with_handover(handover),
            found: Vec::new(),
            stopped: false,
        }
    }

    /// Adds what the checker found to `out`, up to `max` divergences in all.
    fn report(found: &mut Vec<Found>, max: usize, out: &mut Vec<Divergence>) {
        for f in found.drain(..) {
            if out.len() >= max {
                continue;
            }
            out.push(Divergence::Ports {
                cycle: f.cycle,
                issue: f.issue,
                input: f.input,
                family: f.family,
                diff: f.diff,
            });
        }
    }
}

impl Scoreboard for Ports {
    fn batch(
        &mut self,
        b: &Batch,
        actual: &[u32],
        _hist: &History,
        max: usize,
        out: &mut Vec<Divergence>,
    ) -> Option<usize> {
        for i in 0..b.inputs.len() {
            let r = i * frame::WORDS..i * frame::WORDS + frame::PORT_WORDS;
            let cycle = b.start + i as u64;
            self.inflight.cycle(
                cycle,
                b.cycle(i),
                &b.expected[r.clone()],
                &actual[r],
                &mut self.found,
            );
            if self.found.is_empty() {
                continue;
            }
            Self::report(&mut self.found, max, out);
            if out.len() >= max {
                self.stopped = true;
                return Some(i + 1);
            }
        }
        None
    }

    fn nan_accepted(&self) -> [u64; Family::ALL.len()] {
        self.inflight.nan_accepted()
    }

    /// Whatever is still in flight never retired.
    fn finish(&mut self, cycle: u64, max: usize, out: &mut Vec<Divergence>) {
        if self.stopped {
            return;
        }
        self.inflight.finish(cycle, &mut self.found);
        Self::report(&mut self.found, max, out);
    }
}
