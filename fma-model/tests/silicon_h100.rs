//! The model against answers NVIDIA GPUs gave (`tests/data/silicon_h100.txt` from an H100 and
//! `tests/data/silicon_h200.txt` from an H200, both sm_90, from `make silicon`): every line's
//! instruction must give the GPU's result, bit for bit. The files hold the vectors that made the
//! model follow silicon (f64 NaN order and default NaN, `.ftz` tininess after rounding, vmad
//! signedness and scaling, `.oob` dropped on `fma.{rz,rm,rp}.bf16`) and a sample of directed
//! vectors around them, so a change that drifts from silicon fails here, on any machine, without
//! a GPU.

use ptxfma_model::machine::lanes::Backend;
use ptxfma_model::machine::pipeline::{eval, LATENCY};
use ptxfma_model::machine::pipeline::{PipeIn, Pipeline};
use ptxfma_model::regs::Out;
use ptxfma_ptx::{parse_line, Instr, Target};

/// One answer: where it is (`file:line`), instruction text, decoded instruction, the GPU's result.
type Answer = (String, &'static str, Instr, u64);

/// The lines of both files.
fn answers() -> Vec<Answer> {
    let mut v = read("silicon_h100.txt", include_str!("data/silicon_h100.txt"));
    assert!(v.len() > 8000, "only {} H100 answers read", v.len());
    let h200 = read("silicon_h200.txt", include_str!("data/silicon_h200.txt"));
    assert!(h200.len() > 2000, "only {} H200 answers read", h200.len());
    v.extend(h200);
    v
}

fn read(file: &str, text: &'static str) -> Vec<Answer> {
    let target = Target::parse("sm_90").unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with("//") && !l.trim().is_empty())
        .map(|(n, line)| {
            let (instr, gpu) = line
                .split_once(" -> ")
                .expect("`<instruction> -> <result>`");
            let want = u64::from_str_radix(gpu.trim_start_matches("0x"), 16).expect("hex");
            let at = format!("{file}:{}", n + 1);
            let i = parse_line(instr, target).unwrap_or_else(|e| panic!("{at}: {e}"));
            (at, instr, i, want)
        })
        .collect()
}

#[test]
fn the_model_gives_the_gpus_answers() {
    let answers = answers();
    let checked = answers.len();
    let mut wrong = Vec::new();
    for (n, instr, i, want) in &answers {
        let got = eval(&i.ctrl, i.a, i.b, i.c);
        if got != *want {
            wrong.push(format!("{n}: {instr}: GPU {want:#x}, model {got:#x}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} differ:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}

/// The same answers through `Pipeline::run_on` on every backend this CPU runs (the portable
/// lane backend everywhere), the lines sorted by control word so the lane engine takes them
/// sixteen at a time: its rounder (S4) and NaN rules (S2) must agree with silicon too, not only
/// with the scalar stages on random operands.
#[test]
fn every_backend_gives_the_gpus_answers() {
    let mut answers = answers();
    answers.sort_by_key(|(_, _, i, _)| i.ctrl.encode());
    let lead = LATENCY - 1;
    let mut inputs: Vec<PipeIn> = answers
        .iter()
        .map(|(_, _, i, _)| PipeIn {
            valid: true,
            ctrl: i.ctrl.encode(),
            a: i.a,
            b: i.b,
            c: i.c,
            ..PipeIn::default()
        })
        .collect();
    inputs.extend(std::iter::repeat_n(PipeIn::default(), lead));
    let backends: Vec<Backend> = Backend::ALL.into_iter().filter(|b| b.runs_here()).collect();
    assert!(backends.contains(&Backend::Portable));
    for backend in backends {
        let mut out = vec![Out::default(); inputs.len()];
        let laned = Pipeline::new().run_on(backend, &inputs, &mut out);
        let wrong: Vec<String> = answers
            .iter()
            .zip(&out[lead..])
            .filter(|((_, _, _, want), o)| o.d != *want)
            .map(|((n, instr, _, want), o)| {
                format!("{n}: {instr}: GPU {want:#x}, {backend} {:#x}", o.d)
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{backend}: {} of {} differ:\n{}",
            wrong.len(),
            answers.len(),
            wrong[..wrong.len().min(20)].join("\n")
        );
        if backend.is_lanes() {
            assert!(
                laned >= 1000,
                "{backend}: only {laned} answers went through the lane engine"
            );
        }
    }
}
