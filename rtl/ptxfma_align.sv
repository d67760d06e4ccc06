// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Addend alignment shifter with sticky (model/src/parts/align.rs), working in parallel with the
// multiplier array. The addend's leading bit starts at window bit 163 and shifts right by
// CTop - (ec - ep) = 56 - (ec - ep); the product occupies window bits 108:3 (ProdLsb and RefBit
// in the package). An addend more than 56 binades above the product stays at the top, and the
// reference exponent follows it.

module ptxfma_align import ptxfma_pkg::*; (
  // The lane carries an operation (else c_aligned_o is zero and not read: the Verilated model
  // skips the wide shift).
  input  logic              en_i,
  input  logic [SigW-1:0]   c_sig_i,
  input  exp_t              ep_i,       // exponent of product bit 104: ea + eb
  input  exp_t              ec_i,
  input  logic              prod_zero_i,
  input  logic              c_zero_i,
  output exp_t              eref_o,     // window bit k weighs 2^(eref - 107 + k)
  output logic [AlignW-1:0] c_aligned_o,
  output logic              sticky_o
);

  localparam int unsigned MaxShift = AlignW;  // everything below the window
  localparam int unsigned ShW      = $clog2(MaxShift + 1);
  // Window bit of the significand's LSB before the shift (111): a shift past it loses bits.
  localparam int unsigned CLsb     = AlignW - SigW;
  // Binades from the reference (window bit RefBit) up to the addend's leading bit before the
  // shift, window bit AlignW - 1: 56.
  localparam exp_t        CTop     = exp_t'(AlignW - 1 - RefBit);

  exp_t              d, rs;
  logic [ShW-1:0]    sh;
  logic [AlignW-1:0] top;

  always_comb begin
    d      = ec_i - ep_i;
    rs     = CTop - d;
    sh     = ShW'(MaxShift);
    eref_o = ep_i;
    if (c_zero_i) begin
      // Nothing to align; keep the product's scale.
      sh     = ShW'(MaxShift);
      eref_o = ep_i;
    end else if (prod_zero_i || (d > CTop)) begin
      sh     = '0;
      eref_o = ec_i - CTop;
    end else begin
      sh     = (rs > exp_t'(MaxShift)) ? ShW'(MaxShift) : rs[ShW-1:0];
      eref_o = ep_i;
    end
  end

  assign top         = {c_sig_i, CLsb'(0)};
  always_comb begin
    c_aligned_o = '0;
    if (en_i) begin
      c_aligned_o = top >> sh;
    end
  end

  // Sticky: the addend bits shifted below window bit 0. The significand sits at window bits
  // AlignW-1:CLsb (163:111), so only a shift past CLsb loses bits: the low (sh - CLsb) bits of
  // c_sig_i.
  logic [SigW-1:0] lost_mask;
  assign lost_mask = (sh > ShW'(CLsb)) ? ~({SigW{1'b1}} << (sh - ShW'(CLsb))) : '0;
  assign sticky_o  = (c_sig_i & lost_mask) != '0;

endmodule
