//! The coverage file: a [`Coverage`] as a self-describing JSON object (every group and bin by
//! name, with its count and, for an unreachable bin, the reason), read back without the build
//! that wrote it.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::bins::{BinDef, GroupDef, Layout};
use super::{Coverage, NEVER, SCHEMA, SCHEMA_VERSION};

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
        let layout = if layout == super::bins::model().layout {
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
            shadow: super::sample::Shadow::default(),
        })
    }
}
