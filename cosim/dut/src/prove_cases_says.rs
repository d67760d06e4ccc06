//! What `fma-cosim dut prove --by-cases` prints once every claim has ended: by word, how many
//! claims were proved, and each one that was not, with its time (each claim's line was printed
//! as it ended, [`crate::prove_cases::line`]).

use ptxfma_cli_common::outln;
use ptxfma_cosim_engine::Error;

use super::prove_cases::{line, ByCases, ClaimVerdict};

/// The summary of `by`; `seconds`: the run's wall time.
pub fn summary(by: &ByCases, seconds: f64) -> Result<(), Error> {
    let solver: f64 = by.claims.iter().map(|c| c.seconds).sum();
    outln!(
        "claims: {} in {seconds:.1} s of wall time, {solver:.1} s of solver time",
        by.claims.len()
    )?;
    for (i, w) in by.words.iter().enumerate() {
        let mine: Vec<_> = by.claims.iter().filter(|c| c.word == i).collect();
        let proved = mine
            .iter()
            .filter(|c| c.verdict == ClaimVerdict::Proved)
            .count();
        outln!("  {}: {proved} of {} proved", w.spelling, mine.len())?;
        for c in mine.iter().filter(|c| c.verdict != ClaimVerdict::Proved) {
            outln!("    not proved: {}", line(c, w))?;
        }
    }
    if !by.left.is_empty() {
        let names: Vec<&str> = by.left.iter().map(|w| w.spelling.as_str()).collect();
        outln!("not split into cases (two lanes): {}", names.join(", "))?;
    }
    Ok(())
}
