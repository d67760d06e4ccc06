//! The results of a run's shards merged into the run's result.

use std::collections::BTreeMap;

use super::{ChunkRow, DivergenceRow, RunResult};
use crate::checks::coverage::Coverage;
use crate::engine::chunk;
use crate::engine::stim::Family;
use crate::engine::stream::Families;
use crate::Error;

/// What `merge` found wrong with its inputs.
fn bad(msg: String) -> Error {
    Error::new(msg)
}

/// Keeps the first `max` divergences of each signature (`divergences` in chunk and cycle
/// order).
fn keep_first(divergences: &mut Vec<DivergenceRow>, max: usize) {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    divergences.retain(|d| {
        let n = seen.entry(d.signature.clone()).or_default();
        *n += 1;
        *n <= max
    });
}

/// Merges the results of the shards of one run (or one whole run) into the run's result.
/// Errors name a duplicated shard and inputs that disagree on the run's parameters; a missing
/// shard or chunk is recorded in `problems` instead, so the result of what is there can still
/// be written (a CI dashboard then shows the divergences found and the missing part).
pub fn merge(inputs: &[(String, RunResult)]) -> Result<RunResult, Error> {
    let Some((first_name, first)) = inputs.first() else {
        return Err(bad("nothing to merge".into()));
    };
    for (name, r) in &inputs[1..] {
        if r.params != first.params {
            let a = serde_json::to_value(&first.params).unwrap_or_default();
            let b = serde_json::to_value(&r.params).unwrap_or_default();
            let differ: Vec<String> = a
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, v)| b.get(k.as_str()) != Some(v))
                .map(|(k, v)| {
                    format!(
                        "{k} = {v} in {first_name}, {} in {name}",
                        b.get(k.as_str()).cloned().unwrap_or_default()
                    )
                })
                .collect();
            return Err(bad(format!(
                "{name} is from another run than {first_name}: {}",
                differ.join("; ")
            )));
        }
        if r.verilator != first.verilator || r.tool != first.tool {
            return Err(bad(format!(
                "{name} was made by another build than {first_name} ({} {}, {} vs {} {}, {})",
                r.tool.name,
                r.tool.version,
                r.verilator,
                first.tool.name,
                first.tool.version,
                first.verilator
            )));
        }
    }
    // Shards: all of one count, each index exactly once; or a single whole run.
    let mut by_index: BTreeMap<u32, &str> = BTreeMap::new();
    let count = first.shard.map(|s| s.count);
    for (name, r) in inputs {
        match (r.shard, count) {
            (Some(s), Some(n)) if s.count == n => {
                if let Some(other) = by_index.insert(s.index, name) {
                    return Err(bad(format!("shard {s} given twice: {other} and {name}")));
                }
            }
            (None, None) if inputs.len() == 1 => {}
            (None, None) => {
                return Err(bad(format!(
                    "{name} is a whole run, not a shard: there is nothing to merge it with"
                )))
            }
            _ => {
                return Err(bad(format!(
                    "{name} ({}) and {first_name} ({}) are not shards of one split",
                    r.shard.map_or("whole run".into(), |s| format!("shard {s}")),
                    first
                        .shard
                        .map_or("whole run".into(), |s| format!("shard {s}")),
                )))
            }
        }
    }
    let mut problems = Vec::new();
    if let Some(n) = count {
        let missing: Vec<String> = (1..=n)
            .filter(|k| !by_index.contains_key(k))
            .map(|k| format!("{k}/{n}"))
            .collect();
        if !missing.is_empty() {
            problems.push(format!("shard {} missing", missing.join(", ")));
        }
    }
    if let Some((name, _)) = inputs.iter().find(|(_, r)| r.interrupted) {
        return Err(bad(format!(
            "{name} is from an interrupted run: it did not finish"
        )));
    }

    // Chunks and divergences in chunk order, cut at --max-divergences as one run would be.
    let mut chunks: Vec<ChunkRow> = inputs.iter().flat_map(|(_, r)| r.chunks.clone()).collect();
    chunks.sort_by_key(|c| c.index);
    if let Some(w) = chunks.windows(2).find(|w| w[0].index == w[1].index) {
        return Err(bad(format!("chunk {} appears twice", w[0].index)));
    }
    let mut divergences: Vec<DivergenceRow> = inputs
        .iter()
        .flat_map(|(_, r)| r.divergences.clone())
        .collect();
    divergences.sort_by_key(|d| (d.chunk, d.cycle));
    let max = first.params.max_divergences;
    let mut total = 0;
    let mut cut = chunks.len();
    for (k, c) in chunks.iter().enumerate() {
        total += c.divergences;
        if total >= max {
            cut = k + 1;
            break;
        }
    }
    chunks.truncate(cut);
    let last = chunks.last().map(|c| c.index);
    divergences.retain(|d| Some(d.chunk) <= last);
    // Each shard kept the first examples of a signature among its chunks: the run's first
    // ones are among them.
    keep_first(&mut divergences, first.params.max_examples);

    // Every planned chunk up to the cut must be there.
    let fams: Vec<Family> = first
        .params
        .filter
        .iter()
        .map(|f| {
            Family::parse(f).ok_or_else(|| bad(format!("unknown family `{f}` in {first_name}")))
        })
        .collect::<Result<_, _>>()?;
    let plan = chunk::plan(
        first.params.seed,
        first.params.count,
        &Families(fams),
        first.params.chunk_size,
    )?;
    let want = if total >= max {
        last.map_or(0, |l| l + 1)
    } else {
        plan.len()
    };
    let missing: Vec<String> = plan[..want.min(plan.len())]
        .iter()
        .filter(|p| chunks.binary_search_by_key(&p.index, |c| c.index).is_err())
        .map(|p| p.index.to_string())
        .collect();
    // A missing shard's chunks are named by the shard alone.
    if !missing.is_empty() && problems.is_empty() {
        problems.push(format!("chunk {} missing", missing.join(", ")));
    }

    let mut merged = RunResult::new(
        &first.verilator,
        first.params.clone(),
        None,
        first.chunks_planned,
        inputs.iter().map(|(_, r)| r.jobs).max().unwrap_or(1),
        inputs.iter().map(|(_, r)| r.seconds).sum(),
        chunks,
        divergences,
    );
    merged.tool = first.tool.clone();
    // Coverage adds up when every input sampled it.
    if inputs.iter().all(|(_, r)| r.coverage.is_some()) {
        let mut total = Coverage::new();
        for (_, r) in inputs {
            if let Some(c) = &r.coverage {
                total.merge(c);
            }
        }
        merged.coverage = Some(total);
    }
    merged.problems = problems;
    merged.derive_totals();
    merged.note_stop(merged.params.count);
    Ok(merged)
}
