//! `fma-cosim dut exhaust`: its arguments, the summary it prints, and `--merge` of the files of
//! shards (the exhaustion itself is `ptxfma_cosim_dut::exhaust`).

use std::path::{Path, PathBuf};

use ptxfma_cli_common::fingerprints::PER_FORM;
use ptxfma_cli_common::{errln, outln};
use ptxfma_cosim_dut::exhaust::record::{Exhaustion, ShardOf};
use ptxfma_cosim_dut::exhaust::{self, Options};
use ptxfma_cosim_engine::chunk::Shard;
use ptxfma_cosim_engine::regress::Progress;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::command::ShellCommand;

use crate::args::number;
use crate::progress::{self, Mode};

#[derive(clap::Args, Debug)]
pub(crate) struct ExhaustArgs {
    /// A design built by `fma-cosim dut build` into DIR (default: the kit's RTL, --rtl).
    #[arg(long, value_name = "DIR", conflicts_with = "rtl")]
    dut: Option<PathBuf>,
    /// A variant of the kit's RTL built into this binary (see `fma-cosim variants`).
    #[arg(long, default_value = "default", value_name = "VARIANT")]
    rtl: String,
    /// Only these forms (comma-separated, as `mul.rn.f16`) [default: every two-operand half
    /// form the design's manifest allows, directly or through its fma].
    #[arg(long, value_delimiter = ',', value_name = "FORM")]
    forms: Vec<String>,
    /// Give the design the fma each form is computed as (`fma(a, x, -0)` for mul, `fma(a, 1.0,
    /// ±x)` for add and sub) even where its manifest allows the form itself.
    #[arg(long)]
    via_fma: bool,
    /// Only these values of `a`, `LO..HI` (HI excluded; decimal or 0x hex).
    #[arg(long, value_parser = a_range, value_name = "LO..HI")]
    a_range: Option<[u32; 2]>,
    /// Shard K of N: the K-th of N equal ranges of `a` (of --a-range if given).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Instances of the design run side by side [default: the cores available].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    /// The findings, rewritten every 10 s while the run goes: what --resume continues and
    /// --merge reads.
    #[arg(long, value_name = "FILE", default_value = "exhaust.json")]
    json: PathBuf,
    /// Continue the unfinished exhaustion in --json (after Ctrl-C or a lost machine).
    #[arg(long, conflicts_with = "merge")]
    resume: bool,
    /// The H100's fingerprints [default: the checkout's
    /// fma-model/tests/data/h100-half2-fingerprints.bin, else the model's sums].
    #[arg(long, value_name = "FILE")]
    fingerprints: Option<PathBuf>,
    /// Progress on stderr: a bar on a terminal, else a line every ten seconds.
    #[arg(long, value_enum, default_value = "auto")]
    progress: Mode,
    /// Merge the --json files of shards into --json instead of running.
    #[arg(long, num_args = 1.., value_name = "FILE",
          conflicts_with_all = ["dut", "forms", "via_fma", "a_range", "shard", "jobs", "fingerprints"])]
    merge: Vec<PathBuf>,
}

/// `LO..HI` within 0..=65536, LO < HI.
fn a_range(s: &str) -> Result<[u32; 2], String> {
    let (lo, hi) = s
        .split_once("..")
        .ok_or_else(|| format!("`{s}` is not LO..HI"))?;
    let (lo, hi) = (number(lo)?, number(hi)?);
    if lo >= hi || hi > PER_FORM as u64 {
        return Err(format!(
            "{lo}..{hi} is not a range of a within 0..65536 (LO < HI)"
        ));
    }
    Ok([lo as u32, hi as u32])
}

/// Part `shard` of `whole`: the K-th of N ranges as equal as can be.
fn shard_of(whole: [u32; 2], shard: Option<Shard>) -> Result<Option<ShardOf>, Error> {
    let Some(s) = shard else {
        return Ok(None);
    };
    let n = whole[1] - whole[0];
    if s.count > n {
        return Err(Error::new(format!(
            "--shard {s}: {n} values of a cannot be cut into {} shards",
            s.count
        )));
    }
    Ok(Some(ShardOf {
        index: s.index,
        count: s.count,
        of: whole,
    }))
}

