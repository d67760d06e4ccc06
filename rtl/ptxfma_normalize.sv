// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Normaliser (model/src/parts/normalize.rs): shifts the magnitude so its leading one reaches bit
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

  // Left shift of the 166-bit window by sh (sh >= 166 gives zero), built for the Verilated
  // model from 64-bit slices: a word step (0, 64, 128 or 192 places) and then a bit step
  // within words. Verilator would turn a whole-word `<<` into a generic runtime call.
  function automatic logic [AddW-1:0] shl_window(logic [AddW-1:0] v, logic [7:0] sh);
    logic [63:0] c0, c1, c2, w0, w1, w2, o0, o1, o2;
    logic [5:0]  b;
    logic        unused_o2;
    c0 = v[63:0];
    c1 = v[127:64];
    c2 = 64'(v[AddW-1:128]);
    unique case (sh[7:6])
      2'd0:    begin w0 = c0;  w1 = c1;  w2 = c2;  end
      2'd1:    begin w0 = '0;  w1 = c0;  w2 = c1;  end
      2'd2:    begin w0 = '0;  w1 = '0;  w2 = c0;  end
      default: begin w0 = '0;  w1 = '0;  w2 = '0;  end
    endcase
    b  = sh[5:0];
    // Bits crossing into the next word: (w >> 1) >> (63 - b) is w >> (64 - b), zero for b = 0.
    o0 = w0 << b;
    o1 = (w1 << b) | ((w0 >> 1) >> (6'd63 - b));
    o2 = (w2 << b) | ((w1 >> 1) >> (6'd63 - b));
    unused_o2 = ^o2[63:AddW-128];
    return {o2[AddW-129:0], o1, o0};
  endfunction

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
    x       = shl_window({1'b0, mag_i}, s0[7:0]);
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
