//! The pipe around the hardware parts: what `rtl/ptxfma_top.sv` and its lane modules hold.
//! - `ctrl`: the control word (`in_ctrl_i`) and its decoding;
//! - `legal`: which control words have a PTX spelling (`is_legal`), and the float operation a
//!   word spells (`FloatOp`);
//! - `regs`: the four register banks, field for field the RTL's `s1_t` .. `out_t`;
//! - `lane`: one lane of each stage, as `ptxfma_s{1,2,3}_lane`;
//! - `pipeline`: the banks and the clock (`tick`, `run`), and which lanes each kind enables;
//! - `batch` and `lanes`: the lane engine, the same stages over many operations at once on the
//!   AVX-512, AVX2 or portable backend.

pub mod batch;
pub mod ctrl;
pub mod lane;
pub mod lanes;
pub mod legal;
pub mod pipeline;
pub mod regs;
