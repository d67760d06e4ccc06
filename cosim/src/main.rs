//! `fma-cosim`: lockstep co-simulation of the ptxfma RTL against the golden model.

fn main() -> std::process::ExitCode {
    // Reports are often piped into `head` or `less`: a closed pipe should end the program
    // quietly, as it does for other command-line tools, not make `println!` panic.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::ExitCode::from(ptxfma_cosim::cli::main(std::env::args_os()))
}
