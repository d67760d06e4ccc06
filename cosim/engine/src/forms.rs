//! The forms a design under test implements (`[forms]` of a `dut build` manifest, its
//! `dut.json`): within its families, which operations, formats, rounding modes and modifiers.
//! One predicate, [`Forms::allows`], that every consumer asks: the stream draws only from the
//! words it allows ([`table`]), coverage counts the bins only excluded words reach as outside
//! the design, and `run --vectors`, `replay`, `wave` and `merge --verify` refuse a word it does
//! not allow with [`Forms::refusal`], which names the key that leaves the word out.
//!
//! The names are PTX's, read off the word's spelling (`ptxfma_ptx::print::ptx_spelling`):
//! the operation is the opcode (`fma`, `add`, `sub`, `mul`, sm_1x's `mad`, `vmad`), the format
//! the type suffix (`f32`, `f64`, `f32x2`, `f32.f16`, `f32.bf16` for the mixed words, `f16`,
//! `bf16`, `f16x2`, `bf16x2`); an integer `vmad` word has no floating-point format and no
//! rounding mode, so neither key leaves it out (its family and operation do).

use std::collections::HashMap;
use std::sync::Mutex;

use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind};
use ptxfma_model::stimulus::Family;

/// The operations (PTX opcodes) `forms.operations` names, in this order.
pub const OPERATIONS: [&str; 6] = ["fma", "add", "sub", "mul", "mad", "vmad"];
/// The formats (PTX type suffixes) `forms.formats` names, in this order.
pub const FORMATS: [&str; 9] = [
    "f32", "f64", "f32x2", "f32.f16", "f32.bf16", "f16", "bf16", "f16x2", "bf16x2",
];
/// The rounding modes `forms.rounding` names, by `Rnd as usize`.
pub const ROUNDING: [&str; 4] = ["rn", "rz", "rm", "rp"];

/// The index in [`OPERATIONS`] of `c`'s opcode.
pub fn operation(c: &Ctrl) -> usize {
    match c.kind {
        Kind::Vmad => 5,
        Kind::Sm1x => 4,
        _ => match FloatOp::of(c) {
            Some(FloatOp::Add) => 1,
            Some(FloatOp::Sub) => 2,
            Some(FloatOp::Mul) => 3,
            // A field combination no mnemonic has is not legal; it counts as fma.
            Some(FloatOp::Fma) | None => 0,
        },
    }
}

/// The index in [`FORMATS`] of `c`'s type suffix; `None` for `vmad`, which has none.
pub fn format(c: &Ctrl) -> Option<usize> {
    Some(match (c.kind, c.ab_fmt) {
        (Kind::Vmad, _) => return None,
        (Kind::F64, _) => 1,
        (Kind::F32x2, _) => 2,
        (Kind::F32, AbFmt::F16) => 3,
        (Kind::F32, AbFmt::Bf16) => 4,
        (Kind::F32 | Kind::Sm1x, _) => 0,
        // S13: the word of `fma.{rz,rm,rp}.bf16` (binary16 through binary32) is spelled .bf16.
        (Kind::Half, _) if c.via_f32 || c.ab_fmt == AbFmt::Bf16 => 6,
        (Kind::Half, _) => 5,
        (Kind::Half2, AbFmt::Bf16) => 8,
        (Kind::Half2, _) => 7,
    })
}

/// The names of `names` whose flag in `on` is set, in order: a list key as a manifest (and
/// `dut.json`) writes it.
pub fn named<'a>(names: &[&'a str], on: &[bool]) -> Vec<&'a str> {
    names
        .iter()
        .zip(on)
        .filter(|(_, on)| **on)
        .map(|(n, _)| *n)
        .collect()
}

/// What a design implements within its families. Every list is indexed as its name table
/// ([`OPERATIONS`], [`FORMATS`], [`ROUNDING`]); a modifier false leaves out every word with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Forms {
    /// Rounding modes allowed, by `Rnd as usize` (every word but `vmad`'s).
    pub rnds: [bool; 4],
    pub operations: [bool; 6],
    /// Formats allowed (every word but `vmad`'s).
    pub formats: [bool; 9],
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub oob: bool,
}

