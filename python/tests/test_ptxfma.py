"""Tests of the `ptxfma` Python module against the model's own command line, `fma-model eval`.

`FMA_MODEL` names the `fma-model` binary (the Makefile's `py-test` builds it and sets it); the
comparison test fails, rather than skips, when it is missing.
"""

import os
import random
import subprocess

import numpy as np
import pytest

import ptxfma

# One entry per spelling: (family, target, mnemonic, operand widths in bits, in PTX order).
# add/sub take a, c; mul takes a, b; the rest a, b, c (see `fma-model eval --help`).
SPELLINGS = [
    ("f32", "sm_100", "fma.rn.f32", (32, 32, 32)),
    ("f32", "sm_100", "fma.rz.ftz.sat.f32", (32, 32, 32)),
    ("f32", "sm_20", "mad.rm.f32", (32, 32, 32)),
    ("f32", "sm_100", "fma.rp.ftz.f32", (32, 32, 32)),
    ("f64", "sm_100", "fma.rn.f64", (64, 64, 64)),
    ("f64", "sm_13", "mad.f64", (64, 64, 64)),
    ("f64", "sm_100", "mad.rp.f64", (64, 64, 64)),
    ("f32x2", "sm_100", "fma.rn.f32x2", (64, 64, 64)),
    ("f32x2", "sm_100", "fma.rz.ftz.f32x2", (64, 64, 64)),
    ("mixed", "sm_100", "add.rn.f32.f16", (16, 32)),
    ("mixed", "sm_100", "sub.rz.sat.f32.bf16", (16, 32)),
    ("mixed", "sm_100", "fma.rn.f32.f16", (16, 16, 32)),
    ("mixed", "sm_100", "fma.rm.sat.f32.bf16", (16, 16, 32)),
    ("sm1x", "sm_13", "mad.f32", (32, 32, 32)),
    ("sm1x", "sm_10", "mad.ftz.sat.f32", (32, 32, 32)),
    ("addsubmul", "sm_100", "add.rn.f32", (32, 32)),
    ("addsubmul", "sm_100", "sub.rz.ftz.sat.f32", (32, 32)),
    ("addsubmul", "sm_100", "mul.rm.f64", (64, 64)),
    ("addsubmul", "sm_100", "mul.rp.ftz.f32", (32, 32)),
    ("vmad", "sm_20", "vmad.u32.u32.u32", (32, 32, 32)),
    ("vmad", "sm_100", "vmad.s32.s32.s32.sat.shr15", (32, 32, 32)),
    ("vmad", "sm_100", "vmad.s32.u32.s32.po.shr7", (32, 32, 32)),
]

FAMILIES = sorted({f for f, *_ in SPELLINGS})


def special_heavy(rng, bits):
    """Operand words with many zeros, infinities, NaNs, subnormals and boundary values."""
    r = rng.random()
    top = (1 << bits) - 1
    if r < 0.15:
        return rng.choice([0, top, 1 << (bits - 1), top >> 1, 1, (top >> 1) ^ 1])
    if r < 0.3 and bits >= 16:
        exp_bits = {16: 5, 32: 8, 64: 11}[bits]
        exp = rng.choice([0, (1 << exp_bits) - 1, 1, (1 << exp_bits) - 2])
        man = rng.getrandbits(bits - 1 - exp_bits)
        return (rng.getrandbits(1) << (bits - 1)) | (exp << (bits - 1 - exp_bits)) | man
    return rng.getrandbits(bits)


