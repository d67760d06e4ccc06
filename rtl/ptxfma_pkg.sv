// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_pkg: every type shared by the FMA pipe's modules.
//
// The widths, the control word's types and the register types are generated from the model's
// declarations (`fma-model gen-rtl-pkg`, between the BEGIN/END GENERATED lines): the registers
// from `reg!` in `model/src/regs/banks.rs`, the control word from `CTRL_FIELDS` in
// `model/src/ctrl/mod.rs`, the widths from `model/src/geometry.rs` and the formats. A packed
// struct puts its first field at the most significant end, which is exactly the order
// `Reg::pack` writes, so a register's packed image is bit-identical to the model's. The logic
// (decoders, helper functions, the constants only the RTL uses) is written here by hand.

// The guard lets a file list name the package both first and again in a glob (`rtl/*.sv`),
// which Verilator would otherwise reject as a duplicate declaration.
`ifndef PTXFMA_PKG_SV
`define PTXFMA_PKG_SV

package ptxfma_pkg;

  ///////////////////
  // Widths        //
  ///////////////////

  // BEGIN GENERATED: widths (fma-model gen-rtl-pkg; edit the model, not this)
  // The formats' fields, as cvfpu's fp_encoding_t table (model/src/format.rs).
  localparam int unsigned F64ManBits = 52;
  localparam int unsigned F32ManBits = 23;
  localparam int unsigned F16ManBits = 10;
  localparam int unsigned BF16ManBits = 7;
  localparam int unsigned F64ExpBits = 11;
  localparam int unsigned F32ExpBits = 8;
  localparam int unsigned F16ExpBits = 5;
  localparam int unsigned BF16ExpBits = 8;

  // The datapath's widths and the adder window's geometry (model/src/geometry.rs, which draws the
  // window).
  // Operand and result words: a binary64, two binary32 or a vmad word in the low bits.
  localparam int unsigned DataW = 64;
  // The operation tag that rides along with each operation.
  localparam int unsigned TagW = 16;
  // The internal significand: binary64's, with the hidden one, MSB-aligned.
  localparam int unsigned SigW = 53;
  // The multiplier's product and carry-save rows: a full binary64 significand product.
  localparam int unsigned MulW = 106;
  // Guard bits below the product in the adder window.
  localparam int unsigned ProdLsb = 3;
  // The window bit of the product's bit 104 (twice binary64's fraction), which weighs 2^ep.
  localparam int unsigned RefBit = 107;
  // The aligned addend: the product's guard bits and rows, a two-bit gap, and the addend's
  // significand on top.
  localparam int unsigned AlignW = 164;
  // The sum's magnitude and the normalised significand: the aligned addend plus a carry.
  localparam int unsigned MagW = 165;
  // The signed adder: the magnitude plus a sign.
  localparam int unsigned AddW = 166;
  // Shift counts over the adder window, 0 up to its width: the LZA's count and the normaliser's.
  localparam int unsigned ShiftCntW = 8;
  // vmad's intermediate: a 66-bit product and a sign-extended c, with room to spare.
  localparam int unsigned VmTmpW = 80;
  // Internal exponent arithmetic (holds every exponent the datapath forms).
  localparam int unsigned ExpW = 16;
  // Exponents as the registers keep them: the low bits, two's complement.
  localparam int unsigned ExpRegW = 14;
  // The control word (Ctrl::encode).
  localparam int unsigned CtrlW = 27;

  // Exponents: ExpW bits signed inside a stage, the low ExpRegW bits in the registers.
  typedef logic signed [ExpW-1:0]    exp_t;
  typedef logic signed [ExpRegW-1:0] exp14_t;
  // END GENERATED: widths

  ///////////////////
  // Control word  //
  ///////////////////

  // BEGIN GENERATED: control word (fma-model gen-rtl-pkg; edit the model, not this)
  // Datapath kind. Code 7 is reserved and reads as KIND_F32 (Ctrl::decode).
  typedef enum logic [2:0] {
    KIND_F32   = 3'd0,
    KIND_F64   = 3'd1,
    KIND_F32X2 = 3'd2,
    KIND_SM1X  = 3'd3,
    KIND_VMAD  = 3'd4,
    KIND_HALF  = 3'd5,
    KIND_HALF2 = 3'd6
  } kind_e;

  // IEEE rounding direction.
  typedef enum logic [1:0] {
    RND_RN = 2'd0,
    RND_RZ = 2'd1,
    RND_RM = 2'd2,
    RND_RP = 2'd3
  } rnd_e;

  // Source format of a (and b unless b_one). Code 3 is reserved and reads as AB_NATIVE
  // (Ctrl::decode).
  typedef enum logic [1:0] {
    AB_NATIVE = 2'd0,
    AB_F16    = 2'd1,
    AB_BF16   = 2'd2
  } ab_fmt_e;

  // vmad operand selector. Code 7 is reserved and reads as SEL_W (Ctrl::decode).
  typedef enum logic [2:0] {
    SEL_B0 = 3'd0,
    SEL_B1 = 3'd1,
    SEL_B2 = 3'd2,
    SEL_B3 = 3'd3,
    SEL_H0 = 3'd4,
    SEL_H1 = 3'd5,
    SEL_W  = 3'd6
  } sel_e;

  // vmad result scaling. Code 3 is reserved and reads as SCALE_NONE (Ctrl::decode).
  typedef enum logic [1:0] {
    SCALE_NONE  = 2'd0,
    SCALE_SHR7  = 2'd1,
    SCALE_SHR15 = 2'd2
  } scale_e;

  // The 27-bit control word, MSB first; bit positions equal Ctrl::encode's.
  typedef struct packed {
    logic    via_f32;   // 26
    logic    oob;       // 25
    logic    relu;      // 24
    scale_e  scale;     // 23:22
    logic    po;        // 21
    sel_e    bsel;      // 20:18
    sel_e    asel;      // 17:15
    logic    b_signed;  // 14
    logic    a_signed;  // 13
    logic    neg_ab;    // 12
    logic    neg_c;     // 11
    logic    c_zero;    // 10
    logic    b_one;     // 9
    ab_fmt_e ab_fmt;    // 8:7
    logic    sat;       // 6
    logic    ftz;       // 5
    rnd_e    rnd;       // 4:3
    kind_e   kind;      // 2:0
  } ctrl_t;

  // Which banks carry live data for a kind (the model's `pipeline::lanes`): the others load zero,
  // as clock-gated flops would.
  typedef struct packed {
    logic lane0;
    logic lane1;
    logic vm;
  } lane_en_t;
  // END GENERATED: control word

  // Reserved codes fall back to the documented defaults, exactly as Ctrl::decode does, so every
  // word has one meaning on both sides.
  function automatic kind_e kind_decode(kind_e k);
    unique case (k)
      KIND_F64:   return KIND_F64;
      KIND_F32X2: return KIND_F32X2;
      KIND_SM1X:  return KIND_SM1X;
      KIND_VMAD:  return KIND_VMAD;
      KIND_HALF:  return KIND_HALF;
      KIND_HALF2: return KIND_HALF2;
      default:    return KIND_F32;
    endcase
  endfunction

  function automatic ab_fmt_e ab_fmt_decode(ab_fmt_e f);
    unique case (f)
      AB_F16:  return AB_F16;
      AB_BF16: return AB_BF16;
      default: return AB_NATIVE;
    endcase
  endfunction

  function automatic sel_e sel_decode(sel_e s);
    unique case (s)
      SEL_B0:  return SEL_B0;
      SEL_B1:  return SEL_B1;
      SEL_B2:  return SEL_B2;
      SEL_B3:  return SEL_B3;
      SEL_H0:  return SEL_H0;
      SEL_H1:  return SEL_H1;
      default: return SEL_W;
    endcase
  endfunction

  function automatic scale_e scale_decode(scale_e s);
    unique case (s)
      SCALE_SHR7:  return SCALE_SHR7;
      SCALE_SHR15: return SCALE_SHR15;
      default:     return SCALE_NONE;
    endcase
  endfunction

  // The whole word canonicalised (Ctrl::decode followed by Ctrl::encode).
  function automatic ctrl_t ctrl_decode(ctrl_t w);
    ctrl_t c;
    c        = w;
    c.kind   = kind_decode(w.kind);
    c.ab_fmt = ab_fmt_decode(w.ab_fmt);
    c.asel   = sel_decode(w.asel);
    c.bsel   = sel_decode(w.bsel);
    c.scale  = scale_decode(w.scale);
    // The half kinds' own fields read as 0 elsewhere.
    c.relu    = w.relu && kind_is_half(c.kind);
    c.oob     = w.oob && kind_is_half(c.kind);
    c.via_f32 = w.via_f32 && kind_is_half(c.kind);
    return c;
  endfunction

  // Binary32-result kinds (f32, f32x2, sm_1x); kind must be decoded.
  function automatic logic kind_is_f32(kind_e k);
    return (k == KIND_F32) || (k == KIND_F32X2) || (k == KIND_SM1X);
  endfunction

  // The half-precision kinds (Ctrl::is_half); kind must be decoded.
  function automatic logic kind_is_half(kind_e k);
    return (k == KIND_HALF) || (k == KIND_HALF2);
  endfunction

  // Ctrl::flush: subnormals flush to zero under .ftz on binary32 and half kinds, and always on
  // sm_1x.
  function automatic logic ctrl_flush(kind_e k, logic ftz);
    return (ftz && (kind_is_f32(k) || kind_is_half(k))) || (k == KIND_SM1X);
  endfunction

  // The format a lane's result is rounded to (round::result_fmt); kind and ab_fmt decoded.
  typedef enum logic [1:0] {
    FMT_F32  = 2'd0,
    FMT_F64  = 2'd1,
    FMT_F16  = 2'd2,
    FMT_BF16 = 2'd3
  } res_fmt_e;

  function automatic res_fmt_e res_fmt(kind_e k, ab_fmt_e f);
    if (k == KIND_F64) begin
      return FMT_F64;
    end else if (kind_is_half(k)) begin
      return (f == AB_BF16) ? FMT_BF16 : FMT_F16;
    end
    return FMT_F32;
  endfunction

  // Ctrl::signed_final: the vmad result is signed.
  function automatic logic ctrl_signed_final(logic a_signed, logic b_signed, logic neg_ab,
                                             logic neg_c);
    return a_signed || b_signed || neg_ab || neg_c;
  endfunction

  // Float lanes: f32x2 and half2 use both, every other float kind lane 0.
  localparam int unsigned Lanes = 2;

  function automatic lane_en_t lane_enables(kind_e k);
    return '{lane0: k != KIND_VMAD,
             lane1: (k == KIND_F32X2) || (k == KIND_HALF2),
             vm:    k == KIND_VMAD};
  endfunction

  // S12: the "OOB NaN" .oob looks for in a and b, either sign (special::OOB_NAN).
  localparam logic [14:0] OobNaN = 15'h7FF7;

  // round::effective_rnd: sm_1x mad always rounds to nearest even; kind must be decoded.
  function automatic rnd_e effective_rnd(kind_e k, rnd_e r);
    return (k == KIND_SM1X) ? RND_RN : r;
  endfunction

  ////////////////////////
  // Formats            //
  ////////////////////////

  // Precision (significand bits with the hidden one), as cvfpu's PRECISION_BITS; any result
  // format's is man_bits(fmt) + 1 (below).
  localparam int unsigned F64Prec = F64ManBits + 1;
  localparam int unsigned F32Prec = F32ManBits + 1;
  localparam int unsigned F16Prec = F16ManBits + 1;

  // Whole encodings (sign, exponent, fraction), as cvfpu's fp_width: 64, 32, 16 and 16 bits.
  localparam int unsigned F64W  = 1 + F64ExpBits + F64ManBits;
  localparam int unsigned F32W  = 1 + F32ExpBits + F32ManBits;
  localparam int unsigned F16W  = 1 + F16ExpBits + F16ManBits;
  localparam int unsigned BF16W = 1 + BF16ExpBits + BF16ManBits;

  // Exponent biases, as cvfpu's bias(): the largest normal exponent (1023, 127); the smallest
  // is 1 - bias (-1022, -126).
  localparam int unsigned F64Bias  = 2 ** (F64ExpBits - 1) - 1;
  localparam int unsigned F32Bias  = 2 ** (F32ExpBits - 1) - 1;
  localparam int unsigned F16Bias  = 2 ** (F16ExpBits - 1) - 1;
  localparam int unsigned BF16Bias = 2 ** (BF16ExpBits - 1) - 1;

  // The internal significand (operand_t.sig) is binary64's (SigW bits), MSB-aligned: a
  // binary32 one is its top F32Prec bits, sig[SigW-1:F32SigLsb] (52:29).
  localparam int unsigned F32SigLsb = SigW - F32Prec;

  // The result formats' fields, indexed by res_fmt_e, as cvfpu's FP_ENCODINGS by fp_format_e.
  // Keyed by res_fmt_e's codes and built by fp_encoding(): Verilator 5.006 takes no enum key,
  // and an int field of a pattern as unsized.
  typedef struct packed {
    int unsigned exp_bits;
    int unsigned man_bits;
  } fp_encoding_t;

  function automatic fp_encoding_t fp_encoding(int unsigned exp_bits, int unsigned man_bits);
    fp_encoding_t e;
    e.exp_bits = exp_bits;
    e.man_bits = man_bits;
    return e;
  endfunction

  localparam int unsigned NumResFmts = 4;  // every code of res_fmt_e
  localparam fp_encoding_t [NumResFmts-1:0] ResFmtEncodings = '{
    0: fp_encoding(F32ExpBits, F32ManBits),    // FMT_F32
    1: fp_encoding(F64ExpBits, F64ManBits),    // FMT_F64
    2: fp_encoding(F16ExpBits, F16ManBits),    // FMT_F16
    3: fp_encoding(BF16ExpBits, BF16ManBits)   // FMT_BF16
  };

  function automatic int unsigned man_bits(res_fmt_e fmt);
    return ResFmtEncodings[fmt].man_bits;
  endfunction

  ////////////////////////
  // Datapath constants //
  ////////////////////////

  // The wide datapaths are written on WordW-bit slices, one machine word each in the Verilated
  // model (rtl/README.md, "Verilator speed"); a bit within a slice takes WordIdxW bits to name.
  localparam int unsigned WordW    = 64;
  localparam int unsigned WordIdxW = $clog2(WordW);

  // Booth array: MulW-bit rows, 27 radix-4 digits of a 54-bit multiplier, plus the negation
  // row.
  localparam int unsigned MplierW   = 54;
  localparam int unsigned BoothDigits = 27;
  localparam int unsigned BoothRows = BoothDigits + 1;
  // First Booth digit that multiplies f32x2 lane 1's multiplicand.
  localparam int unsigned BoothHiDigit = 14;
  // The array and the carry-save tree carry every 106-bit row as two slices, 63:0 and 105:64:
  // one machine word each in the Verilated model (a 106-bit value would be four 32-bit words).
  localparam int unsigned MulLoW    = WordW;
  localparam int unsigned MulHiW    = MulW - MulLoW;
  // The high slice travels in a whole word (MulHiWordW) whose bits MulHiW and up are left as
  // they fall: the array's sign extension, the tree's carries out. Nothing in the tree moves a
  // bit down, so they never reach bit MulHiW-1, and the tree's output keeps only MulHiW bits.
  localparam int unsigned MulHiWordW = WordW;

  // A binary32 product: F32ProdW bits, lane 0's at the bottom of the array's sum, f32x2 lane
  // 1's F32x2HiLsb up (its multiplicand and multiplier both enter 2 * BoothHiDigit bits up):
  // 47:0 and 103:56.
  localparam int unsigned F32ProdW   = 2 * F32Prec;
  localparam int unsigned F32x2Shift = 2 * BoothHiDigit;
  localparam int unsigned F32x2HiLsb = 2 * F32x2Shift;

  // The adder window (AlignW, MagW, AddW, ProdLsb, RefBit; drawn in model/src/geometry.rs):
  // the product sits ProdLsb guard bits up, at window bits 108:3; its bit 2 * F64ManBits (104),
  // which weighs 2^ep, is window bit RefBit (107), and window bit k weighs
  // 2^(eref - RefBit + k). Shift counts over it are ShiftCntW bits; their top
  // ShiftCntW - WordIdxW bits count whole WordW-bit slices.

  // The normalised significand (s3_lane_t.norm) leads at MagW-1: a result keeps
  // norm[MagW-1:round_bit(fmt)+1], its round bit at round_bit(fmt) = MagW-1-Prec and everything
  // below is sticky (binary64: 164:112, 111; binary32: 164:141, 140; binary16: 153; bfloat16:
  // 156). F32RoundBit is binary32's, the first rounding of S13.
  function automatic int unsigned round_bit(res_fmt_e fmt);
    return MagW - 1 - (man_bits(fmt) + 1);
  endfunction

  localparam int unsigned F32RoundBit = round_bit(FMT_F32);

  // What a rounding at a format's precision reads from a normalised significand
  // (ptxfma_round_window): the kept bits (at most binary64's 53), the lead, whether the kept
  // bits below the lead are all ones (an increment then reaches the lead, or carries out past
  // it), the round bit and the sticky below it; and for S4's tininess test the same one place
  // lower (round.rs: Decisions::tininess).
  typedef struct packed {
    logic [F64Prec-1:0] kept;
    logic               lead;
    logic               rest_ones;
    logic               rb;
    logic               st;
    logic               ones_u;
    logic               lsb_u;
    logic               rb_u;
    logic               st_u;
  } window_t;

  // vmad operands: a 32-bit word, or one of its bytes or half-words (the selectors' parts),
  // read as a VmOpW-bit two's complement value (the word and a sign). .shr7 and .shr15 shift
  // the intermediate right by a byte or a half-word less one; the result is its low DataW bits.
  localparam int unsigned VmWordW    = 32;
  localparam int unsigned VmHalfW    = VmWordW / 2;
  localparam int unsigned VmByteW    = VmWordW / 4;
  localparam int unsigned VmOpW      = VmWordW + 1;
  localparam int unsigned ScaleShr7  = VmByteW - 1;
  localparam int unsigned ScaleShr15 = VmHalfW - 1;

  // Internal exponent arithmetic: the model's i32, here exp_t (ExpW bits signed), which holds
  // every value the datapath can form (|x| < 2^14); registers keep the low ExpRegW bits
  // (exp14_t) like `as i16` packed.
  function automatic exp_t exp_widen(exp14_t e);
    return exp_t'({{(ExpW - ExpRegW){e[ExpRegW-1]}}, e});
  endfunction

  //////////////////////////
  // Unpacked operand     //
  //////////////////////////

  // unpack::Operand: 53-bit MSB-aligned significand (hidden bit at 52), exponent of bit 52.
  typedef struct packed {
    logic            sign;
    exp_t            exp;
    logic [SigW-1:0] sig;
    logic        zero;
    logic        inf;
    logic        nan;
  } operand_t;

  //////////////////////////
  // Pipeline registers   //
  //////////////////////////

  // BEGIN GENERATED: registers (fma-model gen-rtl-pkg; edit the model, not this)
  // S1Lane: One float lane after stage 1 (unpack, special cases, exponent compare, alignment).
  typedef struct packed {
    logic              sign_p;
    logic              sign_c;
    logic              prod_zero;
    logic              c_zero;
    exp14_t            eref;
    logic [AlignW-1:0] c_aligned;
    logic              align_sticky;
    logic              spec_valid;
    logic [DataW-1:0]  spec_res;
  } s1_lane_t;

  // S1Vmad: vmad side-path after stage 1.
  typedef struct packed {
    logic [VmTmpW-1:0] vm_cext;
    logic              vm_inv;
    logic              vm_lsb;
  } s1_vmad_t;

  // S1: Stage-1 register bank (`s1_q`): multiplier carry-save pair, vmad side path, two lanes.
  typedef struct packed {
    logic            valid;
    logic [TagW-1:0] tag;
    ctrl_t           ctrl;
    logic [MulW-1:0] mul_sum;
    logic [MulW-1:0] mul_carry;
    s1_vmad_t        vm;
    s1_lane_t        lane0;
    s1_lane_t        lane1;
  } s1_t;

  // S2Lane: One float lane after stage 2 (product CPA, sm_1x truncation, add, LZA).
  typedef struct packed {
    logic                 sign;
    logic                 zero;
    logic                 flush_sign;
    logic [MagW-1:0]      mag;
    logic                 sticky;
    logic [ShiftCntW-1:0] lza_cnt;
    exp14_t               eref;
    logic                 spec_valid;
    logic [DataW-1:0]     spec_res;
  } s2_lane_t;

  // S2: Stage-2 register bank (`s2_q`).
  typedef struct packed {
    logic              valid;
    logic [TagW-1:0]   tag;
    ctrl_t             ctrl;
    logic [VmTmpW-1:0] vm_tmp;
    s2_lane_t          lane0;
    s2_lane_t          lane1;
  } s2_t;

  // S3Lane: One float lane after stage 3 (normalisation).
  typedef struct packed {
    logic             sign;
    logic             zero;
    logic             flush_sign;
    logic [MagW-1:0]  norm;
    logic             sticky;
    exp14_t           exp;
    logic             spec_valid;
    logic [DataW-1:0] spec_res;
  } s3_lane_t;

  // S3: Stage-3 register bank (`s3_q`).
  typedef struct packed {
    logic             valid;
    logic [TagW-1:0]  tag;
    ctrl_t            ctrl;
    logic [DataW-1:0] vm_res;
    s3_lane_t         lane0;
    s3_lane_t         lane1;
  } s3_t;

  // Out: Output register bank (`out_q`): what retires.
  typedef struct packed {
    logic             valid;
    logic [TagW-1:0]  tag;
    logic [DataW-1:0] d;
  } out_t;
  // END GENERATED: registers

endpackage

`endif  // PTXFMA_PKG_SV
