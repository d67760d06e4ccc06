//! The vmad spellings `ptxas` accepts beyond the PTX page's table (a `.dtype` other than the
//! final result's sign, `.po` with `-a, -b`), as an H100 computed them: 1,480 spellings drawn at
//! random from the whole vmad syntax and kept where `ptxas` (CUDA 13.5) accepts them for sm_90,
//! 100 vectors each (`tests/data/h100-vmad-spellings.txt.gz`, from `shared/silicon/`). Every
//! line must decode and give the GPU's answer bit for bit (docs/semantics.md S8).

use std::io::Read;

use flate2::read::GzDecoder;
use ptxfma_model::machine::pipeline::eval;
use ptxfma_ptx::{parse_line, Target};

#[test]
fn the_model_gives_the_h100s_answers_on_every_accepted_vmad_spelling() {
    let mut text = String::new();
    GzDecoder::new(&include_bytes!("data/h100-vmad-spellings.txt.gz")[..])
        .read_to_string(&mut text)
        .unwrap();
    let target = Target::parse("sm_90").unwrap();
    let (mut checked, mut wrong, mut spellings) = (0, Vec::new(), std::collections::HashSet::new());
    for (n, line) in text.lines().enumerate() {
        let (instr, gpu) = line.split_once('\t').expect("`<eval line>\\t<result>`");
        let want = u64::from_str_radix(gpu.trim_start_matches("0x"), 16).expect("hex");
        let i = parse_line(instr, target).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        spellings.insert(instr.split_whitespace().next().unwrap().to_string());
        let got = eval(&i.ctrl, i.a, i.b, i.c);
        if got != want {
            wrong.push(format!(
                "line {}: {instr}: H100 {want:#x}, model {got:#x}",
                n + 1
            ));
        }
        checked += 1;
    }
    assert_eq!(checked, 148_000);
    assert!(spellings.len() > 50, "{} mnemonics", spellings.len());
    assert!(
        wrong.is_empty(),
        "{} of {checked} differ:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
}
