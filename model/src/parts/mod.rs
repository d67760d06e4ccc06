//! The hardware parts of the pipe (in pipeline order in `rtl/README.md`), each the model of the
//! SystemVerilog module of the same name in `rtl/` (`ptxfma_<name>.sv`): pure functions from a
//! part's inputs to its outputs, composed into stages by [`crate::machine::lane`] and
//! [`crate::machine::pipeline`].

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
