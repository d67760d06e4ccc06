//! `fma-model`: evaluate PTX instructions on the golden model, or check it against TestFloat.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Output is often piped into `head` or `less`: a closed pipe should end the program
    // quietly, as it does for other command-line tools, not make `println!` panic.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `args_os`, not `args`: an argument that is not UTF-8 is a usage error, not a panic.
    ExitCode::from(fma_model::cli::main(std::env::args_os()))
}
