//! Instruction families, each with its enumerated legal control words, and the `--families`
//! filter over them.

use std::sync::OnceLock;

use crate::ctrl::legal::FloatOp;
use crate::ctrl::{AbFmt, Ctrl, Kind, Rnd, Scale, Sel};

/// Instruction families: the unit in which the tests count vectors and the co-simulator reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// `fma.rnd{.ftz}{.sat}.f32`
    F32,
    /// `fma.rnd.f64`
    F64,
    /// `fma.rnd{.ftz}.f32x2`
    F32x2,
    /// `add`/`sub`/`fma` `.f32.f16` and `.f32.bf16`
    Mixed,
    /// sm_1x `mad{.ftz}{.sat}.f32` (truncated product)
    Sm1x,
    /// `add`/`sub`/`mul` `.f32` and `.f64` on the FMA datapath
    AddSubMul,
    /// integer `vmad`
    Vmad,
    /// `fma/add/sub/mul` `.f16` and `.bf16`: one half-precision lane
    Half,
    /// `fma/add/sub/mul` `.f16x2` and `.bf16x2`: two half-precision lanes
    Half2,
}

impl Family {
    pub const ALL: [Family; 9] = [
        Family::F32,
        Family::F64,
        Family::F32x2,
        Family::Mixed,
        Family::Sm1x,
        Family::AddSubMul,
        Family::Vmad,
        Family::Half,
        Family::Half2,
    ];

