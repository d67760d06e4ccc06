//! The `fma-cosim` command line (clap, derive).
//!
//! Exit status: 0 agreement, 1 a divergence (or a file that disagrees), 2 bad usage or input,
//! 130 interrupted. Every usage error is one line on stderr. Output goes through
//! `ptxfma_cli_common::stdio` (`outln!`): a write that fails is the command's error (exit 2,
//! printed by [`main`] on stderr, or on stdout when stderr failed), a closed pipe drops what
//! follows.

mod bench;
mod coverage;
pub mod dut;
mod replay;
mod run;
mod triage;
mod vectors;
mod wave;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser};
use ptxfma_cli_common::stdio::{self, Stream};
use ptxfma_cli_common::{errln, outln};

use crate::engine::rtl;
use crate::engine::sides::Sides;
use crate::engine::stream::Families;
use crate::outputs::results::{self, RunResult};
use crate::temporary::Temporary;
use crate::Error;

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

#[derive(clap::Args, Debug)]
struct DutArgs {
    #[command(subcommand)]
    command: DutCommand,
}

#[derive(clap::Subcommand, Debug)]
enum DutCommand {
    /// Verilate a design from its manifest (docs/dut.md), fast and traced (or fast alone), and
    /// compile it with the shim into a library in OUT, with the record of what was built
    /// (dut.json).
    Build {
        /// The design's manifest (TOML).
        #[arg(value_name = "MANIFEST")]
        manifest: PathBuf,
        /// Directory to build into (created; an earlier build there is replaced).
        #[arg(long, value_name = "OUT")]
        out: PathBuf,
        /// Leave out the traced model: Verilator runs once, not twice, but no waveform can be
        /// written (`run` and `replay` say so at a divergence; `wave` refuses).
        #[arg(long)]
        no_trace: bool,
        /// The fast model's C++ optimisation level: 3 runs fastest; 0 compiles a large
        /// flattened netlist about eight times faster and suits short runs.
        #[arg(long, value_name = "LEVEL", default_value_t = crate::engine::dut::DEFAULT_CXX_OPT,
              value_parser = clap::value_parser!(u32).range(0..=3))]
        cxx_opt: u32,
    },
    /// Prove the design equal to the kit's RTL on the half-precision words its manifest allows
    /// (docs/formal.md): a bounded check of a miter of both, every input free.
    Prove {
        /// The design's manifest (TOML), with `contract.latency`.
        #[arg(value_name = "MANIFEST")]
        manifest: PathBuf,
        /// Steps of the check from reset (default: 2 * max(latency + 1, 4) + 1).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1000))]
        depth: Option<u64>,
        /// Seconds the whole run may take; past it the steps checked are reported.
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
        timeout: u64,
        /// Directory for the run (the model, logs, the counterexample's trace, prove.json).
        #[arg(long, value_name = "OUT", default_value = "dut-prove")]
        out: PathBuf,
        /// The `dut build` of the design that the replay line names (default: OUT/dut-build,
        /// with the line that builds it).
        #[arg(long, value_name = "DIR")]
        dut: Option<PathBuf>,
        /// Prove only these of the manifest's words (PTX spellings, comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "SPELLING")]
        words: Vec<String>,
    },
}

fn dut(a: DutArgs) -> Result<u8, Error> {
    match a.command {
        DutCommand::Build {
            manifest,
            out,
            no_trace,
            cxx_opt,
        } => {
            // Said before the build, which takes minutes: and an unwritable stdout stops it
            // before it starts.
            outln!(
                "fma-cosim dut build: {} into {}",
                manifest.display(),
                out.display()
            )?;
            let opts = crate::cli::dut::builder::Options {
                trace: !no_trace,
                cxx_opt,
            };
            let built = match crate::cli::dut::builder::build(&manifest, &out, opts) {
                Err(_) if crate::cli::dut::children::interrupted() => {
                    errln!("fma-cosim dut build: interrupted; nothing was written")?;
                    return Ok(130);
                }
                r => r?,
            };
            let r = &built.record;
            let how = match (r.traced, r.cxx_opt) {
                (true, crate::engine::dut::DEFAULT_CXX_OPT) => String::new(),
                (traced, opt) => format!(
                    " (fast model at -O{opt}{})",
                    if traced { "" } else { ", no traced model" }
                ),
            };
            outln!(
                "built `{}` into {} in {:.1} s{how}: {} source(s), families {}, latency bound {}",
                r.top,
                built.dir.display(),
                r.build_seconds,
                r.sources.len(),
                r.families.join(","),
                r.latency_bound
            )?;
            let check = crate::outputs::command::ShellCommand::cosim()
                .arg("run")
                .arg("--dut")
                .path(&built.dir)
                .args(["--compare", "ports", "--filter"])
                .arg(r.families.join(","));
            outln!("check it: {check}")?;
            Ok(0)
        }
        DutCommand::Prove {
            manifest,
            depth,
            timeout,
            out,
            dut,
            words,
        } => crate::cli::dut::prove::run(&crate::cli::dut::prove::ProveArgs {
            manifest,
            depth,
            timeout: std::time::Duration::from_secs(timeout),
            out,
            dut,
            words,
        }),
    }
}

