// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of the rounding window (docs/formal.md): the real ptxfma_round_window, every
// input free (format, enable, significand, sticky), against ref_window below.
//
// ref_window is the rounder's window as it was written before ptxfma_round_window: one case
// arm per format, with round bits of its own from the formats' field widths (not the package's
// format table). It is kept here only, as this proof's reference; the RTL does not use it.

module formal_round_window import ptxfma_pkg::*; (
  input  logic            en_i,
  input  res_fmt_e        fmt_i,
  input  logic [MagW-1:0] norm_i,
  input  logic            sticky_i,
  output logic            ok_window,
  output logic            twin_window_bf16_as_f16
);

  localparam int unsigned RefF64RoundBit  = MagW - 1 - (F64ManBits + 1);
  localparam int unsigned RefF32RoundBit  = MagW - 1 - (F32ManBits + 1);
  localparam int unsigned RefF16RoundBit  = MagW - 1 - (F16ManBits + 1);
  localparam int unsigned RefBF16RoundBit = MagW - 1 - (BF16ManBits + 1);

  function automatic window_t ref_window(res_fmt_e fmt, logic [MagW-1:0] norm, logic sticky);
    window_t w;
    w.lead = norm[MagW-1];
    unique case (fmt)
      FMT_F64: begin
        w.kept      = F64Prec'(norm[MagW-1:RefF64RoundBit+1]);
        w.rest_ones = norm[MagW-2:RefF64RoundBit+1] == '1;
        w.rb        = norm[RefF64RoundBit];
        w.st        = (norm[RefF64RoundBit-1:0] != '0) || sticky;
        w.ones_u    = norm[MagW-2:RefF64RoundBit] == '1;
        w.lsb_u     = norm[RefF64RoundBit];
        w.rb_u      = norm[RefF64RoundBit-1];
        w.st_u      = (norm[RefF64RoundBit-2:0] != '0) || sticky;
      end
      FMT_F16: begin
        w.kept      = F64Prec'(norm[MagW-1:RefF16RoundBit+1]);
        w.rest_ones = norm[MagW-2:RefF16RoundBit+1] == '1;
        w.rb        = norm[RefF16RoundBit];
        w.st        = (norm[RefF16RoundBit-1:0] != '0) || sticky;
        w.ones_u    = norm[MagW-2:RefF16RoundBit] == '1;
        w.lsb_u     = norm[RefF16RoundBit];
        w.rb_u      = norm[RefF16RoundBit-1];
        w.st_u      = (norm[RefF16RoundBit-2:0] != '0) || sticky;
      end
      FMT_BF16: begin
        w.kept      = F64Prec'(norm[MagW-1:RefBF16RoundBit+1]);
        w.rest_ones = norm[MagW-2:RefBF16RoundBit+1] == '1;
        w.rb        = norm[RefBF16RoundBit];
        w.st        = (norm[RefBF16RoundBit-1:0] != '0) || sticky;
        w.ones_u    = norm[MagW-2:RefBF16RoundBit] == '1;
        w.lsb_u     = norm[RefBF16RoundBit];
        w.rb_u      = norm[RefBF16RoundBit-1];
        w.st_u      = (norm[RefBF16RoundBit-2:0] != '0) || sticky;
      end
      default: begin
        w.kept      = F64Prec'(norm[MagW-1:RefF32RoundBit+1]);
        w.rest_ones = norm[MagW-2:RefF32RoundBit+1] == '1;
        w.rb        = norm[RefF32RoundBit];
        w.st        = (norm[RefF32RoundBit-1:0] != '0) || sticky;
        w.ones_u    = norm[MagW-2:RefF32RoundBit] == '1;
        w.lsb_u     = norm[RefF32RoundBit];
        w.rb_u      = norm[RefF32RoundBit-1];
        w.st_u      = (norm[RefF32RoundBit-2:0] != '0) || sticky;
      end
    endcase
    return w;
  endfunction

  window_t window;

  ptxfma_round_window u_window (
    .en_i    (en_i),
    .fmt_i   (fmt_i),
    .norm_i  (norm_i),
    .sticky_i(sticky_i),
    .window_o(window)
  );

  // Every field for every format and input; zero when disabled.
  assign ok_window = window == (en_i ? ref_window(fmt_i, norm_i, sticky_i) : '0);
  // Twin: bfloat16 read at binary16's round bit (a format table out of res_fmt_e's order).
  assign twin_window_bf16_as_f16 =
      window == (en_i ? ref_window((fmt_i == FMT_BF16) ? FMT_F16 : fmt_i, norm_i, sticky_i) : '0);

endmodule
