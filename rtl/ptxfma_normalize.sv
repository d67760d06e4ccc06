// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Normaliser (model/src/normalize.rs): shifts the magnitude so its leading one reaches bit
// 164, by the LZA's prediction and then one bit of correction either way, but never below the
// format's minimum exponent (gradual underflow). A value already below that minimum before any
// shift is shifted right, collecting sticky.

module ptxfma_normalize import ptxfma_pkg::*; (
  input  logic [MagW-1:0] mag_i,
  input  logic [7:0]      lza_cnt_i,
  input  exp_t            eref_i,   // window bit k weighs 2^(eref - 107 + k)
  input  logic            f64_i,    // selects the result format's minimum exponent
  output logic [MagW-1:0] norm_o,
  output logic            sticky_o,
  output exp_t            exp_o     // exponent of norm_o bit 164
);

  exp_t            emin, lim, neg_lim, s0, s;
  logic [7:0]      rs;
  logic [AddW-1:0] x;
  logic [MagW-1:0] xs;

  always_comb begin
    emin    = f64_i ? -16'sd1022 : -16'sd126;
    // Largest left shift: a leading one at bit 164 after a shift by s has exponent
    // eref + 57 - s, which must stay >= emin.
    lim     = eref_i + 16'sd57 - emin;
    neg_lim = -lim;
    rs      = (neg_lim > 16'sd166) ? 8'd166 : neg_lim[7:0];
    s0      = ($signed({8'b0, lza_cnt_i}) < lim) ? $signed({8'b0, lza_cnt_i}) : lim;
    x       = {1'b0, mag_i} << s0[7:0];
    xs      = x[MagW-1:0];
    s       = s0;
    norm_o   = '0;
    sticky_o = 1'b0;
    exp_o    = emin;
    if (lim < 0) begin
      norm_o   = mag_i >> rs;
      sticky_o = (norm_o << rs) != mag_i;
      exp_o    = emin;
    end else begin
      if (x[AddW-1]) begin
        xs = x[AddW-1:1];
        s  = s0 - 16'sd1;
      end else if (x[MagW-1] || (s0 >= lim)) begin
        xs = x[MagW-1:0];
        s  = s0;
      end else begin
        xs = {x[MagW-2:0], 1'b0};
        s  = s0 + 16'sd1;
      end
      norm_o = xs;
      exp_o  = eref_i + 16'sd57 - s;
    end
  end

endmodule
