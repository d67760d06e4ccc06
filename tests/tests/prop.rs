//! Property: the cycle-level model equals the references for any decodable control word and
//! any operand bits. Failures shrink and are persisted in `tests/tests/prop.proptest-regressions`
//! (committed), so every case that once broke the model is replayed first on every run.

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use ptxfma_model::ctrl::{Ctrl, Kind};
use ptxfma_model::machine::pipeline::eval;
use ptxfma_model::reference::ptx;
use ptxfma_model::stimulus::Family;
use std::sync::OnceLock;

fn ctrls() -> &'static [Ctrl] {
    static C: OnceLock<Vec<Ctrl>> = OnceLock::new();
    C.get_or_init(|| Family::ALL.iter().flat_map(|f| f.ctrls()).collect())
}

/// Operand bits with the corners weighted up: zero/inf/NaN exponents, subnormals, all-ones.
fn word() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>(),
        1 => any::<u64>().prop_map(|x| x & 0x800F_FFFF_807F_FFFF),
        1 => any::<u64>().prop_map(|x| x | 0x7FF0_0000_7F80_0000),
        1 => any::<u64>().prop_map(|x| (x & 0x8000_0000_8000_0000) | 0x3FF0_0000_3F80_0000),
        1 => (0u32..64).prop_map(|k| 1u64 << k),
    ]
}

/// Clears the bits an instruction does not read, as a register of its type would.
fn fit(ctrl: &Ctrl, x: u64) -> u64 {
    match ctrl.kind {
        Kind::F64 | Kind::F32x2 => x,
        _ => x & 0xFFFF_FFFF,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 20_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn model_equals_reference(k in 0usize..4844, a in word(), b in word(), c in word()) {
        let all = ctrls();
        let ctrl = all[k % all.len()];
        let (a, b, c) = (fit(&ctrl, a), fit(&ctrl, b), fit(&ctrl, c));
        let got = eval(&ctrl, a, b, c);
        let want = ptx::eval(&ctrl, a, b, c);
        prop_assert_eq!(got, want, "{:?} a={:#x} b={:#x} c={:#x}", ctrl, a, b, c);
    }
}
