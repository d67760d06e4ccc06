//! `fma-cosim dut prove`: a team's design proved equal to the kit's `ptxfma_top` on the
//! half-precision words its manifest allows, by bounded model checking of a miter
//! (`formal/miter_half.sv`, docs/formal.md): both designs share every input, any stream of
//! operations with those words and any operands is issued from reset, and each result of the
//! design, at its fixed latency (`contract.latency`), must be the kit's under the manifest's
//! NaN convention.
//!
//! Yosys reads each design on its own (their module names may clash: a team's copy of the kit),
//! flattens it and renames its top, then reads the miter over both and writes the model that
//! yosys-smtbmc checks (with Boolector), prepared as SBY prepares one. The WebAssembly Yosys sees only its working directory, so everything it
//! reads is copied into the run's directory first. The run is made in a directory beside
//! `--out` and renamed into place, so an error or Ctrl-C leaves nothing half-written.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::command::ShellCommand;

use super::children;
use super::half_words::{self, HalfWord};
use super::manifest::{Manifest, Resolved};
use super::prove_stage::{copy_designs, smt_model, Staged};
use super::trace::Trace;

/// The miter, compiled into the binary so that `dut prove` runs outside the checkout.
const MITER_SV: &str = include_str!("../../../formal/miter_half.sv");

/// How both miters compare a result lane (the NaN convention), included by each.
pub(crate) const MITER_LANE_SVH: &str = include_str!("../../../formal/miter_lane.svh");

/// Rising edges from issue to the kit's result (`ptxfma_top`'s four register stages): its
/// latency, as docs/dut.md ("Latency") counts it and `contract.latency` is given.
pub const KIT_EDGES: u64 = 4;

/// What `prove.json` in the output directory records, and the command prints.
pub const RECORD: &str = "prove.json";

/// The directory in `--out` the replay line's `dut build` writes unless `--dut` names one.
pub const DUT_BUILD: &str = "dut-build";

/// What `prove.json` says it is (its `record`), with `files`, every other file of the directory
/// and its SHA-256: a later `dut prove` replaces the directory only while it holds them alone,
/// unchanged ([`crate::own_out`]).
pub const RECORD_KIND: &str = "fma-cosim dut prove 2";

/// Refuses an `--out` that is neither empty nor an unchanged earlier proof; its `dut-build/`
/// (the build the replay line names by default) may hold an unchanged `dut build`.
fn refuse_foreign_out(out: &Path) -> Result<(), Error> {
    let build = out.join(DUT_BUILD);
    if build.is_dir() {
        crate::builder::refuse_foreign_out(&build)?;
    }
    let nested = format!("{DUT_BUILD}/");
    crate::own_out::refuse_foreign_out(out, RECORD, "dut prove", Some(&nested), |v| {
        if v["record"] != RECORD_KIND {
            return None;
        }
        serde_json::from_value(v["files"].clone()).ok()
    })
}

/// The counterexample's waveform, in the output directory.
pub const TRACE: &str = "trace.vcd";

/// The arguments of `dut prove`.
pub struct ProveArgs {
    pub manifest: PathBuf,
    /// Steps of the bounded check (default: the compare point plus two, see [`default_depth`]).
    pub depth: Option<u64>,
    pub timeout: Duration,
    pub out: PathBuf,
    /// The `dut build` directory the replay line names.
    pub dut: Option<PathBuf>,
    /// PTX spellings: prove only these of the manifest's words (a proof split by word).
    pub words: Vec<String>,
    /// Where the tools' output goes as they run (default: `OUT.log` beside `--out`).
    pub log: Option<PathBuf>,
    /// One operation, the products cut, split into cases ([`crate::prove_cases`]).
    pub by_cases: bool,
    /// Claims (and Yosys runs) at a time, with `by_cases`.
    pub jobs: usize,
    /// With `by_cases`: only these cases of each word (by number; empty: all).
    pub cases: Vec<usize>,
    /// With `by_cases`: only these parts of the kit's product claim (None: all, or none when
    /// `cases` picks a slice).
    pub parts: Option<Vec<u32>>,
}

/// How a proof ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No divergence in `depth` steps (by cases: every claim proved).
    Proved,
    /// By cases: a claim other than a case's failed (the cover, a product), none of the
    /// cases'.
    ClaimFailed(String),
    /// A divergence: the operation that retired wrong.
    Counterexample(Divergence),
    /// Out of time; `steps` is how many steps were checked in full (steps 0 to `steps - 1`).
    OutOfTime { steps: u64 },
}

