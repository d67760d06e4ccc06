//! `fma-cosim dut build`: a team's design Verilated from its manifest ([`manifest`]) into a
//! loadable library with its record ([`builder`]), which `run --dut DIR` loads
//! ([`crate::engine::dut`]); the tools it runs stopped by Ctrl-C ([`children`]).

pub mod builder;
pub mod children;
pub mod manifest;
