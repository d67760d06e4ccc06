//! The half-precision FMA family as an H100 computed it: every `fma/add/sub/mul` spelling on
//! `.f16`, `.f16x2`, `.bf16`, `.bf16x2` that `ptxas` (CUDA 13.5) accepts for sm_90, 110
//! spellings with 4,000 edge-biased vectors each (`tests/data/h100-half.txt.gz`, from
//! `shared/silicon/`). Every line must decode, and the model and the independent reference must
//! each give the GPU's answer bit for bit, NaNs included (docs/semantics.md S10-S13).

use std::collections::BTreeMap;
use std::io::Read;

use flate2::read::GzDecoder;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::{eval, eval_batch};
use ptxfma_model::reference::ptx;
use ptxfma_ptx::{parse_line, Target};

/// (spelling, control word, a, b, c, the H100's result) for every line.
fn lines() -> Vec<(String, Ctrl, u64, u64, u64, u64)> {
    let mut text = String::new();
    GzDecoder::new(&include_bytes!("data/h100-half.txt.gz")[..])
        .read_to_string(&mut text)
        .unwrap();
    let target = Target::parse("sm_90").unwrap();
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            let (instr, gpu) = line.split_once('\t').expect("`<eval line>\\t<result>`");
            let want = u64::from_str_radix(gpu.trim_start_matches("0x"), 16).expect("hex");
            let i = parse_line(instr, target).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
            let spelling = instr.split_whitespace().next().unwrap().to_string();
            (spelling, i.ctrl, i.a, i.b, i.c, want)
        })
        .collect()
}

/// Checks `answer` on every line and returns the per-spelling (vectors, mismatches) table.
fn check(what: &str, answer: impl Fn(usize, &Ctrl, u64, u64, u64) -> u64) {
    let all = lines();
    let mut table: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (n, (spelling, ctrl, a, b, c, want)) in all.iter().enumerate() {
        let got = answer(n, ctrl, *a, *b, *c);
        let row = table.entry(spelling).or_default();
        row.0 += 1;
        if got != *want {
            row.1 += 1;
            wrong.push(format!(
                "line {}: {spelling} {a:#x} {b:#x} {c:#x}: H100 {want:#x}, {what} {got:#x}",
                n + 1
            ));
        }
    }
    assert_eq!(all.len(), 440_000);
    assert_eq!(table.len(), 110, "spellings");
    assert!(table.values().all(|r| r.0 == 4000));
    assert!(
        wrong.is_empty(),
        "{} of {} differ:\n{}",
        wrong.len(),
        all.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}

#[test]
fn the_model_gives_the_h100s_answers_on_every_half_precision_spelling() {
    check("model", |_, c, a, b, cc| eval(c, a, b, cc));
}

#[test]
fn the_models_array_path_gives_the_same_answers() {
    // eval_batch runs blocks through Pipeline::run, the path the C ABI and Python take.
    let all = lines();
    let (mut a, mut b, mut c, mut d) = (vec![], vec![], vec![], vec![0; all.len()]);
    for l in &all {
        a.push(l.2);
        b.push(l.3);
        c.push(l.4);
    }
    eval_batch(|i| all[i].1.encode(), &a, &b, &c, &mut d);
    check("eval_batch", |n, _, _, _, _| d[n]);
}

#[test]
fn the_reference_gives_the_h100s_answers_on_every_half_precision_spelling() {
    check("reference", |_, c, a, b, cc| ptx::eval(c, a, b, cc));
}
