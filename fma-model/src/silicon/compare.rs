//! Step three: the GPU's results against the model's, bit for bit (NaNs included), as a table
//! per form, a table per decision of `docs/semantics.md` (how many vectors exercised it, how many
//! of those the GPU answered otherwise), and the first mismatches in `fma-model eval` spelling.

use std::fmt::Write as _;
use std::path::Path;

use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::{Ctrl, Kind, Rnd};
use ptxfma_model::format::{Fmt, F32, F64};

use super::files::{Output, ResultsReader, VectorsReader};
use super::forms::{self, Form, Shape};
use super::generate::answers;
use super::SiliconError;

/// The decisions a vector can exercise, in the order of the report.
pub const DECISIONS: [&str; 14] = [
    "S1 f32 NaN result",
    "S2 f64 NaN operand or result",
    "S9 sub.f64 with a NaN c",
    "S3 .sat changed the result",
    "S4 .ftz changed the result",
    "S4 .ftz, exact just below 2^-126",
    "S5 f32x2 lanes",
    "S6 mixed precision",
    "S8 vmad",
    "signed zero result",
    "S10 half NaN result",
    "S11 .relu changed the result",
    "S12 .oob forced +0",
    "S13 bf16 fma through binary32",
];

/// How a row of the table fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowStatus {
    Ran,
    /// The vector file has no vectors of it (left out when generating).
    NotGenerated,
    /// The GPU's architecture lacks the form.
    Unsupported,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowResult {
    pub mnemonic: String,
    pub min_sm: u32,
    pub vectors: u64,
    pub mismatches: u64,
    pub status: RowStatus,
}

/// One vector the GPU answered otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub form: Form,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub gpu: u64,
    pub model: u64,
}

impl Mismatch {
    /// `<eval line>   gpu 0x.. model 0x..`.
    pub fn line(&self) -> String {
        format!(
            "{}   gpu 0x{:x} model 0x{:x}",
            self.form.eval_line(self.a, self.b, self.c),
            self.gpu,
            self.model
        )
    }
}

/// Everything `fma-model silicon compare` prints.
#[derive(Clone, Debug)]
pub struct Report {
    pub info: Vec<(String, String)>,
    pub seed: u64,
    pub rows: Vec<RowResult>,
    /// Per [`DECISIONS`] entry: vectors that exercised it, and mismatches among them.
    pub decisions: [(u64, u64); DECISIONS.len()],
    pub first: Vec<Mismatch>,
    pub vectors: u64,
    pub mismatches: u64,
}

fn is_nan(fmt: Fmt, x: u64) -> bool {
    fmt.exp_of(x) == fmt.exp_max() && x & fmt.frac_mask() != 0
}

fn is_zero(fmt: Fmt, x: u64) -> bool {
    x & fmt.mask() & !fmt.sign_bit() == 0
}

fn is_subnormal(fmt: Fmt, x: u64) -> bool {
    fmt.exp_of(x) == 0 && !is_zero(fmt, x)
}

/// The model's answers for this block under variants of the form's control word, computed only
/// for the forms whose decisions need them.
struct Variants {
    no_sat: Option<Vec<u64>>,
    no_ftz: Option<Vec<u64>>,
    rz_no_ftz: Option<Vec<u64>>,
    no_relu: Option<Vec<u64>>,
    no_oob: Option<Vec<u64>>,
}

impl Variants {
    fn of(ctrl: &Ctrl, a: &[u64], b: &[u64], c: &[u64]) -> Variants {
        let run = |on: bool, c2: Ctrl| on.then(|| answers(&c2, a, b, c));
        let scalar_f32 = ctrl.kind == Kind::F32;
        Variants {
            no_sat: run(
                ctrl.sat,
                Ctrl {
                    sat: false,
                    ..*ctrl
                },
            ),
            no_ftz: run(
                ctrl.ftz,
                Ctrl {
                    ftz: false,
                    ..*ctrl
                },
            ),
            rz_no_ftz: run(
                ctrl.ftz && scalar_f32 && ctrl.rnd != Rnd::Rz,
                Ctrl {
                    ftz: false,
                    rnd: Rnd::Rz,
                    ..*ctrl
                },
            ),
            no_relu: run(
                ctrl.relu,
                Ctrl {
                    relu: false,
                    ..*ctrl
                },
            ),
            no_oob: run(
                ctrl.oob,
                Ctrl {
                    oob: false,
                    ..*ctrl
                },
            ),
        }
    }
}

