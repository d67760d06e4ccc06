//! Directed corners: vectors aimed at the coverage bins (`coverage::bins`) that the
//! edge-biased stimulus (`ptxfma_model::stimulus`) reaches rarely or only over many millions of
//! operations, to be mixed into the stream at a low rate ([`RATE`], through [`Biased`]).
//!
//! Each corner is built arithmetically for a control word drawn from the family's legal words:
//! - a tie whose round-up carries into the exponent (an all-ones significand plus exactly half
//!   an ulp, from a sum or from a product of two factors of 2^(p+1) - 1), sometimes at the top of
//!   the range so that the carry overflows;
//! - a result just below the minimum normal that rounds up to it at the subnormal quantum
//!   (under `.ftz` flushed, S4: below it at p bits), or, under `.ftz`, one that reaches it at
//!   p bits (kept);
//! - a lane result of a chosen class (zero, normal, subnormal, overflow, inf, NaN), so the f32x2
//!   lanes cross;
//! - sm_1x: a product beyond the f32 range brought back by c, a tiny negative product with
//!   c = +0, a product that overflows with c = 0;
//! - values at, one below and one above each limit a comparison of the datapath decides on
//!   (`coverage::bins::bounds` and `vmbounds`);
//! - vmad: `.sat` with extreme selected values, so the clamps fire high and low.
//!
//! Everything is a function of the [`Rng`] passed in, so a stream that mixes corners replays
//! from its seed like any other.

mod exact;
mod float;
pub mod vmad;

use ptxfma_model::ctrl::{Ctrl, Kind};
use ptxfma_model::machine::pipeline::PipeIn;
use ptxfma_model::stimulus::vector_for;

use crate::stim::{Family, Rng, Stimulus, Vector};
use float::{lane_corner, LANE_KINDS};
use vmad::vmad_corner;

/// The mix rate the co-simulator uses: one operation in `RATE` is a corner.
pub const RATE: u64 = 16;

/// A vector aimed at a hard coverage bin of one of `families` (drawn uniformly); `None` only
/// for an empty list. The control word is always one of the family's legal words.
pub fn corner(rng: &mut Rng, families: &[Family]) -> Option<Vector> {
    let tables: Vec<_> = families.iter().map(|f| f.ctrl_table()).collect();
    corner_in(rng, &tables)
}

