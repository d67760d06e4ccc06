// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_dpi_bench: +n=N single ptxfma_eval DPI-C calls in a loop, no RTL, for `make bench`,
// which times a run with +n=0 and one with +n=N and prints N / (difference) as calls per second
// (target >= 5 M/s). The operands change every call and the results are folded into a sum that
// is printed, so no call can be skipped.

module ptxfma_dpi_bench;
  import ptxfma_dpi_pkg::*;

  initial begin
    int unsigned     n = 1000000;
    int unsigned     ctrl;
    longint unsigned d;
    longint unsigned sum = 0;

    void'($value$plusargs("n=%d", n));
    if (ptxfma_decode("fma.rn.f32", "sm_20", ctrl) != PtxfmaStatusOk) begin
      $fatal(1, "ptxfma_decode: %s", ptxfma_last_error());
    end
    for (int unsigned i = 0; i < n; i++) begin
      if (ptxfma_eval(ctrl, {32'h0, 32'h3f80_0000 ^ i}, {32'h0, 32'h4000_0000 + i},
                      {32'h0, 32'h3f80_0000}, d) != PtxfmaStatusOk) begin
        $fatal(1, "ptxfma_eval: %s", ptxfma_last_error());
      end
      sum += d;
    end
    $display("%0d calls, sum of results 0x%016x", n, sum);
    $finish;
  end

endmodule
