//! What the workspace's commands (`fma-model` and the co-simulator `fma-cosim`) share and the
//! libraries (the PTX decoder `ptxfma-ptx`, the C ABI, Python) must not pull in:
//! - [`usage`]: one-line wording of a clap error, so that every command words and quotes a bad
//!   command line alike (clap);
//! - [`testfloat`]: the Berkeley TestFloat vector reader (plain or gzipped, flate2), so that
//!   `fma-model check` and `fma-cosim run --testfloat` read a corpus the same way;
//! - [`stdio`]: standard output and error written so that no write crashes a command (a full
//!   disk, a closed stream, a closed pipe), and the one place an error line is printed;
//! - [`fingerprints`]: an H100's sums over every input pair of the two-operand half forms,
//!   which `fma-model silicon exhaustive` holds the model to and `fma-cosim dut exhaust` a
//!   design.

pub mod fingerprints;
pub mod stdio;
pub mod testfloat;
pub mod usage;
