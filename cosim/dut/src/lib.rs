//! `fma-cosim dut build`: a team's design Verilated from its manifest ([`manifest`]) into a
//! loadable library with its record ([`builder`]), which `run --dut DIR` loads
//! ([`ptxfma_cosim_engine::dut`]); the tools it runs stopped by Ctrl-C ([`children`]); the Verilator
//! runtime's object kept between builds ([`runtime_cache`]); an `--out` replaced only when it is
//! the command's own, unchanged ([`own_out`]). `fma-cosim
//! dut prove`: its half-precision words proved equal to the kit's RTL ([`prove`], with the
//! words from the decoder, [`half_words`], and the counterexample's trace, [`trace`]; its log and
//! progress, [`prove_log`], and what it says at the end, [`prove_says`]). `fma-cosim dut
//! exhaust`: every input pair of its two-operand half forms against an H100's fingerprints
//! ([`exhaust`]).

pub mod builder;
pub mod cases;
pub mod children;
pub mod claims;
pub mod exhaust;
pub mod half_words;
pub mod kit_claims;
pub mod manifest;
pub mod own_out;
pub mod prove;
pub mod prove_cases;
pub mod prove_cases_says;
pub mod prove_log;
pub mod prove_says;
pub mod prove_stage;
pub mod runtime_cache;
pub mod toolchain;
pub mod trace;