/// Which [`DECISIONS`] vector `i` of a block exercises, as a bit set.
/// Operands an instruction does not read are zero in the vector file, so never NaN.
fn decisions(form: &Form, i: usize, (a, b, c): (u64, u64, u64), model: u64, v: &Variants) -> u16 {
    let ctrl = &form.ctrl;
    let mut set = 0u16;
    let mut mark = |k: usize| set |= 1 << k;
    match form.shape() {
        Shape::F32 | Shape::Mixed => {
            if is_nan(F32, model) {
                mark(0);
            }
            if is_zero(F32, model) {
                mark(9);
            }
        }
        Shape::F32x2 => {
            mark(6);
            if is_nan(F32, model) || is_nan(F32, model >> 32) {
                mark(0);
            }
        }
        Shape::F64 => {
            let nan_in = is_nan(F64, a) || is_nan(F64, b) || is_nan(F64, c);
            if nan_in || is_nan(F64, model) {
                mark(1);
            }
            if FloatOp::of(ctrl) == Some(FloatOp::Sub) && is_nan(F64, c) {
                mark(2);
            }
            if is_zero(F64, model) {
                mark(9);
            }
        }
        Shape::Vmad => mark(8),
        Shape::Half | Shape::Half2 => {
            let f = ctrl.half_fmt();
            let lanes = if form.shape() == Shape::Half2 { 2 } else { 1 };
            if (0..lanes).any(|k| is_nan(f, model >> (16 * k))) {
                mark(10);
            }
            if ctrl.via_f32 {
                mark(13);
            }
            if lanes == 1 && is_zero(f, model) {
                mark(9);
            }
        }
    }
    if v.no_relu.as_ref().is_some_and(|x| x[i] != model) {
        mark(11);
    }
    if v.no_oob.as_ref().is_some_and(|x| x[i] != model) {
        mark(12);
    }
    if form.shape() == Shape::Mixed {
        mark(7);
    }
    // vmad's .sat is S8's, not S3's.
    if ctrl.kind != Kind::Vmad && v.no_sat.as_ref().is_some_and(|x| x[i] != model) {
        mark(3);
    }
    if v.no_ftz.as_ref().is_some_and(|x| x[i] != model) {
        mark(4);
    }
    // Without .ftz the result rounds up to the smallest normal from an exact value below it
    // (rz, which never rounds up, stays subnormal): where tininess before rounding, after
    // rounding to 24 bits and IEEE's subnormal rounding can disagree.
    if let (Some(rz), Some(ieee)) = (&v.rz_no_ftz, &v.no_ftz) {
        if ieee[i] & 0x7fff_ffff == 0x0080_0000 && is_subnormal(F32, rz[i]) {
            mark(5);
        }
    }
    set
}

/// Compares the result file with the vector file; keeps the first `keep` mismatches, and writes
/// every one to `all_out` (as the report prints them) when given.
pub fn compare(
    vectors: &Path,
    results: &Path,
    keep: usize,
    mut all_out: Option<&mut Output>,
) -> Result<Report, SiliconError> {
    let all = forms::all();
    let fp = forms::fingerprint(&all);
    let mut vr = VectorsReader::open(vectors)?;
    let mut rr = ResultsReader::open(results)?;
    let stale = |p: &Path| SiliconError::Format {
        path: p.to_owned(),
        msg: "made with another table of forms than this fma-model's: regenerate it".into(),
    };
    if vr.head.fingerprint != fp {
        return Err(stale(vr.path()));
    }
    if rr.head.fingerprint != fp {
        return Err(stale(rr.path()));
    }
    if rr.head.blocks != vr.head.blocks {
        return Err(SiliconError::Format {
            path: results.to_owned(),
            msg: format!(
                "{} blocks, but the vector file has {}: not its results",
                rr.head.blocks, vr.head.blocks
            ),
        });
    }
    let rows = forms::rows(&all);
    let mut row_of = vec![0usize; all.len()];
    for (r, row) in rows.iter().enumerate() {
        for &f in &row.forms {
            row_of[f] = r;
        }
    }
    let mut out: Vec<RowResult> = rows
        .iter()
        .map(|r| RowResult {
            mnemonic: r.mnemonic.clone(),
            min_sm: all[r.forms[0]].min_sm(),
            vectors: 0,
            mismatches: 0,
            status: RowStatus::NotGenerated,
        })
        .collect();
    let mut report = Report {
        info: rr.head.info.clone(),
        seed: vr.head.seed,
        rows: Vec::new(),
        decisions: [(0, 0); DECISIONS.len()],
        first: Vec::new(),
        vectors: 0,
        mismatches: 0,
    };
    while let Some(vb) = vr.next_block()? {
        let rb = rr.next_block()?.expect("block counts checked equal");
        let n = vb.a.len();
        if rb.form != vb.form || rb.count as usize != n {
            return Err(SiliconError::Format {
                path: results.to_owned(),
                msg: format!(
                    "block for form {} of {} vectors where the vector file has form {} of {n}",
                    rb.form, rb.count, vb.form
                ),
            });
        }
        let form = *all
            .get(vb.form as usize)
            .ok_or_else(|| SiliconError::Format {
                path: vectors.to_owned(),
                msg: format!("form {} is not in the table", vb.form),
            })?;
        let row = &mut out[row_of[vb.form as usize]];
        let Some(d) = rb.d else {
            row.status = RowStatus::Unsupported;
            continue;
        };
        row.status = RowStatus::Ran;
        let v = Variants::of(&form.ctrl, &vb.a, &vb.b, &vb.c);
        for (i, &gpu) in d.iter().enumerate() {
            let bad = gpu != vb.model[i];
            let set = decisions(&form, i, (vb.a[i], vb.b[i], vb.c[i]), vb.model[i], &v);
            for (k, slot) in report.decisions.iter_mut().enumerate() {
                if set & (1 << k) != 0 {
                    slot.0 += 1;
                    slot.1 += u64::from(bad);
                }
            }
            if bad {
                row.mismatches += 1;
                report.mismatches += 1;
                let m = Mismatch {
                    form,
                    a: vb.a[i],
                    b: vb.b[i],
                    c: vb.c[i],
                    gpu,
                    model: vb.model[i],
                };
                if let Some(out) = all_out.as_mut() {
                    out.write(format!("{}\n", m.line()).as_bytes())?;
                }
                if report.first.len() < keep {
                    report.first.push(m);
                }
            }
        }
        row.vectors += n as u64;
        report.vectors += n as u64;
    }
    rr.next_block()?; // checks that nothing follows the last block
    report.rows = out;
    Ok(report)
}

