//! An H100's fingerprints of every input pair of the 15 two-operand half-precision forms
//! (`make silicon-exhaustive`), shared by the two commands that read them: `fma-model silicon
//! exhaustive` holds the model to them, `fma-cosim dut exhaust` a design.
//!
//! For each form the GPU was run on all 2^32 pairs `(a, x)`, and the file keeps one sum per `a`:
//! `S[a] = sum over x of splitmix64((a << 32) | (x << 16) | r) mod 2^64`, `r` the 16-bit result
//! of `op a, x` (the second operand `x` is `c` of add/sub, `b` of mul, as `fma-model eval` reads
//! them). A sum reproduced over the 65,536 values of `x` agrees with the GPU on each of them
//! but with a chance of 2^-64; a sum that differs names the `a` to look at.

use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::eval_batch;
use ptxfma_ptx::{decode, Target};

/// The forms of the fingerprint file, in its order.
pub const FORMS: [&str; 15] = [
    "add.rn.f16",
    "add.rn.sat.f16",
    "add.rn.ftz.f16",
    "add.rn.ftz.sat.f16",
    "sub.rn.f16",
    "sub.rn.sat.f16",
    "sub.rn.ftz.f16",
    "sub.rn.ftz.sat.f16",
    "mul.rn.f16",
    "mul.rn.sat.f16",
    "mul.rn.ftz.f16",
    "mul.rn.ftz.sat.f16",
    "add.rn.bf16",
    "sub.rn.bf16",
    "mul.rn.bf16",
];

/// Values of `a` per form, and so sums per form in the file; values of the second operand per
/// `a`.
pub const PER_FORM: usize = 1 << 16;

/// The file in the checkout (relative to the repository's root).
pub const FILE: &str = "fma-model/tests/data/h100-half2-fingerprints.bin";

/// [`FILE`] where this binary was built from: what the commands read unless told otherwise.
pub fn default_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(FILE)
}

/// The mixing function of the fingerprints (Steele, Lea and Flood's SplitMix64 finaliser).
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One pair's term of a sum: `a`, the second operand `x`, the 16-bit result `r`.
#[inline]
pub fn term(a: u16, x: u16, r: u16) -> u64 {
    splitmix64(u64::from(a) << 32 | u64::from(x) << 16 | u64::from(r))
}

/// The sum of `results` (indexed by the second operand) for `a`.
pub fn sum(a: u16, results: &[u16]) -> u64 {
    (0..=u16::MAX)
        .zip(results)
        .fold(0u64, |s, (x, &r)| s.wrapping_add(term(a, x, r)))
}

/// The control word of form `k` (sm_90).
pub fn ctrl(k: usize) -> Ctrl {
    decode(FORMS[k], Target::parse("sm_90").expect("a target")).expect("a fingerprint form")
}

/// The index in [`FORMS`] of a form's spelling.
pub fn index(form: &str) -> Option<usize> {
    FORMS.iter().position(|f| *f == form)
}

/// The model's results of `op a, x` under `ctrl` for every `x`, into `d` ([`PER_FORM`] long).
pub fn model_results(ctrl: &Ctrl, a: u16, d: &mut [u64]) {
    let n = PER_FORM;
    let xs: Vec<u64> = (0..n as u64).collect();
    let av = vec![u64::from(a); n];
    let zero = vec![0u64; n];
    // The second written operand is c for add/sub and b for mul.
    let (b, c) = match FloatOp::of(ctrl) {
        Some(FloatOp::Mul) => (&xs, &zero),
        _ => (&zero, &xs),
    };
    let w = ctrl.encode();
    eval_batch(|_| w, &av, b, c, &mut d[..n]);
}

/// The model's sum for `a` under `ctrl`: the same scheme as the file's, over every `x`.
/// `d` is scratch space of [`PER_FORM`] results (reused across calls).
pub fn model_sum(ctrl: &Ctrl, a: u16, d: &mut [u64]) -> u64 {
    model_results(ctrl, a, d);
    (0..=u16::MAX)
        .zip(d.iter())
        .fold(0u64, |s, (x, &r)| s.wrapping_add(term(a, x, r as u16)))
}

/// The GPU's sums, form by form, from the fingerprint file's bytes; the error says why they
/// are not a fingerprint file.
pub fn parse(bytes: &[u8]) -> Result<Vec<Vec<u64>>, String> {
    let want = FORMS.len() * PER_FORM * 8;
    if bytes.len() != want {
        return Err(format!(
            "{} bytes, a fingerprint file of {} forms has {want}",
            bytes.len(),
            FORMS.len()
        ));
    }
    Ok(bytes
        .chunks_exact(PER_FORM * 8)
        .map(|form| {
            form.chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_is_the_published_function() {
        // The first outputs of SplitMix64 seeded with 0 (state advanced before mixing).
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(0x9E37_79B9_7F4A_7C15), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn every_form_decodes_to_a_two_operand_half_word() {
        for (k, form) in FORMS.iter().enumerate() {
            let c = ctrl(k);
            assert!(c.is_half(), "{form}");
            assert!(matches!(
                FloatOp::of(&c),
                Some(FloatOp::Add | FloatOp::Sub | FloatOp::Mul)
            ));
            assert_eq!(index(form), Some(k));
        }
    }

    #[test]
    fn the_sum_of_the_model_results_is_the_model_sum() {
        let c = ctrl(index("mul.rn.f16").unwrap());
        let mut d = vec![0u64; PER_FORM];
        let s = model_sum(&c, 0x3c01, &mut d);
        let r: Vec<u16> = d.iter().map(|&v| v as u16).collect();
        assert_eq!(sum(0x3c01, &r), s);
    }
}
