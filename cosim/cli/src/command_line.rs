//! The command line as clap parses it ([`Cli`], one [`Command`] per subcommand), and [`main`]:
//! the command run, its error printed as one line and its exit status.

use std::ffi::OsString;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser};
use ptxfma_cli_common::outln;
use ptxfma_cli_common::stdio::{self, Stream};

use ptxfma_cosim_engine::rtl;
use ptxfma_cosim_engine::Error;

use crate::args::SidesArgs;
use crate::dut::{dut, DutArgs};
use crate::merge::{merge, MergeArgs};
use crate::{bench, coverage, replay, run, wave};

/// Help text is wrapped to the terminal, but no wider than this.
const MAX_WIDTH: usize = 100;

const AFTER_HELP: &str = "\
Examples:
  fma-cosim run --count 1000000 --jobs 2 --json result.json --junit junit.xml
  fma-cosim run --shard 2/4 --json shard-2.json        (one of four shards)
  fma-cosim merge shard-*.json --json merged.json --junit junit.xml
  fma-cosim replay --seed 1 --filter f32 --count 65536 --index 1234
  echo 'fma.rn.f32 0x3f800000 0x40000000 0x3f800000' | fma-cosim wave --vcd one.vcd

Exit status: 0 agreement, 1 a divergence, 2 bad usage or input, 130 interrupted.";

#[derive(Parser, Debug)]
#[command(
    name = "fma-cosim",
    about = "Lockstep co-simulation of the ptxfma RTL (Verilator) against the golden model",
    after_help = AFTER_HELP,
    max_term_width = MAX_WIDTH,
    subcommand_value_name = "COMMAND"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Run a regression: chunks of generated operations through the RTL and the model in
    /// lockstep, comparing the output ports and every stage register each cycle.
    Run(run::Args),
    /// Re-run one cycle of a run's stream, or one operation, from reset.
    Replay(replay::Args),
    /// Write the waveform of a sequence of `fma-model eval` lines, diverging or not.
    Wave(wave::Args),
    /// Merge the JSON results of the shards of a run: summary, merged JSON, JUnit XML.
    Merge(MergeArgs),
    /// Speed of the RTL alone, the model alone, the lockstep, and its scaling with --jobs.
    Bench(bench::Args),
    /// List the RTL variants built into this binary.
    Variants,
    /// Merge functional-coverage files and report them, uncovered bins first (text, and HTML
    /// with --html).
    Coverage(coverage::Args),
    /// A team's own design: `dut build` Verilates it from its manifest into a library that
    /// `run --dut DIR` (and replay, wave, bench) loads (docs/dut.md).
    Dut(DutArgs),
}

impl Command {
    /// The `--rtl/--dut/--golden` arguments of a command that runs the RTL.
    fn sides_mut(&mut self) -> Option<&mut SidesArgs> {
        match self {
            Command::Run(a) => Some(a.sides_mut()),
            Command::Replay(a) => Some(a.sides_mut()),
            Command::Wave(a) => Some(a.sides_mut()),
            Command::Bench(a) => Some(a.sides_mut()),
            _ => None,
        }
    }
}

/// The version line: the tool's and the Verilator it was built with.
fn version() -> String {
    format!(
        "{} ({})",
        env!("CARGO_PKG_VERSION"),
        rtl::variant::VERILATOR_VERSION
    )
}

/// Runs the command line (`args` starts with the program name); returns the exit status.
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    let code = match command(&args) {
        Ok(2) => {
            crate::out_paths::remove_created();
            2
        }
        Ok(code) => code,
        Err(e) => {
            // Nothing created for a call that fails: its output directories go with it.
            crate::out_paths::remove_created();
            return fail(&e);
        }
    };
    // What is left of a line printed without its newline.
    match stdio::flush_out() {
        Ok(()) => code,
        Err(e) => fail(&e.into()),
    }
}

