//! How a design's 65,536 results of one `a` are compared with the H100's sum of that `a`, under
//! the design's NaN convention (`contract.nan`), and the first differing pair found when they
//! differ.
//!
//! The H100 returns `0x7FFF` for every half NaN result (docs/semantics.md S10), so the
//! fingerprint holds no other NaN. Before its term is summed, a design's result is written as
//! the H100's result it stands for: a result the convention accepts where the reference has a
//! NaN (`ptxfma_ptx::judge` against `0x7FFF`: under `ptx` and `any` any NaN of the lane's format,
//! under `canonical` the manifest's one NaN) becomes `0x7FFF`; a result that cannot be one (a
//! NaN the convention refuses, `0x7FFF` itself included, or bits above the lane) becomes
//! `0x7FFE`, a NaN the H100 never returns; a number is summed as it is. So the design's sum is
//! the fingerprint exactly when every result is one `run --dut` would accept (a NaN for a
//! number, or a number for a NaN, differs under every convention), and the same sum is compared
//! with the model's where the fingerprint is not used.

use ptxfma_cli_common::fingerprints::{self, PER_FORM};
use ptxfma_ptx::{judge, Judgement, NanConvention};

use super::drive::{NOT_RETIRED, RETIRED_TWICE};
use super::forms::Form;

/// Every NaN result of the H100 (S10).
const H100_NAN: u64 = 0x7FFF;
/// A NaN of both half formats that the H100 never returns: what a refused result is summed as.
const NEVER: u16 = 0x7FFE;

/// The H100 result a design's result `got` stands for under `nan` ([`NEVER`] for none).
pub fn as_h100(form: &Form, got: u64, nan: NanConvention) -> u16 {
    if judge(&form.ctrl, got, H100_NAN, nan) != Judgement::Differs {
        return H100_NAN as u16;
    }
    if got >> 16 != 0 || got == H100_NAN {
        return NEVER;
    }
    got as u16
}

/// The design's sum of `a` under `nan` (`results` indexed by the second operand).
pub fn design_sum(form: &Form, a: u16, results: &[u64], nan: NanConvention) -> u64 {
    let r: Vec<u16> = results[..PER_FORM]
        .iter()
        .map(|&g| as_h100(form, g, nan))
        .collect();
    fingerprints::sum(a, &r)
}

/// The first pair of `a` the design gets wrong, by the model pair by pair under `nan`: its second
/// operand, the design's result and the model's; `None` when every one is accepted (a sum
/// that differs all the same would be a collision, 2^-64).
pub fn first_difference(
    form: &Form,
    a: u16,
    results: &[u64],
    nan: NanConvention,
) -> Option<(u16, u64, u64)> {
    let mut want = vec![0u64; PER_FORM];
    fingerprints::model_results(&form.ctrl, a, &mut want);
    (0..=u16::MAX)
        .zip(results.iter().zip(&want))
        .find(|(_, (&g, &w))| judge(&form.ctrl, g, w, nan) == Judgement::Differs)
        .map(|(x, (&g, &w))| (x, g, w))
}

/// A design result as a report says it: the bits, or what became of the operation.
pub fn describe(got: u64) -> String {
    match got {
        NOT_RETIRED => "none (it did not retire within the latency bound)".into(),
        RETIRED_TWICE => "two results under its tag".into(),
        g => format!("{g:#06x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exhaust::forms::{select, Allowed};
    use ptxfma_ptx::CanonicalNans;

    fn mul() -> Form {
        select(&Allowed::default(), &["mul.rn.f16".into()], false)
            .unwrap()
            .remove(0)
    }

    #[test]
    fn a_nan_stands_for_the_h100s_as_the_convention_accepts_it() {
        let f = mul();
        let canonical = NanConvention::Canonical(CanonicalNans::default());
        assert_eq!(as_h100(&f, 0x7e00, canonical), 0x7fff);
        assert_eq!(as_h100(&f, 0x7fff, canonical), NEVER);
        assert_eq!(as_h100(&f, 0x7d00, canonical), 0x7d00);
        assert_eq!(as_h100(&f, 0x7d00, NanConvention::Ptx), 0x7fff);
        assert_eq!(as_h100(&f, 0x3c00, NanConvention::Ptx), 0x3c00);
        assert_eq!(as_h100(&f, 0x1_3c00, NanConvention::Ptx), NEVER);
        assert_eq!(as_h100(&f, NOT_RETIRED, NanConvention::Any), NEVER);
    }

    #[test]
    fn the_models_results_sum_to_the_model_sum_and_a_changed_one_is_found() {
        let f = mul();
        let a = 0x0401;
        let mut r = vec![0u64; PER_FORM];
        fingerprints::model_results(&f.ctrl, a, &mut r);
        let mut d = vec![0u64; PER_FORM];
        let s = fingerprints::model_sum(&f.ctrl, a, &mut d);
        assert_eq!(design_sum(&f, a, &r, NanConvention::Ptx), s);
        assert_eq!(first_difference(&f, a, &r, NanConvention::Ptx), None);
        let want = r[0x1234];
        r[0x1234] ^= 1;
        assert_ne!(design_sum(&f, a, &r, NanConvention::Ptx), s);
        assert_eq!(
            first_difference(&f, a, &r, NanConvention::Ptx),
            Some((0x1234, want ^ 1, want))
        );
    }
}
