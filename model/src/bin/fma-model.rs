//! `fma-model`: evaluate PTX instructions on the golden model, or check it against TestFloat.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("eval") => ptxfma_model::cli::eval::main(&args[1..]),
        Some("check") => ptxfma_model::cli::check::main(&args[1..]),
        _ => {
            eprintln!(
                "usage: fma-model eval [INSTRUCTION...]   (reads stdin when none given)\n       \
                 fma-model check [--strict-nan] -r<mode> {{f32_mulAdd|f64_mulAdd}} [FILE]"
            );
            2
        }
    };
    ExitCode::from(code)
}