/// Parses the command line and runs the command; returns its exit status.
fn command(args: &[OsString]) -> Result<u8, Error> {
    let cmd = Cli::command().version(Box::leak(version().into_boxed_str()) as &str);
    let parsed = cmd
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let mut cli = match parsed {
        Ok(c) => c,
        Err(e) => return clap_answer(&e, args),
    };
    if let Some(sides) = cli.command.sides_mut() {
        sides.resolve_dut()?;
    }
    // `run` stops cleanly on Ctrl-C and `dut` stops its tools, each by a handler of its own;
    // every other command is stopped here, leaving nothing behind.
    if !matches!(cli.command, Command::Run(_) | Command::Dut(_)) {
        stop_on_interrupt();
    }
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::Replay(a) => replay::replay(a),
        Command::Wave(a) => wave::wave(a),
        Command::Merge(a) => merge(a),
        Command::Bench(a) => bench::bench(a),
        Command::Variants => variants(),
        Command::Coverage(a) => coverage::coverage(a),
        Command::Dut(a) => dut(a),
    }
}

/// Ctrl-C, SIGTERM or SIGHUP: the command's temporaries (a waveform or a report being
/// written) and the output directories it made are removed, and it exits 130 with one line.
/// A signal after its outputs are in place lets it end as they say. The handler is the
/// process's: installed once, however many commands a test runs in it.
fn stop_on_interrupt() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let r = ctrlc::set_handler(|| {
            ptxfma_cosim_engine::temporary::exit_now_after(130, || {
                crate::out_paths::remove_created();
                let _ = ptxfma_cli_common::errln!(
                    "fma-cosim: interrupted (what it was writing is removed)"
                );
            });
        });
        if let Err(e) = r {
            let _ = ptxfma_cli_common::errln!("warning: Ctrl-C will not stop cleanly: {e}");
        }
    });
}

/// What clap says instead of running a command: help or the version (on stdout, exit 0); the
/// usage of a command given without its subcommand (on stderr, exit 2, as `--help` prints
/// it); a usage error, in one line.
fn clap_answer(e: &clap::Error, args: &[OsString]) -> Result<u8, Error> {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let stream = if e.use_stderr() {
            Stream::Err
        } else {
            Stream::Out
        };
        stdio::printed_by(stream, || e.print())?;
        return Ok(if e.use_stderr() { 2 } else { 0 });
    }
    let sub = args
        .get(1)
        .and_then(|a| a.to_str())
        .filter(|a| !a.starts_with('-'));
    let help = match sub {
        Some(s) if Cli::command().find_subcommand(s).is_some() => {
            format!("fma-cosim {s} --help")
        }
        _ => "fma-cosim --help".into(),
    };
    Err(Error::new(format!(
        "{} (see `{help}`)",
        ptxfma_cli_common::usage::usage_error(e, args)
    )))
}

/// Prints the error (its line, and a diagnosed error's details) on stderr, or on stdout when
/// stderr cannot take it; returns exit status 2.
fn fail(e: &Error) -> u8 {
    let mut lines = vec![format!(
        "error: {}",
        ptxfma_ptx::quote::quote_spans(&e.to_string())
    )];
    if let Error::Diagnosed { details, .. } = e {
        lines.extend(details.iter().map(|d| ptxfma_ptx::quote::quote_spans(d)));
    }
    stdio::report(&lines);
    2
}

fn variants() -> Result<u8, Error> {
    outln!("{}", rtl::variant::VERILATOR_VERSION)?;
    for v in rtl::variant::VARIANTS {
        outln!(
            "{:<24} defines: {}{}",
            v.name,
            if v.defines.is_empty() {
                "(none)".to_string()
            } else {
                v.defines.join(" ")
            },
            if v.flags.is_empty() {
                String::new()
            } else {
                format!("; Verilator: {}", v.flags.join(" "))
            }
        )?;
    }
    Ok(0)
}
