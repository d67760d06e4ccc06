//! Stimulus: seeded, edge-biased instruction vectors for the bulk tests and the co-simulator.
//!
//! Random bit patterns almost never hit the cases where a fused multiply-add goes wrong (exact
//! cancellation, rounding at the overflow threshold, subnormal results, NaN payloads), so most
//! operands here are built the way Berkeley TestFloat builds them: an exponent taken from a short
//! list of boundaries, a significand taken from a short list of bit patterns, plus the special
//! values. About a quarter stay uniformly random so that nothing the lists forgot is out of reach.
//!
//! Everything is a pure function of a `u64` seed through the small PRNG in `rng`, written out
//! rather than taken from a crate: a failing seed printed in a divergence report has to replay the
//! same vectors after any dependency upgrade. For the same reason a change that only makes the
//! generator cheaper must make the same draws in the same order: `pinned` holds it to digests
//! of its vectors.
//!
//! Where each part lives: `rng` (the PRNG), `family` (instruction families, their legal control
//! words and the `--families` filter), `operands` (the operand generators); the stream itself,
//! [`Stimulus`], is here. Legality lives with the control word
//! ([`crate::ctrl::legal`]); the PTX printer (`ptxfma_ptx::print`) turns a vector back into
//! an `fma-model eval` line.

mod family;
mod operands;
mod rng;

pub use family::{Family, FamilyFilter};
pub use operands::{
    float_operand, frac_pattern, int_operand, operands_for, vector_for, Fmt, Vector, BF16, F16,
    F32, F64, VMAD_EDGES,
};
pub use rng::{splitmix64, Rng};

use crate::ctrl::Ctrl;
use crate::machine::pipe_in::PipeIn;
use operands::operands_inline;

/// a, b and c of one operation.
type Operands = (u64, u64, u64);

/// The endless vector stream of one seed: a family drawn uniformly from the filter, then one of
/// its legal control words uniformly (so every rounding mode and modifier gets its share), then
/// operands from [`operands_for`].
#[derive(Clone, Debug)]
pub struct Stimulus {
    seed: u64,
    rng: Rng,
    /// Each family's [`Family::ctrl_table`], in [`Family::ALL`] order.
    tables: Vec<&'static [(Ctrl, u32)]>,
}

impl Stimulus {
    pub fn new(seed: u64, families: FamilyFilter) -> Stimulus {
        Stimulus {
            seed,
            rng: Rng::new(seed),
            tables: families
                .families()
                .into_iter()
                .map(Family::ctrl_table)
                .collect(),
        }
    }

    /// A stream drawing from `tables` (each a family's words with their encodings, as
    /// [`Family::ctrl_table`] gives them) in place of whole families: a table narrowed to the
    /// words a design implements is drawn from directly. With the tables of a filter's
    /// families, in [`Family::ALL`] order, the very stream of [`Stimulus::new`]. Empty tables
    /// are the caller's to leave out (a pick from one has nothing to pick).
    pub fn with_tables(seed: u64, tables: Vec<&'static [(Ctrl, u32)]>) -> Stimulus {
        debug_assert!(tables.iter().all(|t| !t.is_empty()));
        Stimulus {
            seed,
            rng: Rng::new(seed),
            tables,
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The next vector presented to the pipe as a valid input with `tag` ([`Vector::input`]),
    /// its control word looked up rather than encoded again: the co-simulator's stream, which
    /// needs nothing else. `None` only for an empty filter.
    pub fn next_input(&mut self, tag: u16) -> Option<PipeIn> {
        let (&(_, word), (a, b, c)) = self.draw()?;
        Some(PipeIn {
            valid: true,
            tag,
            ctrl: word,
            a,
            b,
            c,
            reset: false,
        })
    }

    /// The next control word (its table entry, with the encoding) and operands: the one
    /// sequence of draws both [`Iterator::next`] and [`Stimulus::next_input`] make.
    #[inline(always)]
    fn draw(&mut self) -> Option<(&'static (Ctrl, u32), Operands)> {
        if self.tables.is_empty() {
            return None;
        }
        let fam = self.rng.below(self.tables.len() as u64) as usize;
        let word = self.rng.pick(self.tables[fam]);
        Some((word, operands_inline(&word.0, &mut self.rng)))
    }
}

impl Iterator for Stimulus {
    type Item = Vector;

    /// Never ends, except for an empty filter, which yields nothing.
    fn next(&mut self) -> Option<Vector> {
        let (&(ctrl, _), (a, b, c)) = self.draw()?;
        Some(Vector { ctrl, a, b, c })
    }
}

#[cfg(test)]
mod pinned;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctrl::{Kind, Rnd};

    /// The co-simulator's path (`next_input`) and the iterator make the same draws.
    #[test]
    fn next_input_is_the_next_vector_as_an_input() {
        let mut by_input = Stimulus::new(17, FamilyFilter::all());
        for (i, v) in Stimulus::new(17, FamilyFilter::all())
            .take(20_000)
            .enumerate()
        {
            let tag = i as u16;
            assert_eq!(by_input.next_input(tag), Some(v.input(tag)), "vector {i}");
        }
        assert_eq!(Stimulus::new(1, FamilyFilter::none()).next_input(0), None);
    }

    #[test]
    fn same_seed_same_sequence_other_seed_differs() {
        let a: Vec<Vector> = Stimulus::new(42, FamilyFilter::all()).take(5000).collect();
        let b: Vec<Vector> = Stimulus::new(42, FamilyFilter::all()).take(5000).collect();
        let c: Vec<Vector> = Stimulus::new(43, FamilyFilter::all()).take(5000).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Not merely shifted or mostly equal: most positions differ.
        let same = a.iter().zip(&c).filter(|(x, y)| x == y).count();
        assert!(same < 50, "{same} equal vectors between seeds 42 and 43");
        // operands_for is just as deterministic.
        let ctrl = Ctrl::fma(Kind::F64, Rnd::Rm);
        let x: Vec<_> = {
            let mut r = Rng::new(9);
            (0..100).map(|_| operands_for(&ctrl, &mut r)).collect()
        };
        let y: Vec<_> = {
            let mut r = Rng::new(9);
            (0..100).map(|_| operands_for(&ctrl, &mut r)).collect()
        };
        assert_eq!(x, y);
    }
}
