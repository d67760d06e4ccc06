//! `fma-cosim dut prove --by-cases`: a team's design proved equal to the kit's `ptxfma_top`,
//! one half-precision word at a time, by claims small enough for a SAT solver
//! (`formal/miter_cases.sv`, docs/formal.md "Proof by cases"):
//!
//! - one operation, issued after reset into an empty pipe with bubbles around it, its operands
//!   free but held still; the pipe's handling of streams is `dut prove`'s other mode and
//!   `run --dut`'s;
//! - both significand products cut and driven from one specification multiplier, each cut
//!   justified by a claim of its own (the kit's Booth array, the design's product wire), so
//!   that the two multipliers never meet in one miter;
//! - the operand triples split into cases ([`crate::cases`]), each its own claim, and a claim
//!   that the cases cover every triple.
//!
//! Yosys reads both designs once per word and writes every claim's model; the claims then run
//! `--jobs` at a time, each reported as it ends (proved, counterexample, out of time, with its
//! time). A counterexample is a `replay --dut` line. As the other mode, the run is made beside
//! `--out` and renamed into place.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::command::ShellCommand;

use super::cases::{self, Case};
use super::children;
use super::claims::{describe, line, record, verdict, ByCases, Claim, ClaimKind, ClaimVerdict};
use super::half_words::HalfWord;
use super::kit_claims::KitClaim;
use super::prove::{self, ProveArgs};
use super::prove_stage::{self, Staged};
use super::trace::Trace;

/// The miter, compiled into the binary as `prove`'s is.
const MITER_SV: &str = include_str!("../../../formal/miter_cases.sv");

/// Rising edges from issue to the compare step, and the model's depth (reset, issue, the pipe).
fn depth(edges: u64) -> u64 {
    edges + 2
}

/// The models of a word, one per kind of claim: each claim runs one of them (a split claim's
/// part pinned by a constraint file, [`smtc`]).
const MODELS: [(&str, &str); 4] = [
    ("cover", "-DCLAIM_COVER"),
    ("kit_product", "-DCLAIM_KIT_PRODUCT"),
    ("dut_product", "-DCLAIM_DUT_PRODUCT"),
    ("case", "-DCLAIM_CASE"),
];

/// The model a claim runs.
fn model(kind: ClaimKind) -> &'static str {
    match kind {
        ClaimKind::Cover => MODELS[0].0,
        ClaimKind::KitProduct(_) => MODELS[1].0,
        ClaimKind::DutProduct => MODELS[2].0,
        ClaimKind::Case(_) => MODELS[3].0,
    }
}

/// The file stem of a claim's log, trace and constraints in its word's directory.
fn stem(kind: ClaimKind) -> String {
    match kind {
        ClaimKind::KitProduct(Some(p)) => format!("kit_product{p}"),
        ClaimKind::Case(k) => format!("case{k}"),
        k => model(k).into(),
    }
}

/// The yosys-smtbmc constraint file that pins a split claim's part (an anyconst of the miter).
fn smtc(kind: ClaimKind) -> Option<String> {
    let (reg, v) = match kind {
        ClaimKind::Case(k) => ("case_sel", k as u32),
        ClaimKind::KitProduct(Some(p)) => ("part_sel", p),
        _ => return None,
    };
    Some(format!("always\nassume (= [{reg}] #b{v:08b})\n"))
}

/// Steps of a claim's bounded check: reset, issue and the steps to its check.
fn claim_depth(kind: ClaimKind, edges: u64, dut_stage: u64) -> u64 {
    match kind {
        ClaimKind::Cover | ClaimKind::KitProduct(_) => 2,
        ClaimKind::DutProduct => 2 + dut_stage,
        ClaimKind::Case(_) => depth(edges),
    }
}

