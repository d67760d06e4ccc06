//! The results of a run's shards merged into the run's result.

use std::collections::BTreeMap;

use super::{ChunkRow, DivergenceRow, RunResult};
use ptxfma_cosim_checks::coverage::Coverage;
use ptxfma_cosim_engine::chunk::{self, Shard};
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::stream::Families;
use ptxfma_cosim_engine::Error;

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

/// The run's chunk count, once every input is checked to hold the run its parameters plan:
/// `chunks_planned` as the plan counts them, and each chunk the plan's chunk of that index
/// (seed, operations, families), in the input's shard. So an edited file is refused, naming
/// it, rather than making the merge's result depend on which file comes first.
fn planned_chunks(inputs: &[(String, RunResult)], fams: &Families) -> Result<usize, Error> {
    let (first_name, first) = &inputs[0];
    let p = &first.params;
    chunk::check(p.count, fams, p.chunk_size)
        .map_err(|e| bad(format!("{first_name}: the run's parameters: {e}")))?;
    let planned = p.count.div_ceil(p.chunk_size);
    for (name, r) in inputs {
        if r.chunks_planned as u64 != planned {
            return Err(bad(format!(
                "{name}: chunks_planned {} disagrees with its parameters (count {}, chunk_size \
                 {}: {planned} chunks)",
                r.chunks_planned, p.count, p.chunk_size
            )));
        }
        for c in &r.chunks {
            let plan = chunk::nth(p.seed, p.count, fams, p.chunk_size, c.index as u64);
            let same = plan.is_some_and(|k| {
                k.seed == c.seed && k.ops == c.ops && k.families.to_string() == c.stream
            });
            if !same {
                return Err(bad(format!(
                    "{name}: chunk {} is not the run's chunk {} (its seed, operations or \
                     families differ from what the parameters plan)",
                    c.index, c.index
                )));
            }
            if let Some(s) = r.shard.filter(|s| !s.holds(c.index)) {
                return Err(bad(format!(
                    "{name}: chunk {} is not one of shard {s}'s",
                    c.index
                )));
            }
        }
    }
    usize::try_from(planned).map_err(|_| bad(format!("{planned} chunks: too many")))
}

/// The chunks below `want` that `chunks` (sorted, each once) lacks, as a problem line: the
/// first few by index, and how many in all (a plan can be long).
fn missing_chunks(chunks: &[ChunkRow], want: usize) -> Option<String> {
    const SHOWN: usize = 20;
    let present = chunks.iter().filter(|c| c.index < want).count();
    let count = want - present;
    if count == 0 {
        return None;
    }
    let mut have = chunks.iter().map(|c| c.index).peekable();
    let mut shown = Vec::new();
    for k in 0..want {
        if have.next_if_eq(&k).is_none() {
            shown.push(k.to_string());
            if shown.len() == SHOWN {
                break;
            }
        }
    }
    let more = count - shown.len();
    Some(if more > 0 {
        format!("chunk {} and {more} more missing", shown.join(", "))
    } else {
        format!("chunk {} missing", shown.join(", "))
    })
}

/// Merges the results of the shards of one run (or one whole run) into the run's result.
/// Errors name a duplicated shard and inputs that disagree on the run's parameters; a missing
/// shard or chunk is recorded in `problems` instead, so the result of what is there can still
/// be written (a CI dashboard then shows the divergences found and the missing part).
pub fn merge(inputs: &[(String, RunResult)]) -> Result<RunResult, Error> {
    let Some((first_name, first)) = inputs.first() else {
        return Err(bad("nothing to merge".into()));
    };
    for (name, r) in inputs {
        if let Some(s) = r.shard {
            // The rule `run --shard` parses by.
            s.to_string()
                .parse::<Shard>()
                .map_err(|why| bad(format!("{name}: shard {s} cannot be: {why}")))?;
        }
    }
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
    let fams = Families(
        first
            .params
            .filter
            .iter()
            .map(|f| {
                Family::parse(f).ok_or_else(|| bad(format!("unknown family `{f}` in {first_name}")))
            })
            .collect::<Result<_, _>>()?,
    );
    let planned = planned_chunks(inputs, &fams)?;
    // Each file's own numbers agree (the totals below are the chunks' sums, so a file whose
    // totals say otherwise is refused, not believed).
    for (name, r) in inputs {
        super::check::check(r).map_err(|e| bad(format!("{name}: {e}")))?;
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
    let want = if total >= max {
        last.map_or(0, |l| l + 1)
    } else {
        planned
    };
    // A missing shard's chunks are named by the shard alone.
    if problems.is_empty() {
        if let Some(m) = missing_chunks(&chunks, want) {
            problems.push(m);
        }
    }

    let mut merged = RunResult::new(
        &first.verilator,
        first.params.clone(),
        None,
        planned,
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