#[derive(clap::Args, Debug)]
struct MergeArgs {
    /// Results files (`run --json`) of the shards of one run.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Write the merged result here.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Write JUnit XML here (a testsuite per family, a testcase per chunk).
    #[arg(long, value_name = "OUT")]
    junit: Option<PathBuf>,
    /// Write the merged run as one HTML page (as `run --html`; the closure curve needs the
    /// shards' coverage, `run --coverage` or `--html`).
    #[arg(long, value_name = "OUT")]
    html: Option<PathBuf>,
}

/// `--rtl` (or `--dut`) and `--golden`, shared by the commands that run the RTL.
#[derive(clap::Args, Debug, Clone)]
struct SidesArgs {
    /// RTL variant under test (see `fma-cosim variants`).
    #[arg(long, default_value = "default", value_name = "VARIANT")]
    rtl: String,
    /// A design built by `fma-cosim dut build` into DIR, under test instead of --rtl (checked
    /// by its ports).
    #[arg(long, value_name = "DIR", conflicts_with = "rtl")]
    dut: Option<PathBuf>,
    /// Reference: `model` (the golden model) or `rtl:VARIANT` (another RTL build).
    #[arg(long, default_value = "model", value_name = "G")]
    golden: String,
}

impl SidesArgs {
    /// `--dut DIR` becomes the variant name `dut:DIR` (DIR made absolute), after checking that
    /// DIR holds a build this binary can load.
    fn resolve_dut(&mut self) -> Result<(), Error> {
        if let Some(dir) = &self.dut {
            let abs = dir
                .canonicalize()
                .map_err(|e| Error::new(format!("--dut {}: {e}", dir.display())))?;
            let lib = crate::engine::dut::load::open(&abs)?;
            crate::engine::stim::set_forms(lib.record.forms());
            self.rtl = crate::engine::dut::load::variant_name(&abs);
        }
        Ok(())
    }

    fn sides(&self) -> Result<Sides, Error> {
        Sides::new(&self.rtl, &self.golden)
    }
}

/// `--compare` of `run` and `replay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CompareArg {
    Registers,
    Ports,
}

impl CompareArg {
    fn name(self) -> &'static str {
        match self {
            CompareArg::Registers => "registers",
            CompareArg::Ports => "ports",
        }
    }

    /// `--compare` as given, else registers where the RTL has them and ports where it has
    /// only result ports (a `--dut` design).
    fn resolve(arg: Option<CompareArg>, rtl: &str) -> Result<CompareArg, Error> {
        let registers = rtl::variant(rtl)?.registers;
        Ok(arg.unwrap_or(if registers {
            CompareArg::Registers
        } else {
            CompareArg::Ports
        }))
    }
}

/// The families a run of `rtl` draws: a `dut build` design's own (its manifest's
/// `forms.families`) when `filter` names every family (the default), else `filter`, which the
/// design must implement.
fn design_families(rtl: &str, filter: &mut Families) -> Result<(), Error> {
    let Some(rec) = crate::engine::dut::record_of(rtl)? else {
        return Ok(());
    };
    let implements: Vec<_> = rec
        .families
        .iter()
        .filter_map(|f| crate::engine::stim::Family::parse(f))
        .collect();
    if filter.0.len() == crate::engine::stim::Family::ALL.len() {
        *filter = Families(implements);
    } else if let Some(f) = filter.0.iter().find(|f| !implements.contains(f)) {
        return Err(Error::new(format!(
            "--filter {}: the design implements only {} (forms.families of its manifest)",
            f.name(),
            rec.families.join(", ")
        )));
    }
    Ok(())
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
        Ok(code) => code,
        Err(e) => return fail(&e),
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

/// A number, decimal or `0x` hex, `_` allowed between digits.
fn number(s: &str) -> Result<u64, String> {
    let v = s.replace('_', "");
    let r = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    };
    r.map_err(|_| {
        format!(
            "`{}` is not a number (decimal or 0x hex)",
            ptxfma_ptx::quote::quote(s)
        )
    })
}

