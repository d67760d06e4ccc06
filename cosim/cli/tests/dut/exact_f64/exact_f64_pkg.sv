// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// exact_f64_pkg: the geometry of the exact binary64 sum, written for the test of a second
// outside design (cosim/cli/tests/dut_f64.rs) and independent of the kit's RTL.
//
// A finite binary64 operand is sig * 2^(lsb_exp - 1074): sig < 2^53 (hidden bit included),
// lsb_exp = max(field, 1) - 1 in 0 .. 2045. A product is then an integer multiple of 2^-2148
// (two minimum subnormals multiplied), and so is any addend. In that unit the product is
// sig_a * sig_b << (lsb_exp_a + lsb_exp_b), below 2^(106 + 4090), and the addend is
// sig_c << (lsb_exp_c + 1074), below 2^(53 + 3119): their sum fits in one bit more than the
// largest product, SumW = 4197 bits, and is exact (no alignment window, no sticky bit). The
// magnitude is held in MagW bits, SumW rounded up to whole 64-bit words (4224), so that the
// Verilated model works on whole words with no masking or padding.

package exact_f64_pkg;

  localparam int unsigned ExpW = 11;
  localparam int unsigned SigW = 53;
  // Largest lsb_exp of a finite operand: the largest finite exponent field (2^ExpW - 2) less one.
  localparam int unsigned MaxLsbExp = 2 ** ExpW - 3;
  // Bit of the magnitude that weighs the minimum subnormal, 2^(emin - 52) = 2^-1074: 1074.
  localparam int unsigned MinLsb = 2 ** (ExpW - 1) - 2 + SigW - 1;
  localparam int unsigned SumW = 2 * SigW + 2 * MaxLsbExp + 1;
  localparam int unsigned Words = (SumW + 63) / 64;
  localparam int unsigned MagW = 64 * Words;
  // Bits of a bit index into the magnitude.
  localparam int unsigned PosW = $clog2(MagW);

  localparam logic [1:0] RndRn = 2'd0;
  localparam logic [1:0] RndRz = 2'd1;
  localparam logic [1:0] RndRm = 2'd2;
  localparam logic [1:0] RndRp = 2'd3;

endpackage