impl Forms {
    /// Every form: what a manifest without `[forms]` keys means.
    pub const ALL: Forms = Forms {
        rnds: [true; 4],
        operations: [true; 6],
        formats: [true; 9],
        ftz: true,
        sat: true,
        relu: true,
        oob: true,
    };

    /// Whether these forms allow encoded control word `w` (a legal word).
    pub fn allows_word(&self, w: u32) -> bool {
        self.allows(&Ctrl::decode(w))
    }

    pub fn allows(&self, c: &Ctrl) -> bool {
        self.excluded_by(c).is_none()
    }

    /// The manifest key that leaves `c` out (`operations`, `formats`, `rounding`, `ftz`, `sat`,
    /// `relu`, `oob`), the first in that order; `None` when these forms allow it.
    pub fn excluded_by(&self, c: &Ctrl) -> Option<&'static str> {
        let vmad = c.kind == Kind::Vmad;
        if !self.operations[operation(c)] {
            Some("operations")
        } else if format(c).is_some_and(|f| !self.formats[f]) {
            Some("formats")
        } else if !vmad && !self.rnds[c.rnd as usize] {
            Some("rounding")
        } else if c.ftz && !self.ftz {
            Some("ftz")
        } else if c.sat && !self.sat {
            Some("sat")
        } else if c.relu && !self.relu {
            Some("relu")
        } else if c.oob && !self.oob {
            Some("oob")
        } else {
            None
        }
    }

    /// Why `c` is outside these forms, naming the manifest key and what it allows
    /// (`forms.operations allows only fma`), or `None` when it is inside.
    pub fn refusal(&self, c: &Ctrl) -> Option<String> {
        let key = self.excluded_by(c)?;
        let only = |names: &[&str], on: &[bool]| {
            format!("forms.{key} allows only {}", named(names, on).join(", "))
        };
        Some(match key {
            "operations" => only(&OPERATIONS, &self.operations),
            "formats" => only(&FORMATS, &self.formats),
            "rounding" => only(&ROUNDING, &self.rnds),
            _ => format!("forms.{key} is false"),
        })
    }

    /// Whether these forms allow every word (a manifest that restricts nothing).
    pub fn is_all(&self) -> bool {
        *self == Forms::ALL
    }

    /// As a manifest writes them: `rounding rn,rz, no .ftz, .sat`, led by the operations and
    /// formats and followed by `.relu` and `.oob` where those are restricted.
    pub fn describe(&self) -> String {
        let names = |names: &[&str], on: &[bool]| named(names, on).join(",");
        let flag = |on: bool, name: &str| format!("{}{name}", if on { "" } else { "no " });
        let mut parts = Vec::new();
        if self.operations != Forms::ALL.operations {
            parts.push(format!(
                "operations {}",
                names(&OPERATIONS, &self.operations)
            ));
        }
        if self.formats != Forms::ALL.formats {
            parts.push(format!("formats {}", names(&FORMATS, &self.formats)));
        }
        parts.push(format!("rounding {}", names(&ROUNDING, &self.rnds)));
        parts.push(flag(self.ftz, ".ftz"));
        parts.push(flag(self.sat, ".sat"));
        if !self.relu || !self.oob {
            parts.push(flag(self.relu, ".relu"));
            parts.push(flag(self.oob, ".oob"));
        }
        parts.join(", ")
    }
}

