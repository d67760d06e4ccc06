//! Machine-readable results: the JSON of a run or shard (schema in `docs/results.md`); the
//! merge of several ([`merge`]), after checking each agrees with itself ([`check`]), JUnit XML for CI dashboards ([`junit`]) and the text `run`
//! prints ([`text`]).

pub mod check;
mod junit;
pub mod merge;
mod text;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use ptxfma_cosim_checks::coverage::Coverage;
use ptxfma_cosim_engine::chunk::Shard;
use ptxfma_cosim_engine::temporary::write_atomically;
use ptxfma_cosim_engine::Error;

/// The `schema` field of every results file.
pub const SCHEMA: &str = "ptxfma-cosim-result";
/// Bumped on any change a reader would notice (2: structured divergence fields, examples
/// capped per signature with exact counts per chunk).
pub const SCHEMA_VERSION: u32 = 2;

/// Default of `--max-examples`: divergences kept, reported and written per signature.
pub const DEFAULT_MAX_EXAMPLES: usize = 10;

/// The parameters that define a run: two results files merge only when these are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    pub seed: u64,
    pub count: u64,
    /// Family names, in run order.
    pub filter: Vec<String>,
    pub chunk_size: u64,
    /// RTL variant under test.
    pub rtl: String,
    /// Reference: `model` or `rtl:<variant>`.
    pub golden: String,
    pub max_divergences: usize,
    /// Divergences kept per signature (`--max-examples`): the first ones, in chunk and cycle
    /// order; the others are counted, not listed.
    pub max_examples: usize,
    /// Cycles of each divergence waveform.
    pub window: usize,
    /// `registers` (whole frames every cycle) or `ports` (retired results matched by tag,
    /// docs/dut.md); `registers` in files written before the option existed.
    #[serde(default = "registers")]
    pub compare: String,
    /// With `ports`: the cycles from issue within which a result must retire.
    #[serde(default)]
    pub latency_bound: Option<u64>,
    /// With `ports`: the NaN convention results were judged under (`ptx`, `canonical`, `any`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nan: Option<String>,
}

fn registers() -> String {
    "registers".into()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// Totals of one family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyRow {
    pub family: String,
    pub vectors: u64,
    /// The chunks' run times (worker time, not wall time) shared out by operations.
    pub seconds: f64,
    pub divergences: usize,
    /// Results the NaN convention accepted that PTX's rule would not.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nan_accepted: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One chunk that ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkRow {
    pub index: usize,
    /// The families its stream interleaves, as `--filter` takes them (`all`, `f32,vmad`).
    pub stream: String,
    /// The chunk stream's seed (`fma-cosim replay --seed`).
    pub seed: u64,
    /// Operations in the chunk's stream (`fma-cosim replay --count`).
    pub ops: u64,
    /// Operations compared (fewer than `ops` when the chunk stopped early).
    pub vectors: u64,
    /// Of those, per family.
    pub by_family: BTreeMap<String, u64>,
    /// Per family, results the NaN convention accepted that PTX's rule would not.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nan_accepted: BTreeMap<String, u64>,
    pub cycles: u64,
    pub seconds: f64,
    pub divergences: usize,
    /// Of those, per signature (every one counted, listed or not): what keeps the counts of
    /// a merge exact when it cuts at `--max-divergences`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_signature: BTreeMap<String, usize>,
    /// Stopped by Ctrl-C before its end.
    pub interrupted: bool,
}

/// One divergent operation, as kept (the first `max_examples` of its signature). The
/// machine-readable fields carry raw bits as hexadecimal strings (`0x` and lowercase digits,
/// no padding), so that 64-bit values survive any JSON reader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DivergenceRow {
    pub chunk: usize,
    /// The family of the divergent operation.
    pub family: String,
    /// Cycle within the chunk's stream after whose edge the banks differ (ports: the cycle
    /// the divergence was seen in).
    pub cycle: u64,
    /// Cycle the operation was presented in; null for the reset state.
    pub issue: Option<u64>,
    /// Ports: the cycle the design retired the result in; null when it did not retire
    /// (and for a registers divergence).
    #[serde(default)]
    pub retire: Option<u64>,
    /// First differing bank (`s1`, `s2`, `s3`, `out`, `ports`) and its first field.
    pub stage: String,
    pub field: String,
    /// The PTX spelling of the operation (`bubble ...` for a bubble, `reset` for none).
    pub instruction: String,
    /// The operation's control word (`in_ctrl_i`), operands and tag; null where no operation
    /// is known (the reset state, a tag retired with nothing in flight: then `tag` is the
    /// retired one).
    #[serde(default)]
    pub ctrl: Option<String>,
    #[serde(default)]
    pub a: Option<String>,
    #[serde(default)]
    pub b: Option<String>,
    #[serde(default)]
    pub c: Option<String>,
    #[serde(default)]
    pub tag: Option<String>,
    /// The result `d`: the reference's and the design's. Ports: the expected and the retired
    /// result (null: none retired, or nothing was expected under that tag). Registers: the
    /// operation replayed alone, as the report prints it (null when it was not replayed).
    #[serde(default)]
    pub expected: Option<String>,
    #[serde(default)]
    pub actual: Option<String>,
    /// Registers: every differing field of `stage`, most significant first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldRow>,
    /// Stage, field, family and instruction: divergences with the same signature are one bug
    /// as far as triage can tell.
    pub signature: String,
    /// The report as `run` prints it.
    pub report: String,
    /// Commands that reproduce it, as printed in the report.
    pub reproduce: Vec<String>,
    /// The waveform, written for the first divergence of each signature only.
    pub waveform: Option<String>,
    /// The GTKWave save file beside it, which opens on this divergence.
    #[serde(default)]
    pub waveform_save: Option<String>,
    /// Trace time of the clock edge at which `cosim.mismatch` rises in `waveform` (this
    /// divergence's cycle); null where no waveform was written.
    #[serde(default)]
    pub waveform_mismatch_time: Option<u64>,
}

