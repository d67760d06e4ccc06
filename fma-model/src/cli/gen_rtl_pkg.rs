//! `fma-model gen-rtl-pkg`: writes the generated regions of the RTL package and the DPI package
//! (`crate::rtl_pkg`), or with `--check` says which committed file differs.

use std::path::PathBuf;

use ptxfma_cli_common::outln;
use ptxfma_cli_common::stdio;

use crate::rtl_pkg;

pub const LONG_ABOUT: &str = "Writes the regions of rtl/ptxfma_pkg.sv and dpi/ptxfma_dpi_pkg.sv \
that are generated from the model's declarations (widths, control word, register banks, DPI \
constants), between their `BEGIN GENERATED` and `END GENERATED` lines. With --check, writes \
nothing and exits 1 naming each file that differs.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The repository root (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// Write nothing; exit 1 if a file is not what the command would write.
    #[arg(long)]
    check: bool,
    #[arg(short = 'h', long = "help", action = clap::ArgAction::Help, help = "Print help")]
    help: Option<bool>,
}

pub fn main(a: Args) -> u8 {
    match run(a) {
        Ok(code) => code,
        Err(msg) => {
            stdio::report(&[format!("error: {msg}")]);
            2
        }
    }
}

/// Writes (or with --check compares) every generated region; the error is its one line.
fn run(a: Args) -> Result<u8, String> {
    let mut stale = Vec::new();
    for (path, name) in rtl_pkg::files(&a.root) {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let new = rtl_pkg::splice(name, &text).map_err(|e| e.to_string())?;
        if new == text {
            continue;
        }
        if a.check {
            stale.push(name);
            continue;
        }
        // Written beside and renamed over, so a failure leaves the old file whole.
        let tmp = path.with_extension("sv.tmp");
        if let Err(e) = std::fs::write(&tmp, &new).and_then(|()| std::fs::rename(&tmp, &path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("{}: {e}", path.display()));
        }
        outln!("wrote {name}").map_err(|e| e.to_string())?;
    }
    for name in &stale {
        outln!("{name} differs from what `{}` writes", rtl_pkg::COMMAND)
            .map_err(|e| e.to_string())?;
    }
    Ok(u8::from(!stale.is_empty()))
}
