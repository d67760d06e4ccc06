//! `fma-cosim`: lockstep co-simulation of the ptxfma RTL against the golden model.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::ExitCode::from(ptxfma_cosim::cli::main(&args))
}