/// The Yosys script of one word: both designs read once (each product cut), then every claim's
/// model written from a copy.
fn word_script(s: &Staged, dir: &str, cut: Option<&str>) -> String {
    let top = &s.top;
    let mut y = format!(
        "read_slang -j 1 {kit} --top ptxfma_top\n\
         hierarchy -top ptxfma_top\nproc\nflatten\nchformal -remove\n\
         # The kit's product: the Booth array's carry-save pair, cut before its adder.\n\
         expose -cut -sep _ w:mul_sum w:mul_carry\n\
         cd ptxfma_top\nrename mul_sum cut_sum_o\nrename mul_sum_i cut_sum_i\n\
         rename mul_carry cut_carry_o\nrename mul_carry_i cut_carry_i\ncd\n\
         opt_clean -purge\nrename ptxfma_top miter_kit\nhierarchy -top miter_kit\n\
         design -stash kit\n\
         read_slang -j 1 {dut} --top {top}\n\
         hierarchy -top {top}\nproc\nflatten\n\
         # The design's own assertions and assumptions are not the miter's: an assumption of \
         theirs would narrow every claim.\n\
         chformal -remove\n",
        kit = s.kit_files,
        dut = s.dut_args,
    );
    if let Some(w) = cut {
        y += &format!(
            "expose -cut -sep _ w:{w}\ncd {top}\nrename {w} cut_prod_o\nrename {w}_i cut_prod_i\n\
             cd\n"
        );
    }
    y += &format!(
        "opt_clean\nrename {top} miter_dut\nhierarchy -top miter_dut\ndesign -stash dut\n\
         design -copy-from kit -as miter_kit miter_kit\n\
         design -copy-from dut -as miter_dut miter_dut\ndesign -save both\n"
    );
    for (name, claim) in MODELS {
        if name == "dut_product" && cut.is_none() {
            continue;
        }
        y += &format!(
            "design -load both\n\
             read_verilog -formal -sv -I {dir} {defs} {claim} miter_cases.sv\n\
             hierarchy -top miter\nproc\n\
             # The bits of the miter's product wire past the design's read zero.\n\
             setundef -undriven -zero miter/w:dut_p_o\n\
             prep -flatten -top miter\n{model}",
            defs = s.miter_defines,
            model = prove_stage::smt_model(&format!("{dir}/{name}.smt2")),
        );
    }
    y
}

/// Runs `work(i)` for i in 0..n, `jobs` at a time, in order of i.
fn pool<R: Send>(jobs: usize, n: usize, work: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n {
                    break;
                }
                let r = work(i);
                out.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every item is worked"))
        .collect()
}

/// The operands and results of a failed claim from its trace: the operation is issued in step
/// 1 and compared `edges` edges later.
fn counterexample(trace: &Path, kind: ClaimKind, edges: u64) -> Result<ClaimVerdict, Error> {
    let t = Trace::read(trace)?;
    let at = (1 + edges) as usize;
    let results = matches!(kind, ClaimKind::Case(_)).then(|| {
        let design = (t.at(at, "dut_valid") == 1).then(|| t.at(at, "dut_d"));
        (t.at(at, "kit_d"), design)
    });
    Ok(ClaimVerdict::Counterexample {
        a: t.at(1, "op_a"),
        b: t.at(1, "op_b"),
        c: t.at(1, "op_c"),
        results,
    })
}

/// What a run by cases found, where it left its files.
pub struct Outcome {
    pub by: ByCases,
    pub verdict: prove::Verdict,
    pub dir: PathBuf,
    pub log: PathBuf,
    pub seconds: f64,
}

