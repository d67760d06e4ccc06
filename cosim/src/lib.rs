//! Lockstep co-simulation of the Verilated ptxfma RTL against the golden model, in layers;
//! each layer imports only those below it:
//!
//! - [`engine`]: stimulus, the two sides (the Verilated RTL or a team's design, and the
//!   reference), the lockstep that feeds both, the scoreboards that judge their frames, and a
//!   run as chunks handed to workers;
//! - [`checks`]: what is observed of a run beside the verdict: functional coverage, a
//!   subscriber of the lockstep ([`engine::subscriber`]);
//! - [`outputs`]: what a person or a tool reads: the divergence report, the waveform and its
//!   view, JSON, JUnit, HTML pages, RTL code coverage;
//! - [`cli`]: the `fma-cosim` commands, `dut build` included;
//! - beside them all: [`progress`] (the display and Ctrl-C), [`temporary`] (outputs written
//!   under temporary names) and [`verilator_build`] (how a Verilated model is built, shared
//!   with `build.rs`).

pub mod checks;
pub mod cli;
pub mod engine;
pub mod outputs;
pub mod progress;
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
