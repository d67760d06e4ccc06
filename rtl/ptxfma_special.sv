// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Special-case unit (model/src/parts/special.rs): NaN and infinity results, and .oob's forced
// zero, decided from the operand classes alone so the result is ready in stage 1 and rides down
// the pipe beside the arithmetic. binary32 results always give the canonical NaN 0x7FFFFFFF
// (S1), half-precision ones 0x7FFF (S10); binary64 results propagate the first NaN operand in
// b, c, a order, quieted, payload kept, and an invalid operation without a NaN operand gives
// 0xFFF8000000000000 (S2, S9). An OOB NaN in a or b under .oob gives +0 before all that (S12).

module ptxfma_special import ptxfma_pkg::*; (
  input  logic             en_i,      // the lane carries an operation (else the outputs are zero)
  input  res_fmt_e         fmt_i,     // the lane's result format
  input  logic             oob_i,     // .oob and an OOB NaN in a or b
  input  operand_t         a_i,
  input  operand_t         b_i,
  input  operand_t         c_i,
  // Raw operand words, for binary64 NaN propagation.
  input  logic [DataW-1:0] raw_a_i,
  input  logic [DataW-1:0] raw_b_i,
  input  logic [DataW-1:0] raw_c_i,
  output logic             valid_o,
  output logic [DataW-1:0] res_o
);

  // The canonical NaNs (S1, S2) as docs/semantics.md gives them; infinities and the binary64
  // quiet bit (the fraction's MSB) from the formats' fields.
  localparam logic [DataW-1:0] F32NaN   = 64'h0000_0000_7FFF_FFFF;
  localparam logic [DataW-1:0] F64NaN   = 64'hFFF8_0000_0000_0000;
  localparam logic [DataW-1:0] F32Inf   = DataW'({{F32ExpBits{1'b1}}, F32ManBits'(0)});
  localparam logic [DataW-1:0] F64Inf   = DataW'({{F64ExpBits{1'b1}}, F64ManBits'(0)});
  localparam logic [DataW-1:0] F64Quiet = DataW'({1'b1, (F64ManBits - 1)'(0)});
  localparam logic [DataW-1:0] HalfNaN  = 64'h0000_0000_0000_7FFF;
  localparam logic [DataW-1:0] F16Inf   = DataW'({{F16ExpBits{1'b1}}, F16ManBits'(0)});
  localparam logic [DataW-1:0] BF16Inf  = DataW'({{BF16ExpBits{1'b1}}, BF16ManBits'(0)});

  logic sign_p, p_inf, any_nan, invalid;

  assign sign_p  = a_i.sign ^ b_i.sign;
  assign p_inf   = a_i.inf || b_i.inf;
  assign any_nan = a_i.nan || b_i.nan || c_i.nan;
  assign invalid = (a_i.inf && b_i.zero) || (a_i.zero && b_i.inf)
                || (p_inf && c_i.inf && (sign_p != c_i.sign));

  // An infinity of sign s in the lane's format.
  function automatic logic [DataW-1:0] inf_of(res_fmt_e fmt, logic s);
    unique case (fmt)
      FMT_F64:  return F64Inf | {s, (DataW - 1)'(0)};
      FMT_F16:  return F16Inf | {(DataW - F16W)'(0), s, (F16W - 1)'(0)};
      FMT_BF16: return BF16Inf | {(DataW - BF16W)'(0), s, (BF16W - 1)'(0)};
      default:  return F32Inf | {(DataW - F32W)'(0), s, (F32W - 1)'(0)};
    endcase
  endfunction

  logic half;
  assign half = (fmt_i == FMT_F16) || (fmt_i == FMT_BF16);

  always_comb begin
    valid_o = 1'b1;
    res_o   = '0;
    if (!en_i) begin
      valid_o = 1'b0;
    end else if (oob_i) begin
      res_o = '0;
    end else if (any_nan || invalid) begin
      if (half) begin
        res_o = HalfNaN;
      end else if (fmt_i != FMT_F64) begin
        res_o = F32NaN;
      end else if (b_i.nan) begin
        res_o = raw_b_i | F64Quiet;
      end else if (c_i.nan) begin
        res_o = raw_c_i | F64Quiet;
      end else if (a_i.nan) begin
        res_o = raw_a_i | F64Quiet;
      end else begin
        res_o = F64NaN;
      end
    end else if (p_inf) begin
      res_o = inf_of(fmt_i, sign_p);
    end else if (c_i.inf) begin
      res_o = inf_of(fmt_i, c_i.sign);
    end else begin
      valid_o = 1'b0;
    end
  end

  // Only the class flags matter here (a zero c changes no special result); the magnitudes go
  // to the multiplier and the aligner.
  logic unused_mag;
  assign unused_mag = ^{a_i.exp, a_i.sig, b_i.exp, b_i.sig, c_i.exp, c_i.sig, c_i.zero};

endmodule
