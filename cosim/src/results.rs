//! Machine-readable results: the JSON of a run or shard (schema in `docs/results.md`), the merge
//! of several, and JUnit XML for CI dashboards.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use quick_xml::events::{BytesCData, BytesDecl, BytesEnd, BytesStart, Event};
use serde::{Deserialize, Serialize};

use crate::chunk::{self, Shard};
use crate::coverage::Coverage;
use crate::stim::Family;
use crate::stream::Families;
use crate::temporary::write_atomically;
use crate::Error;

/// The `schema` field of every results file.
pub const SCHEMA: &str = "ptxfma-cosim-result";
/// Bumped on any change a reader would notice.
pub const SCHEMA_VERSION: u32 = 1;

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
    /// Cycles of each divergence waveform.
    pub window: usize,
    /// `registers` (whole frames every cycle) or `ports` (retired results matched by tag,
    /// docs/dut.md); `registers` in files written before the option existed.
    #[serde(default = "registers")]
    pub compare: String,
    /// With `ports`: the cycles from issue within which a result must retire.
    #[serde(default)]
    pub latency_bound: Option<u64>,
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
    pub cycles: u64,
    pub seconds: f64,
    pub divergences: usize,
    /// Stopped by Ctrl-C before its end.
    pub interrupted: bool,
}

/// One divergent operation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DivergenceRow {
    pub chunk: usize,
    /// The family of the divergent operation.
    pub family: String,
    /// Cycle within the chunk's stream after whose edge the banks differ.
    pub cycle: u64,
    /// Cycle the operation was presented in; null for the reset state.
    pub issue: Option<u64>,
    /// First differing bank (`s1`, `s2`, `s3`, `out`, `ports`) and its first field.
    pub stage: String,
    pub field: String,
    /// The PTX spelling of the operation (`bubble ...` for a bubble, `reset` for none).
    pub instruction: String,
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
    pub count: usize,
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
    pub divergences: Vec<DivergenceRow>,
    /// Functional coverage of the chunks that ran (`run --coverage`), merged by addition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
}

