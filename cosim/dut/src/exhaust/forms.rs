//! Which two-operand half forms a design is exhausted on, and with what it is given: the form's
//! own control word where the design's forms allow it, else the `fma` of the same rounding,
//! `.ftz`, `.sat` and format with one operand substituted (docs/semantics.md, "add, sub and mul
//! on the FMA datapath"): `fma(a, x, -0)` is `mul a, x`, `fma(a, 1.0, x)` is `add a, x` and
//! `fma(a, 1.0, -x)` is `sub a, x`, bit for bit, so a unit that implements only `fma` is
//! exhausted through it.

use ptxfma_cli_common::fingerprints::{self, FORMS};
use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::format::BF16;
use ptxfma_ptx::{decode, Target as PtxTarget};

use ptxfma_cosim_engine::stim::{ptx_spelling, Family, Forms};

/// What a design takes: its manifest's families and forms (`None`: the kit's RTL, every word).
#[derive(Clone, Debug, Default)]
pub struct Allowed {
    pub families: Option<Vec<Family>>,
    pub forms: Option<Forms>,
}

impl Allowed {
    /// Whether the design takes control word `c` (the one predicate of `run --dut`'s stimulus,
    /// [`Forms::allows`], under the families).
    pub fn takes(&self, c: &Ctrl) -> bool {
        self.families
            .as_ref()
            .is_none_or(|f| f.contains(&Family::of(c)))
            && self.forms.is_none_or(|f| f.allows(c))
    }
}

/// One form to exhaust.
#[derive(Clone, Debug)]
pub struct Form {
    /// Its index in [`FORMS`] (and in the fingerprint file).
    pub k: usize,
    /// The form's control word, as PTX spells it: what results are judged by.
    pub ctrl: Ctrl,
    /// The control word the design is given: `ctrl`, or the fma it is computed as.
    pub issued: Ctrl,
}

impl Form {
    pub fn name(&self) -> &'static str {
        FORMS[self.k]
    }

    /// Whether the design is given the fma instead of the form.
    pub fn via_fma(&self) -> bool {
        self.issued != self.ctrl
    }

    /// How the issued word is spelled (`fma.rn.f16`), as `replay --ctrl` reads it.
    pub fn issued_spelling(&self) -> String {
        ptx_spelling(&self.issued)
    }

    /// The operands `(a, b, c)` the design is given for the pair `(a, x)`: the form's as
    /// `fma-model eval` reads them (`x` is `b` of mul, `c` of add and sub), or the fma's.
    pub fn operands(&self, a: u16, x: u16) -> (u64, u64, u64) {
        let (a, x) = (u64::from(a), u64::from(x));
        let op = FloatOp::of(&self.ctrl);
        if !self.via_fma() {
            return match op {
                Some(FloatOp::Mul) => (a, x, 0),
                _ => (a, 0, x),
            };
        }
        let one = if self.ctrl.half_fmt() == BF16 {
            0x3F80
        } else {
            0x3C00
        };
        match op {
            // -0 is the neutral addend of every rounding but rm, and the fingerprint forms are
            // all rn (docs/semantics.md).
            Some(FloatOp::Mul) => (a, x, 0x8000),
            Some(FloatOp::Sub) => (a, one, x ^ 0x8000),
            _ => (a, one, x),
        }
    }
}

/// The fma word with the rounding, `.ftz`, `.sat` and format of fingerprint form `k`.
fn fma_of(k: usize) -> Ctrl {
    let (_, rest) = FORMS[k].split_once('.').expect("an op and its suffixes");
    decode(
        &format!("fma.{rest}"),
        PtxTarget::parse("sm_90").expect("a target"),
    )
    .expect("every fingerprint form has an fma of its suffixes")
}

/// The form `k` as `design` takes it (its own word first, `via_fma` to use the fma even so),
/// or `None` if it takes neither.
fn form(k: usize, design: &Allowed, via_fma: bool) -> Option<Form> {
    let ctrl = fingerprints::ctrl(k);
    let fma = fma_of(k);
    let issued = if design.takes(&ctrl) && !via_fma {
        ctrl
    } else if design.takes(&fma) {
        fma
    } else {
        return None;
    };
    Some(Form { k, ctrl, issued })
}

