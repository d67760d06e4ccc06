//! The pipe around the hardware parts: what `rtl/ptxfma_top.sv` and its lane modules hold. The
//! control word it carries is [`crate::ctrl`], its register banks [`crate::regs`].
//! - `pipe_in`: the input ports of one cycle, which the pipeline and the lane engine both read;
//! - `lane`: one lane of each stage, as `ptxfma_s{1,2,3}_lane`;
//! - `pipeline`: the banks and the clock (`tick`, `run`), and which lanes each kind enables;
//! - `batch` and `lanes`: the lane engine, the same stages over many operations at once on the
//!   AVX-512, AVX2 or portable backend.

pub mod batch;
pub mod lane;
pub mod lanes;
pub mod pipe_in;
pub mod pipeline;