/// One differing field of a stage register: its name, width in bits, and both values (hex,
/// zero-padded to the width).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldRow {
    pub name: String,
    pub width: u32,
    pub expected: String,
    pub actual: String,
}

/// Raw bits as the JSON carries them.
pub fn hex(v: u64) -> String {
    format!("{v:#x}")
}

/// A run's chunks summed ([`RunResult::totals`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    pub vectors: u64,
    pub cycles: u64,
    /// Worker time, not wall time.
    pub seconds: f64,
}

/// `vectors` per second of `seconds` as the summaries print it (`-` for no time).
pub fn rate(vectors: u64, seconds: f64) -> String {
    if seconds > 0.0 {
        format!("{:.0}", vectors as f64 / seconds)
    } else {
        "-".into()
    }
}

/// Divergences sharing a signature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignatureRow {
    pub signature: String,
    /// The family of its divergences (the stream's families for the reset state).
    pub family: String,
    /// Every divergence of the signature, listed in `divergences` or not.
    pub count: usize,
    /// Those listed in `divergences` (at most `params.max_examples`).
    pub listed: usize,
    /// Chunk and cycle of the first occurrence, whose report and waveform stand for all.
    pub first_chunk: usize,
    pub first_cycle: u64,
    pub waveform: Option<String>,
    #[serde(default)]
    pub waveform_save: Option<String>,
}

/// The result of a run, a shard, or a merge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema: String,
    pub schema_version: u32,
    pub tool: Tool,
    /// `verilator --version` of the build.
    pub verilator: String,
    pub params: Params,
    /// The shard this file holds; null for a whole run or a merge.
    pub shard: Option<Shard>,
    /// Chunks in the whole run (all shards).
    pub chunks_planned: usize,
    /// Workers (`--jobs`); for a merge, the largest of its inputs.
    pub jobs: usize,
    /// Wall time; for a merge, the sum of its inputs'.
    pub seconds: f64,
    pub interrupted: bool,
    /// What `merge` found missing (a shard, chunks); empty for a run.
    #[serde(default)]
    pub problems: Vec<String>,
    /// No divergence, nothing interrupted, nothing missing.
    pub passed: bool,
    pub families: Vec<FamilyRow>,
    pub chunks: Vec<ChunkRow>,
    pub signatures: Vec<SignatureRow>,
    /// The first `params.max_examples` divergences of each signature, by chunk then cycle.
    pub divergences: Vec<DivergenceRow>,
    /// Set when the run stopped at `params.max_divergences` before its planned end; null
    /// when it ran to its end (or was interrupted: `interrupted`).
    #[serde(default)]
    pub stopped: Option<Stopped>,
    /// Functional coverage of the chunks that ran (`run --coverage`), merged by addition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

/// Where a run stopped at `--max-divergences` ([`RunResult::note_stop`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// Divergences counted when it stopped (at least `params.max_divergences`).
    pub divergences: usize,
    /// Operations compared by then (the chunks' `vectors`).
    pub operations: u64,
    /// Operations the run (or the shard) planned.
    pub planned: u64,
    /// Divergences the whole run would give at the rate seen so far (rounded up).
    pub expected: u64,
    /// A `--max-divergences` that runs to the end: one per operation planned (a divergence
    /// is one operation's), at most the option's largest, 1,000,000. Only the first
    /// `--max-examples` of each signature are reported, so a large one costs memory, not
    /// pages of output.
    pub run_on: usize,
}

/// The largest `--max-divergences`.
pub const MAX_DIVERGENCES: usize = 1_000_000;

