//! One count of latency (docs/dut.md, "Latency"): rising edges from the one that takes an
//! operation to the one that hands its result over, a pipe's register stages. The same pipe
//! (`rtl/alt/`, six registers) is reported at latency 6 with and without a handshake, and
//! `dut prove` reads `contract.latency` by that count (issue 51: the same pipe was reported one
//! higher behind a handshake).

use crate::common;

use common::cosim;
use common::outside::{one_line_error, Outside};

/// `rtl/alt/` behind a handshake that is always ready and passes its results straight out:
/// the same six registers, nothing added.
const READY: &str = "module alt_ready (
  input  logic        clk_i, rst_ni, in_valid_i,
  output logic        in_ready_o,
  input  logic [15:0] in_tag_i,
  input  logic [26:0] in_ctrl_i,
  input  logic [63:0] in_a_i, in_b_i, in_c_i,
  output logic        out_valid_o,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic        out_ready_i,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic [15:0] out_tag_o,
  output logic [63:0] out_d_o
);
  assign in_ready_o = 1'b1;
  ptxfma_alt_top u_alt (.clk_i, .rst_ni, .in_valid_i, .in_tag_i, .in_ctrl_i, .in_a_i, .in_b_i,
                        .in_c_i, .out_valid_o, .out_tag_o, .out_d_o);
endmodule
";

/// The latency of the report's `cycles` line: `issued I, retired R (latency N; bound B)`.
fn latency(out: &str) -> u64 {
    let l = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("cycles      issued "))
        .unwrap_or_else(|| panic!("no cycles line in:\n{out}"));
    let n = l
        .split("(latency ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    n.parse().unwrap()
}

#[test]
fn the_same_pipe_has_one_latency_with_and_without_a_handshake() {
    let d = Outside::new("latency");
    let fault = "defines = [\"FAULT_ALT_STICKY_RP\"]";
    let contract = "[contract]\nlatency = 6\n[forms]\nfamilies = [\"f32\"]\n";
    let plain = d.manifest("plain.toml", fault, contract);
    std::fs::write(d.0.join("src/alt_ready.sv"), READY).unwrap();
    let hs = d.manifest(
        "hs.toml",
        fault,
        "[contract]\nlatency = 6\nhandshake = true\n[forms]\nfamilies = [\"f32\"]\n",
    );
    let hs_text = std::fs::read_to_string(&hs).unwrap().replace(
        "top = \"ptxfma_alt_top\"\nsources = [",
        "top = \"alt_ready\"\nsources = [\"src/alt_ready.sv\", ",
    );
    std::fs::write(&hs, hs_text).unwrap();
    for (m, build) in [(&plain, "plain"), (&hs, "hs")] {
        let (code, out, err) = d.build(m, build);
        assert_eq!(code, 0, "{out}{err}");
        let (code, out, err) = d.check(build, "1", &["--max-divergences", "1"]);
        assert_eq!(code, 1, "{build}: {out}{err}");
        assert_eq!(latency(&out), 6, "{build}: {out}");
    }
    // `dut prove` counts contract.latency the same way: 6 edges, so a result is first compared
    // in step 7 and the shortest depth is 8 (it says so before it looks for any tool).
    let half = d.manifest(
        "half.toml",
        "",
        "[contract]\nlatency = 6\n[forms]\nfamilies = [\"half\"]\n",
    );
    let (code, out, err) = cosim(&[
        "dut",
        "prove",
        &half,
        "--depth",
        "7",
        "--out",
        &d.path("prove"),
    ]);
    let e = one_line_error((code, out, err));
    assert!(e.contains("--depth 7 is below 8"), "{e}");
    assert!(e.contains("compared 6 edges after its issue"), "{e}");
}
