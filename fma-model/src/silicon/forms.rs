//! The instruction forms a GPU runs: one per legal control word the model executes on sm_20 or
//! later, plus other spellings of the same words: `mad` for `fma`, and for a sample of vmad words
//! the other `.dtype` and `-a, -b` (which `ptxas` accepts and which decode to the same word:
//! docs/semantics.md S8). Each form is one
//! kernel of the CUDA program (`silicon/ptxfma_silicon.cu`), whose inline PTX is printed here
//! from the model's own printer, so the text the GPU assembles is the text the model decodes.
//!
//! The table is written to `silicon/forms.inc` by `fma-model silicon forms`; a test keeps the
//! checked-in file equal to this module's output, and its fingerprint travels in every vector
//! and result file so that files and program from different tables are refused.

use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::{AbFmt, Ctrl, Kind, Rnd, Sel};
use ptxfma_model::stimulus::Family;
use ptxfma_ptx::print::{operand_text, ptx_spelling, rnd_name, sel_suffix, Operand};
use ptxfma_ptx::Target;

/// How the operands of a form sit in registers: the inline-asm constraints of its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `.f32` registers: a, b, c, d (`"f"`).
    F32,
    /// `.f64` registers (`"d"`).
    F64,
    /// Mixed precision: a and b in 16-bit registers (`"h"`), c and d `.f32`.
    Mixed,
    /// `.f32x2`: every operand a 64-bit register (`"l"`).
    F32x2,
    /// vmad: 32-bit integer registers (`"r"`).
    Vmad,
    /// One half-precision lane: 16-bit registers (`"h"`).
    Half,
    /// Two half-precision lanes: 32-bit registers (`"r"`).
    Half2,
}

impl Shape {
    /// The macro suffix in `forms.inc` (`PTXFMA_FORM_F32`).
    pub fn name(self) -> &'static str {
        match self {
            Shape::F32 => "F32",
            Shape::F64 => "F64",
            Shape::Mixed => "MIXED",
            Shape::F32x2 => "F32X2",
            Shape::Vmad => "VMAD",
            Shape::Half => "HALF",
            Shape::Half2 => "HALF2",
        }
    }
}

/// Which of a control word's PTX spellings a form writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spelling {
    /// The printer's own spelling ([`ptx_spelling`]).
    Canonical,
    /// `mad.rnd` rather than `fma.rnd` (the same operation since sm_20).
    Mad,
    /// vmad with the `.dtype` of the other signedness than the final result's.
    OtherDtype,
    /// vmad with both `a` and `b` negated, which cancel (the word has no negated product).
    BothNegated,
    /// S13: one-lane `fma.{rz,rm,rp}.bf16` with the `.oob` and/or `.relu` its word drops
    /// written out.
    Dropped { oob: bool, relu: bool },
    /// S13: `fma.{rz,rm,rp}{.oob}{.relu}.bf16x2`, the `.rn` word with another rounding written.
    Directed(Rnd),
}

/// One instruction form: a control word and how PTX spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Form {
    pub ctrl: Ctrl,
    pub spelling: Spelling,
}

impl Form {
    /// The mnemonic, e.g. `mad.rz.ftz.sat.f32` or `vmad.s32.u32.s32.po.sat.shr7`: the row of the
    /// results table this form is counted in (a vmad row holds every operand selector and sign).
    pub fn mnemonic(&self) -> String {
        let s = ptx_spelling(&self.ctrl);
        match self.spelling {
            Spelling::Mad => s.replacen("fma.", "mad.", 1),
            Spelling::OtherDtype => {
                let (written, other) = if self.ctrl.signed_final() {
                    ("vmad.s32", "vmad.u32")
                } else {
                    ("vmad.u32", "vmad.s32")
                };
                s.replacen(written, other, 1)
            }
            Spelling::Dropped { oob, relu } => {
                let mods = [(oob, ".oob"), (relu, ".relu")]
                    .iter()
                    .filter(|(on, _)| *on)
                    .map(|(_, m)| *m)
                    .collect::<String>();
                s.replacen(".bf16", &format!("{mods}.bf16"), 1)
            }
            Spelling::Directed(rnd) => s.replacen(".rn.", &format!(".{}.", rnd_name(rnd)), 1),
            Spelling::Canonical | Spelling::BothNegated => s,
        }
    }

    pub fn shape(&self) -> Shape {
        match self.ctrl.kind {
            Kind::F64 => Shape::F64,
            Kind::F32x2 => Shape::F32x2,
            Kind::Vmad => Shape::Vmad,
            Kind::Half => Shape::Half,
            Kind::Half2 => Shape::Half2,
            Kind::F32 if self.ctrl.ab_fmt != AbFmt::Native => Shape::Mixed,
            Kind::F32 | Kind::Sm1x => Shape::F32,
        }
    }

