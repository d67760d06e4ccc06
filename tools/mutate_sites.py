"""The mutation sites of tools/mutate.py and the copies of the RTL that hold the mutants:
single-token changes of each code line (OPERATORS), a seeded draw of them or every one, and
a copy of rtl/ with each mutant behind its own `ifdef MUT_<k> (write_mutated) or chosen at run
time from one build (write_schemata, tools/mutate_schemata.py).

Python 3 standard library (and pyslang, for write_schemata).
"""

import hashlib
import json
import re
import shutil

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


def rtl_files(d):
    """The sources of `d` in compile order, as its files.txt lists them (`#` comments)."""
    names = (line.split("#")[0].strip() for line in (d / "files.txt").read_text().splitlines())
    return [str(d / n) for n in names if n]
