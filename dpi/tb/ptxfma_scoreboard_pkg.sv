// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_scoreboard_pkg::ptxfma_scoreboard: a UVM-style scoreboard without the UVM library. The
// monitor side calls write_expected() when an operation is issued (the golden model's result,
// from the DPI-C call) and write_actual() when the RTL retires it; results are matched by tag,
// since that is what identifies an operation on the pipe's output. A result with no
// expectation, a tag issued twice while in flight, and an expectation that never retires are
// errors too.

package ptxfma_scoreboard_pkg;

  // The class is the point of the file; the file is named after its package.
  /* verilator lint_off DECLFILENAME */
  class ptxfma_scoreboard;
  /* verilator lint_on DECLFILENAME */
    // Expected result and its description (for the report), by tag.
    protected longint unsigned expected_d[int unsigned];
    protected string           expected_what[int unsigned];
    int unsigned               n_checked;
    int unsigned               n_mismatches;
    int unsigned               n_errors;

    function new();
      n_checked    = 0;
      n_mismatches = 0;
      n_errors     = 0;
    endfunction

    function void write_expected(int unsigned tag, longint unsigned d, string what);
      if (expected_d.exists(tag) != 0) begin
        $display("ERROR: tag 0x%04x issued again while in flight (%s)", tag, what);
        n_errors++;
      end
      expected_d[tag]    = d;
      expected_what[tag] = what;
    endfunction

    function void write_actual(int unsigned tag, longint unsigned d);
      if (expected_d.exists(tag) == 0) begin
        $display("ERROR: tag 0x%04x retired with d = 0x%016x but was never issued", tag, d);
        n_errors++;
        return;
      end
      n_checked++;
      if (d != expected_d[tag]) begin
        n_mismatches++;
        if (n_mismatches <= 10) begin
          $display("MISMATCH tag 0x%04x: %s: RTL d = 0x%016x, model d = 0x%016x", tag,
                   expected_what[tag], d, expected_d[tag]);
        end
      end
      expected_d.delete(tag);
      expected_what.delete(tag);
    endfunction

    // Operations issued and not yet retired.
    function int unsigned in_flight();
      return expected_d.num();
    endfunction

    // True when every issued operation retired with the model's result.
    function bit passed();
      return n_mismatches == 0 && n_errors == 0 && expected_d.num() == 0 && n_checked > 0;
    endfunction
  endclass

endpackage
