"""cocotb testbench of `ptxfma_top` with the `ptxfma` Python module as its scoreboard.

A seeded random mix over every family (control words from `ptxfma.decode` of PTX spellings)
is driven one operation per cycle with random bubbles; every retired result is matched to its
operation by tag and compared with `ptxfma.eval`. Knobs (environment): `PTXFMA_COUNT`
operations (default 3000), `PTXFMA_SEED` (default 1), `PTXFMA_FAMILY` (one family of the mix,
e.g. `f32`, to time it beside `fma-cosim run --filter f32`; default every family),
`PTXFMA_BEST_CASE=1` (cocotb's best case, for `make bench`: every operation and its expected
result drawn before the clock starts, with one `ptxfma.eval_array` call, and one operation
issued every cycle, so the loop only drives ports and compares results),
`PTXFMA_BEST_CASE=held` (cocotb's most flattering case, for `make bench`: one form,
`fma.rn.f64`, its control word and valid written once and held, four writes a cycle (tag, a,
b, c), results precomputed as Python ints, the GPI clock (C++, `Clock(impl="gpi")`: what
cocotb 2.x picks by default when COCOTB_TRUST_INERTIAL_WRITES is set, as its makefiles set it
for Verilator; otherwise its default is a Python coroutine), one `await FallingEdge` a cycle;
PTXFMA_FAMILY is not read). The PTXFMA_COCOTB line names the clock's implementation.
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


def report(dut, checked, seed, mismatches, secs, clock):
    dut._log.info(
        "checked %d results against ptxfma (seed %d): %d mismatches; %.0f operations/s",
        checked, seed, len(mismatches), checked / secs,
    )
    print(
        f"PTXFMA_COCOTB checked={checked} mismatches={len(mismatches)} "
        f"ops_per_s={checked / secs:.0f} clock={clock}"
    )


def mismatch(dut, mismatches, spelling, a, b, c, want, got):
    mismatches.append((spelling, a, b, c, want, got))
    if len(mismatches) <= 10:
        dut._log.error(
            "MISMATCH %s a=%#x b=%#x c=%#x: expected %#x, RTL %#x", spelling, a, b, c, want, got
        )


async def held(dut, count, seed):
    """The most flattering case: one form, control word and valid held, results precomputed."""
    rng = random.Random(seed)
    spelling = "fma.rn.f64"
    ctrl = ptxfma.decode(spelling)
    ops = [tuple(operand(rng, 64) for _ in range(3)) for _ in range(count)]
    expected = ptxfma.eval_array(
        np.full(count, ctrl, dtype=np.uint64),
        *(np.array([o[k] for o in ops], dtype=np.uint64) for k in range(3)),
    ).tolist()
    clock = Clock(dut.clk_i, 10, unit="ns", impl="gpi")
    clock.start()
    clk, valid_i, tag_i, a_i, b_i, c_i = (
        dut.clk_i, dut.in_valid_i, dut.in_tag_i, dut.in_a_i, dut.in_b_i, dut.in_c_i)
    valid_o, tag_o, d_o = dut.out_valid_o, dut.out_tag_o, dut.out_d_o
    dut.rst_ni.value = 0
    valid_i.value = 0
    for port in (tag_i, dut.in_ctrl_i, a_i, b_i, c_i):
        port.value = 0
    for _ in range(3):
        await FallingEdge(clk)
    issued = checked = 0
    mismatches = []
    t0 = time.perf_counter()
    dut.rst_ni.value = 1
    dut.in_ctrl_i.value = ctrl
    valid_i.value = 1
    # Operation k carries tag k + 1 (16 bits); results retire in order. Inputs are driven and
    # outputs sampled at the falling edge, the first operation with the reset's release.
    while checked < count:
        if issued < count:
            a, b, c = ops[issued]
            issued += 1
            tag_i.value = issued & 0xFFFF
            a_i.value = a
            b_i.value = b
            c_i.value = c
        elif issued == count:
            valid_i.value = 0
            issued += 1
        await FallingEdge(clk)
        if int(valid_o.value):
            got = int(d_o.value)
            t = int(tag_o.value)
            want_tag = (checked + 1) & 0xFFFF
            assert t == want_tag, f"result with tag {t:#06x}, expected {want_tag:#06x}"
            if got != expected[checked]:
                mismatch(dut, mismatches, spelling, *ops[checked], expected[checked], got)
            checked += 1
    secs = time.perf_counter() - t0
    report(dut, checked, seed, mismatches, secs, clock.impl)
    assert not mismatches, f"{len(mismatches)} of {checked} results differ from the model"


@cocotb.test()
async def random_mix(dut):
    count = int(os.environ.get("PTXFMA_COUNT", "3000"))
    seed = int(os.environ.get("PTXFMA_SEED", "1"))
    if os.environ.get("PTXFMA_BEST_CASE", "") == "held":
        await held(dut, count, seed)
        return
    rng = random.Random(seed)
    family = os.environ.get("PTXFMA_FAMILY", "")
    mix = [(ptxfma.decode(s, target=t), s, w) for f, t, s, w in MIX if family in ("", f)]
    assert mix, f"no spelling of family {family!r} in the mix"

    clock = Clock(dut.clk_i, 10, "ns")
    cocotb.start_soon(clock.start())
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
                mismatch(dut, mismatches, spelling, a, b, c, want, got)
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
    report(dut, checked, seed, mismatches, secs, clock.impl)
    assert not pending, f"{len(pending)} operations never retired"
    assert not mismatches, f"{len(mismatches)} of {checked} results differ from the model"
