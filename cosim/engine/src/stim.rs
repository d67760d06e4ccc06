//! The co-simulator's view of the golden model's stimulus generator
//! (`ptxfma_model::stimulus`): the same vectors, with the call shapes the report and the
//! lockstep loop use.

use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::PipeIn;
use ptxfma_model::stimulus::{self as s, FamilyFilter};
pub use ptxfma_model::stimulus::{splitmix64, Family, Rng, Vector};
pub use ptxfma_ptx::print::ptx_spelling;
use ptxfma_ptx::print::{self as p, Operand};

pub use crate::forms::Forms;

static FORMS: std::sync::RwLock<Option<Forms>> = std::sync::RwLock::new(None);

/// Restricts every stream created from now on to `forms` (a `dut build` design's).
pub fn set_forms(forms: Option<Forms>) {
    *FORMS.write().unwrap_or_else(|p| p.into_inner()) = forms;
}

/// The restriction [`set_forms`] set, if any.
pub fn forms() -> Option<Forms> {
    *FORMS.read().unwrap_or_else(|p| p.into_inner())
}

/// Deterministic vectors from the given families.
pub struct Stimulus(s::Stimulus);

impl Stimulus {
    pub fn new(seed: u64, families: &[Family]) -> Stimulus {
        let filter = families
            .iter()
            .fold(FamilyFilter::none(), |f, fam| f.with(*fam));
        Stimulus(s::Stimulus::new(seed, filter))
    }

    /// [`Stimulus::new`] drawing only the words `forms` allows, from those words alone
    /// ([`crate::forms::table`]); a family left none is not drawn. With `None` (or forms that
    /// allow everything) the very stream of [`Stimulus::new`].
    pub fn with_forms(seed: u64, families: &[Family], forms: Option<Forms>) -> Stimulus {
        let filter = families
            .iter()
            .fold(FamilyFilter::none(), |f, fam| f.with(*fam));
        let tables = filter
            .families()
            .into_iter()
            .map(|f| crate::forms::table(f, forms))
            .filter(|t| !t.is_empty())
            .collect();
        Stimulus(s::Stimulus::with_tables(seed, tables))
    }

    /// The next vector as a valid input with `tag` (`s::Stimulus::next_input`).
    #[inline]
    pub fn next_input(&mut self, tag: u16) -> Option<PipeIn> {
        self.0.next_input(tag)
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
