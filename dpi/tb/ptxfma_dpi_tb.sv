// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_dpi_tb: self-checking testbench of ptxfma_top against the golden model through DPI-C
// (dpi/ptxfma_dpi_pkg.sv), with no co-simulator in between: what a user's own testbench does.
//
// - Control words come from the DPI decoder, from PTX spellings of every family (f32, f64,
//   f32x2, mixed f16/bf16, sm_1x mad, add/sub/mul, vmad with operand negations and selectors,
//   half precision .f16/.bf16 and their x2 with .ftz/.sat/.relu/.oob),
//   each for a target where it exists.
// - Random stimulus from $urandom, seeded by +seed=N (default 1): +count=N operations
//   (default 20000), about one cycle in eight a bubble, operands edge-biased per format.
// - The scoreboard (ptxfma_scoreboard) gets the model's result from ptxfma_eval at issue time
//   and the RTL's at retirement, matched by tag.
// - In lockstep, a ptxfma_pipe instance is ticked with the same ports every rising edge and its
//   output ports and register images are compared with the RTL's (s1_o..out_o), so a fault is
//   also named by the stage where it first shows.
// Prints "checked N results, M mismatches" and ends with $fatal on any error, so the
// simulator's exit status is non-zero.

module ptxfma_dpi_tb;
  import ptxfma_pkg::*;
  import ptxfma_dpi_pkg::*;
  import ptxfma_scoreboard_pkg::*;

  logic        clk = 1'b0;
  logic        rst_n;
  logic        in_valid;
  logic [15:0] in_tag;
  logic [PtxfmaCtrlBits-1:0] in_ctrl;
  logic [63:0] in_a, in_b, in_c;
  logic        out_valid;
  logic [15:0] out_tag;
  logic [63:0] out_d;
  s1_t         s1;
  s2_t         s2;
  s3_t         s3;
  out_t        out_bank;

  initial forever #5 clk = ~clk;

  ptxfma_top u_dut (
    .clk_i      (clk),
    .rst_ni     (rst_n),
    .in_valid_i (in_valid),
    .in_tag_i   (in_tag),
    .in_ctrl_i  (in_ctrl),
    .in_a_i     (in_a),
    .in_b_i     (in_b),
    .in_c_i     (in_c),
    .out_valid_o(out_valid),
    .out_tag_o  (out_tag),
    .out_d_o    (out_d),
    .s1_o       (s1),
    .s2_o       (s2),
    .s3_o       (s3),
    .out_o      (out_bank)
  );

  // The instruction table: spelling, target, family and control word.
  string       spell_q[$];
  string       target_q[$];
  string       family_q[$];
  int unsigned ctrl_q[$];

  ptxfma_scoreboard sb = new();
  chandle           pipe;
  int unsigned      n_cycles_compared = 0;
  int unsigned      n_reg_mismatches = 0;

  function automatic void add(string spelling, string target, string family);
    int unsigned ctrl;
    if (ptxfma_decode(spelling, target, ctrl) != PtxfmaStatusOk) begin
      $fatal(1, "decode `%s` on %s: %s", spelling, target, ptxfma_last_error());
    end
    spell_q.push_back(spelling);
    target_q.push_back(target);
    family_q.push_back(family);
    ctrl_q.push_back(ctrl);
  endfunction

  // `text` when `on`, else "" (a string-typed ternary: Verilator pads string literals in a
  // ternary to the same width, which would put NULs into the spelling).
  function automatic string opt(bit on, string text);
    if (on) return text;
    return "";
  endfunction

  // Every family, every rounding mode and modifier combination it has.
  function automatic void build_table();
    string rnds[4] = '{"rn", "rz", "rm", "rp"};
    string mixs[2] = '{"f16", "bf16"};
    string ops3[3] = '{"add", "sub", "mul"};
    string tys[2] = '{"u32", "s32"};
    string scales[3] = '{"", ".shr7", ".shr15"};
    string sels[7] = '{"", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
    foreach (rnds[r]) begin
      for (int m = 0; m < 4; m++) begin
        add($sformatf("fma.%s%s%s.f32", rnds[r], opt(m[0], ".ftz"), opt(m[1], ".sat")),
            "sm_20", "f32");
        add($sformatf("mad.%s%s%s.f32", rnds[r], opt(m[0], ".ftz"), opt(m[1], ".sat")),
            "sm_20", "f32");
        foreach (ops3[o]) begin
          add($sformatf("%s.%s%s%s.f32", ops3[o], rnds[r], opt(m[0], ".ftz"),
                        opt(m[1], ".sat")), "sm_20", "addsubmul");
        end
      end
      add($sformatf("fma.%s.f64", rnds[r]), "sm_13", "f64");
      add($sformatf("mad.%s.f64", rnds[r]), "sm_20", "f64");
      foreach (ops3[o]) add($sformatf("%s.%s.f64", ops3[o], rnds[r]), "sm_20", "addsubmul");
      add($sformatf("fma.%s.f32x2", rnds[r]), "sm_100", "f32x2");
      add($sformatf("fma.%s.ftz.f32x2", rnds[r]), "sm_100", "f32x2");
      foreach (mixs[x]) begin
        for (int s = 0; s < 2; s++) begin
          add($sformatf("add.%s%s.f32.%s", rnds[r], opt(s != 0, ".sat"), mixs[x]), "sm_100",
              "mixed");
          add($sformatf("sub.%s%s.f32.%s", rnds[r], opt(s != 0, ".sat"), mixs[x]), "sm_100",
              "mixed");
          add($sformatf("fma.%s%s.f32.%s", rnds[r], opt(s != 0, ".sat"), mixs[x]), "sm_100",
              "mixed");
        end
      end
    end
    for (int m = 0; m < 4; m++) begin
      add($sformatf("mad%s%s.f32", opt(m[0], ".ftz"), opt(m[1], ".sat")), "sm_13", "sm1x");
    end
    add("mad.f64", "sm_13", "f64");
    // Half precision: every modifier set ptxas accepts, one and two lanes (S10-S13).
    foreach (mixs[x]) begin : g_half_fmt
      string h2[2] = '{"", "x2"};
      foreach (h2[w]) begin : g_half_lanes
        string ty;
        string fam;
        ty  = {mixs[x], h2[w]};
        fam = (w == 0) ? "half" : "half2";
        add($sformatf("fma.rn.%s", ty), "sm_90", fam);
        add($sformatf("fma.rn.relu.%s", ty), "sm_90", fam);
        add($sformatf("fma.rn.oob.%s", ty), "sm_90", fam);
        add($sformatf("fma.rn.oob.relu.%s", ty), "sm_90", fam);
        foreach (ops3[o]) begin : g_half_op
          add($sformatf("%s.rn.%s", ops3[o], ty), "sm_90", fam);
        end
        if (x == 0) begin : g_f16
          for (int m = 0; m < 4; m++) begin : g_f16_mods
            add($sformatf("fma.rn%s%s.%s", opt(m[0], ".ftz"), opt(m[1], ".sat"), ty), "sm_90",
                fam);
            foreach (ops3[o]) begin : g_f16_op
              add($sformatf("%s%s%s.%s", ops3[o], opt(m[0], ".ftz"), opt(m[1], ".sat"), ty),
                  "sm_90", fam);
            end
          end
          add($sformatf("fma.rn.ftz.relu.%s", ty), "sm_90", fam);
          add($sformatf("fma.rn.sat.oob.%s", ty), "sm_90", fam);
        end else begin : g_bf16
          for (int r = 1; r < 4; r++) begin : g_bf16_rnd
            add($sformatf("fma.%s.oob.%s", rnds[r], ty), "sm_90", fam);
          end
        end
      end
    end
    // vmad: types, .po/.sat/scale, and the operand decorations PTX writes on a, b, c.
    foreach (tys[ta]) begin
      foreach (tys[tb]) begin
        for (int neg = 0; neg < 4; neg++) begin  // none, -a, -b, -c
          for (int po = 0; po < 2; po++) begin
            if (po != 0 && neg != 0) continue;  // .po allows no negation
            for (int sat = 0; sat < 2; sat++) begin
              foreach (scales[sc]) begin
                string dt = (ta == 1 || tb == 1 || neg != 0) ? "s32" : "u32";
                add($sformatf("vmad.%s.%s.%s%s%s%s %sa%s, %sb%s, %sc", dt, tys[ta], tys[tb],
                              opt(po != 0, ".po"), opt(sat != 0, ".sat"), scales[sc],
                              opt(neg == 1, "-"), sels[(neg * 3 + sat + sc) % 7],
                              opt(neg == 2, "-"), sels[(neg + po * 2 + sc * 3 + ta) % 7],
                              opt(neg == 3, "-")), "sm_20", "vmad");
              end
            end
          end
        end
      end
    end
  endfunction

  function automatic logic [31:0] rand32();
    return 32'($urandom());
  endfunction

  // An edge-biased 32-bit float: special values, boundaries and random patterns.
  function automatic logic [31:0] f32_operand();
    logic [31:0] specials[12] = '{32'h0000_0000, 32'h8000_0000, 32'h7f80_0000, 32'hff80_0000,
                                  32'h7fc0_0000, 32'h0000_0001, 32'h007f_ffff, 32'h3f80_0000,
                                  32'hbf80_0000, 32'h7f7f_ffff, 32'h0080_0000, 32'h3f7f_ffff};
    logic [31:0] r = rand32();
    case ($urandom_range(7))
      0: return specials[$urandom_range(11)];
      // Near 1.0, so that products and addends cancel and round at every position.
      1, 2: return {r[31], 8'($urandom_range(118, 135)), r[22:0]};
      default: return r;
    endcase
  endfunction

  function automatic logic [63:0] f64_operand();
    logic [63:0] specials[10] = '{64'h0, 64'h8000_0000_0000_0000, 64'h7ff0_0000_0000_0000,
                                  64'hfff0_0000_0000_0000, 64'h7ff8_0000_0000_0000, 64'h1,
                                  64'h000f_ffff_ffff_ffff, 64'h3ff0_0000_0000_0000,
                                  64'h7fef_ffff_ffff_ffff, 64'h0010_0000_0000_0000};
    logic [63:0] r = {rand32(), rand32()};
    case ($urandom_range(7))
      0: return specials[$urandom_range(9)];
      1, 2: return {r[63], 11'($urandom_range(1000, 1047)), r[51:0]};
      default: return r;
    endcase
  endfunction

  function automatic logic [15:0] f16_operand();
    logic [15:0] specials[10] = '{16'h0000, 16'h8000, 16'h7c00, 16'hfc00, 16'h7e00, 16'h0001,
                                  16'h3c00, 16'h7bff, 16'h7ff7, 16'h3f80};
    if ($urandom_range(3) == 0) return specials[$urandom_range(9)];
    return 16'($urandom());
  endfunction

  // Operands for a control word, by its kind (bits 2:0) and a/b format (bits 8:7), as laid out
  // in docs/microarchitecture.md.
  function automatic void operands(logic [2:0] kind, logic [1:0] ab_fmt, output logic [63:0] a,
                                   output logic [63:0] b, output logic [63:0] c);
    case (kind)
      3'd1: begin
        a = f64_operand();
        b = f64_operand();
        c = f64_operand();
      end
      3'd2: begin
        a = {f32_operand(), f32_operand()};
        b = {f32_operand(), f32_operand()};
        c = {f32_operand(), f32_operand()};
      end
      3'd4: begin
        a = {32'h0, rand32()};
        b = {32'h0, rand32()};
        c = {32'h0, rand32()};
      end
      3'd5: begin  // one half-precision lane
        a = {48'h0, f16_operand()};
        b = {48'h0, f16_operand()};
        c = {48'h0, f16_operand()};
      end
      3'd6: begin  // two half-precision lanes
        a = {32'h0, f16_operand(), f16_operand()};
        b = {32'h0, f16_operand(), f16_operand()};
        c = {32'h0, f16_operand(), f16_operand()};
      end
      default: begin
        a = {32'h0, f32_operand()};
        b = {32'h0, f32_operand()};
        c = {32'h0, f32_operand()};
        if (ab_fmt != 2'd0) begin
          a = {48'h0, f16_operand()};
          b = {48'h0, f16_operand()};
        end
      end
    endcase
  endfunction

  // The model's pipe after the same rising edge as the RTL: ports and every register bank.
  function automatic void compare_lockstep();
    int unsigned v, t, w;
    longint unsigned d;
    int unsigned bits;
    logic [1023:0] rtl_img [4];
    string names[4] = '{"s1_q", "s2_q", "s3_q", "out_q"};
    rtl_img[0] = 1024'(s1);
    rtl_img[1] = 1024'(s2);
    rtl_img[2] = 1024'(s3);
    rtl_img[3] = 1024'(out_bank);
    void'(ptxfma_pipe_out(pipe, v, t, d));
    n_cycles_compared++;
    if (v[0] != out_valid || (out_valid && (16'(t) != out_tag || d != out_d))) begin
      n_reg_mismatches++;
      if (n_reg_mismatches <= 5) begin
        $display({"LOCKSTEP output ports differ at %0t: RTL %0d/0x%04x/0x%016x, ",
                  "model %0d/0x%04x/0x%016x"}, $time, out_valid, out_tag, out_d, v, t, d);
      end
    end
    for (int unsigned s = 0; s < 4; s++) begin
      void'(ptxfma_stage_width(s, bits));
      for (int unsigned i = 0; i < (bits + 31) / 32; i++) begin
        void'(ptxfma_pipe_stage_word(pipe, s, i, w));
        if (w != rtl_img[s][32 * i +: 32]) begin
          n_reg_mismatches++;
          if (n_reg_mismatches <= 5) begin
            $display("LOCKSTEP %s word %0d differs at %0t: RTL 0x%08x, model 0x%08x", names[s],
                     i, $time, rtl_img[s][32 * i +: 32], w);
          end
          break;
        end
      end
    end
  endfunction

  // The model's pipe sees the same ports at the same rising edge as the RTL, and is reset as
  // the RTL is (asynchronously, active low).
  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      if (ptxfma_pipe_reset(pipe) != PtxfmaStatusOk) begin
        $fatal(1, "ptxfma_pipe_reset: %s", ptxfma_last_error());
      end
    end else if (ptxfma_pipe_tick(pipe, 32'(in_valid), 32'(in_tag), 32'(in_ctrl), in_a, in_b,
                                  in_c) != PtxfmaStatusOk) begin
      $fatal(1, "ptxfma_pipe_tick: %s", ptxfma_last_error());
    end
  end

  initial begin
    int unsigned seed = 1;
    int unsigned count = 20000;
    int unsigned issued = 0;
    int unsigned per_family[string];
    int unsigned idle = 0;
    longint unsigned d;
    logic [63:0] a, b, c;
    int unsigned k;
    string fam;
    string families[$];
    bit seen[string];

    void'($value$plusargs("seed=%d", seed));
    void'($value$plusargs("count=%d", count));
    void'($urandom(seed));
    $display("ptxfma_dpi_tb: libptxfma %s, seed %0d, %0d operations", ptxfma_version(), seed,
             count);
    build_table();
    $display("ptxfma_dpi_tb: %0d spellings decoded through DPI-C", spell_q.size());
    foreach (family_q[i]) begin
      if (seen[family_q[i]] == 1'b0) families.push_back(family_q[i]);
      seen[family_q[i]] = 1'b1;
    end
    // The decoder refuses a bad spelling with a message, without stopping the simulation.
    if (ptxfma_decode("fma.rn.f32x2", "sm_20", k) != PtxfmaStatusDecode) begin
      $fatal(1, "fma.rn.f32x2 on sm_20 must be refused");
    end
    $display("ptxfma_dpi_tb: refused as expected: %s", ptxfma_last_error());
    // As ptxas: legacy mad.f64 is sm_1x only.
    if (ptxfma_decode("mad.f64", "sm_90", k) != PtxfmaStatusDecode) begin
      $fatal(1, "mad.f64 on sm_90 must be refused");
    end
    $display("ptxfma_dpi_tb: refused as expected: %s", ptxfma_last_error());
    if (ptxfma_eval_line("fma.rn.f32 0x3f800000 0x40000000 0x3f800000", "", d) != PtxfmaStatusOk
        || d != 64'h4040_0000) begin
      $fatal(1, "ptxfma_eval_line gave 0x%016x", d);
    end
    pipe = ptxfma_pipe_new();
    if (pipe == null) $fatal(1, "ptxfma_pipe_new: %s", ptxfma_last_error());

    rst_n    = 1'b0;
    in_valid = 1'b0;
    in_tag   = '0;
    in_ctrl  = '0;
    in_a     = '0;
    in_b     = '0;
    in_c     = '0;
    repeat (2) @(negedge clk);
    rst_n = 1'b1;

    while (issued < count || sb.in_flight() != 0) begin
      @(negedge clk);
      // Outputs of the last rising edge, stable now.
      if (out_valid) sb.write_actual(32'(out_tag), out_d);
      compare_lockstep();
      if (issued < count && $urandom_range(7) != 0) begin
        // A family uniformly, then one of its spellings, so that the large vmad table does
        // not crowd out the others.
        fam = families[$urandom_range(families.size() - 1)];
        do k = $urandom_range(spell_q.size() - 1); while (family_q[k] != fam);
        operands(ctrl_q[k][2:0], ctrl_q[k][8:7], a, b, c);
        if (ptxfma_eval(ctrl_q[k], a, b, c, d) != PtxfmaStatusOk) begin
          $fatal(1, "ptxfma_eval `%s`: %s", spell_q[k], ptxfma_last_error());
        end
        in_valid = 1'b1;
        in_tag   = 16'(issued);
        in_ctrl  = PtxfmaCtrlBits'(ctrl_q[k]);
        {in_a, in_b, in_c} = {a, b, c};
        sb.write_expected(32'(in_tag), d,
                          $sformatf("%s (%s) a=0x%016x b=0x%016x c=0x%016x", spell_q[k],
                                    target_q[k], a, b, c));
        per_family[family_q[k]]++;
        issued++;
        idle = 0;
      end else begin
        in_valid = 1'b0;
        idle++;
        if (idle > 2 * PtxfmaLatency && issued >= count) break;
      end
    end
    void'(ptxfma_pipe_free(pipe));
    foreach (per_family[f]) $display("  %-10s %0d issued", f, per_family[f]);
    $display("lockstep: %0d cycles compared, %0d register mismatches", n_cycles_compared,
             n_reg_mismatches);
    $display("checked %0d results, %0d mismatches", sb.n_checked, sb.n_mismatches);
    if (!sb.passed() || sb.n_checked != issued || n_reg_mismatches != 0) begin
      $fatal(1, {"FAILED: %0d issued, %0d checked, %0d mismatches, %0d scoreboard errors, ",
                 "%0d in flight, %0d register mismatches"},
             issued, sb.n_checked, sb.n_mismatches, sb.n_errors, sb.in_flight(),
             n_reg_mismatches);
    end
    $display("PASSED");
    $finish;
  end

endmodule
