//! Functional coverage: which operand classes, rounding cases and datapath corners a run
//! reached.
//!
//! The groups and bins are declared in [`bins`] (described in `docs/coverage.md`). They are
//! sampled once per cycle from the cycle's input and the golden model's stage registers
//! (white-box: the alignment case, the LZA's error and the rounder's decisions are read from
//! the banks, not re-derived from the operands), into hit counters that merge by addition, so
//! the coverage of jobs, chunks and shards adds up to that of the whole run.
//!
//! A [`Coverage`] serialises to a self-describing JSON object (every group and bin by name,
//! with its count and, for an unreachable bin, the reason), so files merge and report without
//! the build that wrote them; files from a build with other bins merge by name.
//!
//! A run's coverage records the run's families: its totals count only the bins those families
//! sample ([`bins::sampled_by`]) and the design's forms do not exclude ([`bins::NOT_IN_FORMS`]);
//! the others are outside the run, counted apart from the bins no instruction reaches.

pub mod bins;
mod classify;
mod sample;
mod subscriber;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use bins::{BinDef, GroupDef, Layout};
use ptxfma_cosim_engine::Error;
pub use sample::Banks;
pub use subscriber::CoverageSubscriber;

/// `schema` of a coverage file.
pub const SCHEMA: &str = "ptxfma-coverage";
/// `schema_version` of a coverage file.
pub const SCHEMA_VERSION: u32 = 1;

/// Hit counts of every bin.
///
/// Cloning, comparing and merging look only at the counts (and the bins they belong to); the
/// sampler's short pipeline shadow is scratch state.
#[derive(Clone, Debug)]
pub struct Coverage {
    /// Valid operations sampled (with a legal control word).
    operations: u64,
    /// Valid operations whose control word no PTX instruction decodes to (not binned).
    unspelled: u64,
    /// The bins; `None` for this build's table ([`bins::model`]), which the sampler indexes.
    layout: Option<Arc<Layout>>,
    /// The families of the run(s) sampled, by name; `None`: every family.
    families: Option<Vec<String>>,
    hits: Vec<u64>,
    /// Per bin, the operation count by which it was first seen hit (`NEVER`: not yet, or not
    /// known), checked at counts growing by a quarter each time ([`Coverage::closure`]).
    first: Vec<u64>,
    /// The operation count of the next check.
    next_check: u64,
    shadow: sample::Shadow,
}

/// A bin's first hit not seen yet.
const NEVER: u64 = u64::MAX;

/// A group of a union of two tables: name, doc, bins with their summed counts and first hits.
type UnionGroup = (String, String, Vec<(BinDef, u64, u64)>);

/// One group's totals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSummary {
    pub name: String,
    pub doc: String,
    /// Reachable bins hit at least once.
    pub hit: usize,
    /// Bins the run can reach: sampled by its families, not excluded by its forms.
    pub reachable: usize,
    /// Bins declared unreachable by any instruction (with a reason).
    pub unreachable: usize,
    /// Bins some instruction reaches, but not the run's: of other families, or declared
    /// unreachable for the forms of the design under test.
    pub outside: usize,
    /// Unreachable or outside bins that were hit anyway: the declaration is wrong.
    pub unreachable_hit: usize,
}

impl GroupSummary {
    /// Reachable bins hit, in percent (100 for a group with no reachable bin).
    pub fn percent(&self) -> f64 {
        percent(self.hit, self.reachable)
    }
}

/// Bin counts summed over every group ([`Coverage::totals`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub hit: usize,
    pub reachable: usize,
    pub unreachable: usize,
    pub outside: usize,
    pub unreachable_hit: usize,
}

impl Totals {
    /// Reachable bins hit, in percent of all reachable bins.
    pub fn percent(&self) -> f64 {
        percent(self.hit, self.reachable)
    }
}

fn percent(hit: usize, of: usize) -> f64 {
    if of == 0 {
        100.0
    } else {
        100.0 * hit as f64 / of as f64
    }
}

