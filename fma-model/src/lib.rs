//! The `fma-model` command: evaluates PTX lines on the ptxfma golden model (`eval`), checks it
//! against TestFloat vectors (`check`), and runs the host side of the check against a GPU
//! (`silicon`). The model itself is `ptxfma-model`; PTX text is `ptxfma-ptx`.
//! - [`cli`]: the command line and its subcommands;
//! - [`silicon`]: the silicon check's forms, vector and result files, and the comparison;
//! - [`rtl_pkg`]: the RTL and DPI package regions generated from the model's declarations.

pub mod cli;
pub mod rtl_pkg;
pub mod silicon;
