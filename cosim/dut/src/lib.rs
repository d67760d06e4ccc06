//! `fma-cosim dut build`: a team's design Verilated from its manifest ([`manifest`]) into a
//! loadable library with its record ([`builder`]), which `run --dut DIR` loads
//! ([`ptxfma_cosim_engine::dut`]); the tools it runs stopped by Ctrl-C ([`children`]); the Verilator
//! runtime's object kept between builds ([`runtime_cache`]). `fma-cosim
//! dut prove`: its half-precision words proved equal to the kit's RTL ([`prove`], with the
//! words from the decoder, [`half_words`], and the counterexample's trace, [`trace`]).

pub mod builder;
pub mod children;
pub mod half_words;
pub mod manifest;
pub mod prove;
pub mod runtime_cache;
pub mod toolchain;
pub mod trace;

/// Refuses an `--out` directory that exists, is not empty and holds no earlier record of
/// `command` (`record`): a command that replaces its output whole must not replace someone
/// else's directory.
pub fn refuse_foreign_out(
    out: &std::path::Path,
    record: &str,
    command: &str,
) -> Result<(), ptxfma_cosim_engine::Error> {
    if out.exists() && !out.join(record).is_file() {
        let empty = std::fs::read_dir(out)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(ptxfma_cosim_engine::Error::new(format!(
                "--out {}: exists and holds no earlier `{command}` ({record}); give an empty or \
                 new directory",
                out.display()
            )));
        }
    }
    Ok(())
}