/// Runs `dut prove --by-cases` of `a.manifest` into `a.out`.
pub fn prove(a: &ProveArgs) -> Result<Outcome, Error> {
    let mut p = prove::prepare(a, &|words| check_slice(a, words))?;
    let spellings: Vec<&str> = p.words.iter().map(|w| w.spelling.as_str()).collect();
    prove::say(format_args!(
        "words ({}): {}; one operation from reset, a, b, c free, split into cases",
        spellings.len(),
        spellings.join(", ")
    ));
    let by = by_cases(a, &p, &|l| prove::say(l))?;
    let verdict = verdict(&by);
    let seconds = p.t0.elapsed().as_secs_f64();
    let mut fields = serde_json::json!({
        "record": prove::RECORD_KIND,
        "manifest": a.manifest.canonicalize().unwrap_or_else(|_| a.manifest.clone()),
        "top": p.m.manifest.design.top,
        "method": "cases",
        "verdict": prove::verdict_name(&verdict),
        "design_edges": p.dut_edges,
        "kit_edges": prove::KIT_EDGES,
        "log": p.log,
        "nan": p.m.manifest.contract.nan.clone().unwrap_or_else(|| "ptx".into()),
        "seconds": seconds,
        "timeout_seconds": a.timeout.as_secs(),
        "jobs": a.jobs,
        "replay": by.replay.as_ref().map(|r| r.to_string()),
    });
    let claims = record(&by, &p.final_dir);
    if let (Some(f), Some(r)) = (fields.as_object_mut(), claims.as_object()) {
        f.extend(r.clone());
    }
    let (tmp, final_dir) = (p.tmp.clone(), p.final_dir.clone());
    prove::keep(&tmp, &final_dir, fields, &mut p)?;
    Ok(Outcome {
        by,
        verdict,
        dir: final_dir,
        log: p.log.clone(),
        seconds,
    })
}

/// Whether `--cases` and `--parts` name cases and parts each one-lane word has: checked before
/// anything is written (the log, the run's directory).
fn check_slice(a: &ProveArgs, words: &[HalfWord]) -> Result<(), Error> {
    for w in words.iter().filter(|w| !w.x2()) {
        let bits = cases::kit_product_bits(w);
        if let Some(p) = a
            .parts
            .iter()
            .flatten()
            .find(|&&p| bits > 0 && p >= 1 << bits)
        {
            return Err(Error::new(format!(
                "--parts {p}: the kit's product claim of `{}` has parts 0 to {}",
                w.spelling,
                (1u32 << bits) - 1
            )));
        }
        let all = cases::cases(w).len();
        if let Some(k) = a.cases.iter().find(|&&k| k >= all) {
            return Err(Error::new(format!(
                "--cases {k}: `{}` has cases 0 to {}",
                w.spelling,
                all - 1
            )));
        }
    }
    Ok(())
}

