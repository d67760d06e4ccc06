//! The pipe around the hardware parts: what `rtl/ptxfma_top.sv` and its lane modules hold. The
//! control word it carries is [`crate::ctrl`], its register banks [`crate::regs`].
//! - `lane`: one lane of each stage, as `ptxfma_s{1,2,3}_lane`;
//! - `pipeline`: the banks and the clock (`tick`, `run`), and which lanes each kind enables;
//! - `batch` and `lanes`: the lane engine, the same stages over many operations at once on the
//!   AVX-512, AVX2 or portable backend.

pub mod batch;
pub mod lane;
pub mod lanes;
pub mod pipeline;
