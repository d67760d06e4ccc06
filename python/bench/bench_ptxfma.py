"""`make bench`, Python part: the `ptxfma` module's speed beside the model's own, in one run.

- single `ptxfma.eval` calls per second (target >= 1 M/s);
- `ptxfma.eval_array` beside the model's `Pipeline::run` on the same operations, timed in Rust
  in the same process (`ptxfma._model_run_rate`), as a ratio (target >= 0.5x);
- with `--cocotb-log` and `--cosim-json`: the cocotb example's operations per second beside
  `fma-cosim run`'s on the same family, i.e. what driving the RTL from Python costs.
"""

import argparse
import json
import re
import time

import numpy as np

import ptxfma


def best(f, repeats=5):
    """The shortest of `repeats` timings of `f()` (the machine is shared; single runs vary)."""
    t = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def verdict(ok):
    return "MET" if ok else "MISSED"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=1_000_000)
    ap.add_argument("--cocotb-log")
    ap.add_argument("--cosim-json")
    args = ap.parse_args()
    n = args.ops
    rng = np.random.default_rng(1)
    ok = True

    # Single calls: a control word from decode, as a scoreboard uses it.
    f32 = ptxfma.decode("fma.rn.f32")
    a, b, c = (rng.integers(0, 1 << 30, n, dtype=np.uint64) for _ in range(3))
    calls = min(n, 300_000)
    al, bl, cl = a[:calls].tolist(), b[:calls].tolist(), c[:calls].tolist()
    ev = ptxfma.eval

    def single():
        for x, y, z in zip(al, bl, cl):
            ev(f32, x, y, z)

    rate = calls / best(single, 3)
    met = rate >= 1e6
    ok &= met
    print(f"Python module (ptxfma, {n} operations per array run, best of 5)")
    print(f"  single eval (fma.rn.f32)   {rate / 1e6:7.2f} M calls/s  {verdict(met)} (target >= 1 M/s)")

    # Arrays against Pipeline::run: one control word (the lane engine) and every family mixed.
    mix_spellings = [
        ("fma.rn.f32", "sm_100"), ("fma.rz.f64", "sm_100"), ("fma.rn.f32x2", "sm_100"),
        ("add.rn.f32.f16", "sm_100"), ("mad.f32", "sm_13"), ("mul.rm.f32", "sm_100"),
        ("vmad.u32.u32.u32", "sm_100"),
    ]
    words = np.array([ptxfma.decode(s, target=t) for s, t in mix_spellings], dtype=np.uint64)
    for name, ctrl in [
        ("fma.rn.f32", np.full(n, f32, dtype=np.uint64)),
        ("every family", words[rng.integers(0, len(words), n)]),
    ]:
        run = ptxfma._model_run_rate(ctrl, a, b, c, 5)
        arr = n / best(lambda: ptxfma.eval_array(ctrl, a, b, c))
        ratio = arr / run
        met = ratio >= 0.5
        ok &= met
        print(
            f"  eval_array {name:<14}  {arr / 1e6:7.2f} M ops/s  Pipeline::run {run / 1e6:7.2f} M ops/s"
            f"  {ratio:.2f}x  {verdict(met)} (target >= 0.5x)"
        )

    if args.cocotb_log and args.cosim_json:
        text = open(args.cocotb_log).read()
        m = re.search(r"PTXFMA_COCOTB checked=(\d+) mismatches=(\d+) ops_per_s=(\d+)", text)
        if not m:
            raise SystemExit(f"no PTXFMA_COCOTB line in {args.cocotb_log}")
        cocotb_rate = float(m.group(3))
        cosim = json.load(open(args.cosim_json))
        # Per worker, as `fma-cosim run` prints it (docs/results.md: families[].seconds).
        fam = next(f for f in cosim["families"] if f["family"] == "f32")
        cosim_rate = fam["vectors"] / fam["seconds"]
        print(
            f"  cocotb (f32, Python scoreboard) {cocotb_rate / 1e3:8.1f} k ops/s  "
            f"fma-cosim run (f32, 1 job) {cosim_rate / 1e3:8.1f} k ops/s  "
            f"native is {cosim_rate / cocotb_rate:.0f}x faster"
        )
    print("Python bench: " + ("all targets met" if ok else "some target MISSED"))


if __name__ == "__main__":
    main()