/// Reachable bins hit against operations ([`Coverage::closure`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closure {
    /// The curves: families, `shared`, and `total` last.
    pub curves: Vec<String>,
    /// Reachable bins of each curve.
    pub reachable: Vec<usize>,
    /// (operations, bins hit by then per curve), by increasing operations.
    pub points: Vec<(u64, Vec<usize>)>,
}

/// One bin with its group, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinRow<'a> {
    pub group: &'a str,
    pub bin: &'a str,
    pub hits: u64,
    /// Why the run cannot reach it (`None`: it can).
    pub unreachable: Option<&'a str>,
    /// The reason is the run's (its families or forms), not every instruction's.
    pub outside: bool,
}

impl Default for Coverage {
    fn default() -> Self {
        Coverage::new()
    }
}

impl PartialEq for Coverage {
    fn eq(&self, o: &Coverage) -> bool {
        self.operations == o.operations
            && self.unspelled == o.unspelled
            && self.families == o.families
            && self.hits == o.hits
            && self.layout() == o.layout()
    }
}

impl Coverage {
    /// Every bin of this build at zero.
    pub fn new() -> Coverage {
        Coverage {
            operations: 0,
            unspelled: 0,
            layout: None,
            families: None,
            hits: vec![0; bins::model().layout.bins.len()],
            first: vec![NEVER; bins::model().layout.bins.len()],
            next_check: 1,
            shadow: sample::Shadow::default(),
        }
    }

    /// Marks the bins hit since the last check as first hit by now: at operation counts a
    /// quarter apart, so a run's closure curve has about three points per octave and the
    /// checks cost a scan of the counters every few thousand operations, not per operation.
    #[cold]
    fn check_first_hits(&mut self) {
        let now = self.operations;
        for (f, &h) in self.first.iter_mut().zip(&self.hits) {
            if h > 0 && *f == NEVER {
                *f = now;
            }
        }
        self.next_check = now + (now / 4).max(1);
    }

    /// The operation count by which bin `k` was first hit (`None`: never hit); one hit since
    /// the last check counts from the operations sampled. A merged coverage keeps positions in
    /// the whole run, which a shard's own count does not bound.
    fn first_hit(&self, k: usize) -> Option<u64> {
        (self.hits[k] > 0).then(|| match self.first[k] {
            NEVER => self.operations,
            f => f,
        })
    }

    fn layout(&self) -> &Layout {
        match &self.layout {
            Some(l) => l,
            None => &bins::model().layout,
        }
    }

    /// Valid operations sampled.
    pub fn operations(&self) -> u64 {
        self.operations
    }

    /// Valid operations with a control word that no instruction decodes to (not binned).
    pub fn unspelled(&self) -> u64 {
        self.unspelled
    }

    /// Records the families of the run sampled: bins no one of them samples are outside it.
    pub fn set_families(&mut self, families: &[ptxfma_cosim_engine::stim::Family]) {
        self.families = Some(families.iter().map(|f| f.name().to_string()).collect());
    }

    /// The families recorded (`None`: every family).
    pub fn families(&self) -> Option<&[String]> {
        self.families.as_deref()
    }

    /// Nothing sampled: it says nothing about the families either.
    fn is_empty(&self) -> bool {
        self.operations == 0 && self.unspelled == 0
    }

    /// Per bin, why the run cannot reach it (`None`: it can), and whether that is the run's
    /// doing (outside its families or forms) rather than every instruction's.
    fn reach(&self) -> Vec<Option<(&str, bool)>> {
        let l = self.layout();
        let run: Option<Vec<ptxfma_cosim_engine::stim::Family>> = self.families.as_ref().map(|f| {
            f.iter()
                .filter_map(|n| ptxfma_cosim_engine::stim::Family::parse(n))
                .collect()
        });
        let mut out = vec![None; l.bins.len()];
        for g in &l.groups {
            for (k, b) in l.bins.iter().enumerate().skip(g.start).take(g.len) {
                out[k] = match &b.unreachable {
                    Some(why) => Some((why.as_str(), why.contains(bins::NOT_IN_FORMS))),
                    None => run
                        .as_ref()
                        .filter(|run| !bins::sampled_by(&g.name, &b.name, run))
                        .map(|_| (bins::OUTSIDE_FAMILIES, true)),
                };
            }
        }
        out
    }