/// The operation whose result diverged, from the counterexample trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// Step of the trace the operation was issued in.
    pub issue_step: u64,
    pub ctrl: u32,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    /// The design's result (None: it retired nothing) and the kit's.
    pub design_d: Option<u64>,
    pub kit_d: u64,
    /// The design retired a result where no operation was issued.
    pub spurious: bool,
}

/// What a run found, where it left its files, and the lines it printed.
pub struct Proved {
    pub verdict: Verdict,
    pub dir: PathBuf,
    /// The tools' output ([`crate::prove_log`]).
    pub log: PathBuf,
    pub depth: u64,
    /// Edges from issue to the compare point (the later of the design's latency and the kit's).
    pub edges: u64,
    pub seconds: f64,
    pub words: Vec<HalfWord>,
    pub replay: Option<ShellCommand>,
    pub trace: Option<PathBuf>,
}

/// Exit status of each verdict: 0 proved, 1 a counterexample, 3 out of time.
pub fn exit_status(v: &Verdict) -> u8 {
    match v {
        Verdict::Proved => 0,
        Verdict::Counterexample(_) | Verdict::ClaimFailed(_) => 1,
        Verdict::OutOfTime { .. } => 3,
    }
}

/// Edges from issue to the point where both results are compared.
pub fn compare_edges(dut_edges: u64) -> u64 {
    dut_edges.max(KIT_EDGES)
}

/// The default depth: reset in step 0, an operation issued in step s is compared in step
/// s + edges; with 2 * edges + 1 steps the last one compared (issued in step edges) follows a
/// full pipe of operations (for a design whose only state is its pipe, every stream).
pub fn default_depth(dut_edges: u64) -> u64 {
    2 * compare_edges(dut_edges) + 1
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(format!("{}: {e}", path.display()))
}

/// `name` on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The tools, by name on PATH: `yosys` (the WebAssembly build, with `read_slang`),
/// `yosys-smtbmc` and the `boolector` it calls.
pub(crate) fn tools() -> Result<(PathBuf, PathBuf), Error> {
    let find = |t: &str| {
        on_path(t).ok_or_else(|| {
            Error::new(format!(
                "dut prove: no `{t}` on PATH (`make formal-tools` writes it to target/formal/bin; \
                 put that directory first on PATH)"
            ))
        })
    };
    let yosys = find("yosys")?;
    let smtbmc = find("yosys-smtbmc")?;
    find("boolector")?;
    Ok((yosys, smtbmc))
}

/// The design's edges from issue to result (its `contract.latency`: docs/dut.md counts latency
/// in rising edges from the one that takes an operation to the one that hands its result over),
/// from its manifest, and the words to prove.
pub(crate) fn check(m: &Resolved) -> Result<(u64, Vec<HalfWord>), Error> {
    let at = |s: String| Error::new(format!("dut prove: {s}"));
    let c = &m.manifest.contract;
    if c.handshake {
        return Err(at(
            "contract.handshake: the miter issues an operation in any cycle and \
             reads every result at a fixed latency; a design with a handshake is out of its \
             reach"
                .into(),
        ));
    }
    let latency =
        c.latency.ok_or_else(|| {
            at("the manifest gives no contract.latency: the miter needs the design's fixed latency \
            (rising edges from the one that takes an operation to the one that hands its result \
            over, docs/dut.md: ptxfma_top has 4)"
            .into())
        })?;
    let halves: Vec<Family> = m
        .families
        .iter()
        .copied()
        .filter(|f| matches!(f, Family::Half | Family::Half2))
        .collect();
    let words = half_words::allowed(&halves, m.forms);
    if words.is_empty() {
        return Err(at(
            "the manifest's forms allow no .f16, .f16x2, .bf16 or .bf16x2 word (families half, \
             half2): nothing to prove"
                .into(),
        ));
    }
    Ok((latency, words))
}

