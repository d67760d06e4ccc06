"""The calls of the fuzz and bad-call sweep (tools/sweep.py), one generator per category.

Each call is a `sweep.Case`: its command line, its input, what it must answer ("refuse": exit 2
in one line, nothing run or written; "any": 0, 1 or 2; a set of exit codes), and what its
directory holds before it (a `setup`). Seeded by the caller's random.Random: the same seed gives
the same calls. Python 3 standard library only.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field

from sweep_fuzz import SEEDS, fuzz_line


@dataclass
class Context:
    cosim: str
    model: str
    work: str
    rng: object
    fuzz_lines: int
    signal_runs: int = 24
    fixtures: str | None = None

    def cleanup(self) -> None:
        pass

    def env(self) -> dict[str, str]:
        return {"PTXFMA_DUT_CACHE_DIR": os.path.join(self.work, "dut-cache")}


def cases(category: str, ctx: Context):
    return {"eval": eval_cases, "calls": call_cases, "outputs": output_cases,
            "signals": signal_cases, "dut": dut_cases}[category](ctx)


@dataclass
class Case:
    """One call. `expect`: "refuse" (exit 2, one line, nothing on stdout, nothing written),
    "fail" (exit 2, one line or a tool's diagnosis, nothing of the user's changed), "any"
    (exit 0, 1 or 2; 2 in one line), "eval" (a batch of eval lines), "signal" (signals sent;
    130, 143 or a verdict), "help" (exit 2 with the usage on stderr), or a set of exit codes."""

    category: str
    name: str
    argv: list[str]
    expect: object = "refuse"
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)
    setup: object = None  # callable(dir) run before the call, in the call's directory
    keep: tuple[str, ...] = ()  # the user's files the call may change (relative)
    signals: tuple = ()  # ((delay_s, signal, to_group), ...)
    ulimit_fsize: int | None = None  # RLIMIT_FSIZE in bytes for the call
    stdout_to: str | None = None  # a path standard output is opened on (/dev/full)
    check: object = None  # callable(result, dir) -> list of extra problems


# ---------------------------------------------------------------- eval: fuzzed lines
def eval_cases(ctx: Context):
    rng = ctx.rng
    batch = 1000
    left = ctx.fuzz_lines
    n = 0
    while left > 0:
        k = min(batch, left)
        lines = [fuzz_line(rng) for _ in range(k)]
        left -= k
        n += 1
        data = b"\n".join(lines)
        if n % 10 == 3:
            data = data.replace(b"\n", b"\r\n")
        if n % 10 != 7:
            data += b"\n"  # every tenth batch ends without its newline
        yield Case("eval", f"batch-{n}", [ctx.model, "eval"], expect="eval", stdin=data)
    # A few of the reader's edges: a line over the 1 MiB limit, NULs, one huge batch line.
    edges = [b"0x" + b"f" * (1 << 21) + b"\nfma.rn.f32 0x1 0x2 0x3\n",
             b"fma.rn.f32 0x1 0x2 0x3\x00\n\x00\n",
             b"fma.rn.f32 " + b" ".join([b"0x1"] * 200000) + b"\n",
             b"\n" * 100000, b"//" * 300000, b""]
    for i, data in enumerate(edges):
        yield Case("eval", f"edge-{i}", [ctx.model, "eval"], expect="eval", stdin=data)
    # Lines as arguments: one output line each, as on stdin.
    for i in range(5):
        args = [fuzz_line(rng).decode("utf-8", "replace").replace("\x00", "") for _ in range(20)]
        yield Case("eval", f"args-{i}", [ctx.model, "eval", "--"] + args, expect={0, 1})


# ---------------------------------------------------------------- calls: bad fma-cosim calls
def fixtures(ctx: Context) -> str:
    """Valid inputs to spoil, made once: two shards of a small run, a coverage file, a
    vectors file, and a tiny design's sources."""
    if ctx.fixtures:
        return ctx.fixtures
    d = os.path.join(ctx.work, "fixtures")
    os.makedirs(d, exist_ok=True)
    for k in (1, 2):
        subprocess.run([ctx.cosim, "run", "--count", "4000", "--filter", "f32", "--chunk-size",
                        "1000", "--jobs", "1", "--shard", f"{k}/2", "--json", f"shard-{k}.json",
                        "--coverage", f"cov-{k}.json"], cwd=d, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    with open(os.path.join(d, "vectors.txt"), "w") as fh:
        fh.write("".join(s + "\n" for s in SEEDS[:8]))
    with open(os.path.join(d, "tiny.sv"), "w") as fh:
        fh.write(TINY)
    ctx.fixtures = d
    return d


def read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def files(**content) -> object:
    """A setup writing `name=bytes|str` (a value None makes a directory)."""
    def setup(d: str) -> None:
        for name, data in content.items():
            name = name.replace("__", ".")
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p) or d, exist_ok=True)
            if data is None:
                os.makedirs(p, exist_ok=True)
            else:
                with open(p, "wb") as fh:
                    fh.write(data.encode() if isinstance(data, str) else data)
    return setup


