//! What `fma-cosim dut prove` prints once the proof has ended: the words, the verdict (what was
//! and was not compared when out of time, [`crate::prove_log::out_of_time`]), the
//! counterexample's replay line and trace, and where the record and the log are. The lines it
//! prints as it goes are [`crate::prove_log`]'s.

use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::command::ShellCommand;

use super::prove::{exit_status, prove, ProveArgs, Verdict, DUT_BUILD, RECORD};

/// `fma-cosim dut prove`: runs the proof and says what it found; the exit status is the
/// verdict's ([`exit_status`]), 130 after Ctrl-C.
pub fn run(a: &ProveArgs) -> Result<u8, Error> {
    use ptxfma_cli_common::outln;
    if a.by_cases {
        return crate::prove_cases_says::run(a);
    }
    outln!(
        "fma-cosim dut prove: {} against the kit's ptxfma_top (limit {} s)",
        a.manifest.display(),
        a.timeout.as_secs()
    )?;
    let log = a
        .log
        .clone()
        .unwrap_or_else(|| crate::prove_log::default_path(&a.out));
    let Some(p) = crate::prove_log::or_interrupted(&log, prove(a))? else {
        return Ok(130);
    };
    match &p.verdict {
        Verdict::Proved => outln!(
            "proved: every result of every operation issued in {} steps after reset is the \
             kit's ({:.1} s)",
            p.depth,
            p.seconds
        )?,
        Verdict::ClaimFailed(why) => outln!("not proved: {why}")?,
        Verdict::OutOfTime { steps } => outln!(
            "{}",
            crate::prove_log::out_of_time(p.seconds, *steps, p.depth, p.edges)
        )?,
        Verdict::Counterexample(d) => {
            let ctrl = ptxfma_model::ctrl::Ctrl::decode(d.ctrl);
            let what = match (d.spurious, d.design_d) {
                (true, _) => "the design retired a result with no operation issued".to_string(),
                (false, None) => format!(
                    "the design retired nothing where the kit gave {:#06x}",
                    d.kit_d
                ),
                (false, Some(got)) => {
                    format!("the design gave {got:#06x}, the kit {:#06x}", d.kit_d)
                }
            };
            outln!(
                "counterexample ({:.1} s): {} a={:#x} b={:#x} c={:#x} issued in step {}: {what}",
                p.seconds,
                ptxfma_cosim_engine::stim::ptx_spelling(&ctrl),
                d.a,
                d.b,
                d.c,
                d.issue_step
            )?;
            if a.dut.is_none() {
                let build = ShellCommand::cosim()
                    .args(["dut", "build"])
                    .path(&a.manifest)
                    .arg("--out")
                    .path(&p.dir.join(DUT_BUILD));
                outln!("build it: {build}")?;
            }
            if let Some(r) = &p.replay {
                outln!("replay: {r}")?;
            }
            if let Some(t) = &p.trace {
                outln!("trace: {}", t.display())?;
            }
        }
    }
    outln!("record: {}", p.dir.join(RECORD).display())?;
    outln!("log: {}", p.log.display())?;
    Ok(exit_status(&p.verdict))
}
