// Directed cases for S1-S13, with expected values derived by hand from IEEE 754 and the PTX
// text (the derivation is in the comment next to each value). Included by
// `reference_selftest.rs` (against the references) and `model_directed.rs` (against the
// cycle-level model); the includer defines the engine under test, `ev` and `mad1x_sat`.
//
// One file per family of cases: the float kinds (S1-S6 and the signed zeros), sm_1x's `mad.f32`
// (S7), vmad (S8) and the half kinds (S10-S13).

include!("float.rs");
include!("sm1x.rs");
include!("vmad.rs");
include!("half.rs");