/// The GPU's description, one line.
fn gpu_line(info: &[(String, String)]) -> String {
    let get = |k: &str| {
        info.iter()
            .find(|(key, _)| key == k)
            .map_or("?", |(_, v)| v.as_str())
    };
    format!(
        "GPU: {}, compute capability {}, driver {} (CUDA {}), CUDA runtime {}, nvcc {}",
        get("gpu"),
        get("compute_capability"),
        get("driver_version"),
        get("driver_cuda"),
        get("runtime"),
        get("nvcc"),
    )
}

fn gpu_sm(info: &[(String, String)]) -> Option<u32> {
    let cc = &info.iter().find(|(k, _)| k == "compute_capability")?.1;
    let (major, minor) = cc.split_once('.')?;
    Some(major.parse::<u32>().ok()? * 10 + minor.parse::<u32>().ok()?)
}

impl Report {
    /// The text `fma-model silicon compare` prints.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let sm = gpu_sm(&self.info);
        let _ = writeln!(s, "{}", gpu_line(&self.info));
        let _ = writeln!(s, "vectors: seed {}\n", self.seed);
        let _ = writeln!(s, "{:<32} {:>10} {:>10}", "form", "vectors", "mismatches");
        for r in &self.rows {
            let note = match r.status {
                RowStatus::Ran => String::new(),
                RowStatus::Unsupported => format!("not run: needs sm_{}", r.min_sm),
                RowStatus::NotGenerated => match sm {
                    Some(sm) if r.min_sm > sm => {
                        format!("not run: needs sm_{}, this GPU is sm_{sm}", r.min_sm)
                    }
                    _ => "not in the vector file".into(),
                },
            };
            if r.status == RowStatus::Ran {
                let _ = writeln!(
                    s,
                    "{:<32} {:>10} {:>10}",
                    r.mnemonic, r.vectors, r.mismatches
                );
            } else {
                let _ = writeln!(s, "{:<32} {:>10} {:>10}  {note}", r.mnemonic, "-", "-");
            }
        }
        let _ = writeln!(
            s,
            "{:<32} {:>10} {:>10}  not run: sm_1x only; no GPU since sm_20 accepts it",
            "mad{.ftz}{.sat}.f32 (sm_1x)", "-", "-"
        );
        let _ = writeln!(
            s,
            "\n{:<32} {:>10} {:>10}",
            "decision", "vectors", "mismatches"
        );
        for (name, (n, bad)) in DECISIONS.iter().zip(&self.decisions) {
            let _ = writeln!(s, "{name:<32} {n:>10} {bad:>10}");
        }
        let ran = self
            .rows
            .iter()
            .filter(|r| r.status == RowStatus::Ran)
            .count();
        let _ = writeln!(
            s,
            "\n{} vectors in {ran} forms, {} mismatches",
            self.vectors, self.mismatches
        );
        if !self.first.is_empty() {
            let _ = writeln!(s, "first mismatches (as `fma-model eval` lines):");
            for m in &self.first {
                let _ = writeln!(s, "  {}", m.line());
            }
        }
        s
    }
}
