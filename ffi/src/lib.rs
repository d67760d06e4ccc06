//! C ABI over the ptxfma golden model: `libptxfma.so`, `libptxfma.a` and `include/ptxfma.h`.
//!
//! A C, C++ or SystemVerilog (DPI-C, `dpi/ptxfma_dpi_pkg.sv`) testbench uses the model through
//! these functions: decode a PTX spelling to the control word, evaluate one operation, a batch,
//! or an `fma-model eval` line, and run a cycle-level pipeline in lockstep with its own RTL.
//!
//! Rules every entry point keeps, because the host is a simulator that must not die for a
//! testbench bug:
//! - The return value is a [`PtxfmaStatus`] (as `int32_t`, which DPI-C reads as `int`): 0 on
//!   success, negative on error. On error the reason is kept per thread and read with
//!   [`ptxfma_last_error`]; out-parameters are left untouched.
//! - No Rust panic crosses the boundary: each body runs under `catch_unwind` and a panic becomes
//!   [`PtxfmaStatus::Panic`]. Nothing aborts or exits the process.
//! - A null pointer, a bad handle (never created, or already freed), a bad control word or an
//!   out-of-range argument is an error code, never a crash. Pipeline handles are ids looked up
//!   in a registry rather than raw pointers, so a stale handle is detected instead of
//!   dereferenced.
//! - Every function is reentrant; handles are independent and may be used from any thread (one
//!   handle used by two threads at once is serialised, not corrupted).
//!
//! The semantics all come from `ptxfma-model` (decoder, line reader, pipeline, `Pipeline::run`);
//! nothing here re-implements them.

// cbindgen writes the functions in the order it meets them, module by module in the order
// declared here, so this order is the header's (the blank lines keep rustfmt from sorting it).
mod args;
mod status;

mod decode;

mod eval;

mod batch;

mod lines;

mod pipe;

mod stage;

pub use batch::ptxfma_eval_batch;
pub use decode::ptxfma_decode;
pub use eval::ptxfma_eval;
pub use lines::{ptxfma_eval_line, ptxfma_eval_lines};
pub use pipe::{
    ptxfma_pipe_free, ptxfma_pipe_new, ptxfma_pipe_out, ptxfma_pipe_reset, ptxfma_pipe_tick,
    PtxfmaPipe,
};
pub use stage::{ptxfma_pipe_stage, ptxfma_pipe_stage_word, ptxfma_stage_width, PtxfmaStage};
pub use status::{ptxfma_last_error, ptxfma_version, PtxfmaStatus};

use ptxfma_model::ctrl::CTRL_BITS;
use ptxfma_model::machine::pipeline::LATENCY;

/// Cycles from an input to its result on the output ports (the RTL's latency).
pub const PTXFMA_LATENCY: u32 = 4;
const _: () = assert!(PTXFMA_LATENCY as usize == LATENCY);

/// Width of the control word in bits.
pub const PTXFMA_CTRL_BITS: u32 = 27;
const _: () = assert!(PTXFMA_CTRL_BITS == CTRL_BITS);
