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
    pub forms: Vec<FormRecord>,
    /// Every form done over the whole range.
    pub complete: bool,
    /// Seconds spent, over every run that resumed it.
    pub seconds: f64,
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
    /// difference once; the error says why two cannot be merged.
    pub fn merge(files: &[Exhaustion]) -> Result<Exhaustion, String> {
        let (first, rest) = files.split_first().ok_or("nothing to merge")?;
        let mut out = first.clone();
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
        let mut other = part(200, 300);
        other.nan = "canonical".into();
        assert!(Exhaustion::merge(&[m, other]).unwrap_err().contains("nan"));
    }
}