    /// The lowest compute capability (`sm_XX` as XX) whose PTX has this form.
    pub fn min_sm(&self) -> u32 {
        match self.shape() {
            Shape::Mixed | Shape::F32x2 => 100,
            // The decoder's target rules (sm_53, sm_80 for .relu and bf16, sm_90 for .oob and
            // bf16 add/sub/mul), asked rather than restated.
            Shape::Half | Shape::Half2 => [53, 80, 90, 100]
                .into_iter()
                .find(|sm| {
                    let t = Target::parse(&format!("sm_{sm}")).expect("a PTX target");
                    ptxfma_ptx::decode(&self.mnemonic(), t).is_ok()
                })
                .expect("a half form decodes on sm_100"),
            _ => 20,
        }
    }

    /// The operand text of the instruction with `%1`, `%2`, `%3` for a, b, c: `%1, %2, %3` for
    /// fma, `%1, %3` for add/sub, `%1, %2` for mul, and vmad's negations and selectors.
    pub fn operands(&self) -> String {
        let c = &self.ctrl;
        if c.kind == Kind::Vmad {
            let neg = |on: bool| if on { "-" } else { "" };
            let both = self.spelling == Spelling::BothNegated;
            return format!(
                "{}%1{}, {}%2{}, {}%3",
                neg(c.neg_ab || both),
                sel_suffix(c.asel),
                neg(both),
                sel_suffix(c.bsel),
                neg(c.neg_c)
            );
        }
        match FloatOp::of(c) {
            Some(FloatOp::Add | FloatOp::Sub) => "%1, %3".into(),
            Some(FloatOp::Mul) => "%1, %2".into(),
            _ => "%1, %2, %3".into(),
        }
    }

    /// The whole instruction as the kernel's inline PTX, e.g. `fma.rn.f32 %0, %1, %2, %3;`.
    pub fn asm(&self) -> String {
        format!("{} %0, {};", self.mnemonic(), self.operands())
    }

    /// The instruction with these operand values, as an `fma-model eval` line would write it
    /// (in this form's spelling: `mad`, the other vmad `.dtype`, `-a, -b`).
    pub fn eval_line(&self, a: u64, b: u64, c: u64) -> String {
        let mut line = self.mnemonic();
        for (which, v) in [(Operand::A, a), (Operand::B, b), (Operand::C, c)] {
            if let Some(text) = operand_text(&self.ctrl, which, v) {
                line.push(' ');
                if self.spelling == Spelling::BothNegated && which != Operand::C {
                    line.push('-');
                }
                line.push_str(&text);
            }
        }
        line
    }
}

/// The vmad selector pairs whose words are also run in their other spellings: whole words, and
/// two mixed byte/half pairs. Every sign, `.po`, `.sat` and scale combination is run with each;
/// all 49 pairs in every spelling would double the program for what S8 shows is one answer.
const VMAD_RESPELLED_SELECTORS: [(Sel, Sel); 3] =
    [(Sel::W, Sel::W), (Sel::B3, Sel::H1), (Sel::H0, Sel::B0)];

/// Every form, in the fixed order that numbers the kernels: fma and mad f32, fma and mad f64,
/// add/sub/mul, mixed precision, f32x2, vmad, half, half2, then vmad's other spellings of a sample of its
/// words (the other `.dtype`; `-a, -b`), then the S13 spellings whose written modifiers the word
/// drops (one lane: `.oob`, `.relu`; two lanes: the directed roundings). sm_1x `mad.f32` is left
/// out: no GPU since sm_20 accepts it.
pub fn all() -> Vec<Form> {
    let form = |spelling| move |ctrl| Form { ctrl, spelling };
    let plain = form(Spelling::Canonical);
    let mad = form(Spelling::Mad);
    let mut v: Vec<Form> = Vec::new();
    let f32s = Family::F32.ctrls();
    let f64s = Family::F64.ctrls();
    v.extend(f32s.iter().copied().map(plain));
    v.extend(f32s.iter().copied().map(mad));
    v.extend(f64s.iter().copied().map(plain));
    v.extend(f64s.iter().copied().map(mad));
    for fam in [
        Family::AddSubMul,
        Family::Mixed,
        Family::F32x2,
        Family::Vmad,
        Family::Half,
        Family::Half2,
    ] {
        v.extend(fam.ctrls().into_iter().map(plain));
    }
    let respelled: Vec<Ctrl> = Family::Vmad
        .ctrls()
        .into_iter()
        .filter(|c| VMAD_RESPELLED_SELECTORS.contains(&(c.asel, c.bsel)))
        .collect();
    v.extend(respelled.iter().copied().map(form(Spelling::OtherDtype)));
    v.extend(
        respelled
            .iter()
            .copied()
            .filter(|c| !c.neg_ab)
            .map(form(Spelling::BothNegated)),
    );
    for c in Family::Half.ctrls().into_iter().filter(|c| c.via_f32) {
        for (oob, relu) in [(true, false), (false, true), (true, true)] {
            v.push(form(Spelling::Dropped { oob, relu })(c));
        }
    }
    for c in Family::Half2.ctrls() {
        if c.ab_fmt == AbFmt::Bf16 && FloatOp::of(&c) == Some(FloatOp::Fma) {
            for rnd in [Rnd::Rz, Rnd::Rm, Rnd::Rp] {
                v.push(form(Spelling::Directed(rnd))(c));
            }
        }
    }
    v
}