impl RunResult {
    /// A result with the totals (families, signatures, `passed`) derived from `chunks` and
    /// `divergences`, both in chunk order.
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
            coverage: None,
        };
        r.derive_totals();
        r
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
                    divergences: self.divergences.iter().filter(|d| &d.family == f).count(),
                };
                for c in &self.chunks {
                    let n = c.by_family.get(f).copied().unwrap_or(0);
                    row.vectors += n;
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
                Some(s) => s.count += 1,
                None => sigs.push(SignatureRow {
                    signature: d.signature.clone(),
                    count: 1,
                    first_chunk: d.chunk,
                    first_cycle: d.cycle,
                    waveform: d.waveform.clone(),
                    waveform_save: d.waveform_save.clone(),
                }),
            }
        }
        self.signatures = sigs;
        self.interrupted = self.chunks.iter().any(|c| c.interrupted);
        self.passed = self.divergences.is_empty() && !self.interrupted && self.problems.is_empty();
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

    /// The per-family table as `run` prints it, then the signatures.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<12} {:>12} {:>12} {:>12}",
            "family", "vectors", "divergences", "vectors/s"
        );
        for r in &self.families {
            let _ = writeln!(
                s,
                "{:<12} {:>12} {:>12} {:>12}",
                r.family,
                r.vectors,
                r.divergences,
                rate(r.vectors, r.seconds)
            );
        }
        let Totals {
            vectors: v,
            cycles: c,
            seconds: t,
        } = self.totals();
        let _ = writeln!(
            s,
            "{:<12} {:>12} {:>12} {:>12}   ({c} cycles in {} chunks; vectors/s per worker)",
            "total",
            v,
            self.divergences.len(),
            rate(v, t),
            self.chunks.len()
        );
        if !self.signatures.is_empty() {
            let _ = writeln!(
                s,
                "\n{:>8}  signature (stage field | family | instruction)",
                "count"
            );
            for g in &self.signatures {
                let _ = writeln!(s, "{:>8}  {}", g.count, g.signature);
            }
        }
        s
    }

    /// The verdict line.
    pub fn verdict(&self) -> String {
        let div = self.divergences.len();
        if !self.problems.is_empty() {
            return format!(
                "INCOMPLETE: {}; {div} divergence(s) in what is there",
                self.problems.join("; ")
            );
        }
        match (div, self.interrupted) {
            (0, false) => "PASSED: no divergence".into(),
            (0, true) => "INTERRUPTED: no divergence in the part that ran".into(),
            (n, i) => format!(
                "FAILED: {n} divergence(s) in {} signature(s){}",
                self.signatures.len(),
                if i { " (interrupted)" } else { "" }
            ),
        }
    }

    /// JUnit XML: a testsuite per family, a testcase per chunk, a `<failure>` per divergence
    /// carrying its report.
    pub fn junit(&self) -> String {
        let mut w = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
        let attr = |e: &mut BytesStart, k: &str, v: String| e.push_attribute((k, v.as_str()));
        let failures = self.divergences.len();
        let tests = self.chunks.len() + self.problems.len();
        let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        let mut root = BytesStart::new("testsuites");
        attr(&mut root, "name", "fma-cosim".into());
        attr(&mut root, "tests", tests.to_string());
        attr(&mut root, "failures", failures.to_string());
        attr(&mut root, "errors", self.problems.len().to_string());
        attr(&mut root, "time", format!("{:.3}", self.seconds));
        let _ = w.write_event(Event::Start(root));
        if !self.problems.is_empty() {
            let mut suite = BytesStart::new("testsuite");
            attr(&mut suite, "name", "fma-cosim.merge".into());
            attr(&mut suite, "tests", self.problems.len().to_string());
            attr(&mut suite, "failures", "0".into());
            attr(&mut suite, "errors", self.problems.len().to_string());
            let _ = w.write_event(Event::Start(suite));
            for p in &self.problems {
                let mut case = BytesStart::new("testcase");
                attr(&mut case, "classname", "fma-cosim.merge".into());
                attr(&mut case, "name", p.clone());
                let _ = w.write_event(Event::Start(case));
                let mut e = BytesStart::new("error");
                attr(&mut e, "type", "incomplete".into());
                attr(&mut e, "message", p.clone());
                let _ = w.write_event(Event::Empty(e));
                let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
            }
            let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
        }
        for fam in &self.families {
            let f = &fam.family;
            let ops = |c: &ChunkRow| c.by_family.get(f).copied().unwrap_or(0);
            let chunks: Vec<&ChunkRow> = self.chunks.iter().filter(|c| ops(c) > 0).collect();
            let mut suite = BytesStart::new("testsuite");
            attr(&mut suite, "name", format!("fma-cosim.{f}"));
            attr(&mut suite, "tests", chunks.len().to_string());
            attr(&mut suite, "failures", fam.divergences.to_string());
            attr(&mut suite, "errors", "0".into());
            attr(
                &mut suite,
                "skipped",
                chunks.iter().filter(|c| c.interrupted).count().to_string(),
            );
            attr(&mut suite, "time", format!("{:.3}", fam.seconds));
            let _ = w.write_event(Event::Start(suite));
            let mut props = BytesStart::new("properties");
            let _ = w.write_event(Event::Start(props.borrow()));
            for (k, v) in [
                ("seed", self.params.seed.to_string()),
                ("count", self.params.count.to_string()),
                ("rtl", self.params.rtl.clone()),
                ("golden", self.params.golden.clone()),
                ("verilator", self.verilator.clone()),
            ] {
                let mut p = BytesStart::new("property");
                attr(&mut p, "name", k.into());
                attr(&mut p, "value", v);
                let _ = w.write_event(Event::Empty(p));
            }
            props = BytesStart::new("properties");
            let _ = w.write_event(Event::End(props.to_end()));
            for c in chunks {
                let mut case = BytesStart::new("testcase");
                attr(&mut case, "classname", format!("fma-cosim.{f}"));
                attr(
                    &mut case,
                    "name",
                    format!(
                        "chunk {} (--seed {} --filter {} --count {}): {} {f} operations",
                        c.index,
                        c.seed,
                        c.stream,
                        c.ops,
                        ops(c)
                    ),
                );
                let share = ops(c) as f64 / c.vectors.max(1) as f64;
                attr(&mut case, "time", format!("{:.3}", c.seconds * share));
                let _ = w.write_event(Event::Start(case));
                if c.interrupted {
                    let mut sk = BytesStart::new("skipped");
                    attr(
                        &mut sk,
                        "message",
                        "interrupted before the end of the chunk".into(),
                    );
                    let _ = w.write_event(Event::Empty(sk));
                }
                for d in self
                    .divergences
                    .iter()
                    .filter(|d| d.chunk == c.index && &d.family == f)
                {
                    let mut f = BytesStart::new("failure");
                    attr(&mut f, "type", "divergence".into());
                    attr(
                        &mut f,
                        "message",
                        format!("cycle {}: {}", d.cycle, d.signature),
                    );
                    let _ = w.write_event(Event::Start(f));
                    let text = d.report.replace("]]>", "]]]]><![CDATA[>");
                    let _ = w.write_event(Event::CData(BytesCData::new(text)));
                    let _ = w.write_event(Event::End(BytesEnd::new("failure")));
                }
                let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
            }
            let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
        }
        let _ = w.write_event(Event::End(BytesEnd::new("testsuites")));
        let mut out = String::from_utf8(w.into_inner()).unwrap_or_default();
        out.push('\n');
        out
    }

    pub fn write_junit(&self, path: &Path) -> Result<(), Error> {
        write_atomically(path, self.junit().as_bytes())
    }
}

/// What `merge` found wrong with its inputs.
fn bad(msg: String) -> Error {
    Error::new(msg)
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
    Ok(merged)
}
