//! Command-line front ends of `fma-model`.
//!
//! [`main`] parses the command line with clap and hands the subcommand to [`eval`] or
//! [`check`]. Every usage error is one line on stderr (`error: ...`) and exit status 2; help
//! and version go to stdout with status 0. Output goes through `ptxfma_cli_common::stdio`: a
//! write that fails is such an error too, a closed pipe ends a command quietly.

pub mod check;
pub mod eval;
pub mod gen_rtl_pkg;
pub mod silicon;

use std::ffi::OsString;

use clap::Parser;

use clap::error::ErrorKind;
use ptxfma_cli_common::stdio::{self, Stream};
use ptxfma_cli_common::usage::usage_error;

const ABOUT: &str =
    "Evaluates PTX fma/mad/add/sub/mul/vmad instructions on the ptxfma golden model, \
or checks the model against Berkeley TestFloat vectors.";

const AFTER_HELP: &str = "\
Examples:
  fma-model eval 'fma.rn.f32 0x3f800000 0x40000000 0x3f800000'
  printf '.target sm_13\\nmad.f32 0x3f800000 0x40000000 0x3f800000\\n' | fma-model eval
  fma-model check -rmin f64_mulAdd f64_mulAdd_rmin.txt.gz

Run `fma-model eval --help` or `fma-model check --help` for the details of each.
Exit status: 0 success, 1 a bad instruction or a mismatch, 2 bad usage, bad input or output
that cannot be written.";

/// Help text is wrapped to the terminal, but no wider than this.
const MAX_WIDTH: usize = 100;

#[derive(Parser, Debug)]
#[command(
    name = "fma-model",
    version,
    about = ABOUT,
    after_help = AFTER_HELP,
    max_term_width = MAX_WIDTH,
    disable_help_flag = true,
    subcommand_value_name = "COMMAND",
    override_usage = "fma-model <COMMAND> [ARGS]"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Print help.
    #[arg(
        short = 'h',
        long = "help",
        action = clap::ArgAction::HelpLong,
        global = true,
        display_order = 1000
    )]
    help: Option<bool>,
}

/// What to run.
#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Evaluate PTX instructions (arguments or stdin, one per line) and print the results.
    #[command(
        long_about = eval::LONG_ABOUT,
        after_help = eval::AFTER_HELP,
        disable_help_flag = true
    )]
    Eval(eval::Args),
    /// Run Berkeley TestFloat f32_mulAdd/f64_mulAdd vectors through the model.
    #[command(
        long_about = check::LONG_ABOUT,
        after_help = check::AFTER_HELP,
        override_usage = "fma-model check [OPTIONS] <FUNCTION> [FILE]",
        disable_help_flag = true
    )]
    Check(check::Args),
    /// Check the model against an NVIDIA GPU: generate vectors, compare the GPU's results.
    #[command(long_about = silicon::LONG_ABOUT, disable_help_flag = true)]
    Silicon(silicon::Args),
    /// Write the RTL and DPI package regions generated from the model's declarations.
    #[command(name = "gen-rtl-pkg", long_about = gen_rtl_pkg::LONG_ABOUT, disable_help_flag = true)]
    GenRtlPkg(gen_rtl_pkg::Args),
}

/// Why the command line did not give something to run.
#[derive(Debug)]
enum Stop {
    /// Help or version was asked for: clap prints it.
    Info(clap::Error),
    /// A usage error, as one line without the `error: ` prefix.
    Usage(String),
}

/// Entry point of `fma-model`: parses `args` (the program name first, as from
/// [`std::env::args_os`]) and runs the subcommand. Returns the process exit status.
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    match parse(args.into_iter().collect()) {
        Ok(Command::Eval(a)) => eval::main(a),
        Ok(Command::Check(a)) => check::main(a),
        Ok(Command::Silicon(a)) => silicon::main(a),
        Ok(Command::GenRtlPkg(a)) => gen_rtl_pkg::main(a),
        Err(Stop::Info(e)) => match stdio::printed_by(Stream::Out, || e.print()) {
            Ok(()) => 0,
            Err(e) => {
                stdio::report(&[format!("error: {e}")]);
                2
            }
        },
        Err(Stop::Usage(msg)) => {
            stdio::report(&[format!("error: {msg}")]);
            2
        }
    }
}

