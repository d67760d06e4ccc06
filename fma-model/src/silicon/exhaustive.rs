//! Every input pair of the two-operand half-precision forms, against an H100 (`make
//! silicon-exhaustive`): for 15 forms (`add`, `sub`, `mul` `.rn{.ftz}{.sat}.f16` and `.rn.bf16`)
//! the GPU was run on all 2^32 pairs `(a, b)`, and `shared/silicon/h100-half2-fingerprints.bin`
//! keeps one sum per `a`: `S[a] = sum over b of splitmix64((a << 32) | (b << 16) | r) mod 2^64`,
//! `r` the 16-bit result of `op a, b` (the second operand is `c` of add/sub, `b` of mul, as
//! `fma-model eval` reads them). A model that reproduces the 65,536 sums of a form agrees with
//! the GPU on every pair of it; a sum that differs names the `a` to look at.

use std::path::Path;

use ptxfma_model::ctrl::legal::FloatOp;
use ptxfma_model::ctrl::Ctrl;
use ptxfma_model::machine::pipeline::eval_batch;
use ptxfma_ptx::{decode, Target};

use super::SiliconError;

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

/// Values of `a` per form, and so sums per form in the file.
pub const PER_FORM: usize = 1 << 16;

/// The mixing function of the fingerprints (Steele, Lea and Flood's SplitMix64 finaliser).
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The control word of form `k` (sm_90).
pub fn ctrl(k: usize) -> Ctrl {
    decode(FORMS[k], Target::parse("sm_90").expect("a target")).expect("a fingerprint form")
}

/// The model's sum for `a` under `ctrl`: the same scheme as the file's, over every `b`.
/// `d` is scratch space of [`PER_FORM`] results (reused across calls).
pub fn model_sum(ctrl: &Ctrl, a: u16, d: &mut [u64]) -> u64 {
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
    xs.iter().zip(d.iter()).fold(0u64, |s, (&x, &r)| {
        s.wrapping_add(splitmix64(u64::from(a) << 32 | x << 16 | (r & 0xFFFF)))
    })
}

/// The GPU's sums, form by form, from the fingerprint file's bytes.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Vec<Vec<u64>>, SiliconError> {
    let want = FORMS.len() * PER_FORM * 8;
    if bytes.len() != want {
        return Err(SiliconError::Format {
            path: path.to_owned(),
            msg: format!(
                "{} bytes, a fingerprint file of {} forms has {want}",
                bytes.len(),
                FORMS.len()
            ),
        });
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

/// One form's outcome over the values of `a` checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FormResult {
    pub checked: usize,
    /// The values of `a` whose sums differ.
    pub differ: Vec<u16>,
}

/// Checks the values `a_values` of every form in `forms` (indices into [`FORMS`]) against
/// `gpu` on `jobs` threads; results in the order of `forms`.
pub fn check(gpu: &[Vec<u64>], forms: &[usize], a_values: &[u16], jobs: usize) -> Vec<FormResult> {
    forms
        .iter()
        .map(|&k| {
            let c = ctrl(k);
            let jobs = jobs.max(1);
            let per = a_values.len().div_ceil(jobs).max(1);
            let differ: Vec<u16> = std::thread::scope(|s| {
                let handles: Vec<_> = a_values
                    .chunks(per)
                    .map(|part| {
                        s.spawn(move || {
                            let mut d = vec![0u64; PER_FORM];
                            part.iter()
                                .copied()
                                .filter(|&a| model_sum(&c, a, &mut d) != gpu[k][a as usize])
                                .collect::<Vec<u16>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("a worker"))
                    .collect()
            });
            FormResult {
                checked: a_values.len(),
                differ,
            }
        })
        .collect()
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
        }
    }
}