    /// One cycle: `inp` the input presented this cycle, `prev` the previous cycle's input, `p`
    /// the model's pipeline after ticking with `inp` (so `p.s1` holds `inp`'s stage-1 register,
    /// `p.s2` the previous operation's, and so on). Call it every cycle, bubbles included, so
    /// that each operation is followed through `s1`, `s2` and `s3`.
    pub fn sample(&mut self, inp: &PipeIn, prev: &PipeIn, p: &Pipeline) {
        let packed = sample::Packed::of(p);
        self.sample_banks(inp, prev, packed.banks());
    }

    /// [`Coverage::sample`] from the stage registers' packed images (a reference frame's).
    pub fn sample_banks(&mut self, inp: &PipeIn, prev: &PipeIn, p: Banks<'_>) {
        if self.layout.is_some() {
            // Counts read from a file of another build: carry them over to this build's table.
            let mut n = Coverage::new();
            n.merge(self);
            *self = n;
        }
        sample::sample(
            sample::Counts {
                hits: &mut self.hits,
                operations: &mut self.operations,
                unspelled: &mut self.unspelled,
            },
            &mut self.shadow,
            inp,
            prev,
            p,
        );
        if self.operations >= self.next_check {
            self.check_first_hits();
        }
    }

    /// Adds `other`'s counts. Bins are matched by group and bin name, so coverage from a build
    /// with other bins merges too (the union of both tables). First hits are positions in the
    /// same run (the earlier one is kept).
    pub fn merge(&mut self, other: &Coverage) {
        self.merge_at(other, 0);
    }

