//! A fixed slice of the H100's exhaustive fingerprints (`make silicon-exhaustive` checks them
//! all): for each of the 15 two-operand half-precision forms, the sums over every `b` of 16
//! values of `a` (the six the shared raw results list, and ten spread over the range), each the
//! model's 65,536 results folded as the file's scheme folds the GPU's. 15.7 M input pairs.

use std::path::Path;

use fma_model::silicon::exhaustive::{check, parse, FORMS};

const SLICE: [u16; 16] = [
    0x3c00, 0x0001, 0x7e00, 0x8400, 0x3f80, 0x0080, // the raw results' values
    0x0000, 0x03ff, 0x1234, 0x3bff, 0x7bff, 0x7c00, 0x8001, 0xbc00, 0xc5a5, 0xfbff,
];

#[test]
fn the_model_reproduces_a_slice_of_the_h100s_exhaustive_fingerprints() {
    let path = Path::new("tests/data/h100-half2-fingerprints.bin");
    let gpu = parse(include_bytes!("data/h100-half2-fingerprints.bin"), path).unwrap();
    let forms: Vec<usize> = (0..FORMS.len()).collect();
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results = check(&gpu, &forms, &SLICE, jobs);
    let bad: Vec<String> = forms
        .iter()
        .zip(&results)
        .filter(|(_, r)| !r.differ.is_empty())
        .map(|(&k, r)| format!("{}: a = {:04x?}", FORMS[k], r.differ))
        .collect();
    assert!(results.iter().all(|r| r.checked == SLICE.len()));
    assert!(bad.is_empty(), "sums differ:\n{}", bad.join("\n"));
}

/// The file is what the scheme says: a wrong length is a one-line error, and a planted change
/// in one sum is found at its `a`.
#[test]
fn a_wrong_file_or_sum_is_caught() {
    let path = Path::new("x.bin");
    assert!(parse(&[0u8; 8], path)
        .unwrap_err()
        .to_string()
        .contains("a fingerprint file of 15 forms"));
    let mut gpu = parse(include_bytes!("data/h100-half2-fingerprints.bin"), path).unwrap();
    gpu[8][0x3c00] ^= 1; // mul.rn.f16, a = 1.0
    let r = check(&gpu, &[8], &[0x3c00, 0x0001], 2);
    assert_eq!(r[0].differ, vec![0x3c00]);
}
