//! ptxfma golden model.
//!
//! A cycle-level model of one FMA pipe that executes PTX `fma`/`mad` (f32, f64, f32x2, sm_1x),
//! mixed-precision `add`/`sub`/`fma` .f32.{f16,bf16}, `add`/`sub`/`mul` .f32/.f64 and the integer
//! `vmad`. The micro-architecture is described in `docs/microarchitecture.md`; each hardware part
//! is one module here and one SystemVerilog module in `rtl/`. The `reference` module holds the
//! independent oracles and shares no code with the datapath.

pub mod ctrl;
pub mod format;
pub mod regs;
pub mod wide;

// Decoder and front ends.
pub mod cli;
pub mod op;

// Datapath parts, in pipeline order.
pub mod adder;
pub mod align;
pub mod booth;
pub mod csa_tree;
pub mod lza;
pub mod normalize;
pub mod round;
pub mod sm1x;
pub mod special;
pub mod unpack;
pub mod vmad;
pub mod vmad_select;

pub mod batch;
pub mod lane;
pub mod lanes;
pub mod pipeline;

// Independent checks.
pub mod reference;
pub mod stimulus;
pub mod testfloat;

pub use ctrl::Ctrl;
pub use pipeline::{PipeIn, Pipeline, LATENCY};
