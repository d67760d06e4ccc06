"""The report of a mutation study (tools/mutate.py): scores per comparison, the survivors with
their judgements (mutate-equivalent.json), blind spots; and the join of a sharded study's
JSON files (`--merge`).

Python 3 standard library only.
"""

import json
import sys
from pathlib import Path

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