/// The words of `allowed` that `spellings` name, each decoded as the PTX decoder reads it.
fn pick(allowed: &[HalfWord], spellings: &[String]) -> Result<Vec<HalfWord>, Error> {
    let mut out: Vec<HalfWord> = Vec::new();
    for s in spellings {
        let ctrl = ptxfma_ptx::decode(s, ptxfma_ptx::Target::SM_100)
            .map_err(|e| Error::new(format!("--words `{s}`: {}", e.message())))?;
        let w = allowed
            .iter()
            .find(|w| w.word == ctrl.encode())
            .ok_or_else(|| {
                Error::new(format!(
                    "--words `{s}`: not a half-precision word the manifest's forms allow"
                ))
            })?;
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    Ok(out)
}

/// Copies both designs into `work` and writes the Yosys script that reads them into the miter.
fn stage(m: &Resolved, dut_edges: u64, words: &[HalfWord], work: &Path) -> Result<(), Error> {
    let Staged {
        kit_files,
        dut_args,
        top,
        miter_defines,
    } = copy_designs(m, dut_edges, work)?;
    let script = format!(
        "read_slang -j 1 {kit} --top ptxfma_top\n\
         hierarchy -top ptxfma_top\nproc\nflatten\n\
         # The kit's own signals are left out of the trace (its VCD took 30 s to write).\n\
         opt_clean -purge\nrename ptxfma_top miter_kit\nhierarchy -top miter_kit\n\
         design -stash kit\n\
         read_slang -j 1 {dut} --top {top}\n\
         hierarchy -top {top}\nproc\nflatten\nopt_clean\nrename {top} miter_dut\n\
         hierarchy -top miter_dut\ndesign -stash dut\n\
         design -copy-from kit -as miter_kit miter_kit\n\
         design -copy-from dut -as miter_dut miter_dut\n\
         read_verilog -formal -sv {defs} miter_half.sv\n\
         # prep merges the logic both designs share (opt_merge): a copy of the kit proves fast.\n\
         prep -flatten -top miter\n\
         {model}",
        kit = kit_files,
        dut = dut_args,
        defs = miter_defines,
        model = smt_model("miter.smt2"),
    );
    let write = |name: &str, text: &str| -> Result<(), Error> {
        std::fs::write(work.join(name), text).map_err(io(&work.join(name)))
    };
    write("prep.ys", &script)?;
    write("miter_half.sv", MITER_SV)?;
    write("miter_lane.svh", MITER_LANE_SVH)?;
    write("miter_forms.svh", &half_words::svh(words))
}

/// The line of `log` from byte `from` on (one tool's section) that says what went wrong:
/// Yosys's `ERROR:`, else slang's first `error:`, else the last line.
pub(crate) fn first_error(log: &Path, from: u64) -> String {
    let text = section_text(log, from);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .find(|l| l.starts_with("ERROR:"))
        .or_else(|| lines.iter().find(|l| l.contains("error:")))
        .or(lines.last())
        .map_or("no output".to_string(), |l| l.to_string())
}

/// The operation that diverged at step `fail` (the last yosys-smtbmc checked): it was issued
/// the compare point's `edges` before.
fn divergence(trace: &Trace, fail: usize, edges: u64) -> Result<Divergence, Error> {
    if trace.len() <= fail {
        return Err(Error::new(format!(
            "dut prove: the counterexample trace has {} steps, not the {} of the failure",
            trace.len(),
            fail + 1
        )));
    }
    let issue = fail.checked_sub(edges as usize).ok_or_else(|| {
        Error::new(format!(
            "dut prove: the counterexample fails at step {fail}, before any operation could \
             retire"
        ))
    })?;
    let issued = trace.at(fail, "cmp_issued") == 1;
    let dut_valid = trace.at(fail, "cmp_dut_valid") == 1;
    Ok(Divergence {
        issue_step: issue as u64,
        ctrl: trace.at(issue, "in_ctrl_i") as u32,
        a: trace.at(issue, "in_a_i"),
        b: trace.at(issue, "in_b_i"),
        c: trace.at(issue, "in_c_i"),
        design_d: dut_valid.then(|| trace.at(fail, "cmp_dut_d")),
        kit_d: trace.at(fail, "cmp_kit_d"),
        spurious: !issued,
    })
}

/// The log from byte `from` on: one tool's section and what follows.
fn section_text(log: &Path, from: u64) -> String {
    let bytes = std::fs::read(log).unwrap_or_default();
    String::from_utf8_lossy(bytes.get(from as usize..).unwrap_or_default()).into_owned()
}

/// A run made ready: the manifest read and checked, the words, the run's directory (a
/// temporary beside `--out`, removed on drop unless kept) and the log, named.
pub struct Prepared {
    pub m: Resolved,
    pub dut_edges: u64,
    pub words: Vec<HalfWord>,
    pub tmp: PathBuf,
    pub final_dir: PathBuf,
    pub log: PathBuf,
    pub t0: Instant,
    scratch: Scratch,
}

/// Reads and checks what `a` names, and makes the run's directory and log.
pub fn prepare(
    a: &ProveArgs,
    check_words: &dyn Fn(&[HalfWord]) -> Result<(), Error>,
) -> Result<Prepared, Error> {
    let t0 = Instant::now();
    children::install()?;
    let m = Manifest::load(&a.manifest)?;
    let (dut_edges, mut words) = check(&m)?;
    if !a.words.is_empty() {
        words = pick(&words, &a.words)?;
    }
    check_words(&words)?;
    let edges = compare_edges(dut_edges);
    if let Some(depth) = a.depth.filter(|d| *d < edges + 2) {
        return Err(Error::new(format!(
            "dut prove: --depth {depth} is below {}: no operation would retire in it (reset in \
             step 0, a result compared {edges} edges after its issue)",
            edges + 2
        )));
    }
    let out = &a.out;
    refuse_foreign_out(out)?;
    tools()?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let parent = parent.canonicalize().map_err(io(&parent))?;
    let name = out
        .file_name()
        .ok_or_else(|| Error::new(format!("--out {}: not a directory name", out.display())))?;
    let final_dir = parent.join(name);
    let tmp = ptxfma_cosim_engine::temporary::beside_name(&final_dir, "proving.tmp");
    ptxfma_cosim_engine::temporary::sweep(&parent);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    let scratch = Scratch(Some(tmp.clone()));

    // The log in plain sight, before anything runs (prove_log's module doc).
    let log_path = a
        .log
        .clone()
        .unwrap_or_else(|| crate::prove_log::default_path(&final_dir));
    let log = crate::prove_log::create(&log_path, &a.manifest, &final_dir)?;
    say(format_args!(
        "log: {} (Yosys, then yosys-smtbmc, as they run)",
        log.display()
    ));
    Ok(Prepared {
        m,
        dut_edges,
        words,
        tmp,
        final_dir,
        log,
        t0,
        scratch,
    })
}

/// Runs the proof of `a.manifest` into `a.out`: the stream mode.
pub fn prove(a: &ProveArgs) -> Result<Proved, Error> {
    let mut p = prepare(a, &|_| Ok(()))?;
    let (dut_edges, words, tmp, final_dir, log, t0) = (
        p.dut_edges,
        p.words.clone(),
        p.tmp.clone(),
        p.final_dir.clone(),
        p.log.clone(),
        p.t0,
    );
    let m = p.m.clone();
    let (yosys, smtbmc) = tools()?;
    let edges = compare_edges(dut_edges);
    let depth = a.depth.unwrap_or_else(|| default_depth(dut_edges));
    let spellings: Vec<&str> = words.iter().map(|w| w.spelling.as_str()).collect();
    say(format_args!(
        "words ({}): {}; a, b, c free; from reset, any operation in any cycle",
        spellings.len(),
        spellings.join(", ")
    ));

    stage(&m, dut_edges, &words, &tmp)?;
    let left = |t0: Instant| a.timeout.saturating_sub(t0.elapsed());
    let from = crate::prove_log::section(&log, "yosys -s prep.ys: both designs into the miter")?;
    say(format_args!(
        "reading both designs into the miter (Yosys) at {:.0} s ...",
        t0.elapsed().as_secs_f64()
    ));
    let read_t = Instant::now();
    let status = children::run_logged(
        Command::new(&yosys)
            .args(["-s", "prep.ys"])
            .current_dir(&tmp),
        &log,
        left(t0),
        || {},
    )?
    .map_err(|e| Error::new(format!("dut prove: {}: {e}", yosys.display())))?;
    let verdict = match status {
        None => {
            say(format_args!(
                "  cut off by the time limit while reading, after {:.1} s",
                read_t.elapsed().as_secs_f64()
            ));
            Verdict::OutOfTime { steps: 0 }
        }
        Some(s) if !s.success() || !tmp.join("miter.smt2").is_file() => {
            return Err(Error::new(format!(
                "dut prove: Yosys could not read the designs into the miter: {} (log: {})",
                first_error(&log, from),
                log.display()
            )));
        }
        Some(_) => {
            say(format_args!(
                "  read in {:.1} s; checking {depth} steps (0..{}) with yosys-smtbmc: reset in \
                 step 0, a result compared {edges} edges after its issue",
                read_t.elapsed().as_secs_f64(),
                depth - 1
            ));
            let from = crate::prove_log::section(&log, "yosys-smtbmc: the bounded check")?;
            let mut steps = crate::prove_log::Steps::new(&log, from, t0, depth, edges);
            let status = children::run_logged(
                Command::new(&smtbmc)
                    .args(crate::prove_stage::SMTBMC_ARGS)
                    .arg(depth.to_string())
                    .args(["--dump-vcd", TRACE, "miter.smt2"])
                    .current_dir(&tmp),
                &log,
                left(t0),
                || steps.poll(),
            )?
            .map_err(|e| Error::new(format!("dut prove: {}: {e}", smtbmc.display())))?;
            let text = section_text(&log, from);
            match status {
                // The last step started may not have finished.
                None => {
                    steps.end("cut off by the time limit");
                    Verdict::OutOfTime {
                        steps: steps.started().len().saturating_sub(1) as u64,
                    }
                }
                Some(_) if text.contains("Status: PASSED") => {
                    steps.end("no divergence");
                    Verdict::Proved
                }
                Some(_) if text.contains("Status: FAILED") => {
                    steps.end("a divergence");
                    // The assertion fails in the last step checked.
                    let fail = steps.started().last().copied().unwrap_or(0) as usize;
                    let trace = Trace::read(&tmp.join(TRACE))?;
                    Verdict::Counterexample(divergence(&trace, fail, edges)?)
                }
                Some(_) => {
                    return Err(Error::new(format!(
                        "dut prove: yosys-smtbmc ended without a verdict: {} (log: {})",
                        first_error(&log, from),
                        log.display()
                    )))
                }
            }
        }
    };
    let seconds = t0.elapsed().as_secs_f64();
    let build = a.dut.clone().unwrap_or_else(|| final_dir.join(DUT_BUILD));
    let (replay, trace) = match &verdict {
        Verdict::Counterexample(d) => (
            Some(
                ShellCommand::cosim()
                    .arg("replay")
                    .arg("--dut")
                    .path(&build)
                    .args(["--ctrl".to_string(), format!("{:#x}", d.ctrl)])
                    .args(["--a".to_string(), format!("{:#x}", d.a)])
                    .args(["--b".to_string(), format!("{:#x}", d.b)])
                    .args(["--c".to_string(), format!("{:#x}", d.c)]),
            ),
            Some(final_dir.join(TRACE)),
        ),
        _ => (None, None),
    };
    let record = serde_json::json!({
        "record": RECORD_KIND,
        "method": "stream",
        "manifest": a.manifest.canonicalize().unwrap_or_else(|_| a.manifest.clone()),
        "top": m.manifest.design.top,
        "verdict": verdict_name(&verdict),
        "depth": depth,
        "steps_checked": match &verdict {
            Verdict::OutOfTime { steps } => *steps,
            _ => depth,
        },
        "design_edges": dut_edges,
        "kit_edges": KIT_EDGES,
        "log": log,
        "nan": m.manifest.contract.nan.clone().unwrap_or_else(|| "ptx".into()),
        "words": words.iter().map(|w| &w.spelling).collect::<Vec<_>>(),
        "seconds": seconds,
        "timeout_seconds": a.timeout.as_secs(),
        "replay": replay.as_ref().map(|r| r.to_string()),
        "trace": trace,
    });
    keep(&tmp, &final_dir, record, &mut p)?;
    Ok(Proved {
        verdict,
        dir: final_dir,
        log,
        depth,
        edges,
        seconds,
        words,
        replay,
        trace,
    })
}

pub(crate) fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Proved => "proved",
        Verdict::Counterexample(_) => "counterexample",
        Verdict::ClaimFailed(_) => "a claim failed",
        Verdict::OutOfTime { .. } => "out of time",
    }
}

