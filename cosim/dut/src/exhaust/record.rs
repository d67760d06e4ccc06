//! The file an exhaustion writes (`dut exhaust --json FILE`): what was exhausted, which values of
//! `a` of each form are done, and each `a` whose sum differs, narrowed to its first differing
//! pair. It is written again every few seconds while the run goes (`complete: false`), renamed
//! into place each time so that none is ever half-written, and is what `--resume` continues
//! from after Ctrl-C or a lost machine; the files of shards merge into one (`--merge`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use ptxfma_cli_common::fingerprints::PER_FORM;
use ptxfma_cosim_engine::Error;

/// What the file's `schema` says, so that another layout is refused rather than misread.
pub const SCHEMA: &str = "ptxfma-exhaust-1";

/// An exhaustion, finished or not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exhaustion {
    pub schema: String,
    /// `default` (the kit's RTL) or `dut:DIR`.
    pub design: String,
    /// The SHA-256 of a `dut build` design's library: a file of another build is not resumed
    /// or merged with this one.
    pub library_sha256: Option<String>,
    /// The NaN convention the results were judged under (`contract.nan`).
    pub nan: String,
    /// `h100` (the fingerprints) or `model` (the model's sums).
    pub against: String,
    /// The values of `a` this file covers, `[first, last + 1)`.
    pub a_range: [u32; 2],
    /// The shard this file is (`--shard K/N`), and the range its N shards split; none for a
    /// run of its whole range. A merge refuses shards of different splits and is complete only
    /// with every shard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardOf>,
    pub forms: Vec<FormRecord>,
    /// Every form done over the whole range.
    pub complete: bool,
    /// Seconds spent, over every run that resumed it.
    pub seconds: f64,
}

/// Shard `index` of `count` (from 1) of the values of `a` in `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOf {
    pub index: u32,
    pub count: u32,
    pub of: [u32; 2],
}

impl ShardOf {
    /// Its values of `a`: the `index`-th of `count` ranges of `of`, as equal as can be.
    pub fn range(&self) -> [u32; 2] {
        let [lo, hi] = self.of;
        let n = u64::from(hi - lo);
        let at = |i: u32| lo + (n * u64::from(i) / u64::from(self.count)) as u32;
        [at(self.index - 1), at(self.index)]
    }
}

impl std::fmt::Display for ShardOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [lo, hi] = self.range();
        write!(
            f,
            "shard {}/{} (a {lo:#06x}..{hi:#06x})",
            self.index, self.count
        )
    }
}

/// One form's progress and findings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FormRecord {
    /// The form (`mul.rn.f16`) and the word the design was given for it (`fma.rn.f16`).
    pub form: String,
    pub issued: String,
    /// The values of `a` done, as ranges `[first, last + 1)`.
    pub done: Vec<[u32; 2]>,
    /// The values of `a` whose sum differs, by `a`.
    pub differ: Vec<Difference>,
}

/// A value of `a` whose sum differs, and its first differing pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    pub a: u16,
    /// The second operand of the first differing pair (`c` of add and sub, `b` of mul); none
    /// if the model agrees with every result (a collision of the sum).
    pub x: Option<u16>,
    /// The design's result and the expected one, as the report words them.
    pub got: String,
    pub expected: String,
    /// The command that replays the operation.
    pub replay: String,
}

/// Which values of `a` are done, one flag each.
pub fn flags(done: &[[u32; 2]]) -> Vec<bool> {
    let mut f = vec![false; PER_FORM];
    for &[lo, hi] in done {
        f[lo as usize..(hi as usize).min(PER_FORM)].fill(true);
    }
    f
}

/// The flags as ranges.
pub fn ranges(flags: &[bool]) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = Vec::new();
    for (a, _) in flags.iter().enumerate().filter(|(_, &d)| d) {
        match out.last_mut() {
            Some(r) if r[1] == a as u32 => r[1] += 1,
            _ => out.push([a as u32, a as u32 + 1]),
        }
    }
    out
}

impl Exhaustion {
    /// Whether every form is done over the whole range.
    pub fn covered(&self) -> bool {
        let [lo, hi] = self.a_range;
        self.forms.iter().all(|f| {
            let d = flags(&f.done);
            (lo..hi).all(|a| d[a as usize])
        })
    }

    /// The values of `a` in the range not done, by form: `(form, [first, last + 1))`.
    pub fn not_done(&self) -> Vec<(&str, [u32; 2])> {
        let [lo, hi] = self.a_range;
        let mut out = Vec::new();
        for f in &self.forms {
            let mut left = flags(&f.done);
            left.iter_mut().for_each(|d| *d = !*d);
            left[..lo as usize].fill(false);
            left[hi as usize..].fill(false);
            out.extend(ranges(&left).into_iter().map(|r| (f.form.as_str(), r)));
        }
        out
    }

