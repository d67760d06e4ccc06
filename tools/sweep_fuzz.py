"""The line fuzzer of the sweep's `eval` category (tools/sweep.py): valid `fma-model eval` lines
of every family, and lines made from them by random edits (characters, operands, modifiers,
opcodes, selectors, signs, long digit runs, truncation), boundary operands, `.target` lines
and garbage bytes. Seeded by the caller's random.Random. Python 3 standard library only.
"""

from __future__ import annotations

SEEDS = [
    "fma.rn.f32 0x3f800000 0x40000000 0x3f800000",
    "fma.rz.ftz.f32 0x00000001 0x3f800000 0x80000000",
    "fma.rm.ftz.sat.f32 0x7f800000 0xff800000 0x7fc00000",
    "mad.rp.f32 0x3f800000 0x3f800000 0x3f800000",
    "fma.rn.f32x2 0x3f8000003f800000 0x4000000040000000 0x0000000000000000",
    "add.rz.ftz.f32x2 0x3f8000003f800000 0x3f8000003f800000",
    "mul.rm.f32x2 0x3f8000003f800000 0xbf800000bf800000",
    "fma.rn.f64 0x3ff0000000000000 0x4000000000000000 0x3ff0000000000000",
    "mad.rz.f64 0x7ff0000000000000 0x0000000000000000 0x3ff0000000000000",
    "add.rn.f64 0d3ff0000000000000 0d4000000000000000",
    "sub.rm.f64 0x8000000000000000 0x0000000000000001",
    "mul.f64 0xfff8000000000000 0x1",
    "add.f32 0f3f800000 0f40000000",
    "sub.rn.sat.f32 0x3f800000 0x40000000",
    "mul.rz.ftz.sat.f32 0x00800000 0x00800000",
    "add.f32.f16 0x3c00 0x3f800000",
    "sub.rz.sat.f32.bf16 0x3f80 0x3f800000",
    "fma.rn.f32.f16 0x3c00 0x3c00 0x3f800000",
    "fma.rm.sat.f32.bf16 0x3f80 0xbf80 0x3f800000",
    "vmad.s32.s32.s32.shr7 -0x5.h1 0x7.b0 0x3",
    "vmad.u32.u32.s32.sat 0x12345678.b3 -0x1234.h0 0xffffffff",
    "vmad.s32.u32.u32.po.shr15 0xffffffff 0xffffffff 0x1",
    "fma.rn.f16 0x3c00 0x3c00 0x3c00",
    "fma.rn.ftz.sat.f16x2 0x3c003c00 0x40004000 0x3c003c00",
    "fma.rn.relu.f16 0xbc00 0x3c00 0x0000",
    "fma.rn.oob.relu.f16x2 0x7e003c00 0x3c003c00 0x00000000",
    "fma.rz.bf16 0x3f80 0x4000 0x3f80",
    "fma.rp.oob.bf16x2 0x3f803f80 0x7fc04000 0x3f803f80",
    "add.rn.ftz.sat.f16x2 0x3c003c00 0x3c003c00",
    "mul.rn.bf16 0x3f80 0x4000",
    "sub.bf16x2 0x3f803f80 0x3f803f80",
]
# Mostly the default's: an old target makes most later lines errors until the next one.
TARGETS = [".target sm_13", ".target sm_20", ".target sm_53", ".target sm_80", ".target sm_90",
           ".target sm_10"] + [".target sm_100"] * 6
TOKENS = ["0x", "0x0", "-0x0", "0xffffffffffffffff", "0x1ffffffffffffffff", "0f", "0d",
          "0fffffffff", "0d" + "f" * 17, "-0x8000000000000000", "0x" + "0" * 300 + "1",
          "0x-1", "+0x1", "0x1.b4", "0x1.h2", "0x1.b", ".b0", "0x1..b0", "NaN", "inf", "-0",
          "1e10", "0b101", "0o7", "0x1_000", "0x１", "0x\u200b1", "%r1", "[0x1]", "{0x1}", ",",
          "0x1,", ";", "\t", "\x00", "\x7f", "\u00e9", "\U0001f600", "\ufeff", "\r"]
MODS = [".rn", ".rz", ".rm", ".rp", ".rna", ".ftz", ".sat", ".relu", ".oob", ".f32", ".f64",
        ".f16", ".bf16", ".f16x2", ".bf16x2", ".f32x2", ".s32", ".u32", ".s16", ".u8", ".po",
        ".shr7", ".shr15", ".shr16", ".x", "..", ".", ".f32.f32", ".tf32", ".e4m3", ".s64"]
OPS = ["fma", "mad", "add", "sub", "mul", "vmad", "div", "fma.rn", "mad.lo", "fmaa", "", "FMA"]
CHARS = "0123456789abcdefxX.-+ _,;/\\\"'`$%{}[]()<>|&*#@!~\t\r\x00\x01\x1b\x7f\u00a0\u2028\ufffd"


