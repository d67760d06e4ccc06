//! `fma-cosim merge`: the shards of one run, read and written as one result.

use std::path::PathBuf;

use ptxfma_cli_common::outln;

use crate::out_paths::{check_out_file, distinct_outputs};
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::results::{self, RunResult};

#[derive(clap::Args, Debug)]
pub(crate) struct MergeArgs {
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
    /// Run N chunks of each shard again here (chosen at random) and compare them with what the
    /// shard says of them: a shard that disagrees fails the merge (exit 1, nothing written).
    #[arg(long, value_name = "N", default_value = "0",
          value_parser = crate::args::in_range(0, 1_000_000))]
    verify: u64,
    /// Seed of --verify's choice of chunks [default: drawn afresh, and printed].
    #[arg(long, value_name = "SEED", requires = "verify", value_parser = crate::args::number)]
    verify_seed: Option<u64>,
}

pub(crate) fn merge(a: MergeArgs) -> Result<u8, Error> {
    let outputs = [
        ("--json", a.json.as_deref()),
        ("--junit", a.junit.as_deref()),
        ("--html", a.html.as_deref()),
    ];
    distinct_outputs(&outputs)?;
    crate::out_paths::not_an_input(&outputs, &a.files)?;
    for p in [&a.json, &a.junit, &a.html].into_iter().flatten() {
        check_out_file(p, "output file")?;
    }
    let mut inputs = Vec::new();
    for f in &a.files {
        inputs.push((f.display().to_string(), RunResult::read_json(f)?));
    }
    let merged = results::merge::merge(&inputs)?;
    let shards = inputs[0].1.shard.map_or(1, |s| s.count);
    if a.verify > 0 {
        let seed = a.verify_seed.unwrap_or_else(crate::verify::fresh_seed);
        let v = crate::verify::verify(&inputs, a.verify as usize, seed)?;
        let what = format!(
            "verified {} of {} chunks ({} of each of {} file(s), --verify {} --verify-seed {seed})",
            v.chunks, v.of, v.per_file, v.files, a.verify
        );
        if let Some(why) = v.disagreement {
            outln!("{what}: a shard disagrees")?;
            ptxfma_cli_common::errln!("{why}")?;
            return Ok(1);
        }
        outln!("{what}: all agree")?;
    }
    outln!(
        "fma-cosim merge: {} file(s), {shards} shard(s) of a run with seed {}, {} operations \
         over {} families, {} vs {} ({})",
        inputs.len(),
        merged.params.seed,
        merged.params.count,
        merged.params.filter.len(),
        ptxfma_cosim_engine::dut::describe(&merged.params.rtl),
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
        ptxfma_cosim_outputs::html::run_page::write(&merged, p, coverage)?;
    }
    if !merged.problems.is_empty() {
        return Err(Error::new(format!(
            "incomplete: {} (the merge of what is there was written)",
            merged.problems.join("; ")
        )));
    }
    Ok(if merged.passed { 0 } else { 1 })
}
