//! The cases `dut prove --by-cases` splits one half-precision word into (docs/formal.md, "Proof
//! by cases"), and `miter_case.svh`, the file that gives `formal/miter_cases.sv` the word and
//! its cases.
//!
//! The split follows the datapath, as FPU proofs in industry do (case splits on the exponent
//! difference and the cancellation, Kaivola et al.): NaN and infinity operands, a zero product,
//! a zero addend, then finite non-zero operands by the exponent difference `d` between the
//! product and the addend (`ea + eb - bias - ec`, a subnormal's exponent read as 1). Where the
//! addend is far below the product it only sets the sticky bit; where they are near, the sum
//! may cancel, so each `d` there is a case of its own, apart for like and unlike signs. The
//! union is proved to cover every operand triple by a claim of its own (`CLAIM_COVER`), so a
//! gap between the ranges below is a failed proof, not a hole.

use std::fmt::Write as _;

use ptxfma_model::ctrl::Rnd;

use super::half_words::HalfWord;

/// One case: its name in the report and its predicate, a SystemVerilog expression over the
/// names [`svh`] declares in `in_case` (`special`, `zero_ab`, `zero_c`, `d`, `unlike`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub predicate: String,
}

fn case(name: impl Into<String>, predicate: impl Into<String>) -> Case {
    Case {
        name: name.into(),
        predicate: predicate.into(),
    }
}

/// The exponent and fraction widths of the word's format.
pub fn widths(w: &HalfWord) -> (u32, u32) {
    let f = w.ctrl.half_fmt();
    (f.exp_bits, f.frac_bits)
}

/// The cases of `w`: a `mul` (c a zero) has no exponent difference; the others are split by it.
pub fn cases(w: &HalfWord) -> Vec<Case> {
    let (_, mw) = widths(w);
    let finite = "!special && !zero_ab && !zero_c";
    let mut out = vec![
        case("NaN or infinity", "special"),
        case("zero product", "!special && zero_ab"),
        case("zero addend", "!special && !zero_ab && zero_c"),
    ];
    if w.ctrl.c_zero {
        return out;
    }
    // Past `far` either way, one operand lies wholly below the other's rounding bit; between,
    // each exponent difference is a case (a range of them leaves the solver both alignments
    // and every cancellation at once: 2 <= d <= 13 of binary16 ran out of 300 s where each d
    // alone takes seconds), and near d = 0, where the sum may cancel, like and unlike signs
    // apart.
    let far = mw as i32 + 4;
    out.push(case(
        format!("d >= {far}"),
        format!("{finite} && d >= {far}"),
    ));
    for d in (-far + 1..far).rev() {
        if (-1..=1).contains(&d) {
            for (like, p) in [("like signs", "!unlike"), ("unlike signs", "unlike")] {
                out.push(case(
                    format!("d = {d}, {like}"),
                    format!("{finite} && d == {d} && {p}"),
                ));
            }
        } else {
            out.push(case(format!("d = {d}"), format!("{finite} && d == {d}")));
        }
    }
    out.push(case(
        format!("d <= {}", -far),
        format!("{finite} && d <= {}", -far),
    ));
    out
}

/// How many of b's significand bits (hidden bit first) the kit's product claim fixes per part:
/// 2^bits parts. None where b is the constant 1.0 (add, sub). Measured on binary16
/// (docs/formal.md): whole, out of 25 minutes; 6 bits fixed, 85 s a part; 8 bits, 9 to 12 s.
pub fn kit_product_bits(w: &HalfWord) -> u32 {
    if w.ctrl.b_one {
        return 0;
    }
    let (_, mw) = widths(w);
    (mw + 1).min(8)
}