    /// Short lower-case name used on command lines and in report tables.
    pub fn name(self) -> &'static str {
        match self {
            Family::F32 => "f32",
            Family::F64 => "f64",
            Family::F32x2 => "f32x2",
            Family::Mixed => "mixed",
            Family::Sm1x => "sm1x",
            Family::AddSubMul => "addsubmul",
            Family::Vmad => "vmad",
            Family::Half => "half",
            Family::Half2 => "half2",
        }
    }

    /// Inverse of [`Family::name`], case-insensitive; `sm_1x` is accepted for `sm1x`.
    pub fn parse(s: &str) -> Option<Family> {
        let s = s.trim().to_ascii_lowercase();
        if s == "sm_1x" {
            return Some(Family::Sm1x);
        }
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    /// The family a control word belongs to. Total, so that a report can classify any word,
    /// including one with no PTX spelling (see [`is_legal`](crate::ctrl::legal::is_legal)).
    pub fn of(ctrl: &Ctrl) -> Family {
        match ctrl.kind {
            Kind::Vmad => Family::Vmad,
            Kind::Half => Family::Half,
            Kind::Half2 => Family::Half2,
            Kind::Sm1x => Family::Sm1x,
            Kind::F32x2 => Family::F32x2,
            Kind::F32 if ctrl.ab_fmt != AbFmt::Native => Family::Mixed,
            Kind::F32 | Kind::F64 if ctrl.b_one || ctrl.c_zero => Family::AddSubMul,
            Kind::F32 => Family::F32,
            Kind::F64 => Family::F64,
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    /// [`Family::ctrls`], each word with its encoding ([`Ctrl::encode`]), built once per
    /// process: what the generators draw from, so that a stream neither rebuilds the lists
    /// nor encodes a drawn word again.
    pub fn ctrl_table(self) -> &'static [(Ctrl, u32)] {
        static TABLES: OnceLock<Vec<Vec<(Ctrl, u32)>>> = OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            Family::ALL
                .iter()
                .map(|f| f.ctrls().into_iter().map(|c| (c, c.encode())).collect())
                .collect()
        });
        &tables[self as usize]
    }

    /// Every legal control word of the family, in a fixed order. Sweeps and exhaustive tests
    /// iterate over this; the generator draws from it uniformly.
    pub fn ctrls(self) -> Vec<Ctrl> {
        let mut v = Vec::new();
        let base = Ctrl::default();
        let float = |kind, rnd, ftz, sat| Ctrl {
            kind,
            rnd,
            ftz,
            sat,
            ..base
        };
        match self {
            Family::F32 => {
                for rnd in RNDS {
                    for ftz in [false, true] {
                        for sat in [false, true] {
                            v.push(float(Kind::F32, rnd, ftz, sat));
                        }
                    }
                }
            }
            Family::F64 => {
                for rnd in RNDS {
                    v.push(float(Kind::F64, rnd, false, false));
                }
            }
            Family::F32x2 => {
                for op in [FloatOp::Fma, FloatOp::Add, FloatOp::Sub, FloatOp::Mul] {
                    for rnd in RNDS {
                        for ftz in [false, true] {
                            v.push(op.apply(float(Kind::F32x2, rnd, ftz, false)));
                        }
                    }
                }
            }
            Family::Mixed => {
                for ab_fmt in [AbFmt::F16, AbFmt::Bf16] {
                    for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Fma] {
                        for rnd in RNDS {
                            for sat in [false, true] {
                                v.push(op.apply(Ctrl {
                                    ab_fmt,
                                    ..float(Kind::F32, rnd, false, sat)
                                }));
                            }
                        }
                    }
                }
            }
            Family::Sm1x => {
                // `mad.f32` and `mad.ftz.f32` are both legal sm_1x spellings; the flush is
                // implied either way, so both control words must behave the same.
                for ftz in [false, true] {
                    for sat in [false, true] {
                        v.push(float(Kind::Sm1x, Rnd::Rn, ftz, sat));
                    }
                }
            }
            Family::AddSubMul => {
                for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Mul] {
                    for rnd in RNDS {
                        for ftz in [false, true] {
                            for sat in [false, true] {
                                v.push(op.apply(float(Kind::F32, rnd, ftz, sat)));
                            }
                        }
                        v.push(op.apply(float(Kind::F64, rnd, false, false)));
                    }
                }
            }
            Family::Half | Family::Half2 => v = half_ctrls(self == Family::Half2),
            Family::Vmad => {
                for asel in SELS {
                    for bsel in SELS {
                        for a_signed in [false, true] {
                            for b_signed in [false, true] {
                                for (neg_ab, neg_c, po) in VMAD_FORMS {
                                    for scale in [Scale::None, Scale::Shr7, Scale::Shr15] {
                                        for sat in [false, true] {
                                            v.push(Ctrl {
                                                kind: Kind::Vmad,
                                                asel,
                                                bsel,
                                                a_signed,
                                                b_signed,
                                                neg_ab,
                                                neg_c,
                                                po,
                                                scale,
                                                sat,
                                                ..base
                                            });
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        v
    }
}

/// The half-precision words, as `ptxas` spells them (PTX ISA 9.1, CUDA 13.5): per format and
/// operation, the modifier sets it accepts, all at `.rn`; and, one lane only, the words of
/// `fma.{rz,rm,rp}.bf16` (computed as f16 through binary32, S13; `.oob` and `.relu` dropped).
fn half_ctrls(x2: bool) -> Vec<Ctrl> {
    let kind = if x2 { Kind::Half2 } else { Kind::Half };
    let word = |ab_fmt, op: FloatOp, ftz, sat, relu, oob| {
        op.apply(Ctrl {
            kind,
            ab_fmt,
            ftz,
            sat,
            relu,
            oob,
            ..Ctrl::default()
        })
    };
    let mut v = Vec::new();
    // .sat and .relu are alternatives; .oob goes without .ftz.
    const CLAMPS: [(bool, bool); 3] = [(false, false), (true, false), (false, true)];
    for ftz in [false, true] {
        for (sat, relu) in CLAMPS {
            v.push(word(AbFmt::F16, FloatOp::Fma, ftz, sat, relu, false));
        }
    }
    for (sat, relu) in CLAMPS {
        v.push(word(AbFmt::F16, FloatOp::Fma, false, sat, relu, true));
    }
    for relu in [false, true] {
        for oob in [false, true] {
            v.push(word(AbFmt::Bf16, FloatOp::Fma, false, false, relu, oob));
        }
    }
    for op in [FloatOp::Add, FloatOp::Sub, FloatOp::Mul] {
        for ftz in [false, true] {
            for sat in [false, true] {
                v.push(word(AbFmt::F16, op, ftz, sat, false, false));
            }
        }
        v.push(word(AbFmt::Bf16, op, false, false, false, false));
    }
    if !x2 {
        for rnd in [Rnd::Rz, Rnd::Rm, Rnd::Rp] {
            v.push(Ctrl {
                rnd,
                via_f32: true,
                ..word(AbFmt::F16, FloatOp::Fma, false, false, false, false)
            });
        }
    }
    v
}

pub(crate) const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
pub(crate) const SELS: [Sel; 7] = [Sel::B0, Sel::B1, Sel::B2, Sel::B3, Sel::H0, Sel::H1, Sel::W];
/// The vmad (neg_ab, neg_c, po) forms PTX allows: plain, `-(a*b)`, `-c`, `.po`. Negating both
/// and negating under `.po` are not in the PTX table.
pub(crate) const VMAD_FORMS: [(bool, bool, bool); 4] = [
    (false, false, false),
    (true, false, false),
    (false, true, false),
    (false, false, true),
];

/// A set of families, e.g. from a `--families f32,vmad` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FamilyFilter {
    mask: u16,
}

impl Default for FamilyFilter {
    fn default() -> Self {
        FamilyFilter::all()
    }
}

impl FamilyFilter {
    pub fn all() -> FamilyFilter {
        FamilyFilter {
            mask: Family::ALL.iter().fold(0, |m, f| m | f.bit()),
        }
    }

    pub fn none() -> FamilyFilter {
        FamilyFilter { mask: 0 }
    }

    pub fn only(f: Family) -> FamilyFilter {
        FamilyFilter { mask: f.bit() }
    }

    pub fn with(self, f: Family) -> FamilyFilter {
        FamilyFilter {
            mask: self.mask | f.bit(),
        }
    }

    pub fn contains(self, f: Family) -> bool {
        self.mask & f.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.mask == 0
    }

    /// The members in [`Family::ALL`] order.
    pub fn families(self) -> Vec<Family> {
        Family::ALL
            .into_iter()
            .filter(|&f| self.contains(f))
            .collect()
    }

    /// Parses `all` or a comma-separated list of family names.
    pub fn parse(s: &str) -> Result<FamilyFilter, String> {
        if s.trim().eq_ignore_ascii_case("all") {
            return Ok(FamilyFilter::all());
        }
        let mut f = FamilyFilter::none();
        for part in s.split(',') {
            match Family::parse(part) {
                Some(fam) => f = f.with(fam),
                None => {
                    let names: Vec<_> = Family::ALL.iter().map(|f| f.name()).collect();
                    return Err(format!(
                        "unknown instruction family `{}` (known: all, {})",
                        part.trim(),
                        names.join(", ")
                    ));
                }
            }
        }
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctrl::legal::is_legal;
    use crate::stimulus::Stimulus;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn filter_restricts_families() {
        let f = FamilyFilter::parse("vmad, sm1x").unwrap();
        for v in Stimulus::new(1, f).take(2000) {
            let fam = Family::of(&v.ctrl);
            assert!(fam == Family::Vmad || fam == Family::Sm1x, "{fam:?}");
        }
        assert!(FamilyFilter::parse("f32,bogus").is_err());
        assert_eq!(FamilyFilter::parse("ALL").unwrap(), FamilyFilter::all());
        assert_eq!(Stimulus::new(1, FamilyFilter::none()).next(), None);
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
        }
        assert_eq!(Family::parse("sm_1x"), Some(Family::Sm1x));
    }

    /// Legal vmad forms counted straight from the PTX table: 12 sign/negation rows plus `.po`
    /// with each of the 4 source signedness pairs, times 7x7 selectors, 3 scales, sat on/off.
    #[test]
    fn vmad_ctrls_are_exactly_the_ptx_combinations() {
        let v = Family::Vmad.ctrls();
        assert_eq!(v.len(), (12 + 4) * 7 * 7 * 3 * 2);
        let set: HashSet<_> = v.iter().map(|c| c.encode()).collect();
        assert_eq!(set.len(), v.len(), "duplicates");
        for c in &v {
            assert!(!(c.neg_ab && c.neg_c), "{c:?}");
            assert!(!(c.po && (c.neg_ab || c.neg_c)), "{c:?}");
        }
        // The unsigned-final rows are exactly (u32*u32)+u32 with or without .po.
        let unsigned_final = v.iter().filter(|c| !c.signed_final()).count();
        assert_eq!(unsigned_final, 2 * 49 * 3 * 2);
    }

    #[test]
    fn the_table_is_the_enumeration_with_each_word_encoded() {
        for f in Family::ALL {
            let table: Vec<(Ctrl, u32)> = f.ctrls().into_iter().map(|c| (c, c.encode())).collect();
            assert_eq!(f.ctrl_table(), &table[..], "{f:?}");
            for &(c, w) in f.ctrl_table() {
                assert_eq!(Ctrl::decode(w), c, "{f:?}");
            }
        }
    }

    #[test]
    fn enumeration_and_legality_rule_agree_on_every_word() {
        // Two independent descriptions of the legal set: the per-family enumeration and the
        // field rules of is_legal. Every canonical word must get the same answer.
        let mut fam_of: HashMap<u32, Family> = HashMap::new();
        for f in Family::ALL {
            for c in f.ctrls() {
                assert_eq!(Family::of(&c), f, "{c:?}");
                assert!(fam_of.insert(c.encode(), f).is_none(), "{c:?} twice");
            }
        }
        for w in 0..(1u32 << crate::ctrl::CTRL_BITS) {
            let c = Ctrl::decode(w);
            if c.encode() != w {
                continue;
            }
            assert_eq!(is_legal(&c), fam_of.contains_key(&w), "{c:?}");
        }
    }
}
