//! ptxfma golden model.
//!
//! A cycle-level model of one FMA pipe that executes PTX `fma`/`mad` (f32, f64, f32x2, sm_1x),
//! `add`/`sub`/`mul` .f32/.f64/.f32x2, mixed-precision `add`/`sub`/`fma` .f32.{f16,bf16},
//! half-precision `fma`/`add`/`sub`/`mul` .f16, .bf16, .f16x2 and .bf16x2 (`fma` also with
//! `.relu` and `.oob`), and the integer `vmad`: the kinds of [`ctrl::Kind`] (f32, f64, f32x2,
//! sm_1x, vmad, half, half2). The micro-architecture is described in
//! `docs/microarchitecture.md`. The folders follow the block diagram:
//! - [`format`], [`geometry`], [`wide`]: the number formats, the datapath's widths and the adder
//!   window (drawn in `geometry`), and the wide words the parts compute on;
//! - [`ctrl`]: the control word every stage carries (`in_ctrl_i`), and which words have a PTX
//!   spelling ([`ctrl::legal`]);
//! - [`regs`]: the four register banks, field for field the RTL's `s1_t` .. `out_t`;
//! - [`parts`]: the hardware parts, each one module here and one SystemVerilog module in `rtl/`
//!   (`rtl/README.md` has the table);
//! - [`machine`]: the pipe around them: lanes, the pipeline's clock, and the lane engine that runs the same stages over many operations at once;
//! - [`reference`]: the independent oracles, which share no code with the two above;
//! - [`stimulus`]: seeded instruction vectors for the bulk tests and the co-simulator.
//!
//! The PTX decoder, printer and line reader are the `ptxfma-ptx` crate (`ptx/`); the
//! `fma-model` command is its own crate (`fma-model/`).
//!
//! Nothing is re-exported at the crate root: a path says where a part lives
//! (`ptxfma_model::parts::round`, `ptxfma_model::machine::pipeline`).

// Number formats and the wide words the parts compute on.
pub mod format;
pub mod geometry;
pub mod wide;

// The control word and the register banks, which the parts and the machine both read.
pub mod ctrl;
pub mod regs;

pub mod machine;
pub mod parts;

// The stimulus generator.
pub mod stimulus;

// Independent checks.
pub mod reference;
