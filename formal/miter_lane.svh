// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// How `fma-cosim dut prove` compares one 16-bit result lane of a team's design with the kit's
// (formal/miter_half.sv, formal/miter_cases.sv): bit-exact unless the kit's lane is a NaN; a NaN
// then by the manifest's convention: NAN_CANONICAL with CANON_F16 and CANON_BF16 (the design's
// NaN of each format), else any NaN (PTX leaves a half NaN's bits open, S10).

function automatic is_nan16(input bf16, input [15:0] x);
  is_nan16 = bf16 ? (x[14:7] == 8'hff && x[6:0] != 7'd0)
                  : (x[14:10] == 5'h1f && x[9:0] != 10'd0);
endfunction

function automatic lane_ok(input bf16, input [15:0] got, input [15:0] want);
  if (!is_nan16(bf16, want)) lane_ok = got == want;
`ifdef NAN_CANONICAL
  else lane_ok = got == (bf16 ? 16'(`CANON_BF16) : 16'(`CANON_F16));
`else
  else lane_ok = is_nan16(bf16, got);
`endif
endfunction