RUN = ["run", "--count", "2000", "--filter", "f32", "--jobs", "1", "--progress", "off"]


def run_with(**over) -> list[str]:
    """`run` with the small defaults above, `over` replacing or adding options
    (`chunk_size="0"` is `--chunk-size 0`; a value None drops the option)."""
    args = list(RUN)
    for key, value in over.items():
        flag = "--" + key.replace("_", "-")
        if flag in args:
            i = args.index(flag)
            del args[i:i + 2]
        if value is not None:
            args += [flag, value]
    return args


def spoil(text: str, rng) -> list[tuple[str, str]]:
    """Malformed variants of a JSON text: (name, text)."""
    import json
    obj = json.loads(text)
    out = [("empty", ""), ("not-json", "not json"), ("truncated", text[: len(text) // 2]),
           ("object", "{}"), ("array", "[]"), ("null", "null"), ("number", "1e999"),
           ("nested", "[" * 100000 + "]" * 100000), ("nul", text.replace("{", "{\x00", 1)),
           ("bom", "\ufeff" + text), ("latin1", text.encode("utf-8").decode("latin-1") + "\xff")]
    keys = sorted(obj) if isinstance(obj, dict) else []
    for k in keys:
        for name, value in (("null", None), ("neg", -1), ("huge", 10 ** 30), ("str", "x"),
                            ("list", [1]), ("float", 1e308)):
            o = dict(obj)
            o[k] = value
            out.append((f"{k}-{name}", json.dumps(o)))
        o = dict(obj)
        del o[k]
        out.append((f"{k}-missing", json.dumps(o)))
    return out


def optional(name: str) -> str:
    """A field set to null or left out may be optional (serde's default): any answer but a
    crash; every other spoiling must be refused."""
    return "any" if name.endswith(("-null", "-missing")) else "refuse"


def spoil_field(text: str, key: str, value) -> str:
    import json
    obj = json.loads(text)
    obj[key] = value
    return json.dumps(obj)


def call_cases(ctx: Context):
    fx = fixtures(ctx)
    c = ctx.cosim
    env = ctx.env()

    def case(name, args, expect="refuse", **kw):
        return Case("calls", name, [c] + args, expect=expect, env=env, **kw)

    yield case("no-command", [], expect="help")
    yield case("dut-no-command", ["dut"], expect="help")
    yield case("unknown-command", ["frobnicate"])
    yield case("variants-extra", ["variants", "extra"])
    yield case("version-extra", ["--version", "--bogus"], expect="any")  # clap: --version wins
    for sub in ("run", "replay", "wave", "merge", "bench", "coverage", "dut build", "dut prove",
                "variants"):
        s = sub.split()
        yield case(f"{sub}-unknown-option", s + ["--bogus"])
        yield case(f"{sub}-not-utf8", s + [b"--\xff\xfe".decode("utf-8", "surrogateescape")])
        yield case(f"{sub}-huge-arg", s + ["--" + "x" * 100000])
    # Numbers out of range, not numbers, missing values: every numeric option of run.
    bad_numbers = ["0", "-1", "1e99", "99999999999999999999999", "", "lots", "0x", " 5", "5 ",
                   "18446744073709551616", "1.5", "+-1"]
    for opt in ("count", "jobs", "chunk_size", "window", "max_divergences", "max_examples",
                "batch", "backpressure", "latency_bound", "seed", "random_init"):
        for v in bad_numbers:
            if opt in ("seed", "random_init", "backpressure") and v == "0":
                continue  # valid
            if opt == "random_init" and v in ("-1", "", "lots"):
                pass
            yield case(f"run-{opt}={v!r}", run_with(**{opt: v}))
        yield case(f"run-{opt}-no-value", run_with() + ["--" + opt.replace("_", "-")])
    for v in ["91", "100"]:
        yield case(f"run-backpressure={v}", run_with(backpressure=v))
    for v in ["3", "1048577"]:
        yield case(f"run-latency-bound={v}", run_with(latency_bound=v))
    yield case("run-count-below-families", run_with(count="5", filter="all"))
    yield case("run-over-1GiB", run_with(count="18446744073709551615", chunk_size="1"))
    yield case("run-over-1GiB-coverage", run_with(count="4000000000", chunk_size="1000",
                                                  coverage="c.json"))
    for v in ["3/2", "0/2", "1/0", "2", "/", "a/b", "1/2/3", "-1/2", "99999999999999999999/1",
              "1/99999999999999999999", "", "2/1", "1/ 2"]:
        # A space after the slash is read past.
        yield case(f"run-shard={v!r}", run_with(shard=v), expect="any" if v == "1/ 2" else "refuse")
    # A shard with no chunk says so (`this shard holds no chunk`): a farm's shards outnumber
    # a small run's chunks, and each must still write its mergeable result.
    yield case("run-shard-beyond-chunks", run_with(shard="3/3", chunk_size="2000"), expect="any")
    for v in ["", ",", "bogus", "f32,,vmad", "all,bogus", "fma.f16"]:
        yield case(f"run-filter={v!r}", run_with(filter=v))
    yield case("run-filter='F32'", run_with(filter="F32"), expect="any")  # case is not read
    for opt, v in (("rtl", "bogus"), ("rtl", ""), ("rtl", "../x"), ("golden", "bogus"),
                   ("golden", "rtl:bogus"), ("golden_thread", "bogus"), ("progress", "bogus"),
                   ("compare", "bogus"), ("testfloat", "f64_mulAdd")):
        yield case(f"run-{opt}={v!r}", run_with(**{opt: v}))
    yield case("run-rtl-and-dut", run_with(rtl="default", dut="x"))
    yield case("run-dut-missing", run_with(dut="nonexistent"))
    yield case("run-dut-file", run_with(dut="f"), setup=files(f="x"))
    yield case("run-dut-empty-dir", run_with(dut="d"), setup=files(d=None))
    yield case("run-dut-garbage-record", run_with(dut="d"),
               setup=files(**{"d/dut__json": "{}", "d/libptxfma_dut__so": "\x7fELF"}))
    yield case("run-random-init-unbuilt", run_with(random_init="5"))
    yield case("run-rtl-coverage-unbuilt", run_with(rtl_coverage="r.dat"))
    yield case("run-coverage-table-alone", run_with() + ["--coverage-table"])
    yield case("run-strict-nan-alone", run_with() + ["--strict-nan"])
    yield case("run-r-alone", run_with() + ["-r", "rne"])
    for name, path, setup in (("missing", "nope.txt", None), ("dir", "d", files(d=None)),
                              ("garbage", "g.txt", files(g__txt=b"\xff\xfe\x00garbage\n" * 10)),
                              ("bad-line", "b.txt", files(b__txt="fma.rn.f32 0x1 0x2\n")),
                              ("zero-lines", "e.txt", files(e__txt="")),
                              ("comments-only", "c.txt", files(c__txt="// x\n\n")),
                              ("gz-broken", "v.txt.gz", files(v__txt__gz=b"\x1f\x8b\x08garbage")),
                              ("bad-expected", "x.txt", files(x__txt="fma.rn.f32 0x1 0x2 0x3 zz\n"))):
        # `run --vectors` names its file on stdout before it reads it: "fail", stdout aside.
        yield case(f"run-vectors-{name}", run_with(count=None, filter=None, vectors=path),
                   expect="fail", setup=setup)
    yield case("run-vectors-testfloat-garbage",
               run_with(count=None, filter=None, vectors="t.txt", testfloat="f64_mulAdd"),
               expect="fail", setup=files(t__txt="zz yy xx ww vv\n"))
    yield case("run-vectors-testfloat-bad-func",
               run_with(count=None, filter=None, vectors="t.txt", testfloat="f64_bogus"),
               setup=files(t__txt="0 0 0 0 0\n"))
    yield case("run-vectors-coverage-on-vectors", run_with(count=None, filter=None,
                                                           vectors="v.txt", coverage="v.txt"),
               setup=files(v__txt=SEEDS[0] + "\n"))
    yield case("run-vectors-and-json", run_with(count=None, filter=None, vectors="v.txt",
                                                json="r.json"), setup=files(v__txt=SEEDS[0]))
    for opt in ("json", "junit", "html", "coverage"):
        yield case(f"run-{opt}-is-dir", run_with(**{opt: "d"}), setup=files(d=None))
        yield case(f"run-{opt}-empty", run_with(**{opt: ""}))
        yield case(f"run-{opt}-under-file", run_with(**{opt: "f/x"}), setup=files(f="x"))
    yield case("run-json-junit-same", run_with(json="x", junit="./x"))
    yield case("run-waves-dir-file", run_with(waves_dir="f"), setup=files(f="keep"))
    # replay
    yield case("replay-nothing", ["replay"])
    yield case("replay-seed-alone", ["replay", "--seed", "1"])
    yield case("replay-index-beyond", ["replay", "--seed", "1", "--filter", "f32", "--count",
                                       "100", "--index", "100000"])
    yield case("replay-index-huge", ["replay", "--seed", "1", "--filter", "f32", "--count",
                                     "100", "--index", "18446744073709551615"])
    yield case("replay-count-0", ["replay", "--seed", "1", "--filter", "f32", "--count", "0",
                                  "--index", "0"])
    yield case("replay-window-huge", ["replay", "--seed", "1", "--filter", "f32", "--count",
                                      "100", "--index", "5", "--window", "99999999999"])
    for ctrl in ("bogus", "", "0xffffffff", "fma.rn.f32 extra", "-1", "0x" + "f" * 100):
        yield case(f"replay-ctrl={ctrl!r}", ["replay", "--ctrl", ctrl, "--a", "0", "--b", "0",
                                             "--c", "0"])
    yield case("replay-operand-huge", ["replay", "--ctrl", "fma.rn.f32", "--a",
                                       "0x1ffffffffffffffff", "--b", "0", "--c", "0"])
    yield case("replay-target-bad", ["replay", "--ctrl", "fma.rn.f32", "--a", "0", "--b", "0",
                                     "--c", "0", "--target", "sm_0"])
    yield case("replay-ctrl-and-seed", ["replay", "--ctrl", "fma.rn.f32", "--a", "0", "--b",
                                        "0", "--c", "0", "--seed", "1"])
    yield case("replay-ctrl-no-operands", ["replay", "--ctrl", "fma.rn.f32"])
    yield case("replay-waves-dir-file", ["replay", "--ctrl", "fma.rn.f32", "--a", "0", "--b",
                                         "0", "--c", "0", "--waves-dir", "f"], setup=files(f="k"))
    # wave
    for name, lines in (("bad-line", ["fma.rn.f32 0x1"]), ("garbage", ["\x01\x02"]),
                        ("bad-target", [".target sm_0", SEEDS[0]]),
                        ("huge-line", ["fma.rn.f32 " + "0x1 " * 30000])):
        yield case(f"wave-{name}", ["wave", "--vcd", "w.vcd", "--"] + lines)
    yield case("wave-vcd-dir", ["wave", "--vcd", "d", SEEDS[0]], setup=files(d=None))
    yield case("wave-vcd-empty", ["wave", "--vcd", "", SEEDS[0]])
    yield case("wave-vcd-under-file", ["wave", "--vcd", "f/w.vcd", SEEDS[0]], setup=files(f="k"))
    yield case("wave-stdin-garbage", ["wave", "--vcd", "w.vcd"], stdin=b"\xff\x00garbage\n")
    yield case("wave-stdin-empty", ["wave", "--vcd", "w.vcd"], stdin=b"", expect="any")
    yield case("wave-no-stdin-line", ["wave", "--vcd", "w.vcd"], stdin=b"// nothing\n\n",
               expect="any")
    # merge
    shard1 = read(os.path.join(fx, "shard-1.json")).decode()
    shard2 = read(os.path.join(fx, "shard-2.json")).decode()
    yield case("merge-nothing", ["merge"])
    yield case("merge-missing", ["merge", "nope.json"])
    yield case("merge-dir", ["merge", "d"], setup=files(d=None))
    yield case("merge-one-shard-of-two", ["merge", "s1.json"], setup=files(s1__json=shard1),
               expect={1, 2})
    yield case("merge-duplicate", ["merge", "s1.json", "s1.json", "s2.json"],
               setup=files(s1__json=shard1, s2__json=shard2))
    yield case("merge-same-twice-copied", ["merge", "s1.json", "t.json", "s2.json"],
               setup=files(s1__json=shard1, t__json=shard1, s2__json=shard2))
    for name, text in spoil(shard1, ctx.rng):
        yield case(f"merge-{name}", ["merge", "s1.json", "s2.json"], expect=optional(name),
                   setup=files(s1__json=text, s2__json=shard2))
    huge = spoil_field(shard1, "seconds", 1e308), spoil_field(shard2, "seconds", 1e308)
    yield case("merge-seconds-overflow", ["merge", "s1.json", "s2.json", "--json", "m.json"],
               setup=files(s1__json=huge[0], s2__json=huge[1]))
    yield case("merge-verify-bad", ["merge", "s1.json", "s2.json", "--verify", "x"],
               setup=files(s1__json=shard1, s2__json=shard2))
    yield case("merge-verify-seed-alone", ["merge", "s1.json", "s2.json", "--verify-seed", "1"],
               setup=files(s1__json=shard1, s2__json=shard2))
    for opt in ("json", "junit", "html"):
        yield case(f"merge-{opt}-dir", ["merge", "s1.json", "s2.json", f"--{opt}", "d"],
                   setup=files(s1__json=shard1, s2__json=shard2, d=None))
        yield case(f"merge-{opt}-is-input", ["merge", "s1.json", "s2.json", f"--{opt}",
                                              "s1.json"], setup=files(s1__json=shard1,
                                                                       s2__json=shard2))
    # coverage
    cov = read(os.path.join(fx, "cov-1.json")).decode()
    yield case("coverage-nothing", ["coverage"])
    yield case("coverage-missing", ["coverage", "nope.json"])
    yield case("coverage-dir", ["coverage", "d"], setup=files(d=None))
    for name, text in spoil(cov, ctx.rng):
        # `summary` is derived, written for readers and never read back.
        expect = "any" if name.startswith("summary-") else optional(name)
        yield case(f"coverage-{name}", ["coverage", "c.json"], expect=expect,
                   setup=files(c__json=text))
    for v in ("101", "-1", "nan", "abc", "", "1e999", "inf"):
        yield case(f"coverage-fail-under={v!r}", ["coverage", "c.json", "--fail-under", v],
                   setup=files(c__json=cov))
    yield case("coverage-html-dir", ["coverage", "c.json", "--html", "d"],
               setup=files(c__json=cov, d=None))
    yield case("coverage-json-is-input", ["coverage", "c.json", "--json", "c.json"],
               setup=files(c__json=cov))
    # A results file that carries coverage is a coverage input (`coverage --help`).
    yield case("coverage-a-results-file", ["coverage", "s.json"], expect="any",
               setup=files(s__json=shard1))
    yield case("coverage-html-is-results-input", ["coverage", "s.json", "--html", "s.json"],
               setup=files(s__json=shard1))
    # bench
    for opt, v in (("count", "0"), ("count", "5000000000"), ("jobs", "0"), ("jobs", "99999"),
                   ("filter", "bogus"), ("rtl", "bogus"), ("seed", "x")):
        yield case(f"bench-{opt}={v}", ["bench", f"--{opt}", v])
    # dut build / dut prove, the command line (manifests: category dut). Both say on stdout
    # what they are about to do before they read the manifest: "fail", not "refuse".
    yield case("dut-build-no-manifest", ["dut", "build"])
    yield case("dut-build-missing", ["dut", "build", "nope.toml", "--out", "o"],
               expect="fail")
    yield case("dut-build-dir", ["dut", "build", "d", "--out", "o"], expect="fail",
               setup=files(d=None))
    for v in ("4", "-1", "x", ""):
        yield case(f"dut-build-cxx-opt={v!r}", ["dut", "build", "m.toml", "--out", "o",
                                                "--cxx-opt", v], setup=files(m__toml=""))
    yield case("dut-prove-missing", ["dut", "prove", "nope.toml"], expect="fail")
    for opt, v in (("depth", "0"), ("depth", "1001"), ("timeout", "0"), ("timeout", "x")):
        yield case(f"dut-prove-{opt}={v}", ["dut", "prove", "m.toml", f"--{opt}", v],
                   setup=files(m__toml=""))


# ---------------------------------------------------------------- outputs: faults
def full_link(name: str) -> object:
    """A setup making `name` a link to /dev/full (written through the link, never /dev/full
    itself replaced: a rename replaces the link, here)."""
    def setup(d: str) -> None:
        os.symlink("/dev/full", os.path.join(d, name))
    return setup


def output_cases(ctx: Context):
    fx = fixtures(ctx)
    c = ctx.cosim
    env = ctx.env()
    shard1 = read(os.path.join(fx, "shard-1.json"))
    shard2 = read(os.path.join(fx, "shard-2.json"))
    cov = read(os.path.join(fx, "cov-1.json"))
    inputs = files(s1__json=shard1, s2__json=shard2, c__json=cov, keep__txt="the user's\n")
    writers = [
        ("run-json", run_with(json="OUT")), ("run-junit", run_with(junit="OUT")),
        ("run-html", run_with(html="OUT")), ("run-coverage", run_with(coverage="OUT")),
        ("merge-json", ["merge", "s1.json", "s2.json", "--json", "OUT"]),
        ("merge-junit", ["merge", "s1.json", "s2.json", "--junit", "OUT"]),
        ("merge-html", ["merge", "s1.json", "s2.json", "--html", "OUT"]),
        ("coverage-json", ["coverage", "c.json", "--json", "OUT"]),
        ("coverage-html", ["coverage", "c.json", "--html", "OUT"]),
        ("wave-vcd", ["wave", "--vcd", "OUT", SEEDS[0]]),
        ("wave-fst", ["wave", "--vcd", "OUT", SEEDS[0]]),
    ]

    def case(name, args, expect="fail", **kw):
        setup = kw.pop("setup", None)

        def both(d, setup=setup):
            inputs(d)
            if setup:
                setup(d)
        return Case("outputs", name, [c] + args, expect=expect, env=env, setup=both, **kw)

    def at(args, path):
        suffix = ".fst" if args[0] == "wave" and name.endswith("fst") else ""
        return [path + suffix if a == "OUT" else a for a in args]

    for name, args in writers:
        full = at(args, "full")[args.index("OUT")]
        yield case(f"{name}-dev-full", at(args, "full"), setup=full_link(full))
        yield case(f"{name}-parent-is-file", at(args, "keep.txt/o"))
        yield case(f"{name}-proc", at(args, "/proc/sweep/o"))
        yield case(f"{name}-new-dir-under-file", at(args, "keep.txt/a/b/o"))
        yield case(f"{name}-fsize-limit", at(args, "out/o"), expect={0, 1, 2},
                   ulimit_fsize=2048)
        yield case(f"{name}-stdout-full", at(args, "out/o"), expect={2},
                   stdout_to="/dev/full")
    # The summary itself to a full disk, every command that prints one.
    for name, args in (("run", run_with()), ("merge", ["merge", "s1.json", "s2.json"]),
                       ("coverage", ["coverage", "c.json"]), ("variants", ["variants"]),
                       ("help", ["run", "--help"]), ("version", ["--version"]),
                       ("replay", ["replay", "--ctrl", "fma.rn.f32", "--a", "0", "--b", "0",
                                   "--c", "0"])):
        yield case(f"{name}-stdout-full", args, expect={2}, stdout_to="/dev/full")
    yield case("run-waves-dir-under-file", run_with(waves_dir="keep.txt/w"), expect={0, 2})
    yield case("run-every-output-fsize", run_with(json="o/r.json", junit="o/r.xml",
                                                  html="o/r.html", coverage="o/c.json"),
               expect={0, 1, 2}, ulimit_fsize=4096)


# ---------------------------------------------------------------- signals
def signal_cases(ctx: Context):
    rng = ctx.rng
    c = ctx.cosim
    env = ctx.env()
    outputs = ["--json", "o/r.json", "--junit", "o/r.xml", "--html", "o/r.html",
               "--coverage", "o/c.json"]
    kinds = [("int", ((signal.SIGINT, True),)), ("term", ((signal.SIGTERM, False),)),
             ("int-int", ((signal.SIGINT, True), (signal.SIGINT, True))),
             ("hup", ((signal.SIGHUP, False),))]
    for i in range(ctx.signal_runs):
        kind, sigs = kinds[i % len(kinds)]
        t = rng.uniform(0.02, 4.0)
        plan = tuple((t + 0.3 * j, s, g) for j, (s, g) in enumerate(sigs))
        count = rng.choice(["200000", "600000", "2000000"])
        args = ["run", "--count", count, "--jobs", "2", "--progress", "off", "--chunk-size",
                rng.choice(["4096", "65536"])] + outputs
        yield Case("signals", f"run-{kind}-{i}", [c] + args, expect="signal", env=env,
                   signals=plan)
    for i in range(max(1, ctx.signal_runs // 6)):
        kind, sigs = kinds[i % 2]
        t = rng.uniform(0.2, 6.0)
        yield Case("signals", f"dut-build-{kind}-{i}",
                   [c, "dut", "build", "m.toml", "--out", "build"], expect="signal", env=env,
                   setup=tiny_design(), signals=tuple((t, s, g) for s, g in sigs))
    for i in range(max(1, ctx.signal_runs // 6)):
        t = rng.uniform(0.05, 2.0)
        lines = "".join(SEEDS[k % len(SEEDS)] + "\n" for k in range(8000)).encode()
        yield Case("signals", f"wave-int-{i}", [c, "wave", "--vcd", "o/w.vcd"], stdin=lines,
                   expect="signal", env=env, signals=((t, signal.SIGINT, True),))


# ---------------------------------------------------------------- dut: hostile manifests
TINY = """module tiny (input logic clk_i, input logic rst_ni, input logic in_valid_i,
  input logic [15:0] in_tag_i, input logic [26:0] in_ctrl_i, input logic [63:0] in_a_i,
  input logic [63:0] in_b_i, input logic [63:0] in_c_i, output logic out_valid_o,
  output logic [15:0] out_tag_o, output logic [63:0] out_d_o);
  logic v; logic [15:0] t; logic [63:0] d;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) v <= 1'b0; else v <= in_valid_i;
    t <= in_tag_i; d <= in_a_i;
  end
  assign out_valid_o = v; assign out_tag_o = t; assign out_d_o = d;
endmodule
"""
GOOD = '[design]\ntop = "tiny"\nsources = ["tiny.sv"]\n[contract]\nlatency_bound = 8\n' \
       '[forms]\nfamilies = ["f32"]\n'


def tiny_design(manifest: str = GOOD, **more) -> object:
    return files(tiny__sv=TINY, m__toml=manifest, **more)


def with_line(section: str, line: str) -> str:
    """GOOD with `line` added to `[section]` (replacing a key of the same name)."""
    out, current = [], None
    key = line.split("=")[0].strip()
    for text in GOOD.splitlines():
        if text.startswith("["):
            if current == section:
                out.append(line)
                line = None
            current = text.strip("[]")
        elif current == section and line and text.split("=")[0].strip() == key:
            continue
        out.append(text)
    if line:
        if current != section:
            out.append(f"[{section}]")
        out.append(line)
    return "\n".join(out) + "\n"


REFUSED_FLAGS = ["--Mdir", "-Mdir", "-o", "--prefix", "--top-module", "--mod-prefix", "--build",
                 "--binary", "--exe", "--make", "--main", "-j", "--build-jobs", "--lib-create",
                 "--protect-lib", "--no-verilate", "--waiver-output", "--xml-output", "--xml-only",
                 "--dpi-hdr-only", "--lint-only", "-E", "--rr", "-f", "-F"]


def dut_cases(ctx: Context):
    c = ctx.cosim
    env = ctx.env()
    build = ["--no-trace", "--cxx-opt", "0"]

    def case(name, manifest, expect="fail", out="build", extra=(), **kw):
        # `dut build` says on stdout what it builds before it reads the manifest: a refusal
        # is judged as "fail" (exit 2, one line on stderr), stdout aside.
        expect = "fail" if expect == "refuse" else expect
        setup = kw.pop("setup", None) or tiny_design(manifest)
        return Case("dut", name, [c, "dut", "build", "m.toml", "--out", out] + build
                    + list(extra), expect=expect, env=env, setup=setup, **kw)

    yield case("valid", GOOD, expect={0})
    for name, text in (
            ("empty", ""), ("not-toml", "[[["), ("binary", "\x00\xff\xfe"),
            ("no-design", '[forms]\nfamilies = ["f32"]\n'),
            ("no-top", GOOD.replace('top = "tiny"\n', "")),
            ("no-sources", GOOD.replace('sources = ["tiny.sv"]\n', "")),
            ("design-not-table", 'design = 5\n'),
            ("bom", "\ufeff" + GOOD), ("huge", "# " + "x" * 20_000_000 + "\n" + GOOD),
            ("deep", "a = " + "[" * 50000 + "]" * 50000 + "\n" + GOOD)):
        # A BOM and a long comment are TOML a build may take.
        yield case(f"manifest-{name}", text, expect="any" if name in ("bom", "huge") else "fail")
    for section, line in (
            ("design", "top = 5"), ("design", 'top = ""'), ("design", 'top = "nosuch"'),
            ("design", 'top = "tiny; rm -rf x"'), ("design", 'top = "-Wno-fatal"'),
            ("design", 'sources = "tiny.sv"'), ("design", "sources = []"),
            ("design", "sources = [1]"), ("design", 'sources = ["../../../nope.sv"]'),
            ("design", 'sources = ["/etc/passwd"]'), ("design", 'sources = ["."]'),
            ("design", 'sources = ["/dev/zero"]'), ("design", 'sources = ["tiny.sv", "-Mdir"]'),
            ("design", 'sources = ["--Mdir=x"]'), ("design", 'file_list = "nope.f"'),
            ("design", 'file_list = "fl.f"'), ("design", 'file_list = "fl2.f"'),
            ("design", 'include_dirs = ["nope"]'),
            ("design", "include_dirs = 5"), ("design", 'defines = ["A B"]'),
            ("design", 'defines = ["X\\nY"]'), ("design", 'defines = ["-Mdir"]'),
            ("design", 'defines = ["X=1\\n!touch pwned"]'),
            ("design", 'verilator_flags = "-Wall"'), ("design", "verilator_flags = [1]"),
            ("design", 'verilator_flags = ["--Mdir=elsewhere"]'),
            ("design", 'verilator_flags = ["-oelsewhere"]'),
            ("design", 'verilator_flags = ["-Mdirelsewhere"]'),
            ("design", 'verilator_flags = ["--prefix=Vx"]'),
            ("design", 'verilator_flags = ["-Wno-fatal --Mdir x"]'),
            ("design", 'verilator_flags = ["-CFLAGS", "-o /tmp/x"]'),
            ("design", "bogus = 1"), ("design.parameters", '"1bad" = 1'),
            ("design.parameters", "X = 99999999999"), ("design.parameters", 'X = "a\\"b"'),
            ("design.parameters", 'X = "a\\nb"'), ("design.parameters", "X = 1.5"),
            ("design.parameters", "X = [1]"), ("design.parameters", "NOSUCH = 1"),
            ("contract", "latency_bound = 0"), ("contract", "latency_bound = 3"),
            ("contract", "latency_bound = -5"), ("contract", "latency_bound = 1048577"),
            ("contract", "latency_bound = 9223372036854775807"),
            ("contract", "latency_bound = 99999999999999999999"),
            ("contract", 'latency_bound = "64"'), ("contract", "latency_bound = 1e3"),
            ("contract", "latency = -1"), ("contract", "latency = 100"),
            ("contract", "tag_width = 17"), ("contract", "tag_width = -1"),
            ("contract", "tag_width = 0"), ("contract", 'handshake = "yes"'),
            ("contract", 'nan = "weird"'), ("contract", "bogus = true"),
            ("contract.canonical_nan", 'f32 = "0x1"'), ("contract.canonical_nan", 'f32 = "zz"'),
            ("contract.canonical_nan", 'f99 = "0x7fc00000"'),
            ("forms", "families = []"), ("forms", 'families = ["bogus"]'),
            ("forms", 'families = "f32"'), ("forms", "families = [1]"),
            ("forms", "rounding = []"), ("forms", 'rounding = ["rx"]'), ("forms", "ftz = 1"),
            ("forms", "bogus = 1"), ("extra", "x = 1")):
        name = f"{section}.{line}"
        # -CFLAGS go to the Makefile Verilator writes, which the kit does not use.
        yield case(name, with_line(section, line), expect="any" if "-CFLAGS" in line else "fail",
                   setup=tiny_design(with_line(section, line),
                                     fl__f="-f other.f\n+incdir+/\ntiny.sv\n",
                                     fl2__f="+define+X=1+-Mdir\ntiny.sv\n"))
    for flag in REFUSED_FLAGS:
        m = with_line("design", f'verilator_flags = ["{flag}", "x"]')
        yield case(f"flag {flag}", m, expect="refuse")
    # --out: a user's directory, a file, the manifest's own directory, odd places.
    user = {"out/precious.txt": "mine\n", "out/docs/a.md": "# notes\n"}
    yield case("out-user-dir", GOOD, out="out", expect="refuse",
               setup=tiny_design(**{k.replace(".", "__"): v for k, v in user.items()}))
    yield case("out-user-dut-json", GOOD, out="out", expect="refuse",
               setup=tiny_design(**{"out/dut__json": '{"x":1}', "out/lib__so": "x"}))
    yield case("out-is-file", GOOD, out="f", expect="refuse", setup=tiny_design(f="mine\n"))
    yield case("out-is-manifest-dir", GOOD, out=".", expect="refuse")
    yield case("out-is-manifest", GOOD, out="m.toml", expect="refuse")
    yield case("out-empty", GOOD, out="", expect="refuse")
    yield case("out-under-file", GOOD, out="f/build", expect="fail", setup=tiny_design(f="x"))
    yield case("out-proc", GOOD, out="/proc/sweep-build", expect="fail")
    yield case("out-link-to-user-dir", GOOD, out="l", expect="refuse",
               setup=lambda d: (tiny_design(**{"u/mine__txt": "x"})(d),
                                os.symlink("u", os.path.join(d, "l"))))
    yield Case("dut", "manifest-missing", [c, "dut", "build", "nope.toml", "--out", "b"],
               expect="fail", env=env)
    yield Case("dut", "manifest-dev-zero", [c, "dut", "build", "/dev/zero", "--out", "b"],
               expect="fail", env=env)
    yield Case("dut", "manifest-dir", [c, "dut", "build", ".", "--out", "b"], expect="fail",
               env=env)
