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
mod file;
mod sample;
mod subscriber;
mod summary;

pub use summary::{BinRow, Closure, GroupSummary, Totals};

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};
use serde::Deserialize;

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

    /// About the memory this coverage holds (its counters and their first hits): what a run
    /// keeps per chunk when it samples coverage.
    pub fn kept_bytes(&self) -> usize {
        std::mem::size_of::<Coverage>() + (self.hits.len() + self.first.len()) * 8
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
