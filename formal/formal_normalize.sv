// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// Proof harness of the normaliser (docs/formal.md): the real ptxfma_normalize at one format's
// emin (the EMIN define: -1022, -126 or -14), the magnitude free, the reference exponent in the
// 14-bit range of its register, and the LZA's count assumed as proved of it (formal_lza.sv):
// within one of the true count for a non-zero magnitude, MagW for a zero one.

module formal_normalize import ptxfma_pkg::*; (
  input  logic [MagW-1:0]      mag_i,
  input  logic [ShiftCntW-1:0] lza_cnt_i,
  input  exp14_t               eref_i,
  output logic                 ok_shift,
  output logic                 ok_shift_right,
  output logic                 ok_sticky,
  output logic                 twin_shift_no_stop,
  output logic                 ok_lead,
  output logic                 twin_lead_off_by_two,
  output logic                 ok_exp,
  output logic                 twin_exp
);

  localparam int Emin = `EMIN;

  logic [MagW-1:0] norm;
  logic            sticky;
  exp_t            exp;

  ptxfma_normalize u_normalize (
    .en_i     (1'b1),
    .mag_i    (mag_i),
    .lza_cnt_i(lza_cnt_i),
    .eref_i   (exp_t'(eref_i)),
    .emin_i   (exp_t'(Emin)),
    .norm_o   (norm),
    .sticky_o (sticky),
    .exp_o    (exp)
  );

  // Leading zeros of the magnitude, by a plain loop; counted in 8 bits (at most 165), which
  // spares the solvers a chain of 32-bit adders.
  logic [7:0] lz8;
  int         lz;
  logic       seen;
  always_comb begin
    lz8  = '0;
    seen = 1'b0;
    for (int i = MagW - 1; i >= 0; i--) begin
      seen = seen | mag_i[i];
      if (!seen) lz8 = lz8 + 8'd1;
    end
  end
  assign lz = int'(lz8);

  // The LZA's contract, and a looser one (two places off) for the twin.
  int   cnt;
  logic lza_ok, lza_ok2;
  always_comb begin
    cnt     = int'(lza_cnt_i);
    lza_ok  = (mag_i == '0) ? (cnt == MagW) : ((cnt >= lz - 1) && (cnt <= lz + 1));
    lza_ok2 = (mag_i != '0) && (cnt >= lz - 2) && (cnt <= lz + 2) && (cnt <= MagW);
  end

  // The specification: the lead goes to bit MagW-1 (164), exponent eref + 57 - shift, but no
  // exponent below emin: the shift is min(lz, lim), lim = eref + 57 - emin; a value below 2^emin
  // before any shift (lim < 0) is shifted right by -lim, its lost bits into sticky.
  int                lim, s, rs;
  logic [MagW-1:0]   spec_norm;
  logic              spec_sticky;
  int                spec_exp;
  always_comb begin
    lim         = int'(eref_i) + 57 - Emin;
    s           = 0;
    rs          = 0;
    spec_sticky = 1'b0;
    if (lim < 0) begin
      rs          = (-lim > MagW) ? MagW : -lim;
      // Shift amounts narrowed to 8 bits: a 32-bit amount makes the solver's shifter deep.
      spec_norm   = (rs >= MagW) ? '0 : mag_i >> 8'(rs);
      spec_sticky = (rs >= MagW) ? (mag_i != '0) : ((mag_i & ~({MagW{1'b1}} << 8'(rs))) != '0);
      spec_exp    = Emin;
    end else begin
      s         = (lz < lim) ? lz : lim;
      spec_norm = mag_i << 8'(s);
      spec_exp  = int'(eref_i) + 57 - s;
    end
  end

  // Split for the solver: a left shift (lim >= 0) by the amount its exponent implies (ok_exp
  // proves that amount the specification's), a right shift below emin, and sticky.
  logic [MagW-1:0] by_exp;
  int              amt;
  assign amt      = int'(eref_i) + 57 - int'(exp);
  assign by_exp   = mag_i << 8'(amt);
  assign ok_shift = !lza_ok || (lim < 0) || ((mag_i == '0) ? (norm == '0)
                  : (amt >= 0 && amt <= MagW && norm == by_exp));
  assign ok_shift_right = (lim >= 0) || (norm == spec_norm);
  assign ok_sticky = sticky == spec_sticky;
  // Twin: shifted by the true count with no stop at emin.
  assign twin_shift_no_stop = !lza_ok || (mag_i == '0) || (lim < 0) || (norm == (mag_i << 8'(lz)));
  // The lead at the top unless the shift stopped at emin; never an exponent below emin.
  assign ok_lead = !lza_ok || (mag_i == '0)
                || ((norm[MagW-1] || int'(exp) == Emin) && int'(exp) >= Emin);
  // Twin: with a prediction two places off, the one-bit correction is not enough.
  assign twin_lead_off_by_two = !lza_ok2 || (norm[MagW-1] || int'(exp) == Emin);
  assign ok_exp   = !lza_ok || (mag_i == '0) || (int'(exp) == spec_exp);
  // Twin: the exponent of an unclamped shift.
  assign twin_exp = !lza_ok || (mag_i == '0) || (int'(exp) == int'(eref_i) + 57 - lz);

endmodule
