#!/usr/bin/env python3
"""Where the model's release compile goes (issue 48): LLVM's own time trace of
`ptxfma-model`, summed by pass and by lane-engine kernel.

It builds the model once in a fresh target directory with rustc's `-Z llvm-time-trace` (an
unstable flag: RUSTC_BOOTSTRAP=1 lets the stable compiler take it; the build is a measurement,
never an artifact anyone uses) and `-Z time-passes`, then reads the trace LLVM writes beside the
library. Function-level passes nest inside the inliner's passes, so a pass's figure is its own
time summed over every function and codegen unit, not wall time.

Usage: tools/compile_profile.py [--target-dir DIR] [--keep] [--top N]
"""

import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Containers that only nest other passes (their time is their children's).
CONTAINERS = {
    "ModuleInlinerWrapperPass", "ModuleToPostOrderCGSCCPassAdaptor", "DevirtSCCRepeatedPass",
    "CGSCCToFunctionPassAdaptor", "FunctionToLoopPassAdaptor", "ModuleToFunctionPassAdaptor",
    "OptModule", "OptFunction", "RunPass", "RequireAnalysisPass",
}
LOOP_PASSES = re.compile(r"^Loop|IndVarSimplify")
# A kernel's symbol: `engine::avx2::op_images` (mangled `...6engine4avx29op_images...`).
KERNEL = re.compile(r"engine\d+(avx512|avx2|portable)\d+(op_images|group|banks)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target-dir", help="the build's target directory (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the target directory")
    ap.add_argument("--top", type=int, default=15, help="rows per table")
    a = ap.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = a.target_dir or tempfile.mkdtemp(prefix="ptxfma-compile-profile-")
    try:
        env = dict(os.environ, RUSTC_BOOTSTRAP="1", CARGO_TARGET_DIR=target)
        r = subprocess.run(
            ["cargo", "rustc", "--release", "-p", "ptxfma-model", "--lib", "--",
             "-Zllvm-time-trace", "-Ztime-passes"],
            cwd=root, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr[-4000:])
            print("compile_profile: the traced build failed", file=sys.stderr)
            return 2
        phases = {}
        for line in r.stderr.splitlines():
            m = re.match(r"time:\s+([0-9.]+);.*\s(\S+)$", line)
            if m:
                phases[m.group(2)] = float(m.group(1))
        traces = glob.glob(os.path.join(target, "release", "deps",
                                        "ptxfma_model-*.llvm_timings.json"))
        if not traces:
            print("compile_profile: rustc wrote no LLVM time trace", file=sys.stderr)
            return 2
        with open(traces[0]) as f:
            events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    finally:
        if not a.keep and not a.target_dir:
            shutil.rmtree(target, ignore_errors=True)

    print("rustc phases (s): " + ", ".join(
        f"{k} {phases[k]:.1f}" for k in ("total", "codegen_crate", "LLVM_passes",
                                         "finish_ongoing_codegen") if k in phases))
    by_pass = collections.Counter()
    by_kernel = collections.Counter()
    loops = 0.0
    for e in events:
        name, secs = e["name"], e.get("dur", 0) / 1e6
        if (name in CONTAINERS or name.startswith("Total ") or name.startswith("PassManager<")
                or name.endswith("Analysis")):
            continue
        by_pass[name] += secs
        if LOOP_PASSES.search(name):
            loops += secs
        m = KERNEL.search(e.get("args", {}).get("detail", ""))
        if m:
            by_kernel[f"{m.group(2)}_{m.group(1)}"] += secs
    print(f"\nLLVM passes, seconds summed over functions (loop passes together: {loops:.1f})")
    for name, secs in by_pass.most_common(a.top):
        print(f"  {secs:8.1f}  {name}")
    print("\nlane-engine kernels, seconds of LLVM passes (every kind of each)")
    for name, secs in by_kernel.most_common(a.top):
        print(f"  {secs:8.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
