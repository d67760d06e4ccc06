//! The co-simulator's integration tests, one binary: each file of this directory is a module,
//! run by `cargo test -p ptxfma-cosim --release --test cosim [MODULE::]` (`make test` runs them
//! with every test feature). A module that needs an RTL variant of the build is compiled in
//! with the cargo feature that builds it.

mod common;

mod cli;
#[cfg(feature = "fault-sticky")]
mod commands;
mod coverage;
mod dut;
mod dut_build;
mod dut_commands;
mod dut_contract;
mod dut_exhaust;
mod dut_f64;
mod dut_half;
mod dut_latency;
mod dut_prove;
mod dut_safety;
mod dut_words;
#[cfg(feature = "fault-sticky")]
mod fault;
mod lockstep;
#[cfg(feature = "fault-sticky")]
mod merge_checks;
mod model;
mod mutate_dut;
mod nothing_lost;
mod outputs;
#[cfg(feature = "alt-design")]
mod ports;
#[cfg(feature = "random-init")]
mod random_init;
#[cfg(feature = "fault-sticky")]
mod regress;
#[cfg(all(feature = "alt-design", feature = "fault-sticky"))]
mod results_json;
#[cfg(feature = "rtl-coverage")]
mod rtl_coverage;
mod vectors;