    /// [`Coverage::merge`] of the coverage of a stretch of the run that starts `offset`
    /// operations in (a chunk's): its first hits move by `offset`.
    pub fn merge_at(&mut self, other: &Coverage, offset: u64) {
        let firsts: Vec<u64> = (0..other.hits.len())
            .map(|k| other.first_hit(k).map_or(NEVER, |f| f + offset))
            .collect();
        let mine: Vec<u64> = (0..self.hits.len())
            .map(|k| self.first_hit(k).unwrap_or(NEVER))
            .collect();
        if self.is_empty() {
            self.families = other.families.clone();
        } else if !other.is_empty() {
            self.families = match (&self.families, &other.families) {
                (Some(a), Some(b)) => {
                    let mut u = a.clone();
                    u.extend(b.iter().filter(|f| !a.contains(f)).cloned());
                    Some(u)
                }
                _ => None,
            };
        }
        self.operations += other.operations;
        self.unspelled += other.unspelled;
        self.first = mine;
        let same = match (&self.layout, &other.layout) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => self.layout() == other.layout(),
        };
        if same {
            for (a, b) in self.hits.iter_mut().zip(&other.hits) {
                *a += b;
            }
            for (a, &b) in self.first.iter_mut().zip(&firsts) {
                *a = (*a).min(b);
            }
            return;
        }
        // Union by name: this side's groups and bins first, then the other's new ones.
        let mut layout = Layout::default();
        let mut hits = Vec::new();
        let mut first = Vec::new();
        let mut at: HashMap<(String, String), usize> = HashMap::new();
        let mut group_at: HashMap<String, usize> = HashMap::new();
        let mut order: Vec<UnionGroup> = Vec::new();
        let mine = std::mem::take(&mut self.first);
        for (side, side_first) in [(&*self, &mine), (other, &firsts)] {
            let l = side.layout();
            for g in &l.groups {
                let gi = *group_at.entry(g.name.clone()).or_insert_with(|| {
                    order.push((g.name.clone(), g.doc.clone(), Vec::new()));
                    order.len() - 1
                });
                for (k, b) in l.bins.iter().enumerate().skip(g.start).take(g.len) {
                    let key = (g.name.clone(), b.name.clone());
                    match at.get(&key) {
                        Some(&j) => {
                            let slot = &mut order[gi].2[j];
                            slot.1 += side.hits[k];
                            slot.2 = slot.2.min(side_first[k]);
                        }
                        None => {
                            at.insert(key, order[gi].2.len());
                            order[gi].2.push((b.clone(), side.hits[k], side_first[k]));
                        }
                    }
                }
            }
        }
        for (name, doc, bs) in order {
            layout.groups.push(GroupDef {
                name,
                doc,
                start: layout.bins.len(),
                len: bs.len(),
            });
            for (b, n, f) in bs {
                layout.bins.push(b);
                hits.push(n);
                first.push(f);
            }
        }
        self.first = first;
        self.layout = if layout == bins::model().layout {
            None
        } else {
            Some(Arc::new(layout))
        };
        self.hits = hits;
    }

    /// Every bin with its group, in table order.
    pub fn rows(&self) -> Vec<BinRow<'_>> {
        let l = self.layout();
        let reach = self.reach();
        let mut out = Vec::with_capacity(l.bins.len());
        for g in &l.groups {
            for (k, r) in reach.iter().enumerate().skip(g.start).take(g.len) {
                out.push(BinRow {
                    group: &g.name,
                    bin: &l.bins[k].name,
                    hits: self.hits[k],
                    unreachable: r.map(|r| r.0),
                    outside: r.is_some_and(|r| r.1),
                });
            }
        }
        out
    }

    /// Per group: bins hit, reachable, unreachable, outside the run.
    pub fn groups(&self) -> Vec<GroupSummary> {
        let l = self.layout();
        let reach = self.reach();
        l.groups
            .iter()
            .map(|g| {
                let mut s = GroupSummary {
                    name: g.name.clone(),
                    doc: g.doc.clone(),
                    hit: 0,
                    reachable: 0,
                    unreachable: 0,
                    outside: 0,
                    unreachable_hit: 0,
                };
                for (k, r) in reach.iter().enumerate().skip(g.start).take(g.len) {
                    let n = self.hits[k];
                    if let Some((_, outside)) = *r {
                        if outside {
                            s.outside += 1;
                        } else {
                            s.unreachable += 1;
                        }
                        s.unreachable_hit += (n > 0) as usize;
                    } else {
                        s.reachable += 1;
                        s.hit += (n > 0) as usize;
                    }
                }
                s
            })
            .collect()
    }

    /// The closure curve: reachable bins hit against operations, per family (the groups named
    /// `<family>.…`; groups of no stimulus family count as `shared`; a family with no bin the
    /// run reaches has no curve) and in total, at operation counts a quarter apart from 1 to
    /// the run's count (or a shard's last first hit). The last point's total is the summary's
    /// bins hit.
    pub fn closure(&self) -> Closure {
        let l = self.layout();
        let reach = self.reach();
        let families: Vec<&str> = ptxfma_cosim_engine::stim::Family::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        let mut curves: Vec<String> = Vec::new();
        // Per reachable bin: its curve and its first hit.
        let mut bins: Vec<(usize, Option<u64>)> = Vec::new();
        for g in &l.groups {
            let prefix = g.name.split('.').next().unwrap_or("");
            let name = if families.contains(&prefix) {
                prefix
            } else {
                "shared"
            };
            for (k, r) in reach.iter().enumerate().skip(g.start).take(g.len) {
                if r.is_some() {
                    continue;
                }
                let c = match curves.iter().position(|c| c == name) {
                    Some(c) => c,
                    None => {
                        curves.push(name.to_string());
                        curves.len() - 1
                    }
                };
                bins.push((c, self.first_hit(k)));
            }
        }
        let mut reachable = vec![0; curves.len() + 1];
        for &(c, _) in &bins {
            reachable[c] += 1;
            reachable[curves.len()] += 1;
        }
        // To the last first hit: a shard's positions lie in the whole run, past its own count.
        let last = bins
            .iter()
            .filter_map(|b| b.1)
            .max()
            .unwrap_or(0)
            .max(self.operations)
            .max(1);
        let mut at = Vec::new();
        let mut x = 1u64;
        while x < last {
            at.push(x);
            x += (x / 4).max(1);
        }
        at.push(last);
        let points = at
            .into_iter()
            .map(|x| {
                let mut hit = vec![0; curves.len() + 1];
                for &(c, f) in &bins {
                    if f.is_some_and(|f| f <= x) {
                        hit[c] += 1;
                        hit[curves.len()] += 1;
                    }
                }
                (x, hit)
            })
            .collect();
        curves.push("total".to_string());
        Closure {
            curves,
            reachable,
            points,
        }
    }

    /// The groups' counts summed.
    pub fn totals(&self) -> Totals {
        self.groups().iter().fold(Totals::default(), |t, g| Totals {
            hit: t.hit + g.hit,
            reachable: t.reachable + g.reachable,
            unreachable: t.unreachable + g.unreachable,
            outside: t.outside + g.outside,
            unreachable_hit: t.unreachable_hit + g.unreachable_hit,
        })
    }

    /// Reachable bins hit, in percent of all reachable bins.
    pub fn total_percent(&self) -> f64 {
        self.totals().percent()
    }

    /// The count of one bin (`None` when there is no such bin).
    pub fn hits(&self, group: &str, bin: &str) -> Option<u64> {
        let l = self.layout();
        let g = l.groups.iter().find(|g| g.name == group)?;
        (g.start..g.start + g.len)
            .find(|&k| l.bins[k].name == bin)
            .map(|k| self.hits[k])
    }

    /// Reachable bins never hit, as (group, bin).
    pub fn uncovered(&self) -> Vec<(String, String)> {
        self.rows()
            .into_iter()
            .filter(|r| r.unreachable.is_none() && r.hits == 0)
            .map(|r| (r.group.to_string(), r.bin.to_string()))
            .collect()
    }

    /// Bins declared unreachable or outside the run that were hit, as (group, bin, hits): each
    /// is a wrong declaration.
    pub fn unreachable_hit(&self) -> Vec<(String, String, u64)> {
        self.rows()
            .into_iter()
            .filter(|r| r.unreachable.is_some() && r.hits > 0)
            .map(|r| (r.group.to_string(), r.bin.to_string(), r.hits))
            .collect()
    }

    /// Writes the coverage file (JSON) through a temporary file renamed into place.
    pub fn write_json(&self, path: &Path) -> Result<(), Error> {
        let mut s = serde_json::to_string_pretty(self)
            .map_err(|e| Error::new(format!("coverage JSON: {e}")))?;
        s.push('\n');
        ptxfma_cosim_engine::temporary::write_atomically(path, s.as_bytes())
    }

    /// Reads a coverage file, or the `coverage` object of a results file that carries one.
    pub fn read_json(path: &Path) -> Result<Coverage, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
        Coverage::from_json(&text).map_err(|e| Error::new(format!("{}: {e}", path.display())))
    }

    /// Parses a coverage file's text (or a results file with a `coverage` object).
    pub fn from_json(text: &str) -> Result<Coverage, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let v = if v.get("schema").and_then(|s| s.as_str()) == Some(SCHEMA) {
            v
        } else if let Some(c) = v.get("coverage").filter(|c| !c.is_null()) {
            c.clone()
        } else {
            return Err(format!(
                "neither a coverage file (schema `{SCHEMA}`) nor a results file with coverage"
            ));
        };
        Coverage::deserialize(v).map_err(|e| format!("bad coverage file: {e}"))
    }
}