impl RunResult {
    /// A result with the totals (families, signatures, `passed`) derived from `chunks` (whose
    /// `by_signature` counts every divergence) and `divergences` (the examples kept), both in
    /// chunk order.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        verilator: &str,
        params: Params,
        shard: Option<Shard>,
        chunks_planned: usize,
        jobs: usize,
        seconds: f64,
        chunks: Vec<ChunkRow>,
        divergences: Vec<DivergenceRow>,
    ) -> RunResult {
        let mut r = RunResult {
            schema: SCHEMA.into(),
            schema_version: SCHEMA_VERSION,
            tool: Tool {
                name: "fma-cosim".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            verilator: verilator.into(),
            params,
            shard,
            chunks_planned,
            jobs,
            seconds,
            interrupted: false,
            problems: Vec::new(),
            passed: false,
            families: Vec::new(),
            chunks,
            signatures: Vec::new(),
            divergences,
            stopped: None,
            coverage: None,
        };
        r.derive_totals();
        r
    }

    /// Records whether the run stopped at `params.max_divergences` before the `planned`
    /// operations (the run's `count`, or its shard's) were compared: it did when it counted
    /// that many divergences with operations left, and was not interrupted.
    pub fn note_stop(&mut self, planned: u64) {
        let operations = self.totals().vectors;
        let divergences = self.divergence_count();
        self.stopped = (divergences >= self.params.max_divergences
            && divergences > 0
            && operations < planned
            && !self.interrupted)
            .then(|| {
                let expected =
                    (divergences as f64 * planned as f64 / operations.max(1) as f64).ceil();
                Stopped {
                    divergences,
                    operations,
                    planned,
                    expected: expected as u64,
                    run_on: planned.min(MAX_DIVERGENCES as u64) as usize,
                }
            });
    }

    /// Recomputes families, signatures, `interrupted` and `passed` from chunks and divergences.
    fn derive_totals(&mut self) {
        self.families = self
            .params
            .filter
            .iter()
            .map(|f| {
                let mut row = FamilyRow {
                    family: f.clone(),
                    vectors: 0,
                    seconds: 0.0,
                    divergences: 0,
                    nan_accepted: 0,
                };
                for c in &self.chunks {
                    let n = c.by_family.get(f).copied().unwrap_or(0);
                    row.vectors += n;
                    row.nan_accepted += c.nan_accepted.get(f).copied().unwrap_or(0);
                    if c.vectors > 0 {
                        row.seconds += c.seconds * n as f64 / c.vectors as f64;
                    }
                }
                row
            })
            .collect();
        let mut sigs: Vec<SignatureRow> = Vec::new();
        for d in &self.divergences {
            match sigs.iter_mut().find(|s| s.signature == d.signature) {
                Some(s) => s.listed += 1,
                None => sigs.push(SignatureRow {
                    signature: d.signature.clone(),
                    family: d.family.clone(),
                    count: 0,
                    listed: 1,
                    first_chunk: d.chunk,
                    first_cycle: d.cycle,
                    waveform: d.waveform.clone(),
                    waveform_save: d.waveform_save.clone(),
                }),
            }
        }
        for c in &self.chunks {
            for (sig, n) in &c.by_signature {
                if let Some(s) = sigs.iter_mut().find(|s| &s.signature == sig) {
                    s.count += n;
                }
            }
        }
        for f in &mut self.families {
            f.divergences = sigs
                .iter()
                .filter(|s| s.family == f.family)
                .map(|s| s.count)
                .sum();
        }
        self.signatures = sigs;
        self.interrupted = self.chunks.iter().any(|c| c.interrupted);
        self.passed = self.divergence_count() == 0 && !self.interrupted && self.problems.is_empty();
    }

    /// Every divergence of the chunks, listed or not.
    pub fn divergence_count(&self) -> usize {
        self.chunks.iter().map(|c| c.divergences).sum()
    }

    pub fn total_vectors(&self) -> u64 {
        self.families.iter().map(|f| f.vectors).sum()
    }

    /// Writes the JSON to `path` (through a temporary file, so a reader never sees half).
    pub fn write_json(&self, path: &Path) -> Result<(), Error> {
        write_atomically(path, self.json()?.as_bytes())
    }

    /// The JSON text of the result.
    pub fn json(&self) -> Result<String, Error> {
        serde_json::to_string_pretty(self)
            .map_err(|e| Error::new(format!("JSON of the result: {e}")))
    }

    /// Reads a results file, checking that it is one.
    pub fn read_json(path: &Path) -> Result<RunResult, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::new(format!("{}: not JSON: {e}", path.display())))?;
        if v.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
            return Err(Error::new(format!(
                "{}: not a fma-cosim results file (no \"schema\": \"{SCHEMA}\")",
                path.display()
            )));
        }
        let version = v.get("schema_version").and_then(|s| s.as_u64());
        if version != Some(SCHEMA_VERSION as u64) {
            return Err(Error::new(format!(
                "{}: schema version {version:?}, this fma-cosim reads {SCHEMA_VERSION}",
                path.display()
            )));
        }
        serde_json::from_value(v).map_err(|e| Error::new(format!("{}: {e}", path.display())))
    }

    /// The chunks' vectors, cycles and worker seconds, summed.
    pub fn totals(&self) -> Totals {
        Totals {
            vectors: self.chunks.iter().map(|c| c.vectors).sum(),
            cycles: self.chunks.iter().map(|c| c.cycles).sum(),
            seconds: self.chunks.iter().map(|c| c.seconds).sum(),
        }
    }
}
