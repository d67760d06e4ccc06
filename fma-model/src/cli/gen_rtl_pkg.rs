//! `fma-model gen-rtl-pkg`: writes the generated regions of the RTL package and the DPI package
//! (`crate::rtl_pkg`), or with `--check` says which committed file differs.

use std::path::PathBuf;

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
    let mut stale = Vec::new();
    for (path, name) in rtl_pkg::files(&a.root) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return 2;
            }
        };
        let new = match rtl_pkg::splice(name, &text) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        };
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
            eprintln!("error: {}: {e}", path.display());
            return 2;
        }
        println!("wrote {name}");
    }
    if stale.is_empty() {
        0
    } else {
        for name in stale {
            println!("{name} differs from what `{}` writes", rtl_pkg::COMMAND);
        }
        1
    }
}
