//! The model against answers an NVIDIA H100 gave (`tests/data/silicon_h100.txt`, from
//! `make silicon`): every line's instruction must give the GPU's result, bit for bit. The file
//! holds the vectors that made the model follow silicon (f64 NaN order and default NaN, `.ftz`
//! tininess after rounding, vmad signedness and scaling) and a sample of directed vectors around
//! them, so a change that drifts from silicon fails here, on any machine, without a GPU.

use ptxfma_model::op::{parse_line, Target};
use ptxfma_model::pipeline::eval;

#[test]
fn the_model_gives_the_h100s_answers() {
    let text = include_str!("data/silicon_h100.txt");
    let target = Target::parse("sm_90").unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("//") || line.trim().is_empty() {
            continue;
        }
        let (instr, gpu) = line
            .split_once(" -> ")
            .expect("`<instruction> -> <result>`");
        let want = u64::from_str_radix(gpu.trim_start_matches("0x"), 16).expect("hex result");
        let i = parse_line(instr, target).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let got = eval(&i.ctrl, i.a, i.b, i.c);
        if got != want {
            wrong.push(format!(
                "line {}: {instr}: H100 {want:#x}, model {got:#x}",
                n + 1
            ));
        }
        checked += 1;
    }
    assert!(checked > 8000, "only {checked} answers read");
    assert!(
        wrong.is_empty(),
        "{} of {checked} differ:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}