/// The forms to exhaust: `names` (every fingerprint form the design takes when empty), each
/// taken by the design directly or through its fma; the error is one line.
pub fn select(design: &Allowed, names: &[String], via_fma: bool) -> Result<Vec<Form>, String> {
    if names.is_empty() {
        let all: Vec<Form> = (0..FORMS.len())
            .filter_map(|k| form(k, design, via_fma))
            .collect();
        if all.is_empty() {
            return Err(
                "the design takes none of the two-operand half forms (add, sub, mul of .f16 or \
                 .bf16), nor an fma of their rounding and format (its manifest's forms; rtl/alt/ is \
                 f32 only)"
                    .into(),
            );
        }
        return Ok(all);
    }
    let mut picked: Vec<Form> = Vec::new();
    for name in names {
        let k = fingerprints::index(name).ok_or_else(|| {
            format!(
                "--forms: `{name}` is not a two-operand half form (known: {})",
                FORMS.join(", ")
            )
        })?;
        let f = form(k, design, via_fma).ok_or_else(|| {
            format!(
                "--forms: the design takes neither `{name}` nor `{}` (its manifest's forms; \
                 rtl/alt/ is f32 only)",
                ptx_spelling(&fma_of(k))
            )
        })?;
        if !picked.iter().any(|p| p.k == k) {
            picked.push(f);
        }
    }
    Ok(picked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn through_the_fma_each_form_is_the_forms_own_result() {
        use ptxfma_model::machine::pipeline::eval_batch;
        let every = Allowed::default();
        for (k, name) in FORMS.iter().enumerate() {
            let direct = form(k, &every, false).unwrap();
            let fma = form(k, &every, true).unwrap();
            assert!(!direct.via_fma() && fma.via_fma(), "{name}");
            let pairs: Vec<(u16, u16)> = (0..4000u32)
                .map(|i| {
                    let h = fingerprints::splitmix64(u64::from(i) + 977 * k as u64);
                    (h as u16, (h >> 16) as u16)
                })
                .chain([
                    (0x0000, 0x8000),
                    (0x8000, 0x0000),
                    (0x7c00, 0xfc00),
                    (0x0001, 0x8001),
                ])
                .collect();
            let results = |f: &Form| {
                let ops: Vec<(u64, u64, u64)> =
                    pairs.iter().map(|&(a, x)| f.operands(a, x)).collect();
                let col =
                    |i: usize| -> Vec<u64> { ops.iter().map(|o| [o.0, o.1, o.2][i]).collect() };
                let mut d = vec![0u64; ops.len()];
                let w = f.issued.encode();
                eval_batch(|_| w, &col(0), &col(1), &col(2), &mut d);
                d
            };
            assert_eq!(results(&direct), results(&fma), "{name}");
        }
    }

    #[test]
    fn a_design_without_the_form_is_given_the_fma_and_one_without_either_is_refused() {
        let rn_only = Allowed {
            families: Some(vec![Family::Half]),
            forms: Some(Forms {
                rnds: [true, false, false, false],
                ftz: false,
                sat: false,
                ..Forms::ALL
            }),
        };
        let all = select(&rn_only, &[], false).unwrap();
        let names: Vec<&str> = all.iter().map(Form::name).collect();
        assert_eq!(
            names,
            [
                "add.rn.f16",
                "sub.rn.f16",
                "mul.rn.f16",
                "add.rn.bf16",
                "sub.rn.bf16",
                "mul.rn.bf16"
            ]
        );
        let e = select(&rn_only, &["mul.rn.sat.f16".into()], false).unwrap_err();
        assert!(e.contains("fma.rn.sat.f16"), "{e}");
        let e = select(&rn_only, &["mul.rn.f32".into()], false).unwrap_err();
        assert!(e.contains("not a two-operand half form"), "{e}");
        let via = select(&rn_only, &["mul.rn.f16".into()], true).unwrap();
        assert_eq!(via[0].issued_spelling(), "fma.rn.f16");
    }
}
