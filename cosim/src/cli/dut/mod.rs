//! `fma-cosim dut build`: a team's design Verilated from its manifest ([`manifest`]) into a
//! loadable library with its record ([`builder`]), which `run --dut DIR` loads
//! ([`crate::engine::dut`]).

pub mod builder;
pub mod manifest;