/// Proves the words of `p` by cases in its run directory.
fn by_cases(
    a: &ProveArgs,
    p: &prove::Prepared,
    say: &(dyn Fn(std::fmt::Arguments<'_>) + Sync),
) -> Result<ByCases, Error> {
    let (m, dut_edges, all_words, tmp, log, t0) = (
        &p.m,
        p.dut_edges,
        p.words.clone(),
        p.tmp.as_path(),
        p.log.as_path(),
        p.t0,
    );
    let (words, left): (Vec<HalfWord>, Vec<HalfWord>) =
        all_words.into_iter().partition(|w| !w.x2());
    if words.is_empty() {
        return Err(Error::new(
            "dut prove --by-cases: the words are all two-lane (.f16x2, .bf16x2), which the \
             cases do not split; prove them without --by-cases",
        ));
    }
    if !left.is_empty() {
        let names: Vec<&str> = left.iter().map(|w| w.spelling.as_str()).collect();
        say(format_args!(
            "left to the stream proof (two lanes, not split into cases): {}",
            names.join(", ")
        ));
    }
    let edges = prove::compare_edges(dut_edges);
    let staged = prove_stage::copy_designs(m, dut_edges, tmp)?;
    std::fs::write(tmp.join("miter_cases.sv"), MITER_SV).map_err(io(tmp))?;
    std::fs::write(tmp.join("miter_lane.svh"), prove::MITER_LANE_SVH).map_err(io(tmp))?;
    let products = m.manifest.prove.as_ref().map(|p| &p.product);
    let cut_of = |w: &HalfWord| {
        let name = if w.bf16() { "bf16" } else { "f16" };
        products.and_then(|p| p.get(name))
    };

    // Each word's claims, in the order they run: the cover and the cuts first.
    let mut plan: Vec<(usize, Vec<Case>, Vec<ClaimKind>)> = Vec::new();
    let mut not_run: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let all = cases::cases(w);
        // The cheap claims first, then the cases, then the kit's product parts: a fault in
        // the design shows in a case's minute, not after the kit's half hour.
        let mut kinds = vec![ClaimKind::Cover];
        if cut_of(w).is_some() {
            kinds.push(ClaimKind::DutProduct);
        }
        let mut kit_parts = Vec::new();
        let bits = cases::kit_product_bits(w);
        if bits == 0 {
            kit_parts.push(ClaimKind::KitProduct(None));
        } else {
            // A slice of the cases runs none of the kit's product parts unless named.
            let all_parts = 1u32 << bits;
            let parts: Vec<u32> = match &a.parts {
                Some(p) => p.clone(),
                None if a.cases.is_empty() => (0..all_parts).collect(),
                None => Vec::new(),
            };
            if (parts.len() as u32) < all_parts {
                not_run.push(format!(
                    "{}: {} of the {all_parts} parts of the kit's product claim",
                    w.spelling,
                    all_parts as usize - parts.len()
                ));
                say(format_args!(
                    "{}: {} of the {all_parts} parts of the kit's product claim run here; the \
                     cases rest on all of them",
                    w.spelling,
                    parts.len()
                ));
            }
            kit_parts.extend(parts.iter().map(|&p| ClaimKind::KitProduct(Some(p))));
        }
        let picked: Vec<usize> = if a.cases.is_empty() {
            (0..all.len()).collect()
        } else {
            a.cases.clone()
        };
        if picked.len() < all.len() {
            not_run.push(format!(
                "{}: {} of its {} cases",
                w.spelling,
                all.len() - picked.len(),
                all.len()
            ));
        }
        kinds.extend(picked.iter().map(|&k| ClaimKind::Case(k)));
        kinds.extend(kit_parts);
        let dir = tmp.join(format!("w{i}"));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let svh = cases::svh(w, &all, cut_of(w).map(|c| c.stage));
        std::fs::write(dir.join("miter_case.svh"), svh).map_err(io(&dir))?;
        say(format_args!("{}: {} case(s)", w.spelling, all.len()));
        for (k, c) in all.iter().enumerate() {
            if picked.contains(&k) {
                say(format_args!("  case {k}: {}", c.name));
            }
        }
        plan.push((i, all, kinds));
    }
    match products {
        Some(p) if !p.is_empty() => {}
        _ => say(format_args!(
            "the manifest names no product wire ([prove.product]): the design's multiplier \
             stays in every case, beside the specification's"
        )),
    }

    let (yosys, smtbmc) = prove::tools()?;
    let deadline = t0 + a.timeout;
    let left_time = || deadline.saturating_duration_since(Instant::now());
    let log_lock = Mutex::new(());

    // Yosys: every claim's model of each word, words `jobs` at a time.
    say(format_args!(
        "reading both designs and writing each claim's model (Yosys), {} word(s) ...",
        plan.len()
    ));
    let read = pool(a.jobs, plan.len(), |p| -> Result<Option<f64>, Error> {
        let (i, _, _) = &plan[p];
        let dir = format!("w{i}");
        let script = word_script(&staged, &dir, cut_of(&words[*i]).map(|c| c.wire.as_str()));
        let ys = tmp.join(format!("{dir}/prep.ys"));
        std::fs::write(&ys, script).map_err(io(&ys))?;
        let ylog = tmp.join(format!("{dir}/yosys.log"));
        let t = Instant::now();
        let status = children::run_logged(
            Command::new(&yosys)
                .args(["-q", "-s"])
                .arg(format!("{dir}/prep.ys"))
                .current_dir(tmp),
            &ylog,
            left_time(),
            || {},
        )?
        .map_err(|e| Error::new(format!("dut prove: {}: {e}", yosys.display())))?;
        append(log, &log_lock, &ylog);
        match status {
            None => Ok(None),
            Some(s) if !s.success() => Err(Error::new(format!(
                "dut prove: Yosys could not read the designs into the miter for `{}`: {} \
                 (log: {})",
                words[*i].spelling,
                prove::first_error(&ylog, 0),
                ylog.display()
            ))),
            Some(_) => Ok(Some(t.elapsed().as_secs_f64())),
        }
    });
    let mut read_ok = Vec::new();
    for (r, (i, _, _)) in read.into_iter().zip(&plan) {
        let r = r?;
        if let Some(s) = r {
            say(format_args!("  {}: models in {s:.1} s", words[*i].spelling));
        }
        read_ok.push(r.is_some());
    }

    // The claims, `jobs` at a time.
    let work: Vec<(usize, ClaimKind)> = plan
        .iter()
        .zip(&read_ok)
        .flat_map(|((i, _, kinds), ok)| kinds.iter().map(move |k| (*i, *k, *ok)))
        .filter_map(|(i, k, ok)| ok.then_some((i, k)))
        .collect();
    say(format_args!(
        "{} claim(s), {} at a time, each a bounded check of {} steps (yosys-smtbmc) ...",
        work.len(),
        a.jobs,
        depth(edges)
    ));
    // The kit's product claims proved before (kit_claims): everything they depend on.
    let cache = crate::runtime_cache::dir().map(|d| d.join("proofs"));
    let mut kit_rtl = Vec::new();
    for f in staged.kit_files.split_whitespace() {
        kit_rtl.extend_from_slice(f.as_bytes());
        kit_rtl.extend(std::fs::read(tmp.join(f)).map_err(io(&tmp.join(f)))?);
    }
    let model_prep = prove_stage::smt_model("");
    let kit_claim = |i: usize, part: Option<u32>| {
        let all = &plan.iter().find(|p| p.0 == i).expect("planned").1;
        let svh = cases::svh(&words[i], all, None);
        let part = format!("{part:?}");
        cache.as_ref().map(|d| {
            KitClaim::new(
                d,
                &[
                    &kit_rtl,
                    MITER_SV.as_bytes(),
                    prove::MITER_LANE_SVH.as_bytes(),
                    model_prep.as_bytes(),
                    svh.as_bytes(),
                    part.as_bytes(),
                ],
            )
        })
    };
    let claims = pool(a.jobs, work.len(), |n| -> Result<Claim, Error> {
        let (i, kind) = work[n];
        let all = &plan.iter().find(|p| p.0 == i).expect("planned").1;
        let dir = tmp.join(format!("w{i}"));
        let s = stem(kind);
        let clog = dir.join(format!("{s}.log"));
        let name = describe(kind, &words[i], all);
        let kept = match kind {
            ClaimKind::KitProduct(part) => kit_claim(i, part),
            _ => None,
        };
        if let Some(then) = kept.as_ref().and_then(KitClaim::proved) {
            let claim = Claim {
                word: i,
                kind,
                name,
                verdict: ClaimVerdict::Proved,
                seconds: 0.0,
                log: PathBuf::from(format!("w{i}/{s}.log")),
                cached: Some(then),
            };
            let entry = kept
                .as_ref()
                .map_or(PathBuf::new(), |k| k.path().to_path_buf());
            std::fs::write(&clog, format!("proved before: {}\n", entry.display()))
                .map_err(io(&clog))?;
            say(format_args!("  {}", line(&claim, &words[i])));
            return Ok(claim);
        }
        let t = Instant::now();
        let limit = left_time();
        let verdict = if limit.is_zero() || children::interrupted() {
            ClaimVerdict::NotStarted
        } else {
            let stage = cut_of(&words[i]).map_or(0, |c| c.stage);
            let mut cmd = Command::new(&smtbmc);
            cmd.args(crate::prove_stage::SMTBMC_ARGS)
                .arg(claim_depth(kind, edges, stage).to_string())
                .arg("--dump-vcd")
                .arg(format!("{s}.vcd"));
            if let Some(text) = smtc(kind) {
                let f = dir.join(format!("{s}.smtc"));
                std::fs::write(&f, text).map_err(io(&f))?;
                cmd.arg("--smtc").arg(format!("{s}.smtc"));
            }
            let status = children::run_logged(
                cmd.arg(format!("{}.smt2", model(kind))).current_dir(&dir),
                &clog,
                limit,
                || {},
            )?
            .map_err(|e| Error::new(format!("dut prove: {}: {e}", smtbmc.display())))?;
            let text = std::fs::read_to_string(&clog).unwrap_or_default();
            match status {
                None => ClaimVerdict::OutOfTime,
                Some(_) if text.contains("Status: PASSED") => ClaimVerdict::Proved,
                Some(_) if text.contains("Status: FAILED") => {
                    counterexample(&dir.join(format!("{s}.vcd")), kind, edges)?
                }
                Some(_) => {
                    return Err(Error::new(format!(
                        "dut prove: yosys-smtbmc ended without a verdict on `{}` {name}: {} \
                         (log: {})",
                        words[i].spelling,
                        prove::first_error(&clog, 0),
                        clog.display()
                    )))
                }
            }
        };
        let seconds = t.elapsed().as_secs_f64();
        append(log, &log_lock, &clog);
        let claim = Claim {
            word: i,
            kind,
            name,
            verdict,
            seconds,
            log: PathBuf::from(format!("w{i}/{s}.log")),
            cached: None,
        };
        if let (Some(k), ClaimVerdict::Proved) = (&kept, &claim.verdict) {
            k.keep(&claim.name, seconds);
        }
        say(format_args!("  {}", line(&claim, &words[i])));
        Ok(claim)
    });
    let mut claims = claims.into_iter().collect::<Result<Vec<_>, _>>()?;
    // A word whose models the time limit cut off: each of its claims, not started.
    for ((i, all, kinds), ok) in plan.iter().zip(&read_ok) {
        if !ok {
            for &kind in kinds {
                let claim = Claim {
                    word: *i,
                    kind,
                    name: describe(kind, &words[*i], all),
                    verdict: ClaimVerdict::NotStarted,
                    seconds: 0.0,
                    log: PathBuf::from(format!("w{i}/yosys.log")),
                    cached: None,
                };
                say(format_args!("  {}", line(&claim, &words[*i])));
                claims.push(claim);
            }
        }
    }
    if children::interrupted() {
        return Err(Error::new("interrupted"));
    }
    let build = a
        .dut
        .clone()
        .unwrap_or_else(|| a.out.join(prove::DUT_BUILD));
    let replay = claims.iter().find_map(|c| match (&c.verdict, c.kind) {
        (ClaimVerdict::Counterexample { a: x, b, c: z, .. }, ClaimKind::Case(_)) => {
            Some(replay_line(&build, &words[c.word], *x, *b, *z))
        }
        _ => None,
    });
    Ok(ByCases {
        words,
        left,
        claims,
        replay,
        not_run,
    })
}

/// `fma-cosim replay --dut BUILD` of one operation.
pub fn replay_line(build: &Path, w: &HalfWord, a: u64, b: u64, c: u64) -> ShellCommand {
    ShellCommand::cosim()
        .arg("replay")
        .arg("--dut")
        .path(build)
        .args(["--ctrl".to_string(), w.spelling.clone()])
        .args(["--a".to_string(), format!("{a:#x}")])
        .args(["--b".to_string(), format!("{b:#x}")])
        .args(["--c".to_string(), format!("{c:#x}")])
}

/// Appends a claim's or a word's own log to the run's log, one at a time.
fn append(log: &Path, lock: &Mutex<()>, part: &Path) {
    use std::io::Write as _;
    let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
    let text = std::fs::read(part).unwrap_or_default();
    if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(log) {
        let _ = writeln!(f, "\n== {} ==", part.display());
        let _ = f.write_all(&text);
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::new(format!("{}: {e}", path.display()))
}
