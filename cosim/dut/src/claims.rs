//! The claims of `dut prove --by-cases` ([`crate::prove_cases`]): what each says, how it
//! ended, its line in the report, the run's verdict from them, and their record in
//! `prove.json`.

use std::path::{Path, PathBuf};

use ptxfma_cosim_outputs::command::ShellCommand;

use super::cases::{self, Case};
use super::half_words::HalfWord;
use super::prove::{Divergence, Verdict};

/// What one claim says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// The cases cover every operand triple.
    Cover,
    /// The kit's multiplier computes the specification product, for the b whose significand's
    /// top bits are the part ([`cases::kit_product_bits`]; None: b is a constant).
    KitProduct(Option<u32>),
    /// The design's product wire holds the specification product.
    DutProduct,
    /// Both designs agree on every operand triple of the case.
    Case(usize),
}

/// How a claim ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimVerdict {
    Proved,
    /// Operands (as issued: a, b, c) for which the claim fails, with both results where the
    /// claim compares them (kit, design; None: the design retired nothing).
    Counterexample {
        a: u64,
        b: u64,
        c: u64,
        results: Option<(u64, Option<u64>)>,
    },
    /// Cut off by `--timeout`.
    OutOfTime,
    /// Never started: `--timeout` had passed.
    NotStarted,
}

/// One claim of one word: its model and how it ended.
#[derive(Clone, Debug)]
pub struct Claim {
    pub word: usize,
    pub kind: ClaimKind,
    pub name: String,
    pub verdict: ClaimVerdict,
    pub seconds: f64,
    /// The claim's yosys-smtbmc output, relative to the run's directory.
    pub log: PathBuf,
    /// A kit claim proved before, kept in the cache ([`crate::kit_claims`]): the seconds it
    /// took then.
    pub cached: Option<f64>,
}

impl Claim {
    /// The counterexample's waveform (yosys-smtbmc's `--dump-vcd`, beside its log), relative
    /// to the run's directory; none for a claim that has no counterexample.
    pub fn trace(&self) -> Option<PathBuf> {
        matches!(self.verdict, ClaimVerdict::Counterexample { .. })
            .then(|| self.log.with_extension("vcd"))
    }
}

/// The words proved, their claims, and the replay line of the first counterexample.
pub struct ByCases {
    pub words: Vec<HalfWord>,
    /// Words of the manifest left to the stream proof (two lanes).
    pub left: Vec<HalfWord>,
    pub claims: Vec<Claim>,
    pub replay: Option<ShellCommand>,
    /// What `--cases` or `--parts` left out, by word (empty: nothing; the run is the proof).
    pub not_run: Vec<String>,
}

/// A claim's name in the report.
pub fn describe(kind: ClaimKind, w: &HalfWord, cases: &[Case]) -> String {
    match kind {
        ClaimKind::Cover => "the cases cover every operand triple".into(),
        ClaimKind::KitProduct(None) => "the kit's multiplier is the specification product".into(),
        ClaimKind::KitProduct(Some(p)) => format!(
            "the kit's multiplier is the specification product, b's significand's top {} bits \
             {p:#x}",
            cases::kit_product_bits(w)
        ),
        ClaimKind::DutProduct => "the design's product wire is the specification product".into(),
        ClaimKind::Case(k) => format!("case {k}, {}", cases[k].name),
    }
}

/// A claim's line in the report.
pub fn line(c: &Claim, w: &HalfWord) -> String {
    let what = match &c.verdict {
        ClaimVerdict::Proved => match c.cached {
            Some(then) => format!("proved before, kept in the cache ({then:.1} s then)"),
            None => format!("proved in {:.1} s", c.seconds),
        },
        ClaimVerdict::OutOfTime => format!("out of time after {:.1} s", c.seconds),
        ClaimVerdict::NotStarted => "not started (out of time)".to_string(),
        ClaimVerdict::Counterexample {
            a,
            b,
            c: z,
            results,
        } => {
            let ops = format!("a={a:#06x} b={b:#06x} c={z:#06x}");
            match results {
                Some((kit, Some(got))) => format!(
                    "counterexample in {:.1} s: {ops}: the design gave {got:#06x}, the kit {kit:#06x}",
                    c.seconds
                ),
                Some((kit, None)) => format!(
                    "counterexample in {:.1} s: {ops}: the design retired nothing at its latency \
                     where the kit gave {kit:#06x}",
                    c.seconds
                ),
                None => format!("fails in {:.1} s: {ops}", c.seconds),
            }
        }
    };
    format!("{} {}: {what}", w.spelling, c.name)
}

/// The run's verdict: proved when every claim is; a counterexample when a case has one (the
/// first); a failed claim when the cover or a product claim fails; else out of time.
pub fn verdict(by: &ByCases) -> Verdict {
    for c in &by.claims {
        if let (
            ClaimVerdict::Counterexample {
                a,
                b,
                c: z,
                results: Some((kit, design)),
            },
            ClaimKind::Case(_),
        ) = (&c.verdict, c.kind)
        {
            return Verdict::Counterexample(Divergence {
                issue_step: 1,
                ctrl: by.words[c.word].word,
                a: *a,
                b: *b,
                c: *z,
                design_d: *design,
                kit_d: *kit,
                spurious: false,
            });
        }
    }
    if let Some(c) = by
        .claims
        .iter()
        .find(|c| matches!(c.verdict, ClaimVerdict::Counterexample { .. }))
    {
        return Verdict::ClaimFailed(line(c, &by.words[c.word]));
    }
    if !by.claims.is_empty() && by.claims.iter().all(|c| c.verdict == ClaimVerdict::Proved) {
        Verdict::Proved
    } else {
        Verdict::OutOfTime { steps: 0 }
    }
}

/// The claims in `prove.json`: by word, each claim's name, verdict, time and log (relative to
/// the run's directory `dir`).
pub fn record(by: &ByCases, dir: &Path) -> serde_json::Value {
    let words: Vec<serde_json::Value> =
        by.words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let claims: Vec<serde_json::Value> = by
                .claims
                .iter()
                .filter(|c| c.word == i)
                .map(|c| {
                    let (verdict, cex) = match &c.verdict {
                        ClaimVerdict::Proved => ("proved", serde_json::Value::Null),
                        ClaimVerdict::OutOfTime => ("out of time", serde_json::Value::Null),
                        ClaimVerdict::NotStarted => ("not started", serde_json::Value::Null),
                        ClaimVerdict::Counterexample { a, b, c: z, results } => (
                            "counterexample",
                            serde_json::json!({
                                "a": format!("{a:#x}"), "b": format!("{b:#x}"),
                                "c": format!("{z:#x}"),
                                "kit": results.map(|r| format!("{:#06x}", r.0)),
                                "design": results.and_then(|r| r.1).map(|d| format!("{d:#06x}")),
                            }),
                        ),
                    };
                    serde_json::json!({
                        "claim": c.name,
                        "case": match c.kind { ClaimKind::Case(k) => Some(k), _ => None },
                        "verdict": verdict,
                        "seconds": (c.seconds * 10.0).round() / 10.0,
                        "cached": c.cached.is_some(),
                        "counterexample": cex,
                        "trace": c.trace().map(|t| dir.join(t)),
                        "log": dir.join(&c.log),
                    })
                })
                .collect();
                serde_json::json!({ "word": w.spelling, "claims": claims })
            })
            .collect();
    serde_json::json!({
        "words": words,
        "not_run": by.not_run,
        "left_to_the_stream_proof": by.left.iter().map(|w| &w.spelling).collect::<Vec<_>>(),
    })
}