pub(crate) fn exhaust(a: ExhaustArgs) -> Result<u8, Error> {
    if !a.merge.is_empty() {
        return merge(&a.merge, &a.json);
    }
    let variant = match &a.dut {
        Some(dir) => {
            let abs = dir
                .canonicalize()
                .map_err(|e| Error::new(format!("--dut {}: {e}", dir.display())))?;
            ptxfma_cosim_engine::dut::load::open(&abs)?;
            ptxfma_cosim_engine::dut::load::variant_name(&abs)
        }
        None => {
            ptxfma_cosim_engine::rtl::variant(&a.rtl)?;
            a.rtl.clone()
        }
    };
    let jobs = a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let whole = a.a_range.unwrap_or([0, PER_FORM as u32]);
    let shard = shard_of(whole, a.shard)?;
    let opts = Options {
        variant,
        forms: a.forms,
        via_fma: a.via_fma,
        a_range: shard.map_or(whole, |s| s.range()),
        shard,
        jobs,
        json: a.json,
        resume: a.resume,
        fingerprints: a.fingerprints,
    };
    let plan = exhaust::plan(&opts)?;
    let [lo, hi] = opts.a_range;
    outln!(
        "fma-cosim dut exhaust: {} (nan {}), against {}; a {lo:#06x}..{hi:#06x} ({} values), \
         {jobs} job(s)",
        opts.variant.strip_prefix("dut:").unwrap_or(&opts.variant),
        plan.nan.describe(),
        if plan.file.against == "h100" {
            "the H100's fingerprints"
        } else {
            "the model's sums (no fingerprint file)"
        },
        hi - lo
    )?;
    for f in &plan.forms {
        let how = if f.via_fma() {
            format!(" (given as {})", f.issued_spelling())
        } else {
            String::new()
        };
        outln!("  {}{how}", f.name())?;
    }
    let left = plan.left();
    let p: &'static Progress = Box::leak(Box::default());
    progress::on_interrupt(p);
    let finished = std::sync::atomic::AtomicBool::new(false);
    let (ran, shown) = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            progress::watch(p, left * PER_FORM as u64, a.progress, || {
                finished.load(std::sync::atomic::Ordering::SeqCst)
            })
        });
        let ran = exhaust::run(&opts, plan, p);
        finished.store(true, std::sync::atomic::Ordering::SeqCst);
        (ran, watcher.join().expect("the progress thread"))
    });
    let file = ran?;
    shown?;
    summary(&file)?;
    if !file.complete && p.stop.load(std::sync::atomic::Ordering::SeqCst) {
        let again = ShellCommand::cosim()
            .args(std::env::args().skip(1).filter(|x| x != "--resume"))
            .arg("--resume");
        errln!(
            "interrupted: what was done is in {}; continue it: {again}",
            opts.json.display()
        )?;
        return Ok(130);
    }
    Ok(u8::from(file.differences() > 0))
}

/// Prints the table of `file` and each difference with its replay line.
fn summary(file: &Exhaustion) -> Result<(), Error> {
    let [lo, hi] = file.a_range;
    outln!(
        "{:<20} {:<20} {:>9} {:>14} {:>7}",
        "form",
        "given as",
        "a done",
        "pairs",
        "differ"
    )?;
    let mut done_all = 0u64;
    for f in &file.forms {
        let d = exhaust::record::flags(&f.done);
        let n = (lo..hi).filter(|&a| d[a as usize]).count() as u64;
        done_all += n;
        outln!(
            "{:<20} {:<20} {:>9} {:>14} {:>7}",
            f.form,
            f.issued,
            n,
            n * PER_FORM as u64,
            f.differ.len()
        )?;
    }
    for f in &file.forms {
        for d in &f.differ {
            match d.x {
                Some(x) => outln!(
                    "{} a {:#06x} differs; first at x {x:#06x}: design {}, expected {}\n  \
                     replay: {}",
                    f.form,
                    d.a,
                    d.got,
                    d.expected,
                    d.replay
                )?,
                None => outln!(
                    "{} a {:#06x}: its sum differs but every result is the model's ({})",
                    f.form,
                    d.a,
                    d.expected
                )?,
            }
        }
    }
    let total = u64::from(hi - lo) * file.forms.len() as u64;
    let secs = file.seconds.max(1e-9);
    outln!(
        "{} of {} values of a done, {} differ ({} pairs in {:.1} s, {:.0} pairs/s){}",
        done_all,
        total,
        file.differences(),
        done_all * PER_FORM as u64,
        file.seconds,
        (done_all * PER_FORM as u64) as f64 / secs,
        if file.complete { "" } else { "; incomplete" }
    )?;
    Ok(())
}

/// `--merge`: the files as one, written to `out`; exit 1 where any `a` differs, 2 where the
/// files do not cover their range (a shard missing or unfinished), after the summary.
fn merge(files: &[PathBuf], out: &Path) -> Result<u8, Error> {
    let read: Vec<Exhaustion> = files
        .iter()
        .map(|f| Exhaustion::read(f))
        .collect::<Result<_, _>>()?;
    let merged = Exhaustion::merge(&read).map_err(|why| {
        Error::new(format!(
            "--merge: the files are not of one exhaustion: {why}"
        ))
    })?;
    merged.write(out)?;
    summary(&merged)?;
    if merged.complete {
        return Ok(u8::from(merged.differences() > 0));
    }
    let missing = Exhaustion::missing_shards(&read);
    let what: Vec<String> = if missing.is_empty() {
        let left = merged.not_done();
        let mut named: Vec<String> = left
            .iter()
            .take(4)
            .map(|(f, [lo, hi])| format!("{f} a {lo:#06x}..{hi:#06x}"))
            .collect();
        if left.len() > 4 {
            named.push(format!("{} more ranges", left.len() - 4));
        }
        named
    } else {
        missing
            .iter()
            .map(|s| format!("{s} wrote no file"))
            .collect()
    };
    errln!(
        "--merge: incomplete, not checked: {}; run what is missing (--shard K/N, or --resume \
         an unfinished shard) and merge again",
        what.join(", ")
    )?;
    Ok(2)
}