/// The legal words of `family` that `forms` allows, with their encodings, in
/// [`Family::ctrl_table`] order: what a restricted stream draws from, so that it draws an
/// allowed word at once however few there are (a rejection loop over all of the family's
/// words would draw 31 for each `fma.rn.f16`). None: the family's whole table. Built once per
/// (family, forms) in a process and kept for its life (a run sees one design's forms).
pub fn table(family: Family, forms: Option<Forms>) -> &'static [(Ctrl, u32)] {
    type Tables = HashMap<(Family, Forms), &'static [(Ctrl, u32)]>;
    static TABLES: Mutex<Option<Tables>> = Mutex::new(None);
    let full = family.ctrl_table();
    let Some(forms) = forms.filter(|f| !f.is_all()) else {
        return full;
    };
    let mut tables = TABLES.lock().unwrap_or_else(|p| p.into_inner());
    tables
        .get_or_insert_with(HashMap::new)
        .entry((family, forms))
        .or_insert_with(|| {
            let kept: Vec<(Ctrl, u32)> = full
                .iter()
                .filter(|(c, _)| forms.allows(c))
                .copied()
                .collect();
            Box::leak(kept.into_boxed_slice())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names are the PTX printer's: the opcode before the first dot, the type suffix
    /// after the modifiers.
    #[test]
    fn the_operation_and_format_of_every_word_are_those_of_its_spelling() {
        for f in Family::ALL {
            for c in f.ctrls() {
                let s = ptxfma_ptx::print::ptx_spelling(&c);
                let op = s.split('.').next().unwrap();
                assert_eq!(OPERATIONS[operation(&c)], op, "{s}");
                match format(&c) {
                    None => assert_eq!(c.kind, Kind::Vmad, "{s}"),
                    Some(k) => assert!(s.ends_with(&format!(".{}", FORMATS[k])), "{s}"),
                }
                // The longer suffix wins: `.f32.f16` is not `.f16`, `.bf16x2` not `.f16x2`.
                for (j, name) in FORMATS.iter().enumerate() {
                    let longer = FORMATS.iter().any(|o| o != name && o.ends_with(name));
                    if s.ends_with(&format!(".{name}")) && !longer {
                        assert_eq!(format(&c), Some(j), "{s}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_name_is_reached_by_some_word() {
        let words: Vec<Ctrl> = Family::ALL.iter().flat_map(|f| f.ctrls()).collect();
        for (k, name) in OPERATIONS.iter().enumerate() {
            assert!(words.iter().any(|c| operation(c) == k), "{name}");
        }
        for (k, name) in FORMATS.iter().enumerate() {
            assert!(words.iter().any(|c| format(c) == Some(k)), "{name}");
        }
    }

    #[test]
    fn fma_rn_f16_alone_is_one_word_named_by_what_leaves_the_others_out() {
        let mut only = Forms {
            rnds: [true, false, false, false],
            ftz: false,
            sat: false,
            relu: false,
            oob: false,
            ..Forms::ALL
        };
        only.operations = [true, false, false, false, false, false];
        only.formats = [false, false, false, false, false, true, false, false, false];
        let t = table(Family::Half, Some(only));
        let names: Vec<String> = t
            .iter()
            .map(|(c, _)| ptxfma_ptx::print::ptx_spelling(c))
            .collect();
        assert_eq!(names, ["fma.rn.f16"]);
        assert_eq!(t[0].1, t[0].0.encode());
        assert!(table(Family::Half2, Some(only)).is_empty());
        // The same table again, not another.
        assert!(std::ptr::eq(t, table(Family::Half, Some(only))));
        let refusal = |text: &str| {
            let c = ptxfma_ptx::decode(text, ptxfma_ptx::Target::SM_100).unwrap();
            only.refusal(&c)
        };
        assert_eq!(
            refusal("add.rn.f16").as_deref(),
            Some("forms.operations allows only fma")
        );
        assert_eq!(
            refusal("fma.rn.bf16").as_deref(),
            Some("forms.formats allows only f16")
        );
        assert_eq!(
            refusal("fma.rz.bf16").as_deref(),
            Some("forms.formats allows only f16")
        );
        assert_eq!(
            refusal("fma.rn.relu.f16").as_deref(),
            Some("forms.relu is false")
        );
        assert_eq!(
            refusal("fma.rn.oob.f16").as_deref(),
            Some("forms.oob is false")
        );
        assert_eq!(
            refusal("fma.rn.ftz.f16").as_deref(),
            Some("forms.ftz is false")
        );
        assert_eq!(refusal("fma.rn.f16"), None);
        // Unrestricted forms change nothing: the family's own table.
        assert!(std::ptr::eq(
            table(Family::Half, Some(Forms::ALL)),
            Family::Half.ctrl_table()
        ));
        assert_eq!(
            only.describe(),
            "operations fma, formats f16, rounding rn, no .ftz, no .sat, no .relu, no .oob"
        );
    }
}
