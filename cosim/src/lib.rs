//! Lockstep co-simulation of the Verilated ptxfma RTL against the golden model.
//!
//! - [`rtl`]: the Verilated RTL (built by `build.rs`) behind a safe, batched API;
//! - [`frame`]: what is compared each cycle, and how a difference is pinned to a field;
//! - [`stream`]: the stimulus, the cycle-by-cycle input of a chunk with each operation's family
//!   (families interleaved, bubbles, drain);
//! - [`batch`]: cycles moved together, encoded for the RTL beside the reference's frames;
//! - [`golden`]: the reference side, which only computes (the model, or another RTL variant);
//! - [`lockstep`]: the engine that feeds both sides, runs the RTL side and hands the frames to
//!   the scoreboard and the coverage subscriber;
//! - [`scoreboard`]: how frames are judged (whole registers, or the ports) and the divergences;
//! - [`ports`]: the rules of ports-only checking (results matched by tag, any latency);
//! - [`waves`]: the VCD of a divergence window (RTL hierarchy + model registers + marker);
//! - [`fst`]: the same waveform as FST;
//! - [`report`]: the divergence report;
//! - [`chunk`]: a run as a list of chunks, and its shards;
//! - [`regress`]: the chunks run by several workers, each with its own RTL and model;
//! - [`results`]: JSON results, their merge, and JUnit XML;
//! - [`rtlcov`]: RTL line and toggle coverage (`.dat` files: merge, figures);
//! - [`progress`]: the progress display and Ctrl-C;
//! - [`temporary`]: outputs written under temporary names, and Ctrl-C's immediate exit;
//! - [`dut`]: a team's design built into a loadable library (`dut build`) and loaded (`--dut`);
//! - [`verilator_build`]: how a Verilated model is built (shared with `build.rs`);
//! - [`cli`]: the `fma-cosim` command line.

pub mod batch;
pub mod chunk;
pub mod cli;
pub mod coverage;
pub mod directed;
pub mod dut;
pub mod frame;
pub mod fst;
pub mod golden;
pub mod gtkw;
pub mod lockstep;
pub mod ports;
pub mod progress;
pub mod regress;
pub mod report;
pub mod results;
pub mod rtl;
pub mod rtlcov;
pub mod run_html;
pub mod scoreboard;
pub mod stim;
pub mod stream;
pub mod temporary;
pub mod verilator_build;
pub mod view;
pub mod waves;

/// An error meant for the user. The kinds a caller acts on have variants of their own; every
/// other error is a message ([`Error::new`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Anything else: the message says it all.
    #[error("{0}")]
    Msg(String),
    /// Register checking (`--compare registers`) of a design with only result ports.
    #[error("RTL variant `{variant}` has only result ports: check it with --compare ports")]
    PortsOnly { variant: String },
    /// The reference's thread of an overlapped run panicked.
    #[error("the reference ({reference}) panicked: {message}")]
    ReferencePanicked { reference: String, message: String },
}

impl Error {
    pub fn new(msg: impl Into<String>) -> Error {
        Error::Msg(msg.into())
    }
}
