// Copyright ptxfma contributors.
// SPDX-License-Identifier: Apache-2.0
//
// ptxfma_dpi_pkg: the ptxfma golden model for SystemVerilog testbenches, as DPI-C imports of
// the C ABI in ffi/include/ptxfma.h (libptxfma.so / libptxfma.a, crate ffi/). Only standard DPI
// types (int, int unsigned, longint unsigned, string, chandle), so the same file works
// unchanged on Verilator, VCS, Xcelium and Questa; dpi/README.md says how to link the library
// on each.
//
// Every function returns a status (PtxfmaStatusOk = 0; negative on error, with the reason from
// ptxfma_last_error()); outputs are left untouched on error. Calls never abort the simulator.

package ptxfma_dpi_pkg;

  // A library of names: a testbench uses some of them.
  /* verilator lint_off UNUSEDPARAM */

  // Statuses (enum PtxfmaStatus in ptxfma.h).
  localparam int PtxfmaStatusOk        = 0;
  localparam int PtxfmaStatusNoResult  = 1;   // eval_line: blank, comment or .target line
  localparam int PtxfmaStatusNull      = -1;
  localparam int PtxfmaStatusBadString = -2;
  localparam int PtxfmaStatusDecode    = -3;  // bad PTX spelling or eval line
  localparam int PtxfmaStatusBadTarget = -4;
  localparam int PtxfmaStatusBadCtrl   = -5;
  localparam int PtxfmaStatusBadHandle = -6;
  localparam int PtxfmaStatusBadArg    = -7;
  localparam int PtxfmaStatusPanic     = -8;

  // BEGIN GENERATED: constants (fma-model gen-rtl-pkg; edit the model, not this)
  // Cycles from an input to its result on the output ports, and the control word's width.
  localparam int unsigned PtxfmaLatency  = 4;
  localparam int unsigned PtxfmaCtrlBits = 27;

  // Register banks for the stage images (enum PtxfmaStage), in pipeline order.
  localparam int unsigned PtxfmaStageS1  = 0;
  localparam int unsigned PtxfmaStageS2  = 1;
  localparam int unsigned PtxfmaStageS3  = 2;
  localparam int unsigned PtxfmaStageOut = 3;
  // END GENERATED: constants

  /* verilator lint_on UNUSEDPARAM */

  // The reason for the last error on this thread, and the library version.
  import "DPI-C" function string ptxfma_last_error();
  import "DPI-C" function string ptxfma_version();

  // PTX spelling ("fma.rn.ftz.f32", "vmad.s32.u32.s32.sat.shr15 -a.h1, b.b0, c") for a target
  // ("sm_20", "sm_13", "sm_100"; "" is sm_100) to the control word of in_ctrl_i (PtxfmaCtrlBits bits).
  import "DPI-C" function int ptxfma_decode(input string spelling, input string target,
                                            output int unsigned ctrl);

  // One operation: control word and 64-bit operand words (as on the ports) to the result word.
  import "DPI-C" function int ptxfma_eval(input int unsigned ctrl, input longint unsigned a,
                                          input longint unsigned b, input longint unsigned c,
                                          output longint unsigned d);

  // One `fma-model eval` line, e.g. "fma.rn.f32 0x3f800000 0x40000000 0x3f800000".
  import "DPI-C" function int ptxfma_eval_line(input string line, input string target,
                                               output longint unsigned d);

  // A cycle-level pipeline instance to run in lockstep with an RTL: tick once per rising edge
  // with the input port values, then read the output ports and the register images.
  import "DPI-C" function chandle ptxfma_pipe_new();
  import "DPI-C" function int ptxfma_pipe_free(input chandle h);
  import "DPI-C" function int ptxfma_pipe_reset(input chandle h);
  import "DPI-C" function int ptxfma_pipe_tick(input chandle h, input int unsigned valid,
                                               input int unsigned tag, input int unsigned ctrl,
                                               input longint unsigned a,
                                               input longint unsigned b,
                                               input longint unsigned c);
  import "DPI-C" function int ptxfma_pipe_out(input chandle h, output int unsigned valid,
                                              output int unsigned tag,
                                              output longint unsigned d);
  // Width in bits of a bank's packed image, and one 32-bit word of it (word 0 = bits 31:0).
  import "DPI-C" function int ptxfma_stage_width(input int unsigned stage,
                                                 output int unsigned bits);
  import "DPI-C" function int ptxfma_pipe_stage_word(input chandle h, input int unsigned stage,
                                                     input int unsigned index,
                                                     output int unsigned word);

endpackage
