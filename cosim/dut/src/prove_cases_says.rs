//! What `fma-cosim dut prove --by-cases` prints once every claim has ended: by word, how many
//! claims were proved, and each one that was not, with its time (each claim's line was printed
//! as it ended, [`crate::prove_cases::line`]), then the verdict, the replay line of a
//! counterexample, and where the record and the log are.

use ptxfma_cli_common::outln;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::command::ShellCommand;

use super::claims::{line, ByCases, ClaimKind, ClaimVerdict};
use super::prove::{exit_status, ProveArgs, Verdict, DUT_BUILD, RECORD};

/// `fma-cosim dut prove --by-cases`: runs the claims and says what they found; the exit status
/// is the verdict's ([`exit_status`]), 130 after Ctrl-C.
pub fn run(a: &ProveArgs) -> Result<u8, Error> {
    outln!(
        "fma-cosim dut prove --by-cases: {} against the kit's ptxfma_top (limit {} s, {} job(s))",
        a.manifest.display(),
        a.timeout.as_secs(),
        a.jobs
    )?;
    let log = a
        .log
        .clone()
        .unwrap_or_else(|| crate::prove_log::default_path(&a.out));
    let Some(o) = crate::prove_log::or_interrupted(&log, super::prove_cases::prove(a))? else {
        return Ok(130);
    };
    summary(&o.by, o.seconds)?;
    match &o.verdict {
        Verdict::Proved if !o.by.not_run.is_empty() => outln!(
            "proved: every claim run ({:.1} s), a slice: not run here, {}",
            o.seconds,
            o.by.not_run.join("; ")
        )?,
        Verdict::Proved => outln!(
            "proved: every claim of {} word(s), one operation each ({:.1} s)",
            o.by.words.len(),
            o.seconds
        )?,
        Verdict::ClaimFailed(why) => outln!(
            "not proved: a claim the cases rest on fails ({:.1} s): {why}",
            o.seconds
        )?,
        Verdict::OutOfTime { .. } => outln!(
            "not proved: out of time ({:.1} s); the claims left are named above",
            o.seconds
        )?,
        Verdict::Counterexample(d) => {
            let ctrl = ptxfma_model::ctrl::Ctrl::decode(d.ctrl);
            outln!(
                "counterexample ({:.1} s): {} a={:#06x} b={:#06x} c={:#06x}: the design gave {}, \
                 the kit {:#06x}",
                o.seconds,
                ptxfma_cosim_engine::stim::ptx_spelling(&ctrl),
                d.a,
                d.b,
                d.c,
                d.design_d
                    .map_or("nothing at its latency".to_string(), |v| format!(
                        "{v:#06x}"
                    )),
                d.kit_d
            )?;
            if a.dut.is_none() {
                let build = ShellCommand::cosim()
                    .args(["dut", "build"])
                    .path(&a.manifest)
                    .arg("--out")
                    .path(&o.dir.join(DUT_BUILD));
                outln!("build it: {build}")?;
            }
            if let Some(r) = &o.by.replay {
                outln!("replay: {r}")?;
            }
            // The waveform of the case the replay line is of (else of the first claim that
            // failed): the miter's signals in the cycles it ran.
            let case = |c: &&super::claims::Claim| matches!(c.kind, ClaimKind::Case(_));
            let first = o.by.claims.iter().filter(case).find_map(|c| c.trace());
            if let Some(t) = first.or_else(|| o.by.claims.iter().find_map(|c| c.trace())) {
                let t = o.dir.join(t);
                if t.is_file() {
                    outln!("trace: {}", t.display())?;
                }
            }
        }
    }
    outln!("record: {}", o.dir.join(RECORD).display())?;
    outln!("log: {}", o.log.display())?;
    Ok(exit_status(&o.verdict))
}

/// The summary of `by`; `seconds`: the run's wall time.
fn summary(by: &ByCases, seconds: f64) -> Result<(), Error> {
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
        let kept = mine.iter().filter(|c| c.cached.is_some()).count();
        if kept > 0 {
            outln!(
                "  {}: {proved} of {} proved ({kept} kept from an earlier run: the kit's, the \
                 same for every design)",
                w.spelling,
                mine.len()
            )?;
        } else {
            outln!("  {}: {proved} of {} proved", w.spelling, mine.len())?;
        }
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
