//! `fma-model`: evaluate PTX instructions on the golden model, or check it against TestFloat.

use std::process::ExitCode;

// A standard stream closed at start is an error to write to, not a `/dev/null`.
ptxfma_cli_common::note_closed_streams_before_main!();

fn main() -> ExitCode {
    // SIGPIPE stays ignored, as Rust sets it: a closed pipe (`| head`) is an EPIPE the command
    // ends on quietly (`ptxfma_cli_common::stdio`). SIGXFSZ is ignored, so `ulimit -f` is a
    // write error, reported.
    ptxfma_cli_common::stdio::ignore_file_size_signal();
    // `args_os`, not `args`: an argument that is not UTF-8 is a usage error, not a panic.
    ExitCode::from(fma_model::cli::main(std::env::args_os()))
}