/// [`corner`] with each family's words given as a table ([`crate::forms::table`]: those a
/// design implements, or all of them): the word is drawn from one of `tables` (drawn
/// uniformly; none empty), so a restricted stream's corners keep to its forms where the
/// construction keeps the word (a vmad `.sat` bound does not). With whole tables the draws
/// of [`corner`].
pub fn corner_in(rng: &mut Rng, tables: &[&'static [(Ctrl, u32)]]) -> Option<Vector> {
    if tables.is_empty() {
        return None;
    }
    let cs = *rng.pick(tables);
    let f = Family::of(&cs.first()?.0);
    // A construction can fall outside a format's range; a few more draws always find one.
    // f32x2's add/sub/mul words substitute an operand in both lanes; half of its corners keep
    // the full product, which the lane-1 window corners (alignment, LZA) need (where the
    // table has an fma word: forms may leave it out).
    let is_fma = |c: &Ctrl| !c.b_one && !c.c_zero;
    let fma_only = f == Family::F32x2 && rng.bit() && cs.iter().any(|(c, _)| is_fma(c));
    let pick = |rng: &mut Rng| loop {
        let (c, _) = *rng.pick(cs);
        if !fma_only || is_fma(&c) {
            break c;
        }
    };
    for _ in 0..16 {
        let ctrl = pick(rng);
        let (ctrl, ops) = if ctrl.kind == Kind::Vmad {
            let (ctrl, ops) = vmad_corner(rng, ctrl);
            (ctrl, Some(ops))
        } else if matches!(ctrl.kind, Kind::F32x2 | Kind::Half2) {
            let sh = if ctrl.kind == Kind::Half2 { 16 } else { 32 };
            let kinds = (rng.below(LANE_KINDS), rng.below(LANE_KINDS));
            let ops = lane_corner(rng, &ctrl, kinds.0).and_then(|(a0, b0, c0)| {
                let (a1, b1, c1) = lane_corner(rng, &ctrl, kinds.1)?;
                Some((a0 | a1 << sh, b0 | b1 << sh, c0 | c1 << sh))
            });
            (ctrl, ops)
        } else {
            let k = rng.below(LANE_KINDS);
            (ctrl, lane_corner(rng, &ctrl, k))
        };
        if let Some((a, b, c)) = ops {
            return Some(Vector { ctrl, a, b, c });
        }
    }
    let (ctrl, _) = *rng.pick(cs);
    Some(vector_for(&ctrl, rng))
}

/// `inner` with one vector in `rate` (on average) replaced by a [`corner`] of `families`.
/// Replacing rather than inserting keeps the stream's length and the inner stream's sequence.
pub struct Biased<I> {
    inner: I,
    rng: Rng,
    /// The words of each family the corners are drawn from.
    tables: Vec<&'static [(Ctrl, u32)]>,
    rate: u64,
}

impl<I: Iterator<Item = Vector>> Biased<I> {
    /// `seed` drives the choice of corners (independently of `inner`); `rate` >= 1.
    pub fn new(inner: I, seed: u64, families: &[Family], rate: u64) -> Biased<I> {
        Biased::with_forms(inner, seed, families, rate, None)
    }

    /// [`Biased::new`] whose corners draw their words from those `forms` allows
    /// ([`crate::forms::table`]; a family left none has no corners).
    pub fn with_forms(
        inner: I,
        seed: u64,
        families: &[Family],
        rate: u64,
        forms: Option<crate::stim::Forms>,
    ) -> Biased<I> {
        Biased {
            inner,
            rng: Rng::new(seed ^ 0xC0E2_D1EC_7ED0_0001),
            tables: families
                .iter()
                .map(|f| crate::forms::table(*f, forms))
                .filter(|t| !t.is_empty())
                .collect(),
            rate: rate.max(1),
        }
    }
}

impl Biased<Stimulus> {
    /// [`Iterator::next`] as a valid input with `tag` ([`Vector::input`]): the stream's
    /// path, where the generator's words are looked up rather than encoded.
    #[inline]
    pub fn next_input(&mut self, tag: u16) -> Option<PipeIn> {
        let p = self.inner.next_input(tag)?;
        if self.rng.below(self.rate) == 0 {
            if let Some(c) = corner_in(&mut self.rng, &self.tables) {
                return Some(c.input(tag));
            }
        }
        Some(p)
    }
}

impl<I: Iterator<Item = Vector>> Iterator for Biased<I> {
    type Item = Vector;

    fn next(&mut self) -> Option<Vector> {
        let v = self.inner.next()?;
        if self.rng.below(self.rate) == 0 {
            return corner_in(&mut self.rng, &self.tables).or(Some(v));
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_model::ctrl::legal::is_legal;

    #[test]
    fn corners_are_legal_and_fit_their_formats() {
        let mut rng = Rng::new(3);
        for f in Family::ALL {
            for _ in 0..2000 {
                let v = corner(&mut rng, &[f]).unwrap();
                assert!(is_legal(&v.ctrl), "{v:?}");
                assert_eq!(Family::of(&v.ctrl), f);
                let (fab, _, fc) = &v.ctrl.operand_formats();
                let wide = |x: u64, bits: u32| bits == 64 || x >> bits == 0;
                let (ab_bits, c_bits) = match v.ctrl.kind {
                    Kind::F64 | Kind::F32x2 => (64, 64),
                    Kind::Vmad | Kind::Half2 => (32, 32),
                    _ => (fab.width(), fc.width()),
                };
                assert!(
                    wide(v.a, ab_bits) && wide(v.b, ab_bits) && wide(v.c, c_bits),
                    "{v:?}"
                );
                if v.ctrl.b_one {
                    assert_eq!(v.b, 0, "{v:?}");
                }
                if v.ctrl.c_zero {
                    assert_eq!(v.c, 0, "{v:?}");
                }
            }
        }
        assert!(corner(&mut rng, &[]).is_none());
    }
}
