/* ptxfma_smoke.c: the C ABI from C (and, compiled as C++, from C++) through include/ptxfma.h
 * alone, as a C testbench would use it. Run by `make dpi-test`; exits non-zero on a failure. */

#include <stdio.h>
#include <string.h>

#include "ptxfma.h"

static int failures = 0;

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "FAIL %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond,   \
              ptxfma_last_error());                                                     \
      failures++;                                                                       \
    }                                                                                   \
  } while (0)

int main(void) {
  uint32_t ctrl = 0;
  uint64_t d = 0;
  uint32_t valid = 0, tag = 0, bits = 0;
  PtxfmaPipe *pipe;
  int i;

  CHECK(ptxfma_decode("fma.rn.f32", "sm_20", &ctrl) == PTXFMA_STATUS_OK);
  CHECK(ptxfma_eval(ctrl, 0x3f800000u, 0x40000000u, 0x3f800000u, &d) == PTXFMA_STATUS_OK);
  CHECK(d == 0x40400000u);
  CHECK(ptxfma_eval_line("fma.rn.f32 0x3f800000 0x40000000 0x3f800000", NULL, &d) ==
        PTXFMA_STATUS_OK);
  CHECK(d == 0x40400000u);
  /* Errors are codes with a message, never a crash. */
  CHECK(ptxfma_decode("fma.rx.f32", "sm_20", &ctrl) == PTXFMA_STATUS_DECODE);
  CHECK(strstr(ptxfma_last_error(), "unknown modifier") != NULL);
  CHECK(ptxfma_decode(NULL, NULL, &ctrl) == PTXFMA_STATUS_NULL);
  CHECK(ptxfma_eval(1u << 24, 0, 0, 0, &d) == PTXFMA_STATUS_BAD_CTRL);
  CHECK(ptxfma_pipe_tick(NULL, 0, 0, 0, 0, 0, 0) == PTXFMA_STATUS_BAD_HANDLE);

  /* The pipeline: presented before edge 1, the result is on the output ports after edge
   * PTXFMA_LATENCY; a reset clears them. */
  pipe = ptxfma_pipe_new();
  CHECK(pipe != NULL);
  CHECK(ptxfma_decode("fma.rn.f32", "", &ctrl) == PTXFMA_STATUS_OK);
  CHECK(ptxfma_pipe_tick(pipe, 1, 7, ctrl, 0x3f800000u, 0x40000000u, 0x3f800000u) == 0);
  for (i = 1; i < (int)PTXFMA_LATENCY; i++) {
    CHECK(ptxfma_pipe_out(pipe, &valid, &tag, &d) == 0);
    CHECK(valid == 0);
    CHECK(ptxfma_pipe_tick(pipe, 0, 0, 0, 0, 0, 0) == 0);
  }
  CHECK(ptxfma_pipe_out(pipe, &valid, &tag, &d) == 0);
  CHECK(valid == 1 && tag == 7 && d == 0x40400000u);
  CHECK(ptxfma_pipe_reset(pipe) == 0);
  CHECK(ptxfma_pipe_out(pipe, &valid, &tag, &d) == 0);
  CHECK(valid == 0 && d == 0);
  CHECK(ptxfma_stage_width(PTXFMA_STAGE_S1, &bits) == 0 && bits > 0);
  CHECK(ptxfma_pipe_free(pipe) == 0);
  CHECK(ptxfma_pipe_free(pipe) == PTXFMA_STATUS_BAD_HANDLE);

  if (failures == 0) {
    printf("ptxfma_smoke: libptxfma %s from C: ok\n", ptxfma_version());
  }
  return failures != 0;
}
