//! `fma-cosim coverage`: merges coverage files and reports them, uncovered bins first (the
//! command over `ptxfma_cosim_checks::coverage`, hence the same name).

use ptxfma_cli_common::{out, outln};
use std::path::PathBuf;

use ptxfma_cosim_checks::coverage::Coverage;
use ptxfma_cosim_engine::temporary::write_atomically;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::{coverage_text, html};

use crate::out_paths::check_out_file;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Coverage files (`fma-cosim run --coverage FILE`), or results files that carry a
    /// `coverage` object; their counts are added.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Write the merged coverage (same JSON as the inputs).
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Write a self-contained HTML report: a bar per group, every bin, uncovered first.
    #[arg(long, value_name = "OUT")]
    html: Option<PathBuf>,
    /// List the covered bins with their counts too (the uncovered and unreachable bins are
    /// always listed).
    #[arg(long)]
    all: bool,
    /// Exit 1 when fewer than PCT percent of the reachable bins were hit.
    #[arg(long, value_name = "PCT", value_parser = pct)]
    fail_under: Option<f64>,
}

fn pct(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a percentage from 0 to 100")),
    }
}

/// Prints the merged report; writes `--json` and `--html`. Exit status: 0, or 1 when
/// `--fail-under` is not met or a bin declared unreachable was hit (a wrong declaration).
pub fn coverage(a: Args) -> Result<u8, Error> {
    let outputs = [("--json", a.json.as_deref()), ("--html", a.html.as_deref())];
    crate::out_paths::distinct_outputs(&outputs)?;
    crate::out_paths::not_an_input(&outputs, &a.files)?;
    for p in [&a.json, &a.html].into_iter().flatten() {
        check_out_file(p, "output file")?;
    }
    let mut total: Option<Coverage> = None;
    for f in &a.files {
        let c = Coverage::read_json(f)?;
        match &mut total {
            None => total = Some(c),
            Some(t) => t.merge(&c),
        }
    }
    let total = total.unwrap_or_default();
    outln!("fma-cosim coverage: {} file(s) merged", a.files.len())?;
    out!(
        "{}",
        if a.all {
            coverage_text::text(&total, true)
        } else {
            coverage_text::text(&total, false)
        }
    )?;
    if let Some(p) = &a.json {
        total.write_json(p)?;
    }
    if let Some(p) = &a.html {
        write_atomically(p, html::coverage_page::page(&total).as_bytes())?;
    }
    let pct = total.total_percent();
    let mut code = 0;
    if let Some(min) = a.fail_under {
        if pct < min {
            outln!("FAILED: {pct:.1}% of the reachable bins hit, below --fail-under {min}%")?;
            code = 1;
        }
    }
    if !total.unreachable_hit().is_empty() {
        outln!("FAILED: bins declared unreachable were hit (listed above)")?;
        code = 1;
    }
    Ok(code)
}
