//! Command-line front ends of `fma-model`.
pub mod check;
pub mod eval;
