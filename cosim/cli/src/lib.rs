//! `fma-cosim`, the co-simulator's command line (clap, derive): each command a module, on the
//! crates below (`ptxfma-cosim-engine`, `-checks`, `-outputs`, `-dut`), which never name it.
//!
//! Exit status: 0 agreement, 1 a divergence (or a file that disagrees), 2 bad usage or input,
//! 130 interrupted. Every usage error is one line on stderr. Output goes through
//! `ptxfma_cli_common::stdio` (`outln!`): a write that fails is the command's error (exit 2,
//! printed by [`main`] on stderr, or on stdout when stderr failed), a closed pipe drops what
//! follows.

// The commands, one module each.
mod bench;
mod coverage;
mod dut;
mod exhaust;
mod merge;
mod replay;
mod run;
mod vectors;
mod wave;

// What the commands share.
mod args;
mod command_line;
mod out_paths;
pub mod progress;
mod reproduce;
mod triage;
mod verify;

pub use command_line::main;