fn parse(args: Vec<OsString>) -> Result<Command, Stop> {
    let sub = args
        .get(1)
        .and_then(|a| a.to_str())
        .filter(|a| matches!(*a, "eval" | "check" | "silicon" | "gen-rtl-pkg"))
        .map(str::to_owned);
    let args = if sub.as_deref() == Some("check") {
        check::testfloat_spellings(args)
    } else {
        args
    };
    match Cli::try_parse_from(&args) {
        Ok(Cli {
            command: Some(c), ..
        }) => Ok(c),
        Ok(Cli { command: None, .. }) => Err(Stop::Usage(
            "no command given: use `fma-model eval` or `fma-model check`; \
             see `fma-model --help`"
                .into(),
        )),
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => Err(Stop::Info(e)),
            _ => {
                let help = match &sub {
                    Some(s) => format!("fma-model {s} --help"),
                    None => "fma-model --help".into(),
                };
                Err(Stop::Usage(format!(
                    "{}; see `{help}`",
                    usage_error(&e, &args)
                )))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &[&str]) -> Result<Command, Stop> {
        parse(
            std::iter::once("fma-model")
                .chain(args.iter().copied())
                .map(OsString::from)
                .collect(),
        )
    }

    fn usage(args: &[&str]) -> String {
        match parse_str(args) {
            Err(Stop::Usage(m)) => m,
            other => panic!("{args:?}: expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn help_and_version_are_not_errors() {
        for args in [
            &["--help"][..],
            &["-h"],
            &["eval", "-h"],
            &["eval", "--help"],
            &["check", "-h"],
            &["check", "--help"],
            &["check", "-help"],
            &["help", "check"],
        ] {
            match parse_str(args) {
                Err(Stop::Info(e)) => assert_eq!(e.kind(), ErrorKind::DisplayHelp, "{args:?}"),
                other => panic!("{args:?}: {other:?}"),
            }
        }
        match parse_str(&["--version"]) {
            Err(Stop::Info(e)) => {
                assert_eq!(e.kind(), ErrorKind::DisplayVersion);
                assert_eq!(e.render().to_string(), "fma-model 0.1.0\n");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn usage_errors_are_one_line() {
        for (args, want) in [
            (&[][..], "no command given"),
            (&["frobnicate"], "unknown command `frobnicate`"),
            (&["--bogus"], "unknown option `--bogus`"),
            (&["eval", "--bogus"], "unknown option `--bogus`"),
            (
                &["check", "--strict-nam", "f32_mulAdd"],
                "did you mean `--strict-nan`?",
            ),
            (&["check", "-r"], "needs a value"),
            (
                &["check", "f32_mulAdd", "a", "b"],
                "unexpected argument `b`",
            ),
            (
                &["check", "-rmin", "-rmax", "f32_mulAdd"],
                "given more than once",
            ),
            (
                &["check", "--max-report", "x", "f32_mulAdd"],
                "`x` is not a count",
            ),
        ] {
            let m = usage(args);
            assert!(m.contains(want), "{args:?}: wanted `{want}` in {m}");
            assert!(!m.contains('\n'), "{args:?}: {m}");
            assert!(m.contains("--help`"), "{args:?}: {m}");
        }
        let m = usage(&["check", &format!("--{}", "q".repeat(10_000))]);
        assert!(m.len() < 200, "{m}");
        let m = usage(&["check", "--\x1b[2J"]);
        assert!(m.contains("unknown option `--\\u{1b}[2J`"), "{m}");
    }

    #[test]
    fn the_subcommands_get_their_arguments() {
        match parse_str(&["eval"]) {
            Ok(Command::Eval(a)) => assert!(a.instructions.is_empty()),
            other => panic!("{other:?}"),
        }
        match parse_str(&["eval", "fma.rn.f32 0x1 0x2 0x3", "// c"]) {
            Ok(Command::Eval(a)) => assert_eq!(a.instructions.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_str(&["check", "f32_mulAdd"]),
            Ok(Command::Check(_))
        ));
    }
}
