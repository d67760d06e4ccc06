//! Whether a results file agrees with itself: its parameters within what `run` accepts, its
//! chunks the plan's, each chunk's counts adding up, and every total (families, signatures,
//! `passed`, `stopped`) what its chunks and examples give. `merge` refuses a file that does
//! not, since it recomputes the totals from the chunks and would otherwise believe them.
//!
//! What it cannot see is a file consistent with itself but false (every count zeroed):
//! `merge --verify` runs some of its chunks again for that.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{RunResult, MAX_DIVERGENCES};
use ptxfma_cosim_engine::chunk::{self, Shard};
use ptxfma_cosim_engine::ports::BOUND_RANGE;
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::stream::Families;

/// Largest `run --count`: beyond this a run is a farm's job, split with `--shard`.
pub const MAX_COUNT: u64 = 1 << 40;
/// Largest `run --chunk-size`.
pub const MAX_CHUNK_SIZE: u64 = 1 << 32;
/// Largest `run --max-examples`.
pub const MAX_EXAMPLES: u64 = 1_000_000;
/// Largest `run --window` (cycles of a waveform).
pub const MAX_WINDOW: u64 = 100_000;

/// A field of a results file that disagrees with the rest of it, or with what `run` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// The field, as a JSON path (`chunks[3].by_family`, `params.window`).
    pub field: String,
    /// The chunk it belongs to, where it is a chunk's.
    pub chunk: Option<usize>,
    pub why: String,
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`", self.field)?;
        if let Some(c) = self.chunk {
            write!(f, " (chunk {c})")?;
        }
        write!(f, ": {}", self.why)
    }
}

fn bad<T>(field: impl Into<String>, chunk: Option<usize>, why: String) -> Result<T, Inconsistency> {
    Err(Inconsistency {
        field: field.into(),
        chunk,
        why,
    })
}

/// `value` within `lo..=hi`, as `run`'s option `option` takes it.
fn within(field: &str, value: u64, lo: u64, hi: u64, option: &str) -> Result<(), Inconsistency> {
    if value < lo || value > hi {
        return bad(
            field,
            None,
            format!("{value} is outside {lo}..={hi}, what `run {option}` accepts"),
        );
    }
    Ok(())
}

/// The longest time a file may give (about 31,700 years): a merge adds its inputs' times, and
/// a sum of such times stays finite, so the merged file's `seconds` is a number, not `null`.
pub const MAX_SECONDS: f64 = 1e12;

/// A time as `run` measures it: finite, not negative, at most [`MAX_SECONDS`].
fn time(field: &str, chunk: Option<usize>, s: f64) -> Result<(), Inconsistency> {
    if !s.is_finite() || !(0.0..=MAX_SECONDS).contains(&s) {
        return bad(
            field,
            chunk,
            format!("{s:?} is not a time in seconds (0 to 1e12)"),
        );
    }
    Ok(())
}

/// Two derived times equal but for the last digits a JSON round trip may change.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-9)
}

/// Checks that `r` agrees with itself and with the run its parameters plan (see the module).
pub fn check(r: &RunResult) -> Result<(), Inconsistency> {
    let fams = params(r)?;
    let p = &r.params;
    if let Some(s) = r.shard {
        if let Err(why) = s.to_string().parse::<Shard>() {
            return bad("shard", None, format!("shard {s} cannot be: {why}"));
        }
    }
    let planned = p.count.div_ceil(p.chunk_size);
    if r.chunks_planned as u64 != planned {
        return bad(
            "chunks_planned",
            None,
            format!(
                "chunks_planned {} disagrees with its parameters (count {}, chunk_size {}: \
                 {planned} chunks)",
                r.chunks_planned, p.count, p.chunk_size
            ),
        );
    }
    if r.jobs == 0 {
        return bad("jobs", None, "0 workers ran it".into());
    }
    time("seconds", None, r.seconds)?;
    chunks(r, &fams)?;
    examples(r)?;
    totals(r)
}

/// The parameters within what `run` accepts; the run's families.
fn params(r: &RunResult) -> Result<Families, Inconsistency> {
    let p = &r.params;
    within("params.count", p.count, 1, MAX_COUNT, "--count")?;
    within(
        "params.chunk_size",
        p.chunk_size,
        1,
        MAX_CHUNK_SIZE,
        "--chunk-size",
    )?;
    let max = MAX_DIVERGENCES as u64;
    within(
        "params.max_divergences",
        p.max_divergences as u64,
        1,
        max,
        "--max-divergences",
    )?;
    let examples = p.max_examples as u64;
    within(
        "params.max_examples",
        examples,
        1,
        MAX_EXAMPLES,
        "--max-examples",
    )?;
    within("params.window", p.window as u64, 1, MAX_WINDOW, "--window")?;
    let mut seen = BTreeSet::new();
    let mut fams = Vec::new();
    for f in &p.filter {
        let Some(fam) = Family::parse(f).filter(|_| seen.insert(f.as_str())) else {
            return bad(
                "params.filter",
                None,
                format!("`{f}` is not one family of the run"),
            );
        };
        fams.push(fam);
    }
    let fams = Families(fams);
    if let Err(e) = chunk::check(p.count, &fams, p.chunk_size) {
        return bad("params", None, format!("the run's parameters: {e}"));
    }
    match (p.compare.as_str(), p.latency_bound) {
        ("registers", None) if p.nan.is_none() => {}
        ("ports", Some(b)) if BOUND_RANGE.contains(&b) => {}
        ("ports", Some(b)) => {
            let (lo, hi) = (BOUND_RANGE.start(), BOUND_RANGE.end());
            return bad(
                "params.latency_bound",
                None,
                format!("{b} is outside {lo}..={hi}, what `run --latency-bound` accepts"),
            );
        }
        (c, b) => {
            return bad(
                "params.compare",
                None,
                format!("`{c}` with latency_bound {b:?} and nan {:?}", p.nan),
            )
        }
    }
    Ok(fams)
}

/// The chunks: the plan's (seed, operations, families), of the shard, in order, each counted
/// consistently, and all of the shard's up to where the run stopped.
fn chunks(r: &RunResult, fams: &Families) -> Result<(), Inconsistency> {
    let p = &r.params;
    let names: BTreeSet<&str> = p.filter.iter().map(String::as_str).collect();
    let mut previous = None;
    for (k, c) in r.chunks.iter().enumerate() {
        let at = |f: &str| format!("chunks[{k}].{f}");
        let plan = chunk::nth(p.seed, p.count, fams, p.chunk_size, c.index as u64);
        let same = plan.is_some_and(|k| {
            k.seed == c.seed && k.ops == c.ops && k.families.to_string() == c.stream
        });
        if !same {
            return bad(
                at("index"),
                Some(c.index),
                format!(
                    "chunk {} is not the run's chunk {} (its seed, operations or families \
                     differ from what the parameters plan)",
                    c.index, c.index
                ),
            );
        }
        if let Some(s) = r.shard.filter(|s| !s.holds(c.index)) {
            return bad(
                at("index"),
                Some(c.index),
                format!("chunk {} is not one of shard {s}'s", c.index),
            );
        }
        if previous.is_some_and(|i| i >= c.index) {
            return bad(
                at("index"),
                Some(c.index),
                "chunks out of order or twice".into(),
            );
        }
        previous = Some(c.index);
        let one = Some(c.index);
        if c.vectors > c.ops {
            return bad(
                at("vectors"),
                one,
                format!(
                    "{} operations compared of {} in its stream",
                    c.vectors, c.ops
                ),
            );
        }
        let keys: BTreeSet<&str> = c.by_family.keys().map(String::as_str).collect();
        if keys != names {
            return bad(
                at("by_family"),
                one,
                format!("families {keys:?}, the run's are {names:?}"),
            );
        }
        let sum = c
            .by_family
            .values()
            .try_fold(0u64, |a, &n| a.checked_add(n));
        if sum != Some(c.vectors) {
            return bad(
                at("by_family"),
                one,
                format!("adds up to {sum:?}, `vectors` says {}", c.vectors),
            );
        }
        for (f, &n) in &c.nan_accepted {
            if c.by_family.get(f).is_none_or(|&v| n == 0 || n > v) {
                return bad(
                    at("nan_accepted"),
                    one,
                    format!("{n} of family `{f}`, of {:?} compared", c.by_family.get(f)),
                );
            }
        }
        time(&at("seconds"), one, c.seconds)?;
        let sum = c
            .by_signature
            .values()
            .try_fold(0usize, |a, &n| a.checked_add(n));
        if c.by_signature.values().any(|&n| n == 0) {
            return bad(
                at("by_signature"),
                one,
                "a signature counted 0 times".into(),
            );
        }
        if sum != Some(c.divergences) {
            return bad(
                at("divergences"),
                one,
                format!("{}, where `by_signature` counts {sum:?}", c.divergences),
            );
        }
        if c.interrupted && !r.interrupted {
            return bad(at("interrupted"), one, "the file is not interrupted".into());
        }
    }
    complete(r)
}

/// Every chunk of the shard (the run for a whole run or a merge) up to the one at which the
/// divergences reach `max_divergences`, where the run stops; unless the run was interrupted or
/// the merge found something missing (`problems`).
fn complete(r: &RunResult) -> Result<(), Inconsistency> {
    if r.interrupted || !r.problems.is_empty() {
        return Ok(());
    }
    let p = &r.params;
    let mut want = (0..r.chunks_planned).filter(|&i| r.shard.is_none_or(|s| s.holds(i)));
    let mut total = 0usize;
    for c in &r.chunks {
        if total >= p.max_divergences {
            return bad(
                "chunks",
                Some(c.index),
                format!(
                    "the run stops at {} divergences, reached before chunk {}",
                    p.max_divergences, c.index
                ),
            );
        }
        if want.next() != Some(c.index) {
            return bad(
                "chunks",
                Some(c.index),
                "a chunk before it is missing".into(),
            );
        }
        total = total.saturating_add(c.divergences);
    }
    if total < p.max_divergences {
        if let Some(i) = want.next() {
            return bad(
                "chunks",
                Some(i),
                format!(
                    "missing: {} of {} planned chunks listed, and the run did not stop",
                    r.chunks.len(),
                    r.chunks_planned
                ),
            );
        }
    }
    Ok(())
}

/// The examples: each of a chunk listed, under a signature that chunk counts, in chunk and
/// cycle order, the first `max_examples` of each signature and no fewer.
fn examples(r: &RunResult) -> Result<(), Inconsistency> {
    let by_index: BTreeMap<usize, &super::ChunkRow> =
        r.chunks.iter().map(|c| (c.index, c)).collect();
    let mut listed: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    let mut previous = None;
    for (k, d) in r.divergences.iter().enumerate() {
        let at = |f: &str| format!("divergences[{k}].{f}");
        let Some(c) = by_index.get(&d.chunk) else {
            return bad(
                at("chunk"),
                Some(d.chunk),
                "no such chunk in the file".into(),
            );
        };
        let counted = c.by_signature.get(&d.signature).copied().unwrap_or(0);
        if counted == 0 {
            return bad(
                at("signature"),
                Some(d.chunk),
                format!("`{}` is not among the chunk's by_signature", d.signature),
            );
        }
        if d.signature.split(" | ").nth(1) != Some(d.family.as_str()) {
            return bad(
                at("family"),
                Some(d.chunk),
                format!("`{}` is not the family of `{}`", d.family, d.signature),
            );
        }
        if previous.is_some_and(|p| p > (d.chunk, d.cycle)) {
            return bad(
                at("cycle"),
                Some(d.chunk),
                "out of chunk and cycle order".into(),
            );
        }
        previous = Some((d.chunk, d.cycle));
        *listed.entry((d.chunk, d.signature.as_str())).or_default() += 1;
    }
    // Per signature, the examples listed must be the first max_examples, chunk by chunk.
    let mut before: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &r.chunks {
        for (sig, &n) in &c.by_signature {
            let so_far = before.entry(sig.as_str()).or_default();
            let want = n.min(r.params.max_examples.saturating_sub(*so_far));
            let have = listed.get(&(c.index, sig.as_str())).copied().unwrap_or(0);
            if have != want {
                return bad(
                    "divergences",
                    Some(c.index),
                    format!(
                        "{have} example(s) of `{sig}` listed, where the first {} of each \
                         signature make {want}",
                        r.params.max_examples
                    ),
                );
            }
            *so_far += have;
        }
    }
    Ok(())
}

/// The totals the file gives: what its chunks and examples give.
fn totals(r: &RunResult) -> Result<(), Inconsistency> {
    let mut d = r.clone();
    d.derive_totals();
    // `run` also marks the file interrupted when Ctrl-C came between chunks or in triage.
    d.interrupted |= r.interrupted;
    d.passed &= !r.interrupted;
    if r.families.len() != d.families.len() {
        return bad(
            "families",
            None,
            format!(
                "{} rows for {} families",
                r.families.len(),
                d.families.len()
            ),
        );
    }
    for (k, (a, b)) in r.families.iter().zip(&d.families).enumerate() {
        let same = a.family == b.family
            && a.vectors == b.vectors
            && a.divergences == b.divergences
            && a.nan_accepted == b.nan_accepted
            && close(a.seconds, b.seconds);
        if !same {
            return bad(
                format!("families[{k}]"),
                None,
                format!(
                    "family `{}`: {} vectors, {} divergences; its chunks give `{}`: {} vectors, \
                     {} divergences",
                    a.family, a.vectors, a.divergences, b.family, b.vectors, b.divergences
                ),
            );
        }
    }
    if r.signatures != d.signatures {
        let k = r
            .signatures
            .iter()
            .zip(&d.signatures)
            .position(|(a, b)| a != b)
            .unwrap_or(r.signatures.len().min(d.signatures.len()));
        return bad(
            format!("signatures[{k}]"),
            None,
            format!(
                "{} signature row(s) disagree with what the chunks and examples give ({} rows)",
                r.signatures.len(),
                d.signatures.len()
            ),
        );
    }
    if r.passed != d.passed {
        return bad(
            "passed",
            None,
            format!(
                "{} with {} divergence(s){}",
                r.passed,
                d.divergence_count(),
                if r.interrupted { ", interrupted" } else { "" }
            ),
        );
    }
    // Where the run stopped: a shard plans its chunks' operations, a run its count.
    let planned = match r.shard {
        Some(s) => shard_operations(r, s),
        None => r.params.count,
    };
    d.note_stop(planned);
    if r.stopped != d.stopped {
        return bad(
            "stopped",
            None,
            format!("{:?}, where its chunks give {:?}", r.stopped, d.stopped),
        );
    }
    Ok(())
}

/// The operations shard `s` plans: its chunks' (every `params.chunk_size` but the run's last).
fn shard_operations(r: &RunResult, s: Shard) -> u64 {
    let (count, size) = (r.params.count, r.params.chunk_size);
    let planned = count.div_ceil(size);
    let first = u64::from(s.index - 1);
    if first >= planned {
        return 0;
    }
    let held = (planned - first).div_ceil(u64::from(s.count));
    let mut ops = held.saturating_mul(size);
    if s.holds((planned - 1) as usize) {
        ops -= size - (count - (planned - 1) * size);
    }
    ops
}
