//! Whole frames, cycle by cycle: the output ports and all four stage registers. A divergence is
//! pinned to the earliest differing bank whose operation has not been reported yet, so one
//! wrong operation is one divergence however many stages it spoils.

use std::collections::HashSet;

use super::{cycle_at, Divergence, History, Scoreboard};
use crate::batch::Batch;
use crate::frame::{self, Bank};

#[derive(Default)]
pub struct Registers {
    /// Issue cycles of the operations already reported (`None`: the reset state).
    seen: HashSet<Option<u64>>,
}

impl Registers {
    pub fn new() -> Registers {
        Registers::default()
    }

    /// Compares cycle `i` of the batch; the divergence it adds, if any.
    fn cycle(&mut self, b: &Batch, actual: &[u32], hist: &History, i: usize) -> Option<Divergence> {
        let r = i * frame::WORDS..(i + 1) * frame::WORDS;
        let (e, a) = (&b.expected[r.clone()], &actual[r]);
        if e == a {
            return None;
        }
        let cycle = b.start + i as u64;
        let banks = frame::differing_banks(e, a);
        // Name the earliest bank whose operation has not been reported yet.
        let issue_of = |bank: Bank| cycle.checked_sub(bank.age());
        let &bank = banks.iter().find(|&&k| !self.seen.contains(&issue_of(k)))?;
        for &k in &banks {
            self.seen.insert(issue_of(k));
        }
        let fields = frame::differing_fields(bank, e, a);
        // A reset since the operation's issue cycle (or in it) leaves the reset state there.
        let issue = issue_of(bank).filter(|&c| (c..=cycle).all(|x| !cycle_at(hist, b, x).0.reset));
        let at = issue.map(|c| cycle_at(hist, b, c));
        Some(Divergence::Registers {
            cycle,
            issue,
            input: at.map(|(p, _)| p),
            family: at.and_then(|(_, f)| f),
            bank,
            fields,
            banks,
            expected: e.to_vec(),
            actual: a.to_vec(),
        })
    }
}

impl Scoreboard for Registers {
    fn batch(
        &mut self,
        b: &Batch,
        actual: &[u32],
        hist: &History,
        max: usize,
        found: &mut Vec<Divergence>,
    ) -> Option<usize> {
        if b.expected == actual {
            return None;
        }
        for i in 0..b.inputs.len() {
            if let Some(d) = self.cycle(b, actual, hist, i) {
                found.push(d);
                if found.len() >= max {
                    return Some(i + 1);
                }
            }
        }
        None
    }
}
