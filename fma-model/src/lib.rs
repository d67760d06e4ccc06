//! The `fma-model` command: evaluates PTX lines on the ptxfma golden model (`eval`), checks it
//! against TestFloat vectors (`check`), and runs the host side of the check against a GPU
//! (`silicon`). The model itself is `ptxfma-model`; PTX text is `ptxfma-ptx`.
//! - [`cli`]: the command line and its subcommands;
//! - [`silicon`]: the silicon check's forms, vector and result files, and the comparison.

pub mod cli;
pub mod silicon;
