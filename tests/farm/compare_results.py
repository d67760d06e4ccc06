#!/usr/bin/env python3
"""Compares a merged farm result with a direct (unsharded) `fma-cosim run --json` result.

    compare_results.py MERGED.json DIRECT.json    exit 0 when they agree, 1 (with the differences)
    compare_results.py --summary RESULT.json      prints a short summary of one result

They agree when `params` are equal, for every family the vectors and divergences, and for every
chunk its stream, seed, operations, vectors per family, cycles and divergences are equal (timings,
the `shard` field and other run-local fields are ignored).
"""
import json
import sys

# Run-local fields: how long it took and how it was split.
IGNORED_PARAMS = {"jobs", "shard"}
FAMILY_KEYS = ("vectors", "divergences")
CHUNK_KEYS = ("stream", "seed", "ops", "vectors", "by_family", "cycles", "divergences")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare: cannot read {path}: {e}")


def count(v):
    """A divergence field may be a count or a list of divergences."""
    return len(v) if isinstance(v, list) else v


def by(rows, key, what, path):
    out = {}
    for row in rows or []:
        k = row.get(key)
        if k in out:
            sys.exit(f"compare: {path}: {what} {k!r} appears twice")
        out[k] = row
    return out


def compare(merged_path, direct_path):
    merged, direct = load(merged_path), load(direct_path)
    diffs = []

    mp = {k: v for k, v in (merged.get("params") or {}).items() if k not in IGNORED_PARAMS}
    dp = {k: v for k, v in (direct.get("params") or {}).items() if k not in IGNORED_PARAMS}
    if not mp:
        diffs.append("merged result has no params")
    for k in sorted(set(mp) | set(dp)):
        if mp.get(k) != dp.get(k):
            diffs.append(f"params.{k}: merged {mp.get(k)!r}, direct {dp.get(k)!r}")

    for section, what, key, keys in (("families", "family", "family", FAMILY_KEYS),
                                     ("chunks", "chunk", "index", CHUNK_KEYS)):
        rows_m = by(merged.get(section), key, what, merged_path)
        rows_d = by(direct.get(section), key, what, direct_path)
        if not rows_d:
            diffs.append(f"direct result has no {what} rows")
        for k in sorted(set(rows_m) | set(rows_d), key=str):
            if k not in rows_m:
                diffs.append(f"{what} {k}: only in the direct run")
                continue
            if k not in rows_d:
                diffs.append(f"{what} {k}: only in the merged result")
                continue
            for f in keys:
                a, b = rows_m[k].get(f), rows_d[k].get(f)
                if f == "divergences":
                    a, b = count(a), count(b)
                if a != b:
                    diffs.append(f"{what} {k}: {f}: merged {a!r}, direct {b!r}")

    for f in ("divergences", "passed"):
        a, b = merged.get(f), direct.get(f)
        if f == "divergences":
            a, b = count(a), count(b)
        if a != b:
            diffs.append(f"{f}: merged {a!r}, direct {b!r}")

    if diffs:
        print(f"compare: {merged_path} differs from {direct_path}:", file=sys.stderr)
        for d in diffs[:40]:
            print(f"  {d}", file=sys.stderr)
        if len(diffs) > 40:
            print(f"  ... and {len(diffs) - 40} more", file=sys.stderr)
        return 1
    fams = merged.get("families") or []
    chunks = merged.get("chunks") or []
    print(f"compare: equal: params, {len(fams)} families, {len(chunks)} chunks "
          f"({sum(r.get('vectors', 0) for r in fams)} vectors)")
    return 0


def summary(path):
    r = load(path)
    p = r.get("params") or {}
    fams = r.get("families") or []
    def show(v):
        return ",".join(map(str, v)) if isinstance(v, list) else str(v)

    print("merged: " + ", ".join(f"{k}={show(p[k])}" for k in ("seed", "count", "filter", "rtl",
                                                                "chunk_size") if k in p))
    print(f"  {'family':<10} {'vectors':>10} {'divergences':>12}")
    for f in fams:
        print(f"  {f.get('family', '?'):<10} {f.get('vectors', 0):>10} "
              f"{count(f.get('divergences', 0)):>12}")
    print(f"  {len(r.get('chunks') or [])} chunks, divergences {count(r.get('divergences'))}, "
          f"passed {r.get('passed')}")


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "--summary":
        summary(a[1])
        sys.exit(0)
    if len(a) != 2:
        sys.exit(__doc__)
    sys.exit(compare(a[0], a[1]))
