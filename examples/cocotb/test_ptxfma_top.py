"""cocotb testbench of `ptxfma_top` with the `ptxfma` Python module as its scoreboard.

A seeded random mix over every family (control words from `ptxfma.decode` of PTX spellings)
is driven one operation per cycle with random bubbles; every retired result is matched to its
operation by tag and compared with `ptxfma.eval`. Knobs (environment): `PTXFMA_COUNT`
operations (default 3000), `PTXFMA_SEED` (default 1), `PTXFMA_FAMILY` (one family of the mix,
e.g. `f32`, to time it beside `fma-cosim run --filter f32`; default every family),
`PTXFMA_BEST_CASE=1` (cocotb's best case, for `make bench`: every operation and its expected
result drawn before the clock starts, with one `ptxfma.eval_array` call, and one operation
issued every cycle, so the loop only drives ports and compares results).
"""

import os
import random
import time

import numpy as np

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

import ptxfma

# (family as fma-cosim names it, target, spelling, operand widths a, b, c): every family, every
# rounding mode somewhere.
MIX = [
    ("f32", "sm_100", "fma.rn.f32", (32, 32, 32)),
    ("f32", "sm_100", "fma.rz.f32", (32, 32, 32)),
    ("f32", "sm_100", "fma.rz.ftz.sat.f32", (32, 32, 32)),
    ("f32", "sm_100", "fma.rm.ftz.f32", (32, 32, 32)),
    ("f32", "sm_100", "mad.rp.f32", (32, 32, 32)),
    ("f64", "sm_100", "fma.rn.f64", (64, 64, 64)),
    ("f64", "sm_100", "fma.rz.f64", (64, 64, 64)),
    ("f64", "sm_13", "mad.f64", (64, 64, 64)),
    ("f32x2", "sm_100", "fma.rn.f32x2", (64, 64, 64)),
    ("f32x2", "sm_100", "fma.rz.ftz.f32x2", (64, 64, 64)),
    ("mixed", "sm_100", "add.rn.f32.f16", (16, 0, 32)),
    ("mixed", "sm_100", "sub.rz.sat.f32.bf16", (16, 0, 32)),
    ("mixed", "sm_100", "fma.rp.f32.bf16", (16, 16, 32)),
    ("sm1x", "sm_13", "mad.f32", (32, 32, 32)),
    ("sm1x", "sm_13", "mad.ftz.sat.f32", (32, 32, 32)),
    ("addsubmul", "sm_100", "add.rz.f32", (32, 0, 32)),
    ("addsubmul", "sm_100", "sub.rm.ftz.f32", (32, 0, 32)),
    ("addsubmul", "sm_100", "mul.rn.f64", (64, 64, 0)),
    ("vmad", "sm_100", "vmad.u32.u32.u32", (32, 32, 32)),
    ("vmad", "sm_100", "vmad.s32.s32.s32.sat.shr15 -a.h1, b.b0, c", (32, 32, 32)),
    ("vmad", "sm_100", "vmad.s32.u32.s32.po.shr7 a.b2, b.h1, c", (32, 32, 32)),
]


def operand(rng, bits):
    """A random word of `bits` bits, often a zero, an extreme or a special exponent."""
    if bits == 0:
        return 0
    r = rng.random()
    if r < 0.1:
        return rng.choice([0, 1 << (bits - 1), (1 << bits) - 1, ((1 << bits) - 1) >> 1])
    return rng.getrandbits(bits)


@cocotb.test()
async def random_mix(dut):
    count = int(os.environ.get("PTXFMA_COUNT", "3000"))
    seed = int(os.environ.get("PTXFMA_SEED", "1"))
    rng = random.Random(seed)
    family = os.environ.get("PTXFMA_FAMILY", "")
    mix = [(ptxfma.decode(s, target=t), s, w) for f, t, s, w in MIX if family in ("", f)]
    assert mix, f"no spelling of family {family!r} in the mix"

    cocotb.start_soon(Clock(dut.clk_i, 10, "ns").start())
    dut.rst_ni.value = 0
    dut.in_valid_i.value = 0
    for port in (dut.in_tag_i, dut.in_ctrl_i, dut.in_a_i, dut.in_b_i, dut.in_c_i):
        port.value = 0
    for _ in range(3):
        await FallingEdge(dut.clk_i)
    dut.rst_ni.value = 1

    pending = {}  # tag -> (spelling, a, b, c, expected d)
    issued = checked = 0
    mismatches = []
    tag = 0
    best_case = os.environ.get("PTXFMA_BEST_CASE", "") == "1"
    if best_case:
        ops = []
        for _ in range(count):
            ctrl, spelling, widths = rng.choice(mix)
            ops.append((ctrl, spelling, *(operand(rng, w) for w in widths)))
        expected = ptxfma.eval_array(
            np.array([o[0] for o in ops], dtype=np.uint64),
            *(np.array([o[k] for o in ops], dtype=np.uint64) for k in (2, 3, 4)),
        ).tolist()
    t0 = time.perf_counter()
    # Inputs are driven and outputs sampled at the falling edge, half a cycle from either edge.
    while checked < count:
        await FallingEdge(dut.clk_i)
        if int(dut.out_valid_o.value):
            t = int(dut.out_tag_o.value)
            assert t in pending, f"result with tag {t:#06x} that no pending operation has"
            spelling, a, b, c, want = pending.pop(t)
            got = int(dut.out_d_o.value)
            checked += 1
            if got != want:
                mismatches.append((spelling, a, b, c, want, got))
                if len(mismatches) <= 10:
                    dut._log.error(
                        "MISMATCH %s a=%#x b=%#x c=%#x: expected %#x, RTL %#x",
                        spelling, a, b, c, want, got,
                    )
        if best_case and issued < count:
            ctrl, spelling, a, b, c = ops[issued]
            want = expected[issued]
        elif issued < count and rng.random() < 0.9:
            ctrl, spelling, widths = rng.choice(mix)
            a, b, c = (operand(rng, w) for w in widths)
            want = ptxfma.eval(ctrl, a, b, c)
        else:
            dut.in_valid_i.value = 0
            continue
        tag = (tag + 1) & 0xFFFF
        pending[tag] = (spelling, a, b, c, want)
        dut.in_valid_i.value = 1
        dut.in_tag_i.value = tag
        dut.in_ctrl_i.value = ctrl
        dut.in_a_i.value = a
        dut.in_b_i.value = b
        dut.in_c_i.value = c
        issued += 1
    secs = time.perf_counter() - t0
    dut._log.info(
        "checked %d results against ptxfma (seed %d): %d mismatches; %.0f operations/s",
        checked, seed, len(mismatches), checked / secs,
    )
    print(f"PTXFMA_COCOTB checked={checked} mismatches={len(mismatches)} ops_per_s={checked / secs:.0f}")
    assert not pending, f"{len(pending)} operations never retired"
    assert not mismatches, f"{len(mismatches)} of {checked} results differ from the model"
