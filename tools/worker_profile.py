#!/usr/bin/env python3
"""What a worker's time goes to (`make bench-profile`, issue 39): host instructions per checked
operation of `fma-cosim run --jobs 1 --golden-thread inline` (one worker, the model in its
thread) under callgrind, split into parts by the inclusive cost of their entry points.

    tools/worker_profile.py FMA_COSIM [--count N] [--valgrind PATH] [--keep DIR | --from DIR]

Runs: `--filter f64` (the run compared with cocotb), `--filter all`, and `--filter all
--coverage` (the only one that samples coverage). A part's cost is what its entry points cost
when entered from outside the part (the sum of the call edges into them from functions the part
does not match), so a part's own calls between its functions count once. Counts of host
instructions: the same on every machine for one build.

The entry points are in PARTS, here only. A pattern that matches no function of a profile stops
the script (exit 2, one line), so a rename cannot silently zero a part. `--keep DIR` leaves the
callgrind files and JSON results in DIR; `--from DIR` reads such a DIR instead of running (to
check PARTS against a new tree's names without a new profile).

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

# The parts, in table order. A function belongs to a part when one of its `match` regular
# expressions finds its demangled name (re.search; a recursion suffix `'N` stripped). `minus`:
# parts called from inside this one, taken out of it. `outside`: the total minus the part's
# functions instead. `under`: the row it is a share of (indented). `coverage`: matched only in
# the run that samples coverage. The rest is the total minus the top-level parts.
PARTS = [
    # The Verilated model: the C++ eval and the shim's frame read-out.
    dict(key="rtl", label="RTL", match=[r"^ptxfma_cosim::engine::rtl::Rtl::run_encoded$"]),
    # The model's side (whatever ModelGolden::run does: tick + frames, or the lane engine's banks).
    dict(key="reference", label="reference",
         match=[r"^<ptxfma_cosim::engine::golden::ModelGolden as "
                r"ptxfma_cosim::engine::golden::Golden>::run$"]),
    # The banks of each operation: the lane engine's groups (its images kernels, one per backend
    # and kind), the scalar stages for the rest.
    dict(key="banks", label="of it the banks", under="reference",
         match=[r"^ptxfma_model::machine::batch::engine::(avx512|avx2|portable)::op_images",
                r"^ptxfma_model::machine::pipeline::OpBanks::load$"]),
    # Packing them into the frames (and the frames of the ticked cycles).
    dict(key="frames", label="of it the frames", under="reference",
         match=[r"^<?ptxfma_cosim::engine::frame::",
                r"^ptxfma_cosim::engine::assemble::Sink::put(_images)?$"]),
    # The stream, the generators and encode_input.
    dict(key="stimulus", label="stimulus",
         match=[r"^ptxfma_cosim::engine::batch::Batch::take"]),
    # The scoreboard's batch judging.
    dict(key="compare", label="compare", match=[r"^<?ptxfma_cosim::engine::scoreboard::"]),
    dict(key="coverage", label="coverage", coverage=True,
         match=[r"^<ptxfma_cosim::checks::coverage::subscriber::CoverageSubscriber as "
                r"ptxfma_cosim::engine::subscriber::Subscriber>::feed$"]),
    dict(key="rest", label="rest"),
    # Start-up, chunk set-up, the report.
    dict(key="outside", label="of it outside lockstep::run_with", under="rest", outside=True,
         match=[r"^ptxfma_cosim::engine::lockstep::run_with$"]),
]

# (name, extra fma-cosim arguments, samples coverage)
RUNS = [
    ("f64", ["--filter", "f64"], False),
    ("all", ["--filter", "all"], False),
    ("all --coverage", ["--filter", "all", "--coverage", "{dir}/coverage.{i}.json"], True),
]


def die(msg, code=2):
    print(f"worker_profile.py: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_callgrind(path):
    """Self cost per function, inclusive cost per call edge, and the total (first event)."""
    names = {}

    def name(spec):
        m = re.match(r"\((\d+)\)(?: (.*))?$", spec)
        if not m:
            return spec
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    self_cost = defaultdict(int)
    edges = defaultdict(int)
    npos, total, fn, callee, in_call = 1, None, None, None, False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c0 = line[0]
            if c0.isdigit() or c0 in "+-*":
                toks = line.split()
                cost = int(toks[npos]) if len(toks) > npos else 0
                if in_call:
                    edges[(fn, callee)] += cost
                    in_call = False
                else:
                    self_cost[fn] += cost
            elif line.startswith("fn="):
                fn = name(line[3:])
            elif line.startswith("cfn="):
                callee = name(line[4:])
            elif line.startswith("calls="):
                in_call = True
            elif line.startswith("positions:"):
                npos = len(line.split()) - 1
            elif line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
    if total is None:
        die(f"{path}: no summary line (not a finished callgrind profile?)", 1)
    return self_cost, edges, total


def part_cost(self_cost, edges, patterns, where, label):
    """What the functions matching `patterns` cost when entered from outside them."""
    fns = set(self_cost) | {b for _, b in edges} | {a for a, _ in edges}
    members = set()
    for p in patterns:
        hit = {f for f in fns if re.search(p, re.sub(r"'\d+$", "", f))}
        if not hit:
            die(f"part '{label}': pattern {p!r} matches no function in the {where} profile "
                "(renamed? update PARTS in tools/worker_profile.py)")
        members |= hit
    called = {b for (a, b) in edges if a != b}
    cost = sum(c for (a, b), c in edges.items() if b in members and a not in members)
    for r in members - called:  # roots (a thread's start): everything under them
        cost += self_cost[r] + sum(c for (a, b), c in edges.items() if a == r and b not in members)
    return cost


def run_profiles(cosim, valgrind, count, out):
    for i, (name, extra, _) in enumerate(RUNS):
        cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.{i}", cosim,
               "run", "--jobs", "1", "--golden-thread", "inline", "--count", str(count),
               "--json", f"{out}/run.{i}.json"] + [a.format(dir=out, i=i) for a in extra]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or "PASSED" not in r.stdout:
            tail = (r.stdout.strip().splitlines() or ["(no output)"])[-1]
            die(f"the {name} run did not pass under callgrind (exit {r.returncode}): {tail}", 1)


def measure(d):
    """Per run: {part: instructions}, total, operations, cycles."""
    results = []
    for i, (name, _, samples) in enumerate(RUNS):
        cg, js = f"{d}/callgrind.{i}", f"{d}/run.{i}.json"
        if not (os.path.exists(cg) and os.path.exists(js)):
            die(f"no {cg} or {js} (the {name} run)")
        self_cost, edges, total = parse_callgrind(cg)
        res = json.load(open(js))
        ops = sum(fam["vectors"] for fam in res["families"])
        cycles = sum(ch["cycles"] for ch in res["chunks"])
        if ops <= 0 or cycles <= 0:
            die(f"{js}: no operations compared", 1)
        cost = {}
        for p in PARTS:
            if "match" in p and (samples or not p.get("coverage")):
                c = part_cost(self_cost, edges, p["match"], f"'{name}' run's", p["label"])
                cost[p["key"]] = total - c if p.get("outside") else c
        for p in PARTS:
            if p["key"] in cost:
                cost[p["key"]] -= sum(cost[m] for m in p.get("minus", []))
                if cost[p["key"]] < 0:
                    die(f"part '{p['label']}' comes out negative in the {name} run: "
                        "PARTS is wrong", 1)
        cost["rest"] = total - sum(cost.get(p["key"], 0) for p in PARTS
                                   if "match" in p and "under" not in p)
        if cost["rest"] < 0 or cost.get("outside", 0) > cost["rest"]:
            die(f"the parts of the {name} run overlap (they sum past the total): PARTS is wrong", 1)
        results.append((cost, total, ops, cycles))
    return results


def table(results, count):
    rows = []
    for p in PARTS:
        if "under" not in p:
            rows.append((p["key"], p["label"], 0))
            rows += [(q["key"], q["label"], 1) for q in PARTS if q.get("under") == p["key"]]
    w = max(len(l) + 2 * d for _, l, d in rows) + 2
    print(f"  a worker's host instructions per operation (callgrind; fma-cosim run --jobs 1 "
          f"--golden-thread inline --count {count})")
    print("  " + "part".ljust(w) + "".join(f"{n:>20}" for n, _, _ in RUNS))
    print("  " + "".ljust(w) + "".join(f"{'instr/op':>12}{'share':>8}" for _ in RUNS))
    for key, label, depth in rows:
        line = "  " + ("  " * depth + label).ljust(w)
        for cost, total, ops, _ in results:
            if key in cost:
                line += f"{cost[key] / ops:12.0f}{100 * cost[key] / total:7.1f}%"
            else:
                line += f"{'-':>12}{'-':>8}"
        print(line)
    print("  " + "total".ljust(w)
          + "".join(f"{t / o:12.0f}{'100.0%':>8}" for _, t, o, _ in results))
    print("  " + "RTL instructions per cycle".ljust(w)
          + "".join(f"{c['rtl'] / cy:12.0f}{'':8}" for c, _, _, cy in results))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cosim", nargs="?", help="the fma-cosim binary (not with --from)")
    ap.add_argument("--count", default="100000", help="operations per run (default 100000)")
    ap.add_argument("--valgrind", default=os.environ.get("VALGRIND", "valgrind"))
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--keep", metavar="DIR", help="leave the profiles and results in DIR")
    g.add_argument("--from", dest="src", metavar="DIR", help="read the profiles of --keep DIR")
    a = ap.parse_args()
    if not re.fullmatch(r"[1-9][0-9]*", a.count):
        die(f"--count must be a positive count, not {a.count!r}")
    if a.src:
        if not os.path.isdir(a.src):
            die(f"--from {a.src}: no such directory")
        table(measure(a.src), "as kept")
        return
    if not a.cosim or not os.access(a.cosim, os.X_OK):
        die(f"no fma-cosim binary at {a.cosim!r}")
    if not shutil.which(a.valgrind):
        die(f"{a.valgrind} is missing (make bench-deps)")
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        out = a.keep
        run_profiles(a.cosim, a.valgrind, a.count, out)
        table(measure(out), a.count)
    else:
        with tempfile.TemporaryDirectory() as out:
            run_profiles(a.cosim, a.valgrind, a.count, out)
            table(measure(out), a.count)


if __name__ == "__main__":
    main()