/// A results-table row: one mnemonic and the forms counted under it, in [`all`]'s order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub mnemonic: String,
    /// Indices into [`all`].
    pub forms: Vec<usize>,
}

/// The rows of the results table, in the order their first form appears.
pub fn rows(forms: &[Form]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut at = std::collections::HashMap::new();
    for (i, f) in forms.iter().enumerate() {
        let m = f.mnemonic();
        let r = *at.entry(m.clone()).or_insert_with(|| {
            rows.push(Row {
                mnemonic: m,
                forms: Vec::new(),
            });
            rows.len() - 1
        });
        rows[r].forms.push(i);
    }
    rows
}

/// FNV-1a over every form's shape, minimum target and inline PTX: changes with any edit of the
/// table, so a vector file, a result file and a built program agree on what id N means.
pub fn fingerprint(forms: &[Form]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in forms {
        let text = format!("{}|{}|{}\n", f.shape().name(), f.min_sm(), f.asm());
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The text of `silicon/forms.inc`: one `PTXFMA_FORM_<shape>(id, min_sm, "asm")` line per form.
pub fn include_file(forms: &[Form]) -> String {
    let mut s = String::new();
    s.push_str(
        "// Generated by `fma-model silicon forms`: do not edit (a test checks it is current).\n",
    );
    s.push_str("// One line per instruction form: PTXFMA_FORM_<operand shape>(id, lowest sm, inline PTX).\n");
    s.push_str(&format!(
        "#define PTXFMA_FORMS_FINGERPRINT 0x{:016x}ull\n",
        fingerprint(forms)
    ));
    s.push_str(&format!("#define PTXFMA_FORM_COUNT {}\n", forms.len()));
    for (i, f) in forms.iter().enumerate() {
        s.push_str(&format!(
            "PTXFMA_FORM_{}({i}, {}, \"{}\")\n",
            f.shape().name(),
            f.min_sm(),
            f.asm()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxfma_ptx::{decode, parse_line, Target};
    use std::collections::HashSet;

    #[test]
    fn every_form_decodes_back_to_its_word_on_its_target() {
        let forms = all();
        for f in &forms {
            let target = Target::parse(&format!("sm_{}", f.min_sm().max(90))).unwrap();
            // The mnemonic alone, and the whole line with operands, through the decoder.
            let line = f.eval_line(1, 2, 3);
            let instr = parse_line(&line, target).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(instr.ctrl, f.ctrl, "{line}");
            if f.ctrl.kind != Kind::Vmad {
                assert_eq!(
                    decode(&f.mnemonic(), target).unwrap(),
                    f.ctrl,
                    "{}",
                    f.mnemonic()
                );
                let m = f.mnemonic();
                let written = match f.spelling {
                    Spelling::Directed(r) => r,
                    _ => f.ctrl.rnd,
                };
                assert!(m.split('.').any(|t| t == rnd_name(written)), "{m}");
            }
            // The inline PTX is the eval line with registers for operands.
            let asm = f.asm();
            assert!(asm.starts_with(&format!("{} %0, ", f.mnemonic())), "{asm}");
        }
    }

    #[test]
    fn the_table_has_every_runnable_word_once_per_spelling() {
        let forms = all();
        let distinct: HashSet<_> = forms.iter().collect();
        assert_eq!(distinct.len(), forms.len(), "a form twice");
        let asms: HashSet<_> = forms.iter().map(Form::asm).collect();
        assert_eq!(asms.len(), forms.len(), "two forms with one spelling");
        // fma and mad f32 (16 each), fma and mad f64 (4 each), add/sub/mul (48 f32 + 12 f64),
        // mixed (f16 and bf16 x add, sub, fma x 4 roundings x sat: 48), f32x2 (fma, add, sub,
        // mul x 4 roundings x ftz: 32), vmad (4704); then, for 3 selector pairs, each of the 96
        // vmad sign/negation/.po/.sat/scale words with the other dtype (288) and the 72 without a
        // negated product with -a, -b (216).
        // Half precision: 31 one-lane words (9 f16 and 4 bf16 fma, 15 add/sub/mul, the 3 of
        // fma.{rz,rm,rp}.bf16) and 28 two-lane ones; S13's other spellings: those 3 words with
        // .oob, .relu or both written (9), the 4 bf16x2 fma words at .rz/.rm/.rp (12).
        assert_eq!(
            forms.len(),
            16 * 2 + 4 * 2 + 60 + 48 + 32 + 4704 + 31 + 28 + 3 * 96 + 3 * 72 + 9 + 12
        );
        for fam in Family::ALL {
            let words: HashSet<_> = forms.iter().map(|f| f.ctrl).collect();
            let covered = fam.ctrls().iter().filter(|c| words.contains(c)).count();
            let want = if fam == Family::Sm1x {
                0
            } else {
                fam.ctrls().len()
            };
            assert_eq!(covered, want, "{fam:?}");
        }
        assert!(forms.iter().all(|f| f.ctrl.kind != Kind::Sm1x));
    }

    #[test]
    fn rows_group_vmad_decorations_under_one_mnemonic() {
        let forms = all();
        let rows = rows(&forms);
        let n: usize = rows.iter().map(|r| r.forms.len()).sum();
        assert_eq!(n, forms.len());
        let vmad: Vec<_> = rows
            .iter()
            .filter(|r| r.mnemonic.starts_with("vmad"))
            .collect();
        for r in &vmad {
            let canonical = r
                .forms
                .iter()
                .filter(|&&i| forms[i].spelling == Spelling::Canonical)
                .count();
            // A row has every selector pair of its words, or only respelled ones
            // (`vmad.u32.s32...`: a signed source under the unsigned dtype is never canonical).
            assert!(canonical == 0 || canonical >= 49, "{}", r.mnemonic);
            let other_dtype = |&i: &usize| forms[i].spelling == Spelling::OtherDtype;
            assert!(
                canonical > 0 || r.forms.iter().all(other_dtype),
                "{}",
                r.mnemonic
            );
        }
        let float = rows.len() - vmad.len();
        assert_eq!(
            float,
            forms.len() - 4704 - 504,
            "one row per float and half form"
        );
        let r = rows
            .iter()
            .find(|r| r.mnemonic == "mad.rm.ftz.f32")
            .unwrap();
        assert_eq!(r.forms.len(), 1);
        assert_eq!(forms[r.forms[0]].asm(), "mad.rm.ftz.f32 %0, %1, %2, %3;");
    }

    #[test]
    fn operand_text_per_operation() {
        let forms = all();
        let asm = |m: &str| forms.iter().find(|f| f.mnemonic() == m).unwrap().asm();
        assert_eq!(asm("sub.rz.ftz.sat.f32"), "sub.rz.ftz.sat.f32 %0, %1, %3;");
        assert_eq!(asm("mul.rp.f64"), "mul.rp.f64 %0, %1, %2;");
        assert_eq!(asm("fma.rn.f32.bf16"), "fma.rn.f32.bf16 %0, %1, %2, %3;");
        let neg = forms
            .iter()
            .find(|f| f.ctrl.kind == Kind::Vmad && f.ctrl.neg_ab && f.ctrl.asel != f.ctrl.bsel)
            .unwrap();
        assert!(neg.asm().contains(", -%1."), "{}", neg.asm());
        let respelled = |sp| forms.iter().find(|f| f.spelling == sp).unwrap();
        let d = respelled(Spelling::OtherDtype);
        assert_eq!(d.ctrl.signed_final(), d.mnemonic().starts_with("vmad.u32"));
        let both = forms
            .iter()
            .find(|f| f.spelling == Spelling::BothNegated && f.ctrl.bsel == Sel::H1)
            .unwrap();
        assert!(both.asm().contains(", -%1.b3, -%2.h1, "), "{}", both.asm());
    }

    #[test]
    fn fingerprint_follows_the_text() {
        let forms = all();
        let mut other = forms.clone();
        other.swap(0, 1);
        assert_ne!(fingerprint(&forms), fingerprint(&other));
        assert_eq!(fingerprint(&forms), fingerprint(&all()));
    }
}