/// A value parser for a number in `lo..=hi`.
fn in_range(lo: u64, hi: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync {
    move |s| {
        let v = number(s)?;
        if v < lo || v > hi {
            return Err(format!("{v} is out of range: {lo} to {hi}"));
        }
        Ok(v)
    }
}

/// `--filter`: a comma-separated family list, or `all`.
fn families(s: &str) -> Result<Families, String> {
    Families::parse(s)
}

/// Makes sure a directory exists and can be written, before any long run.
fn check_dir_writable(dir: &Path, what: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("{what} {}: {e}", dir.display())))?;
    // A temporary, so that not even a Ctrl-C now leaves it behind.
    let probe = Temporary::beside(&dir.join("fma-cosim-probe"), "tmp");
    probe
        .create()
        .map_err(|e| Error::new(format!("{what} {} is not writable: {e}", dir.display())))?;
    Ok(())
}

/// Checks that an output file can be written later, so a long run does not fail at its end.
fn check_out_file(path: &Path, what: &str) -> Result<(), Error> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if path.is_dir() {
        return Err(Error::new(format!(
            "{what} {} is a directory",
            path.display()
        )));
    }
    crate::temporary::check_replaceable(path)?;
    check_dir_writable(dir, &format!("directory of {what}"))
}

/// Refuses two outputs on one file (`--json X --coverage X`): the one written last would
/// replace the other. `outputs` are the options' names and values. Paths are compared as a
/// rename into place replaces them: the file name in its directory, the directory
/// canonicalised (so `x`, `./x` and `d/../x` are one file, and a link to a directory is that
/// directory).
fn distinct_outputs(outputs: &[(&str, Option<&Path>)]) -> Result<(), Error> {
    let mut seen: Vec<(PathBuf, &str, &Path)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        let key = output_identity(path);
        if let Some((_, other, first)) = seen.iter().find(|(k, ..)| *k == key) {
            return Err(Error::new(format!(
                "{other} {} and {flag} {} are one file: give each output its own",
                first.display(),
                path.display()
            )));
        }
        seen.push((key, flag, path));
    }
    Ok(())
}

/// The file an output path names: its directory canonicalised (the deepest part of it that
/// exists, for a directory the run will create), then its file name.
fn output_identity(path: &Path) -> PathBuf {
    let Some(name) = path.file_name() else {
        return path.to_path_buf();
    };
    let mut dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut missing = Vec::new();
    let mut key = loop {
        if let Ok(c) = dir.canonicalize() {
            break c;
        }
        match (dir.parent(), dir.file_name()) {
            (Some(up), Some(n)) => {
                missing.push(n);
                dir = if up.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    up
                };
            }
            _ => break dir.to_path_buf(),
        }
    };
    key.extend(missing.iter().rev());
    key.push(name);
    key
}

fn merge(a: MergeArgs) -> Result<u8, Error> {
    distinct_outputs(&[
        ("--json", a.json.as_deref()),
        ("--junit", a.junit.as_deref()),
        ("--html", a.html.as_deref()),
    ])?;
    for p in [&a.json, &a.junit, &a.html].into_iter().flatten() {
        check_out_file(p, "output file")?;
    }
    let mut inputs = Vec::new();
    for f in &a.files {
        inputs.push((f.display().to_string(), RunResult::read_json(f)?));
    }
    let merged = results::merge::merge(&inputs)?;
    let shards = inputs[0].1.shard.map_or(1, |s| s.count);
    outln!(
        "fma-cosim merge: {} file(s), {shards} shard(s) of a run with seed {}, {} operations \
         over {} families, RTL `{}` vs {} ({})",
        inputs.len(),
        merged.params.seed,
        merged.params.count,
        merged.params.filter.len(),
        merged.params.rtl,
        merged.params.golden,
        merged.verilator
    )?;
    for d in &merged.divergences {
        outln!(
            "  divergence: chunk {} cycle {}: {}{}",
            d.chunk,
            d.cycle,
            d.signature,
            d.waveform
                .as_deref()
                .map_or(String::new(), |w| format!("  (waveform {w})"))
        )?;
    }
    outln!("\n{}", merged.table())?;
    if let Some(line) = merged.stopped_line() {
        outln!("{line}")?;
    }
    outln!("{}", merged.verdict())?;
    if let Some(p) = &a.json {
        merged.write_json(p)?;
    }
    if let Some(p) = &a.junit {
        merged.write_junit(p)?;
    }
    if let Some(p) = &a.html {
        // The merged results carry the shards' coverage.
        let coverage = a.json.as_deref().filter(|_| merged.coverage.is_some());
        crate::outputs::html::run::write(&merged, p, coverage)?;
    }
    if !merged.problems.is_empty() {
        return Err(Error::new(format!(
            "incomplete: {} (the merge of what is there was written)",
            merged.problems.join("; ")
        )));
    }
    Ok(if merged.passed { 0 } else { 1 })
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
