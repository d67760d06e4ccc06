// Copyright ptxfma contributors.
// Licensed under the Apache License, Version 2.0.
//
// ptxfma_pkg: the types shared by every ptxfma RTL module.
//
// The pipeline register structs mirror model/src/regs.rs field for field: same names, same order,
// same widths. A packed struct puts its first field at the most significant end, which is the
// order the model's `Reg::pack` writes, so the co-simulator can compare the Verilated ports with
// the model's packed images word by word. Change a struct here and in regs.rs together, or the
// co-simulator refuses to start (it checks every port width against the model).

package ptxfma_pkg;

  // A package is a shared vocabulary: each constant is used by some module, not necessarily by
  // the one being linted, and the bank widths exist for documentation and checks only.
  /* verilator lint_off UNUSEDPARAM */

  ////////////////
  // Widths     //
  ////////////////

  localparam int unsigned TagW     = 16;   // operation tag carried down the pipe
  localparam int unsigned CtrlW    = 24;   // encoded control word (model/src/ctrl.rs)
  localparam int unsigned OpW      = 64;   // a, b, c and d operands
  localparam int unsigned MulW     = 106;  // carry-save tree rows (53 x 53 product)
  localparam int unsigned AlignW   = 164;  // aligned-addend window
  localparam int unsigned MagW     = 165;  // sum magnitude / normalised significand window
  localparam int unsigned ExpW     = 14;   // two's complement exponents (eref, exp)
  localparam int unsigned LzaW     = 8;    // leading-zero anticipator count
  localparam int unsigned VmCextW  = 80;   // vmad extended addend
  localparam int unsigned VmTmpW   = 80;   // vmad intermediate sum
  localparam int unsigned VmResW   = 64;   // vmad result after scaling
  localparam int unsigned SpecW    = 64;   // special-case result

  ////////////////////
  // Control word   //
  ////////////////////

  // Datapath kind (ctrl bits 2:0). Codes 5..7 are reserved and read as KindF32.
  typedef enum logic [2:0] {
    KindF32   = 3'd0,
    KindF64   = 3'd1,
    KindF32x2 = 3'd2,
    KindSm1x  = 3'd3,
    KindVmad  = 3'd4
  } kind_e;

  // IEEE rounding direction (ctrl bits 4:3).
  typedef enum logic [1:0] {
    RndRn = 2'd0,
    RndRz = 2'd1,
    RndRm = 2'd2,
    RndRp = 2'd3
  } rnd_e;

  // Source format of a (and b unless b_one) (ctrl bits 8:7). Code 3 is reserved (Native).
  typedef enum logic [1:0] {
    AbFmtNative = 2'd0,
    AbFmtF16    = 2'd1,
    AbFmtBf16   = 2'd2
  } ab_fmt_e;

  // vmad operand selector (ctrl bits 17:15 for a, 20:18 for b). Code 7 is reserved (SelW).
  typedef enum logic [2:0] {
    SelB0 = 3'd0,
    SelB1 = 3'd1,
    SelB2 = 3'd2,
    SelB3 = 3'd3,
    SelH0 = 3'd4,
    SelH1 = 3'd5,
    SelW  = 3'd6
  } sel_e;

  // vmad scaling (ctrl bits 23:22). Code 3 is reserved (ScaleNone).
  typedef enum logic [1:0] {
    ScaleNone  = 2'd0,
    ScaleShr7  = 2'd1,
    ScaleShr15 = 2'd2
  } scale_e;

  // The control word, most significant field first (Ctrl::encode in model/src/ctrl.rs).
  typedef struct packed {
    scale_e  scale;     // 23:22
    logic    po;        // 21     vmad .po
    sel_e    bsel;      // 20:18
    sel_e    asel;      // 17:15
    logic    b_signed;  // 14
    logic    a_signed;  // 13
    logic    neg_ab;    // 12     vmad: product negated
    logic    neg_c;     // 11     sub; vmad -c
    logic    c_zero;    // 10     mul: c replaced by a signed zero
    logic    b_one;     // 9      add/sub: b replaced by +1.0
    ab_fmt_e ab_fmt;    // 8:7
    logic    sat;       // 6
    logic    ftz;       // 5
    rnd_e    rnd;       // 4:3
    kind_e   kind;      // 2:0
  } ctrl_t;

  /////////////////////////////
  // Pipeline register banks //
  /////////////////////////////

  // One float lane after stage 1 (unpack, special cases, exponent compare, alignment).
  typedef struct packed {
    logic                   sign_p;        // sign of the product a*b
    logic                   sign_c;        // sign of the addend after neg_c / c_zero
    logic                   prod_zero;     // a or b is zero (after flushing)
    logic                   c_zero;        // c is zero (after flushing)
    logic signed [ExpW-1:0] eref;          // window bit k weighs 2^(eref - 107 + k)
    logic [AlignW-1:0]      c_aligned;     // addend significand placed in the window
    logic                   align_sticky;  // OR of addend bits shifted out below bit 0
    logic                   spec_valid;    // the special-case unit decided the result
    logic [SpecW-1:0]       spec_res;      // that result in the kind's format
  } s1_lane_t;

  // vmad side path after stage 1.
  typedef struct packed {
    logic [VmCextW-1:0] vm_cext;  // c after the optional one's complement, extended
    logic               vm_inv;   // one's complement the product
    logic               vm_lsb;   // the +1 of .po or of a negation
  } s1_vmad_t;

  // Stage-1 register bank (s1_q).
  typedef struct packed {
    logic            valid;
    logic [TagW-1:0] tag;
    ctrl_t           ctrl;
    logic [MulW-1:0] mul_sum;    // carry-save tree output, sum row
    logic [MulW-1:0] mul_carry;  // carry-save tree output, carry row
    s1_vmad_t        vm;
    s1_lane_t        lane0;
    s1_lane_t        lane1;
  } s1_t;

  // One float lane after stage 2 (product CPA, sm_1x truncation, add, LZA).
  typedef struct packed {
    logic              sign;        // sign of the result
    logic              zero;        // the exact result is zero
    logic              flush_sign;  // sign a result flushed to zero takes
    logic [MagW-1:0]   mag;         // magnitude of the sum in the window
    logic              sticky;      // non-zero bits below window bit 0
    logic [LzaW-1:0]   lza_cnt;     // leading-zero prediction (may be off by one)
    logic signed [ExpW-1:0] eref;
    logic              spec_valid;
    logic [SpecW-1:0]  spec_res;
  } s2_lane_t;

  // Stage-2 register bank (s2_q).
  typedef struct packed {
    logic              valid;
    logic [TagW-1:0]   tag;
    ctrl_t             ctrl;
    logic [VmTmpW-1:0] vm_tmp;  // vmad: (~)product + cext + lsb, modulo 2^80
    s2_lane_t          lane0;
    s2_lane_t          lane1;
  } s2_t;

  // One float lane after stage 3 (normalisation).
  typedef struct packed {
    logic             sign;
    logic             zero;
    logic             flush_sign;
    logic [MagW-1:0]  norm;        // normalised significand, leading one at bit 164
    logic             sticky;
    logic signed [ExpW-1:0] exp;  // unbiased exponent of norm bit 164
    logic             spec_valid;
    logic [SpecW-1:0] spec_res;
  } s3_lane_t;

  // Stage-3 register bank (s3_q).
  typedef struct packed {
    logic              valid;
    logic [TagW-1:0]   tag;
    ctrl_t             ctrl;
    logic [VmResW-1:0] vm_res;  // vmad: the 64-bit result after scaling
    s3_lane_t          lane0;
    s3_lane_t          lane1;
  } s3_t;

  // Output register bank (out_q): what retires.
  typedef struct packed {
    logic            valid;
    logic [TagW-1:0] tag;
    logic [OpW-1:0]  d;
  } out_t;

  // Bank widths, quoted by docs/microarchitecture.md and checked by the co-simulator.
  localparam int unsigned S1LaneW = $bits(s1_lane_t);  // 248
  localparam int unsigned S1W     = $bits(s1_t);       // 831
  localparam int unsigned S2LaneW = $bits(s2_lane_t);  // 256
  localparam int unsigned S2W     = $bits(s2_t);       // 633
  localparam int unsigned S3LaneW = $bits(s3_lane_t);  // 248
  localparam int unsigned S3W     = $bits(s3_t);       // 601
  localparam int unsigned OutW    = $bits(out_t);      // 81

  /* verilator lint_on UNUSEDPARAM */

endpackage