def mutate(line: str, rng) -> str:
    """One to three random edits of `line`."""
    for _ in range(rng.randint(1, 3)):
        toks = line.split(" ")
        k = rng.randrange(14)
        if k == 0 and line:  # delete a character
            i = rng.randrange(len(line))
            line = line[:i] + line[i + 1:]
        elif k == 1:  # insert a character
            i = rng.randrange(len(line) + 1)
            line = line[:i] + rng.choice(CHARS) + line[i:]
        elif k == 2 and len(toks) > 1:  # an operand replaced
            toks[rng.randrange(1, len(toks))] = rng.choice(TOKENS)
            line = " ".join(toks)
        elif k == 3:  # an operand added
            line = line + " " + rng.choice(TOKENS + ["0x1", "0x3f800000"])
        elif k == 4 and len(toks) > 1:  # an operand dropped
            del toks[rng.randrange(1, len(toks))]
            line = " ".join(toks)
        elif k == 5:  # a modifier inserted, replaced or dropped
            parts = toks[0].split(".")
            i = rng.randrange(len(parts) + 1)
            if rng.random() < 0.5 or len(parts) < 2:
                parts.insert(max(i, 1), rng.choice(MODS).lstrip("."))
            else:
                del parts[rng.randrange(1, len(parts))]
            toks[0] = ".".join(parts)
            line = " ".join(toks)
        elif k == 6:  # another opcode
            parts = toks[0].split(".")
            parts[0] = rng.choice(OPS)
            toks[0] = ".".join(parts)
            line = " ".join(toks)
        elif k == 7 and len(toks) > 1:  # two tokens swapped
            i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
            line = " ".join(toks)
        elif k == 8:  # a hex digit run made long
            line = line.replace("0x", "0x" + "f" * rng.choice([8, 16, 17, 33, 1000]), 1)
        elif k == 9:  # a comment, or spacing
            line = rng.choice(["", "  ", "\t", "// "]) + line + rng.choice(["", " //x", "  ", "\r"])
        elif k == 10:  # a selector
            line = line.replace(" 0x", " 0x1" + rng.choice([".b0", ".b4", ".h1", ".h2", ".b", ".bb0", ".h0.h1"]) + " 0x", 1)
        elif k == 11:  # a sign
            line = line.replace(" 0x", rng.choice([" -0x", " +0x", " --0x", " ~0x"]), 1)
        elif k == 12:  # a duplicated token
            t = rng.choice(toks)
            line = line + " " + t
        else:  # a truncation
            line = line[: rng.randrange(len(line) + 1)]
    return line


def garbage(rng) -> bytes:
    """A line that is not an instruction at all."""
    k = rng.randrange(7)
    if k == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))).replace(b"\n", b"")
    if k == 1:
        return rng.choice([".target", ".target sm_", ".target sm_0", ".target sm_99999999999999999999",
                           ".target sm_-1", ".target sm_13 extra", ".target  sm_90", ".TARGET sm_13",
                           ".target sm_1x", ".target sm_100a", ".version 8.0"]).encode()
    if k == 2:
        return ("0x" + "0" * rng.choice([1, 100, 5000])).encode()
    if k == 3:
        return " ".join(rng.choice(TOKENS + MODS + OPS) for _ in range(rng.randrange(1, 12))).encode()
    if k == 4:
        return b"\xff\xfe" + rng.choice(SEEDS).encode()  # not UTF-8
    if k == 5:
        return ((rng.choice(SEEDS) + " ") * rng.randrange(2, 50)).encode()
    return rng.choice(["//", "   ", "\t", "// fma.rn.f32", "/", "/ /", "\r", "\x0b", "\x0c",
                       "\u00a0", "\u2028"]).encode()


def fuzz_line(rng) -> bytes:
    r = rng.random()
    if r < 0.05:
        return rng.choice(TARGETS).encode()
    if r < 0.12:
        return garbage(rng)
    if r < 0.25:
        return rng.choice(SEEDS).encode()
    if r < 0.5:  # valid, with operands drawn: boundaries and random bits of the same width
        toks = rng.choice(SEEDS).split(" ")
        for i in range(1, len(toks)):
            t = toks[i]
            if t.startswith(("0x", "0f", "0d")) and "." not in t:
                bits = 4 * (len(t) - 2)
                v = rng.choice([0, 1, (1 << bits) - 1, 1 << (bits - 1), rng.getrandbits(bits)])
                toks[i] = t[:2] + format(v, f"0{len(t) - 2}x")
        return " ".join(toks).encode()
    return mutate(rng.choice(SEEDS), rng).encode("utf-8", "surrogatepass")
