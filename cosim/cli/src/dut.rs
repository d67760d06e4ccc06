//! `fma-cosim dut build` and `dut prove`: their arguments, handed to the crate
//! `ptxfma-cosim-dut` (the same design, a level up: `ptxfma_cosim_engine::dut` loads what it builds).
//! `dut exhaust`'s are in `exhaust.rs`.

use std::path::PathBuf;

use ptxfma_cli_common::{errln, outln};

use ptxfma_cosim_engine::Error;

#[derive(clap::Args, Debug)]
pub(crate) struct DutArgs {
    #[command(subcommand)]
    command: DutCommand,
}

#[derive(clap::Subcommand, Debug)]
pub(crate) enum DutCommand {
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
        #[arg(long, value_name = "LEVEL", default_value_t = ptxfma_cosim_engine::dut::DEFAULT_CXX_OPT,
              value_parser = clap::value_parser!(u32).range(0..=3))]
        cxx_opt: u32,
    },
    /// Prove the design equal to the kit's RTL on the half-precision words its manifest allows
    /// (docs/formal.md): a bounded check of a miter of both, every input free; or, with
    /// --by-cases, one operation at a time, split into claims a solver takes in seconds.
    Prove {
        /// The design's manifest (TOML), with `contract.latency`.
        #[arg(value_name = "MANIFEST")]
        manifest: PathBuf,
        /// Steps of the check from reset (default: 2 * max(latency, 4) + 1).
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
        /// One operation from reset, both products cut and driven from one specification
        /// multiplier, the operands split into cases, each a claim of its own
        /// (docs/formal.md, "Proof by cases"); the two-lane words are left out.
        #[arg(long, conflicts_with = "depth")]
        by_cases: bool,
        /// With --by-cases: claims run at a time (default: the machine's cores).
        #[arg(long, requires = "by_cases", value_parser = clap::value_parser!(u64).range(1..=256))]
        jobs: Option<u64>,
        /// With --by-cases: prove only these cases of each word (numbers, comma-separated).
        #[arg(long, requires = "by_cases", value_delimiter = ',', value_name = "K")]
        cases: Vec<usize>,
        /// With --by-cases: run only these parts of the kit's product claim (numbers,
        /// comma-separated; default: all, or none with --cases).
        #[arg(long, requires = "by_cases", value_delimiter = ',', value_name = "P")]
        parts: Option<Vec<u32>>,
        /// The tools' output as they run, kept whatever the outcome (default: OUT.log beside
        /// OUT; an existing file is replaced only if it is an earlier such log).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
    },
    /// Run every input pair of the two-operand half forms the design takes through it alone,
    /// compared per value of `a` with an H100's fingerprints (docs/dut.md, "Exhaustion").
    Exhaust(crate::exhaust::ExhaustArgs),
}

pub(crate) fn dut(a: DutArgs) -> Result<u8, Error> {
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
            let opts = ptxfma_cosim_dut::builder::Options {
                trace: !no_trace,
                cxx_opt,
            };
            let built = match ptxfma_cosim_dut::builder::build(&manifest, &out, opts) {
                Err(_) if ptxfma_cosim_dut::children::interrupted() => {
                    errln!("fma-cosim dut build: interrupted; nothing was written")?;
                    return Ok(130);
                }
                r => r?,
            };
            let r = &built.record;
            let how = match (r.traced, r.cxx_opt) {
                (true, ptxfma_cosim_engine::dut::DEFAULT_CXX_OPT) => String::new(),
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
            let check = ptxfma_cosim_outputs::command::ShellCommand::cosim()
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
            log,
            by_cases,
            jobs,
            cases,
            parts,
        } => ptxfma_cosim_dut::prove_says::run(&ptxfma_cosim_dut::prove::ProveArgs {
            manifest,
            depth,
            timeout: std::time::Duration::from_secs(timeout),
            out,
            dut,
            words,
            log,
            by_cases,
            jobs: jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |j| j as usize,
            ),
            cases,
            parts,
        }),
        DutCommand::Exhaust(a) => crate::exhaust::exhaust(a),
    }
}
