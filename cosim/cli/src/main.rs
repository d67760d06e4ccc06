//! `fma-cosim`: lockstep co-simulation of the ptxfma RTL against the golden model.

// A standard stream closed at start is an error to write to, not a `/dev/null`.
ptxfma_cli_common::note_closed_streams_before_main!();

fn main() -> std::process::ExitCode {
    // SIGPIPE stays ignored, as Rust sets it: a closed pipe (`| head`) is an EPIPE that drops
    // what follows, and the command still removes its temporaries and ends with its status
    // (`ptxfma_cli_common::stdio`). SIGXFSZ is ignored, so `ulimit -f` is a write error.
    ptxfma_cli_common::stdio::ignore_file_size_signal();
    std::process::ExitCode::from(ptxfma_cosim::main(std::env::args_os()))
}