// ---- JSON ------------------------------------------------------------------------------

#[derive(Serialize, Deserialize)]
struct FileBin {
    name: String,
    hits: u64,
    /// The operation count by which the bin was first seen hit (the closure curve).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unreachable: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct FileGroup {
    name: String,
    #[serde(default)]
    doc: String,
    bins: Vec<FileBin>,
}

/// The totals as the headline gives them, written for readers of the file (derived from the
/// bins, not read back).
#[derive(Serialize, Deserialize)]
struct FileSummary {
    /// Bins the run can reach, and of those hit.
    hit: usize,
    reachable: usize,
    percent: f64,
    /// Bins outside the run's families and forms.
    outside: usize,
    /// Bins declared unreachable by any instruction.
    unreachable: usize,
    /// Bins declared unreachable or outside, hit anyway.
    unreachable_hit: usize,
}

#[derive(Serialize, Deserialize)]
struct File {
    schema: String,
    schema_version: u32,
    operations: u64,
    #[serde(default)]
    unspelled: u64,
    /// The run's families (absent: every family).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    families: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none", skip_deserializing)]
    summary: Option<FileSummary>,
    groups: Vec<FileGroup>,
}

impl Serialize for Coverage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let l = self.layout();
        let t = self.totals();
        let f = File {
            schema: SCHEMA.into(),
            schema_version: SCHEMA_VERSION,
            operations: self.operations,
            unspelled: self.unspelled,
            families: self.families.clone(),
            summary: Some(FileSummary {
                hit: t.hit,
                reachable: t.reachable,
                percent: t.percent(),
                outside: t.outside,
                unreachable: t.unreachable,
                unreachable_hit: t.unreachable_hit,
            }),
            groups: l
                .groups
                .iter()
                .map(|g| FileGroup {
                    name: g.name.clone(),
                    doc: g.doc.clone(),
                    bins: (g.start..g.start + g.len)
                        .map(|k| FileBin {
                            name: l.bins[k].name.clone(),
                            hits: self.hits[k],
                            first: self.first_hit(k),
                            unreachable: l.bins[k].unreachable.clone(),
                        })
                        .collect(),
                })
                .collect(),
        };
        f.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Coverage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Coverage, D::Error> {
        use serde::de::Error as _;
        let f = File::deserialize(d)?;
        if f.schema != SCHEMA {
            return Err(D::Error::custom(format!(
                "schema `{}`, expected `{SCHEMA}`",
                f.schema
            )));
        }
        if f.schema_version != SCHEMA_VERSION {
            return Err(D::Error::custom(format!(
                "schema_version {}, this build reads {SCHEMA_VERSION}",
                f.schema_version
            )));
        }
        let mut layout = Layout::default();
        let mut hits = Vec::new();
        let mut first = Vec::new();
        let mut names = std::collections::HashSet::new();
        for g in f.groups {
            if !names.insert(g.name.clone()) {
                return Err(D::Error::custom(format!("group `{}` twice", g.name)));
            }
            let mut bnames = std::collections::HashSet::new();
            layout.groups.push(GroupDef {
                name: g.name.clone(),
                doc: g.doc,
                start: layout.bins.len(),
                len: g.bins.len(),
            });
            for b in g.bins {
                if !bnames.insert(b.name.clone()) {
                    return Err(D::Error::custom(format!(
                        "bin `{}` twice in group `{}`",
                        b.name, g.name
                    )));
                }
                layout.bins.push(BinDef {
                    name: b.name,
                    unreachable: b.unreachable,
                });
                hits.push(b.hits);
                first.push(b.first.unwrap_or(NEVER));
            }
        }
        let layout = if layout == bins::model().layout {
            None
        } else {
            Some(Arc::new(layout))
        };
        Ok(Coverage {
            operations: f.operations,
            unspelled: f.unspelled,
            layout,
            families: f.families,
            hits,
            first,
            next_check: f.operations + 1,
            shadow: sample::Shadow::default(),
        })
    }
}
