//! `fma-model silicon`: the host side of the silicon check (see [`crate::silicon`]):
//! `gen` writes the vector file with the model's answers, `compare` reads the GPU's result file
//! against it, `forms` writes the CUDA program's table of forms (`silicon/forms.inc`), and
//! `exhaustive` checks the model against an H100's fingerprints of every input pair of the
//! two-operand half-precision forms.

use std::path::PathBuf;

use ptxfma_cli_common::stdio;
use ptxfma_cli_common::{out, outln};

use crate::silicon::generate::{generate, Plan};
use crate::silicon::{compare, forms, interrupt, SiliconError};

/// `fma-model silicon --help`, after the one-line summary.
pub(super) const LONG_ABOUT: &str = "\
Checks the model against an NVIDIA GPU in three steps with files between them (`make silicon`
runs all three where the GPU is):
  fma-model silicon gen --out vectors.bin      vectors of every form, with the model's answers
  silicon/ptxfma-silicon vectors.bin results.bin   (the CUDA program, on the GPU's machine)
  fma-model silicon compare vectors.bin results.bin
`compare` prints a table per form and per decision of docs/semantics.md, and the first
mismatches as `fma-model eval` lines. Exit status: 0 no mismatch, 1 mismatches, 2 bad usage or
bad files.";

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    step: Step,
}

#[derive(clap::Subcommand, Debug)]
enum Step {
    /// Write the vectors of every form, with the model's answers.
    Gen {
        /// The vector file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Vectors per form (a vmad mnemonic shares them among its selectors and signs); at
        /// most 10,000,000, so the blocks made in parallel stay within memory.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
        count: u32,
        /// Seed of the stimulus.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Leave out the forms a GPU of this architecture lacks, e.g. `sm_90`.
        #[arg(long, value_name = "sm_XX", value_parser = parse_sm)]
        arch: Option<u32>,
        /// Only these mnemonics (comma-separated; a trailing `*` matches a prefix).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        forms: Vec<String>,
        /// Worker threads (default: every core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Compare the GPU's result file with the vector file.
    Compare {
        vectors: PathBuf,
        results: PathBuf,
        /// How many mismatches to print.
        #[arg(long, default_value_t = 20)]
        show: usize,
        /// Also write every mismatch, one line each, to this file.
        #[arg(long, value_name = "FILE")]
        mismatches: Option<PathBuf>,
    },
    /// Write the CUDA program's table of forms (`silicon/forms.inc`).
    Forms {
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Check the model against an H100's fingerprints of every input pair of the 15
    /// two-operand half-precision forms (`add/sub/mul .rn{.ftz}{.sat}.f16`, `.rn.bf16`).
    Exhaustive {
        /// The fingerprint file (15 x 65,536 little-endian u64 sums).
        #[arg(long, value_name = "FILE")]
        fingerprints: PathBuf,
        /// Only these forms (comma-separated mnemonics, as the file lists them).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        forms: Vec<String>,
        /// The values of `a` to check: FROM..TO (hex or decimal, TO excluded); default all.
        #[arg(long, value_name = "FROM..TO", value_parser = parse_range)]
        a: Option<(u32, u32)>,
        /// Worker threads (default: every core).
        #[arg(long)]
        jobs: Option<usize>,
    },
}

fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let num = |t: &str| {
        let t = t.trim();
        match t.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16).ok(),
            None => t.parse().ok(),
        }
    };
    let (lo, hi) = s
        .split_once("..")
        .and_then(|(a, b)| Some((num(a)?, num(b)?)))
        .ok_or_else(|| format!("`{s}` is not a range FROM..TO"))?;
    if lo >= hi || hi > 1 << 16 {
        return Err(format!("`{s}`: want FROM < TO <= 0x10000"));
    }
    Ok((lo, hi))
}

fn parse_sm(s: &str) -> Result<u32, String> {
    s.strip_prefix("sm_")
        .and_then(|n| n.trim_end_matches('a').parse().ok())
        .ok_or_else(|| format!("`{s}` is not an architecture like sm_90"))
}

/// Entry point; returns the process exit code.
pub fn main(args: Args) -> u8 {
    interrupt::install();
    match run(args.step) {
        Ok(code) => code,
        Err(e) => {
            stdio::report(&[format!("error: {e}")]);
            2
        }
    }
}

/// What ends a step with exit 2: its own error, or output that cannot be written.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error(transparent)]
    Silicon(#[from] SiliconError),
    #[error(transparent)]
    Output(#[from] stdio::WriteError),
}

fn run(step: Step) -> Result<u8, Failed> {
    match step {
        Step::Gen {
            out,
            count,
            seed,
            arch,
            forms,
            jobs,
        } => {
            let threads =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let plan = Plan {
                count,
                seed,
                sm: arch,
                only: forms,
            };
            let w = generate(&out, &plan, threads, &mut |_, _| {})?;
            outln!(
                "{}: {} vectors in {} forms (seed {seed})",
                out.display(),
                w.vectors,
                w.forms
            )?;
            Ok(0)
        }
        Step::Compare {
            vectors,
            results,
            show,
            mismatches,
        } => {
            let report = match mismatches {
                Some(path) => {
                    let mut out = crate::silicon::files::Output::create(&path)?;
                    let r = compare::compare(&vectors, &results, show, Some(&mut out))?;
                    out.finish()?;
                    r
                }
                None => compare::compare(&vectors, &results, show, None)?,
            };
            out!("{}", report.render())?;
            Ok(u8::from(report.mismatches > 0))
        }
        Step::Exhaustive {
            fingerprints,
            forms,
            a,
            jobs,
        } => {
            use crate::silicon::exhaustive as ex;
            let bytes =
                std::fs::read(&fingerprints).map_err(|e| SiliconError::io(&fingerprints, e))?;
            let gpu = ex::parse(&bytes, &fingerprints)?;
            let picked: Vec<usize> = if forms.is_empty() {
                (0..ex::FORMS.len()).collect()
            } else {
                forms
                    .iter()
                    .map(|f| {
                        ex::FORMS.iter().position(|x| x == f).ok_or_else(|| {
                            SiliconError::Usage(format!(
                                "`{f}` is not a fingerprint form (known: {})",
                                ex::FORMS.join(", ")
                            ))
                        })
                    })
                    .collect::<Result<_, _>>()?
            };
            let (lo, hi) = a.unwrap_or((0, 1 << 16));
            let values: Vec<u16> = (lo..hi).map(|x| x as u16).collect();
            let threads =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let mut bad = 0;
            outln!(
                "{:<24} {:>8} {:>8}  first differing a",
                "form",
                "a values",
                "differ"
            )?;
            for (&k, r) in picked
                .iter()
                .zip(ex::check(&gpu, &picked, &values, threads))
            {
                bad += r.differ.len();
                outln!(
                    "{:<24} {:>8} {:>8}  {}",
                    ex::FORMS[k],
                    r.checked,
                    r.differ.len(),
                    r.differ.first().map_or("-".into(), |a| format!("{a:#06x}"))
                )?;
            }
            outln!(
                "{} of {} sums reproduced ({} input pairs)",
                picked.len() * values.len() - bad,
                picked.len() * values.len(),
                (picked.len() * values.len()) as u64 * ex::PER_FORM as u64
            )?;
            Ok(u8::from(bad > 0))
        }
        Step::Forms { out } => {
            let text = forms::include_file(&forms::all());
            let mut f = crate::silicon::files::Output::create(&out)?;
            f.write(text.as_bytes())?;
            f.finish()?;
            Ok(0)
        }
    }
}
