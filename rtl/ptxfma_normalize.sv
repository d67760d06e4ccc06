// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Normaliser (model/src/parts/normalize.rs): shifts the magnitude so its leading one reaches bit
// 164, by the LZA's prediction and then one bit of correction either way, but never below the
// format's minimum exponent (gradual underflow). A value already below that minimum before any
// shift is shifted right, collecting sticky.

module ptxfma_normalize import ptxfma_pkg::*; (
  // The lane carries an operation; when clear the outputs are zero and not read (the Verilated
  // model then skips the shifts).
  input  logic                 en_i,
  input  logic [MagW-1:0]      mag_i,
  input  logic [ShiftCntW-1:0] lza_cnt_i,
  input  exp_t                 eref_i,   // window bit k weighs 2^(eref - 107 + k)
  input  exp_t                 emin_i,   // the exponent the shift stops at (round::normalize_emin)
  output logic [MagW-1:0]      norm_o,
  output logic                 sticky_o,
  output exp_t                 exp_o     // exponent of norm_o bit 164
);

  // Left shift of the 166-bit window by sh (sh >= 166 gives zero), built for the Verilated
  // model from WordW-bit slices: a word step (0, 64, 128 or 192 places, sh's top bits) and then
  // a bit step within words (its low WordIdxW bits). Verilator would turn a whole-word `<<` into
  // a generic runtime call.
  function automatic logic [AddW-1:0] shl_window(logic [AddW-1:0] v, logic [ShiftCntW-1:0] sh);
    logic [WordW-1:0]    c0, c1, c2, w0, w1, w2, o0, o1, o2;
    logic [WordIdxW-1:0] b;
    logic                unused_o2;
    c0 = v[WordW-1:0];
    c1 = v[2*WordW-1:WordW];
    c2 = WordW'(v[AddW-1:2*WordW]);
    unique case (sh[ShiftCntW-1:WordIdxW])
      2'd0:    begin w0 = c0;  w1 = c1;  w2 = c2;  end
      2'd1:    begin w0 = '0;  w1 = c0;  w2 = c1;  end
      2'd2:    begin w0 = '0;  w1 = '0;  w2 = c0;  end
      default: begin w0 = '0;  w1 = '0;  w2 = '0;  end
    endcase
    b  = sh[WordIdxW-1:0];
    // Bits crossing into the next word: (w >> 1) >> (63 - b) is w >> (64 - b), zero for b = 0.
    o0 = w0 << b;
    o1 = (w1 << b) | ((w0 >> 1) >> (WordIdxW'(WordW - 1) - b));
    o2 = (w2 << b) | ((w1 >> 1) >> (WordIdxW'(WordW - 1) - b));
    unused_o2 = ^o2[WordW-1:AddW-2*WordW];
    return {o2[AddW-2*WordW-1:0], o1, o0};
  endfunction

  // Binades from the reference (window bit RefBit) up to the normalised lead, bit MagW - 1: 57.
  localparam exp_t Lead = exp_t'(MagW - 1 - RefBit);

  exp_t                 lim, neg_lim, s0, s;
  logic [ShiftCntW-1:0] rs;
  logic [AddW-1:0]      x;
  logic [MagW-1:0]      xs;

  always_comb begin
    lim      = '0;
    neg_lim  = '0;
    rs       = '0;
    s0       = '0;
    x        = '0;
    xs       = '0;
    s        = '0;
    norm_o   = '0;
    sticky_o = 1'b0;
    exp_o    = '0;
    if (en_i) begin
      // Largest left shift: a leading one at bit MagW - 1 (164) after a shift by s has
      // exponent eref + Lead - s (eref + 57 - s), which must stay >= emin.
      lim     = eref_i + Lead - emin_i;
      neg_lim = -lim;
      s0      = (exp_t'(lza_cnt_i) < lim) ? exp_t'(lza_cnt_i) : lim;
      if (lim < 0) begin
        // A right shift by AddW already clears the whole window.
        rs       = (neg_lim > exp_t'(AddW)) ? ShiftCntW'(AddW) : neg_lim[ShiftCntW-1:0];
        norm_o   = mag_i >> rs;
        sticky_o = (norm_o << rs) != mag_i;
        exp_o    = emin_i;
      end else begin
        x = shl_window({1'b0, mag_i}, s0[ShiftCntW-1:0]);
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
        exp_o  = eref_i + Lead - s;
      end
    end
  end

endmodule