/// `miter_case.svh` for `w` and its `cases`: the word, its format, the operands as it reads
/// them, where the kit's multiplier puts the product, and `in_case`. `dut_prod_stage`: the
/// design's product cut (edges from issue to its product), if it has one.
pub fn svh(w: &HalfWord, cases: &[Case], dut_prod_stage: Option<u64>) -> String {
    let (ew, mw) = widths(w);
    let bias = (1u32 << (ew - 1)) - 1;
    let one = bias << mw;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Written by `fma-cosim dut prove --by-cases` for `{}` (cosim/dut/src/cases.rs).",
        w.spelling
    );
    let _ = writeln!(s, "localparam [26:0] Ctrl = 27'h{:07x};", w.word);
    let _ = writeln!(s, "localparam integer EW = {ew};");
    let _ = writeln!(s, "localparam integer MW = {mw};");
    let _ = writeln!(s, "localparam integer Bias = {bias};");
    let _ = writeln!(s, "localparam Bf16 = 1'b{};", u8::from(w.bf16()));
    // The kit multiplies binary32-wide significands (the top 24 bits of its 53-bit one, a half
    // significand at their top): each factor MW + 1 bits below bit 24.
    let _ = writeln!(
        s,
        "localparam integer KitProdLsb = {};",
        2 * (24 - (mw + 1))
    );
    if let Some(stage) = dut_prod_stage {
        let _ = writeln!(s, "`define DUT_CUT");
        let _ = writeln!(s, "localparam integer DutProdStage = {stage};");
    }
    let _ = writeln!(s, "localparam integer NumCases = {};", cases.len());
    let _ = writeln!(s, "localparam integer KpBits = {};", kit_product_bits(w));
    let _ = writeln!(s, "function automatic [15:0] eff_a(input [15:0] x);");
    let _ = writeln!(s, "  eff_a = x;");
    let _ = writeln!(s, "endfunction");
    let _ = writeln!(s, "// add, sub: b is 1.0.");
    let _ = writeln!(s, "function automatic [15:0] eff_b(input [15:0] x);");
    if w.ctrl.b_one {
        let _ = writeln!(s, "  eff_b = 16'h{one:04x};");
    } else {
        let _ = writeln!(s, "  eff_b = x;");
    }
    let _ = writeln!(s, "endfunction");
    let _ = writeln!(s, "// mul: c is -0 (+0 under .rm); sub: c negated.");
    let _ = writeln!(s, "function automatic [15:0] eff_c(input [15:0] x);");
    let sign_bit = 1u32 << (ew + mw);
    let base = if w.ctrl.c_zero {
        let zero = if w.ctrl.rnd == Rnd::Rm { 0 } else { sign_bit };
        format!("16'h{zero:04x}")
    } else {
        "x".to_string()
    };
    let flip = if w.ctrl.neg_c {
        format!(" ^ 16'h{sign_bit:04x}")
    } else {
        String::new()
    };
    let _ = writeln!(s, "  eff_c = {base}{flip};");
    let _ = writeln!(s, "endfunction");
    let _ = writeln!(
        s,
        "// The cases, on the operands as the operation reads them (d: the product's exponent \
         less the addend's, a subnormal's read as 1)."
    );
    let _ = writeln!(
        s,
        "function automatic in_case(input integer k, input [15:0] a, input [15:0] b, input [15:0] c);"
    );
    let _ = writeln!(s, "  reg special, zero_ab, zero_c, unlike;");
    let _ = writeln!(s, "  integer xa, xb, xc, d;");
    let _ = writeln!(s, "  begin");
    let e = |v: &str| format!("{v}[EW+MW-1:MW]");
    let f = |v: &str| format!("{v}[MW-1:0]");
    let _ = writeln!(
        s,
        "    special = &{} || &{} || &{};",
        e("a"),
        e("b"),
        e("c")
    );
    let _ = writeln!(
        s,
        "    zero_ab = ({ea} == 0 && {fa} == 0) || ({eb} == 0 && {fb} == 0);",
        ea = e("a"),
        fa = f("a"),
        eb = e("b"),
        fb = f("b")
    );
    let _ = writeln!(s, "    zero_c = {} == 0 && {} == 0;", e("c"), f("c"));
    let _ = writeln!(s, "    unlike = a[EW+MW] ^ b[EW+MW] ^ c[EW+MW];");
    for v in ["a", "b", "c"] {
        let _ = writeln!(s, "    x{v} = {ev} == 0 ? 1 : {ev};", ev = e(v));
    }
    let _ = writeln!(s, "    d = xa + xb - Bias - xc;");
    let _ = writeln!(s, "    case (k)");
    for (k, c) in cases.iter().enumerate() {
        let _ = writeln!(s, "      {k}: in_case = {};  // {}", c.predicate, c.name);
    }
    let _ = writeln!(s, "      default: in_case = 1'b0;");
    let _ = writeln!(s, "    endcase");
    let _ = writeln!(s, "  end");
    let _ = writeln!(s, "endfunction");
    s
}
