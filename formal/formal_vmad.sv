// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of vmad's select, scale and saturation (docs/formal.md, docs/semantics.md S8):
// the real ptxfma_vmad_select, ptxfma_vmad_scale and ptxfma_vmad_saturate, every input free,
// against their arithmetic meaning written with wide signed integers.

module formal_vmad import ptxfma_pkg::*; (
  input  logic [VmWordW-1:0] w_i,
  input  sel_e               sel_i,
  input  logic               signed_i,
  input  scale_e             scale_i,
  input  logic [VmTmpW-1:0]  tmp_i,
  input  logic               sat_i,
  input  logic [DataW-1:0]   res_i,
  output logic               ok_select,
  output logic               twin_select,
  output logic               ok_scale,
  output logic               twin_scale,
  output logic               ok_sat_signed,
  output logic               twin_sat_signed,
  output logic               ok_sat_unsigned,
  output logic               twin_sat_unsigned
);

  logic [VmOpW-1:0] val;
  logic [DataW-1:0] scaled, d;

  ptxfma_vmad_select u_select (
    .en_i    (1'b1),
    .w_i     (w_i),
    .sel_i   (sel_i),
    .signed_i(signed_i),
    .val_o   (val)
  );

  ptxfma_vmad_scale u_scale (
    .scale_i       (scale_i),
    .signed_final_i(signed_i),
    .tmp_i         (tmp_i),
    .res_o         (scaled)
  );

  ptxfma_vmad_saturate u_saturate (
    .sat_i         (sat_i),
    .signed_final_i(signed_i),
    .res_i         (res_i),
    .d_o           (d)
  );

  // Select: byte k or half-word k as a signed or unsigned integer; a word as s32.
  longint sel_v, sel_twin;
  always_comb begin
    unique case (sel_i)
      SEL_B0, SEL_B1, SEL_B2, SEL_B3: begin
        sel_v = signed_i ? longint'($signed(w_i[8*int'(sel_i)+:8])) : longint'(w_i[8*int'(sel_i)+:8]);
      end
      SEL_H0, SEL_H1: begin
        sel_v = signed_i ? longint'($signed(w_i[16*(int'(sel_i)-4)+:16]))
                         : longint'(w_i[16*(int'(sel_i)-4)+:16]);
      end
      default: sel_v = longint'($signed(w_i));
    endcase
    // Twin: a word read by its type (unsigned when the operand is).
    sel_twin = (sel_i inside {SEL_B0, SEL_B1, SEL_B2, SEL_B3, SEL_H0, SEL_H1} || signed_i)
               ? sel_v : longint'(w_i);
  end
  assign ok_select   = val == VmOpW'(sel_v);
  assign twin_select = val == VmOpW'(sel_twin);

  // Scale: an arithmetic shift of the 80-bit intermediate for a signed final result, a logical
  // shift of its low 64 bits for an unsigned one.
  int unsigned sh;
  logic signed [VmTmpW-1:0] tmp_s;
  assign sh    = (scale_i == SCALE_SHR7) ? 7 : ((scale_i == SCALE_SHR15) ? 15 : 0);
  assign tmp_s = $signed(tmp_i);
  assign ok_scale   = scaled == (signed_i ? DataW'(tmp_s >>> sh) : (tmp_i[DataW-1:0] >> sh));
  // Twin: the unsigned result shifted from the 80-bit intermediate too.
  assign twin_scale = scaled == DataW'(tmp_i >> sh);

  // Saturation: the arithmetic clamp of the 64-bit intermediate (read as signed in both cases).
  logic signed [DataW-1:0] r;
  logic signed [DataW-1:0] clamp_s, clamp_s_twin, clamp_u, clamp_u_twin;
  always_comb begin
    r            = $signed(res_i);
    clamp_s      = (r > 64'sd2147483647) ? 64'sd2147483647
                 : ((r < -64'sd2147483648) ? -64'sd2147483648 : r);
    clamp_s_twin = (r > 64'sd2147483646) ? 64'sd2147483646
                 : ((r < -64'sd2147483648) ? -64'sd2147483648 : r);
    clamp_u      = (r > 64'sd4294967295) ? 64'sd4294967295 : ((r < 0) ? 64'sd0 : r);
    // Twin: the intermediate read as unsigned.
    clamp_u_twin = (res_i > 64'd4294967295) ? 64'sd4294967295 : r;
  end
  assign ok_sat_signed   = !sat_i || !signed_i || (d == {32'd0, clamp_s[31:0]});
  assign twin_sat_signed = !sat_i || !signed_i || (d == {32'd0, clamp_s_twin[31:0]});
  assign ok_sat_unsigned   = !sat_i || signed_i || (d == {32'd0, clamp_u[31:0]});
  assign twin_sat_unsigned = !sat_i || signed_i || (d == {32'd0, clamp_u_twin[31:0]});

endmodule
