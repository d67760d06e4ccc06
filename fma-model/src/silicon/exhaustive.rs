//! Every input pair of the two-operand half-precision forms, against an H100 (`make
//! silicon-exhaustive`): for 15 forms (`add`, `sub`, `mul` `.rn{.ftz}{.sat}.f16` and `.rn.bf16`)
//! the GPU was run on all 2^32 pairs `(a, b)`, and
//! `fma-model/tests/data/h100-half2-fingerprints.bin` keeps one sum per `a`. The scheme, the
//! model's sums and the file's reader are `ptxfma_cli_common::fingerprints`, which `fma-cosim
//! dut exhaust` holds a design to as well. A model that reproduces the 65,536 sums of a form
//! agrees with the GPU on every pair of it; a sum that differs names the `a` to look at.

use std::path::Path;

pub use ptxfma_cli_common::fingerprints::{ctrl, model_sum, splitmix64, FORMS, PER_FORM};

use super::SiliconError;

/// The GPU's sums, form by form, from the fingerprint file's bytes.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Vec<Vec<u64>>, SiliconError> {
    ptxfma_cli_common::fingerprints::parse(bytes).map_err(|msg| SiliconError::Format {
        path: path.to_owned(),
        msg,
    })
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
