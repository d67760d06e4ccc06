//! `merge --verify N`: N chunks of each shard, chosen at random (seeded, printed), run again
//! here with the engine's chunk runner and compared with what the shard says of them. A shard
//! consistent with itself but false (every count zeroed) passes `results::check`; this is what
//! catches it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ptxfma_cosim_engine::chunk::{Chunk, Chunks};
use ptxfma_cosim_engine::lockstep::{Config, Outcome, DEFAULT_BATCH};
use ptxfma_cosim_engine::ports::Compare;
use ptxfma_cosim_engine::regress::{self, Progress};
use ptxfma_cosim_engine::sides::Sides;
use ptxfma_cosim_engine::stim::Family;
use ptxfma_cosim_engine::stream::Families;
use ptxfma_cosim_engine::Error;
use ptxfma_cosim_outputs::results::{ChunkRow, Params, RunResult};

/// What the verification did.
pub(crate) struct Verified {
    /// Chunks run again, of each file.
    pub per_file: usize,
    pub chunks: usize,
    pub of: usize,
    pub files: usize,
    /// The first disagreement: the file and chunk, and what differs.
    pub disagreement: Option<String>,
}

/// A seed for the choice when none is given: the clock's nanoseconds and the process id.
pub(crate) fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut s = t ^ (u64::from(std::process::id()) << 32);
    mix(&mut s)
}

