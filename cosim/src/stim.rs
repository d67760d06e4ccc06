//! The co-simulator's view of the golden model's stimulus generator
//! (`ptxfma_model::stimulus`): the same vectors, with the call shapes the report and the
//! lockstep loop use.

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::stimulus::{self as s, FamilyFilter};
pub use ptxfma_model::stimulus::{splitmix64, Family, Rng, Vector};
pub use ptxfma_ptx::print::ptx_spelling;
use ptxfma_ptx::print::{self as p, Operand};

/// Deterministic vectors from the given families.
pub struct Stimulus(s::Stimulus);

impl Stimulus {
    pub fn new(seed: u64, families: &[Family]) -> Stimulus {
        let filter = families
            .iter()
            .fold(FamilyFilter::none(), |f, fam| f.with(*fam));
        Stimulus(s::Stimulus::new(seed, filter))
    }
}

impl Iterator for Stimulus {
    type Item = Vector;

    fn next(&mut self) -> Option<Vector> {
        self.0.next()
    }
}

/// The `.target` line an `fma-model eval` replay needs.
pub fn target(c: &Ctrl) -> Option<&'static str> {
    Some(p::target(c))
}

/// Operand `which` (0 = a, 1 = b, 2 = c) as written on an `fma-model eval` line.
pub fn operand_text(c: &Ctrl, which: usize, v: u64) -> String {
    let op = [Operand::A, Operand::B, Operand::C][which.min(2)];
    p::operand_text(c, op, v).unwrap_or_else(|| format!("{v:#x}"))
}

/// The whole `fma-model eval` line of a vector.
pub fn eval_line(v: &Vector) -> String {
    p::eval_line(&v.ctrl, v.a, v.b, v.c)
}
