//! The co-simulator's engine: a run from stimulus to verdict, with no output of its own. The
//! crates above it (`ptxfma-cosim-checks`, `-outputs`, `-dut`, and the `fma-cosim` command) import
//! it; it imports none of them.
//!
//! - [`stim`], [`stream`], [`directed`]: the stimulus, one cycle's input at a time with each
//!   operation's family (families interleaved, bubbles, resets, drain), corner cases mixed in;
//! - [`forms`]: what a design under test implements within its families, the one predicate
//!   its stimulus, coverage and refusals ask;
//! - [`chunk`]: a run as a list of chunks, and its shards;
//! - [`batch`]: cycles moved together, encoded for the RTL beside the reference's frames;
//! - [`rtl`]: the Verilated RTL behind a safe, batched API, and the variants built in;
//!   [`dut`]: a team's design loaded as the RTL side;
//! - [`reference`]: the reference, which only computes (the model, or another RTL variant);
//!   [`assemble`]: the model's frames from per-operation banks, the lane engine's groups;
//! - [`frame`]: what is compared each cycle, and how a difference is pinned to a field;
//! - [`lockstep`]: feeds both sides and hands the frames to the scoreboard and to a
//!   [`subscriber`];
//! - [`scoreboard`], [`ports`]: how frames are judged (whole registers, or the retired
//!   results under the ports rules) and the divergences;
//! - [`sides`]: the two sides of a comparison as the command line names them;
//! - [`regress`]: the chunks run by several workers, each with its own sides;
//! - [`replay`]: one operation replayed alone from reset on both sides.
//!
//! Beside them, for every layer: [`Error`], the error meant for the user; [`temporary`], outputs
//! written under temporary names; [`verilator_build`], how a Verilated model is built (shared
//! with `build.rs` and `dut build`).

pub mod assemble;
pub mod batch;
pub mod chunk;
pub mod directed;
pub mod dut;
pub mod forms;
pub mod frame;
pub mod lockstep;
pub mod ports;
pub mod reference;
pub mod regress;
pub mod replay;
pub mod rtl;
pub mod scoreboard;
pub mod sides;
pub mod stim;
pub mod stream;
pub mod subscriber;
pub mod temporary;
pub mod verilator_build;

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
    /// A tool failed: the summary is the error's line; `details` are the tool's own words a
    /// person acts on (file, line, excerpt, how to waive), each printed on a line of its own
    /// after it.
    #[error("{summary}")]
    Diagnosed {
        summary: String,
        details: Vec<String>,
    },
    /// The reference's thread of an overlapped run panicked.
    #[error("the reference ({reference}) panicked: {message}")]
    ReferencePanicked { reference: String, message: String },
}

impl Error {
    pub fn new(msg: impl Into<String>) -> Error {
        Error::Msg(msg.into())
    }
}

/// A failed write to standard output or error is the command's error (exit 2).
impl From<ptxfma_cli_common::stdio::WriteError> for Error {
    fn from(e: ptxfma_cli_common::stdio::WriteError) -> Error {
        Error::new(e.to_string())
    }
}