/// Writes `record` (with `files`, every file of the run and its SHA-256) into the run `tmp`
/// and renames it into `final_dir`, past the point where Ctrl-C leaves nothing.
pub(crate) fn keep(
    tmp: &Path,
    final_dir: &Path,
    mut record: serde_json::Value,
    p: &mut Prepared,
) -> Result<(), Error> {
    let files = crate::own_out::listing(tmp, RECORD)?;
    record["files"] = serde_json::to_value(files).expect("a listing serialises");
    std::fs::write(
        tmp.join(RECORD),
        serde_json::to_string_pretty(&record).expect("a record serialises") + "\n",
    )
    .map_err(io(tmp))?;
    refuse_foreign_out(final_dir)?;
    children::commit(|| {
        if final_dir.exists() {
            std::fs::remove_dir_all(final_dir)?;
        }
        std::fs::rename(tmp, final_dir)
    })?
    .map_err(io(final_dir))?;
    p.scratch.0 = None;
    Ok(())
}

/// A progress line, printed as the proof goes (an unwritable stdout does not stop it).
pub(crate) fn say(line: std::fmt::Arguments<'_>) {
    let _ = ptxfma_cli_common::outln!("{line}");
}

/// A directory removed on drop unless kept.
pub(crate) struct Scratch(Option<PathBuf>);

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(d) = self.0.take() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
