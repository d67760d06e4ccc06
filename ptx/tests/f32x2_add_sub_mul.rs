//! `add/sub/mul .f32x2` (sm_100) on the f32x2 lanes, with results worked out by hand: each lane is
//! IEEE binary32 add, subtract or multiply of its own halves (lane 0 in bits 31:0), rounded in
//! the instruction's direction; `mul` of a zero keeps the product's sign (the `-0` addend).

use ptxfma_model::machine::pipeline::eval;
use ptxfma_ptx::{parse_line, Target};

fn run(line: &str) -> u64 {
    let i = parse_line(line, Target::SM_100).unwrap_or_else(|e| panic!("{line}: {e}"));
    eval(&i.ctrl, i.a, i.b, i.c)
}

#[test]
fn each_lane_is_its_own_binary32_operation() {
    // lane 1: 1.5 and -0.5; lane 0: 1.0 and 2.0.
    let a = "0x3fc000003f800000";
    let c = "0xbf00000040000000";
    assert_eq!(run(&format!("add.rn.f32x2 {a} {c}")), 0x3f800000_40400000);
    assert_eq!(run(&format!("sub.f32x2 {a} {c}")), 0x40000000_bf800000);
    // lane 1: -0 * 5; lane 0: 2 * 3.
    assert_eq!(
        run("mul.rn.f32x2 0x8000000040000000 0x40a0000040400000"),
        0x80000000_40c00000
    );
    // Rounding per lane: 1 + 2^-24 rounds to 1 (rn) and up (rp); lane 1 the same.
    let (one, ulp_half) = ("0x3f8000003f800000", "0x3380000033800000");
    assert_eq!(
        run(&format!("add.rn.f32x2 {one} {ulp_half}")),
        0x3f800000_3f800000
    );
    assert_eq!(
        run(&format!("add.rp.f32x2 {one} {ulp_half}")),
        0x3f800001_3f800001
    );
    // .ftz flushes a subnormal lane input (and only that lane's).
    assert_eq!(
        run("add.rn.ftz.f32x2 0x0000000100000001 0x3f80000000000000"),
        0x3f800000_00000000
    );
}