def make_lines(rng, per_spelling):
    """(target, line, mnemonic, operands by name) for random vectors of every spelling."""
    out = []
    for fam, target, mnem, widths in SPELLINGS:
        for _ in range(per_spelling):
            vals = [special_heavy(rng, w) for w in widths]
            if fam == "vmad":
                # vmad operands may carry a negation and (a, b) a selector; .po allows no negation.
                po = ".po" in mnem
                sels = ["", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"]
                na, nb = (False, False) if po else (rng.random() < 0.3, rng.random() < 0.3)
                nc = False if (po or na != nb) else rng.random() < 0.3
                signed = mnem.split(".")[2:4] != ["u32", "u32"] or na or nb or nc
                if signed != (mnem.split(".")[1] == "s32"):
                    na = nb = nc = False
                toks = [
                    ("-" if na else "") + f"{vals[0]:#x}" + rng.choice(sels),
                    ("-" if nb else "") + f"{vals[1]:#x}" + rng.choice(sels),
                    ("-" if nc else "") + f"{vals[2]:#x}",
                ]
            else:
                toks = [f"{v:#x}" for v in vals]
            out.append((target, f"{mnem} {', '.join(toks)}", mnem, vals))
    return out


def fma_model_eval(lines):
    """Runs `fma-model eval` over `(target, line)` pairs and returns its output lines."""
    exe = os.environ.get("FMA_MODEL")
    if not exe or not os.access(exe, os.X_OK):
        pytest.fail("FMA_MODEL must name the fma-model binary (make py-test sets it)")
    text = "".join(f".target {t}\n{line}\n" for t, line in lines)
    res = subprocess.run([exe, "eval"], input=text, capture_output=True, text=True)
    outs = res.stdout.splitlines()
    assert len(outs) == len(lines), res.stderr
    return outs


def test_every_family_against_fma_model_eval():
    rng = random.Random(1)
    vectors = make_lines(rng, 60)
    expected = fma_model_eval([(t, line) for t, line, *_ in vectors])
    checked = {f: 0 for f in FAMILIES}
    for (target, line, mnem, vals), want in zip(vectors, expected):
        assert not want.startswith("error"), (line, want)
        got = ptxfma.eval_line(line, target=target)
        assert got == int(want, 16), (target, line, want, hex(got))
        fam = next(f for f, _, m, _ in SPELLINGS if m == mnem)
        checked[fam] += 1
        if fam != "vmad":
            # The same operation by spelling, by control word, and as an array of one.
            ops = dict(zip(("a", "c") if mnem.split(".")[0] in ("add", "sub") else ("a", "b", "c"), vals))
            a, b, c = ops.get("a", 0), ops.get("b", 0), ops.get("c", 0)
            ctrl = ptxfma.decode(mnem, target=target)
            assert ptxfma.eval(mnem, a, b, c, target=target) == got
            assert ptxfma.eval(ctrl, a, b, c) == got
    assert all(n > 0 for n in checked.values()), checked
    print(f"checked {sum(checked.values())} lines against fma-model eval: {checked}")


def test_arrays_match_single_evaluations_for_0_1_and_many():
    rng = np.random.default_rng(5)
    f32 = ptxfma.decode("fma.rn.f32")
    for n in (0, 1, 2, 3, 4, 5, 17, 4096 + 7, 20000):
        a, b, c = (rng.integers(0, 1 << 32, n, dtype=np.uint64) for _ in range(3))
        d = ptxfma.eval_array("fma.rn.f32", a, b, c)
        assert d.dtype == np.uint64 and d.shape == (n,)
        for i in range(0, n, max(1, n // 50)):
            assert d[i] == ptxfma.eval(f32, int(a[i]), int(b[i]), int(c[i]))
        assert np.array_equal(ptxfma.eval_array(f32, a, b, c), d)


def test_arrays_with_mixed_control_words():
    rng = random.Random(9)
    vectors = [v for v in make_lines(rng, 40) if not v[2].startswith("vmad")]
    rng.shuffle(vectors)
    ctrls, ops = [], []
    for target, _line, mnem, vals in vectors:
        names = ("a", "c") if mnem.split(".")[0] in ("add", "sub") else ("a", "b", "c")
        o = dict(zip(names, vals))
        ctrls.append(ptxfma.decode(mnem, target=target))
        ops.append((o.get("a", 0), o.get("b", 0), o.get("c", 0)))
    a, b, c = (np.array([o[k] for o in ops], dtype=np.uint64) for k in range(3))
    want = [ptxfma.eval(w, *o) for w, o in zip(ctrls, ops)]
    for dtype in (np.uint32, np.uint64):
        d = ptxfma.eval_array(np.array(ctrls, dtype=dtype), a, b, c)
        assert d.tolist() == want
    # Non-contiguous operands are read correctly.
    a2, b2, c2 = (np.repeat(x, 2)[::2] for x in (a, b, c))
    assert ptxfma.eval_array(np.array(ctrls, dtype=np.uint64), a2, b2, c2).tolist() == want


def test_array_errors():
    z = np.zeros(3, dtype=np.uint64)
    with pytest.raises(ValueError, match="same length"):
        ptxfma.eval_array("fma.rn.f32", z, z, np.zeros(2, dtype=np.uint64))
    bad = np.array([ptxfma.decode("fma.rn.f32"), 0x7, 0], dtype=np.uint64)
    with pytest.raises(ValueError, match="element 1"):
        ptxfma.eval_array(bad, z, z, z)
    with pytest.raises(ValueError, match="elements"):
        ptxfma.eval_array(bad[:2], z, z, z)
    with pytest.raises(TypeError):
        ptxfma.eval_array("fma.rn.f32", z.astype(np.float64), z, z)


@pytest.mark.parametrize(
    "ptx, target, reason",
    [
        ("fma.f32", "sm_100", "rounding"),
        ("fma.rn.f33", "sm_100", "f33"),
        ("fma.rn..f32", "sm_100", "stray"),
        ("fmaa.rn.f32", "sm_100", "fmaa"),
        ("mad.f32", "sm_100", "requires a rounding modifier"),
        ("fma.rn.f32x2", "sm_90", "sm_100"),
        ("fma.rn.f32", "sm_99", "not a PTX target"),
        ("fma.rn.f32", "SM_100", "unknown target"),
        ("vmad.s32.u32.u32.po -a, b, c", "sm_100", "does not allow a negated product"),
        ("mad.f64", "sm_90", "legacy mad.f64 is sm_1x only"),
        ("add.rn.f32x2", "sm_90", "sm_100"),
        ("mul.rn.sat.f32x2", "sm_100", "sat"),
        ("vmad.u32.u32.u32 a.h2, b, c", "sm_100", "selector"),
        ("fma.rn.f32 a, b, c", "sm_100", "only read for vmad"),
        ("", "sm_100", "empty"),
    ],
)
def test_bad_spellings_raise_value_error_with_the_reason(ptx, target, reason):
    with pytest.raises(ValueError, match=reason) as e:
        ptxfma.decode(ptx, target=target)
    assert str(e.value)
    with pytest.raises(ValueError):
        ptxfma.eval(ptx, 0, 0, 0, target=target)


def test_spellings_ptxas_takes_decode_to_the_word_they_compute():
    # Either vmad dtype, and .po with -a, -b, compute what the canonical spelling does (S8).
    assert ptxfma.decode("vmad.u32.s32.u32.sat") == ptxfma.decode("vmad.s32.s32.u32.sat")
    assert ptxfma.decode("vmad.u32.u32.u32.po -a, -b, c") == ptxfma.decode(
        "vmad.u32.u32.u32.po"
    )
    assert ptxfma.eval("vmad.u32.s32.u32.sat", 0x80000000, 2, 0) == 0x80000000
    # add.f32x2 is the f32x2 fma with b = 1.0 in each lane: lane 1 1.5 + 1.0, lane 0 2.0 + 0.5.
    a = (0x3FC00000 << 32) | 0x40000000
    c = (0x3F800000 << 32) | 0x3F000000
    assert ptxfma.eval("add.rn.f32x2", a, 0, c) == (0x40200000 << 32) | 0x40200000
    assert ptxfma.decode("mad.f64", target="sm_13") == ptxfma.decode("fma.rn.f64")


def test_decode_matches_eval_line_decorations():
    # A vmad written with operand names decodes like the eval line with the same decorations.
    w = ptxfma.decode("vmad.s32.s32.s32.shr7 -a.h1, b.b0, c")
    assert w != ptxfma.decode("vmad.s32.s32.s32.shr7")
    assert ptxfma.eval(w, 0x50000, 0x7, 0x3) == ptxfma.eval_line(
        "vmad.s32.s32.s32.shr7 -0x50000.h1, 0x7.b0, 0x3"
    )


def test_bad_lines_and_control_words():
    for line, reason in [
        ("fma.rn.f32 0x1 0x2", "expected 3 operands"),
        ("fma.rn.f32 0x1 0x2 0x123456789", "32"),
        ("// a comment", "evaluates nothing"),
        ("", "evaluates nothing"),
        (".target sm_13", "evaluates nothing"),
    ]:
        with pytest.raises(ValueError, match=reason):
            ptxfma.eval_line(line)
    for word in (1 << 27, 1 << 24, 0x7, 0x3 | (1 << 9)):
        with pytest.raises(ValueError, match="control word"):
            ptxfma.eval(word, 0, 0, 0)
    with pytest.raises((OverflowError, ValueError)):
        ptxfma.eval("fma.rn.f32", -1, 0, 0)
    with pytest.raises(TypeError):
        ptxfma.eval(1.5, 0, 0, 0)
    # A trailing comment and semicolon are read as the command reads them.
    assert ptxfma.eval_line("fma.rn.f32 0x3f800000 0x40000000 0x3f800000; // 1*2+1") == 0x40400000
    # sm_1x mad.f32 only for sm_1x targets.
    assert ptxfma.eval_line("mad.f32 0x3f800000 0x40000000 0x3f800000", target="sm_13") == 0x40400000


def test_pipeline_latency_tags_and_registers():
    p = ptxfma.Pipeline()
    assert ptxfma.LATENCY == 4
    f32 = ptxfma.decode("fma.rn.f32")
    ops = [(0x3F800000 + i, 0x40000000, 0x3F800000 + 3 * i) for i in range(20)]
    retired = []
    for cycle in range(len(ops) + ptxfma.LATENCY):
        if cycle < len(ops):
            valid, tag, op = True, 0x100 + cycle, ops[cycle]
        else:
            valid, tag, op = False, 0, (0, 0, 0)
        v, t, d = p.tick(valid, tag, f32, *op)
        if v:
            retired.append((cycle, t, d))
        if cycle == 0:
            s1 = p.s1
            assert s1["valid"] is True and s1["tag"] == 0x100 and s1["ctrl"] == f32
            assert set(s1["lane0"]) >= {"sign_p", "eref", "c_aligned", "align_sticky"}
            assert isinstance(s1["lane0"]["c_aligned"], int)
            assert p.s2["valid"] is False and p.out["valid"] is False
    # Operation k retires LATENCY - 1 ticks after the tick that presented it, with its tag.
    assert [t for _, t, _ in retired] == [0x100 + k for k in range(len(ops))]
    assert [c for c, _, _ in retired] == [k + ptxfma.LATENCY - 1 for k in range(len(ops))]
    assert [d for *_, d in retired] == [ptxfma.eval(f32, *o) for o in ops]
    assert p.out["valid"] is False


def test_pipeline_registers_have_the_documented_fields():
    p = ptxfma.Pipeline()
    p.tick(True, 7, "fma.rn.f64", 0x3FF0000000000000, 0xBFF8000000000000, 0x1)
    for _ in range(2):
        p.tick(False, 0, 0, 0, 0, 0)
    assert list(p.s1) == ["valid", "tag", "ctrl", "mul_sum", "mul_carry", "vm", "lane0", "lane1"]
    assert list(p.s2) == ["valid", "tag", "ctrl", "vm_tmp", "lane0", "lane1"]
    assert list(p.s3) == ["valid", "tag", "ctrl", "vm_res", "lane0", "lane1"]
    s3 = p.s3
    assert s3["valid"] and s3["tag"] == 7
    lane = s3["lane0"]
    assert list(lane) == ["sign", "zero", "flush_sign", "norm", "sticky", "exp", "spec_valid", "spec_res"]
    # 1 * -1.5: negative, exponent 0 or 1 depending on the window position, a 165-bit field.
    assert lane["sign"] is True and lane["zero"] is False
    assert 0 < lane["norm"] < (1 << 165) and lane["norm"] >> 164 == 1
    assert isinstance(lane["exp"], int)
    v, t, d = p.tick(False, 0, 0, 0, 0, 0)
    assert (v, t) == (True, 7)
    assert d == ptxfma.eval("fma.rn.f64", 0x3FF0000000000000, 0xBFF8000000000000, 0x1)


def test_pipeline_reset_and_bad_ports():
    p = ptxfma.Pipeline()
    p.tick(True, 1, "fma.rn.f32", 1, 2, 3)
    p.tick(True, 2, "fma.rn.f32", 1, 2, 3, reset=True)
    for _ in range(5):
        assert p.tick(False, 0, 0, 0, 0, 0)[0] is False
    # Any word of CTRL_BITS bits is a legal port value, even one no instruction decodes to.
    p.tick(True, 3, 0x7, 0, 0, 0)
    with pytest.raises(ValueError, match="bits above"):
        p.tick(True, 3, 1 << 27, 0, 0, 0)
    with pytest.raises(OverflowError):
        p.tick(True, 1 << 16, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        p.tick(True, 0, "fma.q.f32", 0, 0, 0)


def test_half_precision_spellings_evaluate_by_lane():
    # binary16: 1 * 2 + 1 = 3.0 (0x4200); f16x2 lane 1: -1 * 2 + 1 = -1.0 (0xbc00).
    assert ptxfma.eval("fma.rn.f16", 0x3C00, 0x4000, 0x3C00) == 0x4200
    assert ptxfma.eval("fma.rn.f16x2", 0xBC003C00, 0x40004000, 0x3C003C00) == 0xBC004200
    # .relu clamps lane 1's -1.0 to +0 (S11); a NaN result is 0x7fff (S10).
    assert ptxfma.eval("fma.rn.relu.f16x2", 0xBC003C00, 0x40004000, 0x3C003C00) == 0x00004200
    assert ptxfma.eval("add.rn.bf16", 0xFFC1, 0, 0x3F80) == 0x7FFF
    # An operand wider than its 16 bits is refused.
    with pytest.raises(ValueError):
        ptxfma.eval_line("fma.rn.f16 0x13c00 0x3c00 0x3c00")