fn mix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` of a file's chunk positions, chosen with `seed` and its shard's index (so the choice
/// does not depend on the order of the files; all of them when it has no more).
fn choose(rows: usize, n: usize, seed: u64, shard: u32) -> Vec<usize> {
    let mut s = seed ^ u64::from(shard).wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut all: Vec<usize> = (0..rows).collect();
    // A partial Fisher-Yates shuffle: the first n are the choice.
    let n = n.min(rows);
    for k in 0..n {
        let j = k + (mix(&mut s) % (rows - k) as u64) as usize;
        all.swap(k, j);
    }
    all.truncate(n);
    all.sort_unstable();
    all
}

/// The sides and lockstep settings the run's parameters name.
fn setup(p: &Params) -> Result<(Sides, Config, Families), Error> {
    let fams = p
        .filter
        .iter()
        .map(|f| Family::parse(f).ok_or_else(|| Error::new(format!("unknown family `{f}`"))))
        .collect::<Result<Vec<_>, _>>()?;
    // A `dut build` design is run again only with what it implements (as `run --dut --filter`
    // refuses a family): a run of it could not have drawn another family.
    if let Some(rec) = ptxfma_cosim_engine::dut::record_of(&p.rtl)? {
        let implements = |f: &Family| rec.families.iter().any(|n| Family::parse(n) == Some(*f));
        if let Some(f) = fams.iter().find(|f| !implements(f)) {
            return Err(Error::new(format!(
                "--verify: params.filter names {}, which `{}` does not implement (its \
                 forms.families: {}): the files are not of a run of that design",
                f.name(),
                p.rtl,
                rec.families.join(", ")
            )));
        }
    }
    if let Some(dir) = p.rtl.strip_prefix("dut:") {
        let lib = ptxfma_cosim_engine::dut::load::open(std::path::Path::new(dir))?;
        ptxfma_cosim_engine::stim::set_forms(lib.record.forms());
    }
    let sides = Sides::new(&p.rtl, &p.golden)?;
    let compare = match (p.compare.as_str(), p.latency_bound) {
        ("ports", Some(bound)) => {
            let nan = ptxfma_cosim_engine::dut::nan_convention(&p.rtl)?;
            if p.nan.as_deref().is_some_and(|n| n != nan.describe()) {
                return Err(Error::new(format!(
                    "--verify: the shards judged NaNs under `{}`, design `{}` here under `{}`",
                    p.nan.as_deref().unwrap_or_default(),
                    p.rtl,
                    nan.describe()
                )));
            }
            Compare::Ports { bound, nan }
        }
        _ => Compare::Registers,
    };
    let cfg = Config {
        batch: DEFAULT_BATCH,
        max_divergences: p.max_divergences,
        window: p.window,
        overlap: false,
        retired: false,
        subscribe: None,
        compare,
    };
    Ok((sides, cfg, Families(fams)))
}

/// Runs `per_file` chunks of each input again (chosen with `seed`) and compares them with the
/// inputs' rows and examples. The inputs have passed `results::check` and are of one run.
pub(crate) fn verify(
    inputs: &[(String, RunResult)],
    per_file: usize,
    seed: u64,
) -> Result<Verified, Error> {
    let p = &inputs[0].1.params;
    let (sides, cfg, fams) = setup(p)?;
    let plan = Chunks::new(p.seed, p.count, &fams, p.chunk_size)?;
    // (file, row, chunk, the chunk alone as a run's list) of every chunk to run again, in file
    // then chunk order.
    let mut picks: Vec<(usize, usize, Chunk, Chunks)> = Vec::new();
    for (f, (_, r)) in inputs.iter().enumerate() {
        let shard = r.shard.map_or(0, |s| s.index);
        for k in choose(r.chunks.len(), per_file, seed, shard) {
            let index = r.chunks[k].index as u64;
            let alone = plan.clone().only(index);
            let c = alone
                .get(0)
                .ok_or_else(|| Error::new(format!("chunk {index} is not planned")))?;
            picks.push((f, k, c, alone));
        }
    }
    let outcomes = run_all(&picks, &sides, &cfg)?;
    let mut disagreement = None;
    for ((f, k, c, _), out) in picks.iter().zip(&outcomes) {
        let (name, r) = &inputs[*f];
        if let Err(why) = compare(r, &r.chunks[*k], c, out) {
            disagreement = Some(format!(
                "{name}: chunk {} run again here disagrees with the file: {why}",
                c.index
            ));
            break;
        }
    }
    Ok(Verified {
        per_file,
        chunks: picks.len(),
        of: inputs.iter().map(|(_, r)| r.chunks.len()).sum(),
        files: inputs.len(),
        disagreement,
    })
}

/// Runs each chunk alone (the run's `--max-divergences` cut is per run, so a list would cut
/// across shards), on as many workers as there are cores.
fn run_all(
    picks: &[(usize, usize, Chunk, Chunks)],
    sides: &Sides,
    cfg: &Config,
) -> Result<Vec<Outcome>, Error> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Outcome, Error>>>> =
        Mutex::new(picks.iter().map(|_| None).collect());
    let progress = Progress::default();
    let jobs = regress::placement::available_cores().clamp(1, picks.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((_, _, c, alone)) = picks.get(i) else {
                    return;
                };
                let r = regress::run(alone, sides, cfg, 1, &progress).and_then(|mut ran| {
                    ran.chunks
                        .pop()
                        .map(|(_, out)| out)
                        .ok_or_else(|| Error::new(format!("chunk {} did not run", c.index)))
                });
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::new("a chunk did not run"))))
        .collect()
}

/// What differs between the file's row (and examples) of chunk `c` and its outcome here.
fn compare(r: &RunResult, row: &ChunkRow, c: &Chunk, out: &Outcome) -> Result<(), String> {
    if out.vectors != row.vectors {
        return Err(format!(
            "vectors {}, the file says {}",
            out.vectors, row.vectors
        ));
    }
    for &f in &c.families.0 {
        let (here, says) = (out.by_family[f as usize], row.by_family.get(f.name()));
        if Some(&here) != says {
            return Err(format!(
                "by_family.{} {here}, the file says {says:?}",
                f.name()
            ));
        }
        let here = out.nan_accepted[f as usize];
        let says = row.nan_accepted.get(f.name()).copied().unwrap_or(0);
        if here != says {
            return Err(format!(
                "nan_accepted.{} {here}, the file says {says}",
                f.name()
            ));
        }
    }
    if out.divergences.len() != row.divergences {
        return Err(format!(
            "divergences {}, the file says {}",
            out.divergences.len(),
            row.divergences
        ));
    }
    let mut by_signature: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for d in &out.divergences {
        by_signature
            .entry(crate::triage::signature(c, d, &r.params.rtl))
            .or_default()
            .push(d.cycle());
    }
    let counts: BTreeMap<String, usize> = by_signature
        .iter()
        .map(|(s, v)| (s.clone(), v.len()))
        .collect();
    if counts != row.by_signature {
        return Err(format!(
            "by_signature {counts:?}, the file says {:?}",
            row.by_signature
        ));
    }
    // The examples the file lists of this chunk: the first ones of their signature here.
    let mut listed: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for d in r.divergences.iter().filter(|d| d.chunk == c.index) {
        listed
            .entry(d.signature.as_str())
            .or_default()
            .push(d.cycle);
    }
    for (sig, cycles) in listed {
        let all = by_signature.get(sig).map_or(&[][..], Vec::as_slice);
        let here = &all[..cycles.len().min(all.len())];
        if here != cycles.as_slice() {
            return Err(format!(
                "divergences of `{sig}` at cycle(s) {here:?}, the file lists {cycles:?}"
            ));
        }
    }
    Ok(())
}
