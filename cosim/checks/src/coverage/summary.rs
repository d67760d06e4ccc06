//! What a person reads of a [`Coverage`]: each bin as a row, each group's totals, the run's
//! totals and its closure curve, the bins left to hit and the unreachable ones hit.

use super::Coverage;

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

pub(super) fn percent(hit: usize, of: usize) -> f64 {
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

impl Coverage {
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
}