    /// Differing values of `a`, over every form.
    pub fn differences(&self) -> usize {
        self.forms.iter().map(|f| f.differ.len()).sum()
    }

    /// Reads `path`; the error is one line.
    pub fn read(path: &Path) -> Result<Exhaustion, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
        let e: Exhaustion = serde_json::from_str(&text).map_err(|e| {
            Error::new(format!(
                "{}: not the file of an exhaustion ({e})",
                path.display()
            ))
        })?;
        if e.schema != SCHEMA {
            return Err(Error::new(format!(
                "{}: schema `{}`, this fma-cosim reads `{SCHEMA}`",
                path.display(),
                e.schema
            )));
        }
        let [lo, hi] = e.a_range;
        let bad_range = |r: &[u32; 2]| r[0] >= r[1] || r[1] as usize > PER_FORM;
        if bad_range(&e.a_range) || e.forms.iter().flat_map(|f| &f.done).any(bad_range) {
            return Err(Error::new(format!(
                "{}: a range of `a` outside 0..65536 ({lo}..{hi})",
                path.display()
            )));
        }
        if let Some(s) = e.shard {
            let size = s.of[1].saturating_sub(s.of[0]);
            if bad_range(&s.of) || s.index == 0 || s.index > s.count || s.count > size {
                return Err(Error::new(format!(
                    "{}: shard {}/{} of a {}..{} is not a shard of that range",
                    path.display(),
                    s.index,
                    s.count,
                    s.of[0],
                    s.of[1]
                )));
            }
            if s.range() != e.a_range {
                return Err(Error::new(format!(
                    "{}: its range a {lo}..{hi} is not that of {s}",
                    path.display()
                )));
            }
        }
        Ok(e)
    }

    /// Writes it to `path`, renamed into place.
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let text = serde_json::to_string_pretty(self).expect("serialisable") + "\n";
        ptxfma_cosim_engine::temporary::write_atomically(path, text.as_bytes())
    }

    /// Why `other` (a file to resume or merge) is not of the same exhaustion as this one: the
    /// design, its build, the NaN convention and what it is compared with must be the same.
    pub fn mismatch(&self, other: &Exhaustion) -> Option<String> {
        let pairs = [
            ("design", &self.design, &other.design),
            ("nan", &self.nan, &other.nan),
            ("against", &self.against, &other.against),
        ];
        if let Some((what, a, b)) = pairs.iter().find(|(_, a, b)| a != b) {
            return Some(format!("its {what} is `{b}`, not `{a}`"));
        }
        (self.library_sha256 != other.library_sha256)
            .then(|| "its design was built again since (the library differs)".into())
    }

    /// The files of shards (or of parts) as one: the values of `a` done by any, every
    /// difference once; the error says why two cannot be merged. Shards of one split merge into
    /// the whole range they split, so that a shard that wrote no file leaves the merge
    /// incomplete ([`Exhaustion::missing_shards`]) rather than unnoticed.
    pub fn merge(files: &[Exhaustion]) -> Result<Exhaustion, String> {
        let (first, rest) = files.split_first().ok_or("nothing to merge")?;
        let split = |f: &Exhaustion| f.shard.map(|s| (s.count, s.of));
        if let Some(f) = rest.iter().find(|f| split(f) != split(first)) {
            let says = |f: &Exhaustion| {
                f.shard.map_or("no shard".to_string(), |s| {
                    format!("{}/{}", s.index, s.count)
                })
            };
            return Err(format!(
                "shards of different splits (`{}` and `{}`, of a {:#06x}..{:#06x} and \
                 {:#06x}..{:#06x}): merge the shards of one --shard K/N split",
                says(first),
                says(f),
                first.shard.map_or(first.a_range, |s| s.of)[0],
                first.shard.map_or(first.a_range, |s| s.of)[1],
                f.shard.map_or(f.a_range, |s| s.of)[0],
                f.shard.map_or(f.a_range, |s| s.of)[1],
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for s in files.iter().filter_map(|f| f.shard) {
            if !seen.insert(s.index) {
                return Err(format!("{s} is given twice"));
            }
        }
        let mut out = first.clone();
        if let Some(s) = first.shard {
            out.a_range = s.of;
            out.shard = None;
        }
        for f in rest {
            if let Some(why) = out.mismatch(f) {
                return Err(why);
            }
            out.a_range = [
                out.a_range[0].min(f.a_range[0]),
                out.a_range[1].max(f.a_range[1]),
            ];
            out.seconds += f.seconds;
            for form in &f.forms {
                match out.forms.iter_mut().find(|o| o.form == form.form) {
                    None => out.forms.push(form.clone()),
                    Some(o) if o.issued != form.issued => {
                        return Err(format!(
                            "{} was given as `{}` in one file and as `{}` in another",
                            form.form, o.issued, form.issued
                        ))
                    }
                    Some(o) => {
                        let mut d = flags(&o.done);
                        flags(&form.done)
                            .iter()
                            .enumerate()
                            .for_each(|(a, &x)| d[a] |= x);
                        o.done = ranges(&d);
                        for x in &form.differ {
                            if !o.differ.iter().any(|y| y.a == x.a) {
                                o.differ.push(x.clone());
                            }
                        }
                        o.differ.sort_by_key(|d| d.a);
                    }
                }
            }
        }
        out.complete = out.covered();
        Ok(out)
    }

    /// The shards of the split of `files` that none of them is (empty for files that are not
    /// shards).
    pub fn missing_shards(files: &[Exhaustion]) -> Vec<ShardOf> {
        let Some(s) = files.iter().find_map(|f| f.shard) else {
            return Vec::new();
        };
        (1..=s.count)
            .filter(|&k| !files.iter().any(|f| f.shard.is_some_and(|x| x.index == k)))
            .map(|index| ShardOf { index, ..s })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_ranges_are_one_anothers_inverse() {
        let r = vec![[0, 3], [7, 8], [65_530, 65_536]];
        assert_eq!(ranges(&flags(&r)), r);
        assert_eq!(ranges(&vec![false; PER_FORM]), Vec::<[u32; 2]>::new());
    }

    #[test]
    fn two_shards_merge_into_one_complete_file() {
        let part = |lo: u32, hi: u32| Exhaustion {
            schema: SCHEMA.into(),
            design: "default".into(),
            library_sha256: None,
            nan: "ptx".into(),
            against: "h100".into(),
            a_range: [lo, hi],
            shard: None,
            forms: vec![FormRecord {
                form: "mul.rn.f16".into(),
                issued: "mul.rn.f16".into(),
                done: vec![[lo, hi]],
                differ: Vec::new(),
            }],
            complete: true,
            seconds: 1.0,
        };
        let m = Exhaustion::merge(&[part(100, 200), part(0, 100)]).unwrap();
        assert_eq!(m.a_range, [0, 200]);
        assert_eq!(m.forms[0].done, vec![[0, 200]]);
        assert!(m.complete);
        // Shards of one split merge into the range they split; one missing is named.
        let shard = |index: u32| {
            let s = ShardOf {
                index,
                count: 3,
                of: [0, 300],
            };
            let [lo, hi] = s.range();
            Exhaustion {
                shard: Some(s),
                ..part(lo, hi)
            }
        };
        let two = Exhaustion::merge(&[shard(3), shard(1)]).unwrap();
        assert_eq!(two.a_range, [0, 300]);
        assert!(!two.complete);
        assert_eq!(two.not_done(), vec![("mul.rn.f16", [100, 200])]);
        let missing = Exhaustion::missing_shards(&[shard(3), shard(1)]);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].to_string(), "shard 2/3 (a 0x0064..0x00c8)");
        assert!(
            Exhaustion::merge(&[shard(1), shard(2), shard(3)])
                .unwrap()
                .complete
        );
        assert!(Exhaustion::merge(&[shard(2), shard(2)])
            .unwrap_err()
            .contains("given twice"));
        assert!(Exhaustion::merge(&[shard(2), part(0, 100)])
            .unwrap_err()
            .contains("different splits"));
        // A file whose shard is not one (an index of 0, or its range not the shard's) is
        // refused when read, in one line.
        let dir = std::env::temp_dir().join(format!("ptxfma-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bad.json");
        for (index, a_range, says) in [
            (0, [0, 100], "is not a shard of that range"),
            (4, [0, 100], "is not a shard of that range"),
            (2, [0, 100], "is not that of shard 2/3"),
        ] {
            let mut bad = shard(1);
            bad.shard.as_mut().unwrap().index = index;
            bad.a_range = a_range;
            bad.write(&f).unwrap();
            let e = Exhaustion::read(&f).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let mut other = part(200, 300);
        other.nan = "canonical".into();
        assert!(Exhaustion::merge(&[m, other]).unwrap_err().contains("nan"));
    }
}
