#!/usr/bin/env python3
"""The fuzz and bad-call sweep (`make sweep`): the kit's commands used as a careless or hostile
user would, every call judged by the project's rules for bad input (README, "Exit status").

    tools/sweep.py --cosim BIN --model BIN [--fuzz-lines 100000] [--seed 1] [--only CATS]
                   [--timeout 120] [--json FILE] [--work DIR] [--verbose]

Five categories (tools/sweep_cases.py makes their calls, tools/sweep_fuzz.py the eval lines):
  eval     fuzzed `fma-model eval` lines (valid lines mutated, garbage, boundaries), in batches
           on stdin: exit 0 or 1 (1 iff some line is bad), one output line per instruction
           (a result in hex or `error: N: reason`), nothing on stderr.
  calls    bad `fma-cosim` calls, every command: unknown options, missing values, numbers out
           of range, missing files, directories for files, malformed results, vectors and
           coverage files, bad shards: exit 2, one line on stderr, nothing run or written.
  outputs  output faults (/dev/full, a parent that is a file, a file-size limit): exit 2 (or
           the verdict), one line, no output half-written, no directory made, nothing deleted.
  signals  SIGINT, SIGTERM and a second SIGINT at random moments of `run` and `dut build`:
           exit 130 (or 143, or done), every output absent or whole, no temporary left.
  dut      hostile `dut build` manifests (missing tables, wrong types, paths outside, refused
           Verilator flags, huge numbers, an `--out` holding a user's files): never exit 0 on a
           broken manifest, a user's files byte for byte as they were.

Every call also: no panic, abort or signal death, no hang (`--timeout` seconds), no process
of it left behind (each call is a session of its own; any process of that session still
alive after it exits is a bad case). Each call runs in a fresh directory under the work
directory, which is removed at the end unless `--work DIR` was given.

Exit status: 0 no bad case, 1 some bad case (each printed with its command and what was
wrong), 2 bad usage of this script (one line). Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

sys.dont_write_bytecode = True  # no tools/__pycache__ from the import below
import sweep_cases  # noqa: E402
from sweep_cases import Case  # noqa: E402

CATEGORIES = ("eval", "calls", "outputs", "signals", "dut")
# A temporary of the kit: `.NAME.WHAT<pid>@<host>`, WHAT ending in `tmp`
# (cosim/engine/src/temporary.rs).
TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_-]*tmp\d+@[A-Za-z0-9._-]+$")
PANIC = re.compile(r"panicked at|RUST_BACKTRACE|stack backtrace|core dumped|Aborted")
EVAL_OUT = re.compile(r"^(0x[0-9a-f]+|error: (\d+): .*)$")


class Usage(Exception):
    """This script's own bad usage: one line, exit 2."""


@dataclass
class Result:
    rc: int | None  # exit status; None when it did not exit in time
    signal: int | None  # the signal that killed it
    stdout: bytes
    stderr: bytes
    seconds: float
    survivors: list[int]  # processes of its session alive after it exited
    before: dict[str, str]  # relative path -> digest ("dir" for a directory)
    after: dict[str, str]


def snapshot(root: str) -> dict[str, str]:
    """Every file and directory under `root` (relative path -> SHA-256, "dir", or "link")."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for d in dirnames:
            p = os.path.join(dirpath, d)
            out[os.path.normpath(os.path.join(rel, d))] = "link" if os.path.islink(p) else "dir"
        for f in filenames:
            p = os.path.join(dirpath, f)
            key = os.path.normpath(os.path.join(rel, f))
            try:
                if os.path.islink(p) or not os.path.isfile(p):
                    out[key] = "special"
                    continue
                with open(p, "rb") as fh:
                    out[key] = hashlib.sha256(fh.read()).hexdigest()
            except OSError as e:
                out[key] = f"unreadable: {e.strerror}"
    return out


def session_members(sid: int) -> list[int]:
    """The live processes (not zombies) of session `sid`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode("latin-1")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and fields[0] != "Z" and int(fields[3]) == sid:
            pids.append(int(entry))
    return pids


def kill_session(sid: int) -> None:
    for pid in session_members(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def execute(case: Case, cwd: str, timeout: float) -> Result:
    """Runs `case` in `cwd` as a session of its own; waits at most `timeout` seconds."""
    if case.setup:
        case.setup(cwd)
    before = snapshot(cwd)
    env = dict(os.environ)
    env.pop("RUST_BACKTRACE", None)
    env.update(case.env)

    def limits() -> None:
        if case.ulimit_fsize is not None:
            import resource
            resource.setrlimit(resource.RLIMIT_FSIZE, (case.ulimit_fsize, case.ulimit_fsize))
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)

    start = time.monotonic()
    stdout = open(case.stdout_to, "wb") if case.stdout_to else subprocess.PIPE
    p = subprocess.Popen(case.argv, cwd=cwd, env=env, start_new_session=True,
                         stdin=subprocess.PIPE if case.stdin is not None else subprocess.DEVNULL,
                         stdout=stdout, stderr=subprocess.PIPE, preexec_fn=limits)
    if case.stdout_to:
        stdout.close()
    sid = p.pid
    for delay, sig, group in case.signals:
        wait = start + delay - time.monotonic()
        if wait > 0:
            try:
                p.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is None:
            try:
                if group:
                    os.killpg(sid, sig)
                else:
                    p.send_signal(sig)
            except OSError:
                pass
    try:
        out, err = p.communicate(case.stdin, timeout=max(1.0, timeout - (time.monotonic() - start)))
        rc = p.returncode
    except subprocess.TimeoutExpired:
        kill_session(sid)
        out, err = p.communicate()
        rc = None
    out = out or b""
    seconds = time.monotonic() - start
    # A process of the call's may take a moment to follow its parent out.
    survivors = session_members(sid)
    deadline = time.monotonic() + 5
    while survivors and time.monotonic() < deadline:
        time.sleep(0.1)
        survivors = session_members(sid)
    if survivors:
        kill_session(sid)
    sig = -rc if rc is not None and rc < 0 else None
    return Result(rc=rc if sig is None else None, signal=sig, stdout=out, stderr=err,
                  seconds=seconds, survivors=survivors, before=before, after=snapshot(cwd))


def stderr_lines(text: str) -> list[str]:
    """The error's lines: its first, and the indented details a tool's diagnosis adds."""
    return [line for line in text.rstrip("\n").split("\n") if line != ""]


def one_line_error(err: str) -> str | None:
    """What is wrong with `err` as the project's error output, or None: one line starting
    `error: ` (a tool's diagnosis may follow it with indented lines of its own), or the
    `interrupted` line of a command stopped by a signal."""
    lines = stderr_lines(err)
    if not lines:
        return "exit 2 with nothing on stderr"
    first = lines[0]
    if not (first.startswith("error: ") or first.startswith("fma-cosim ")):
        return f"stderr does not start with `error: `: {first[:160]!r}"
    if any(not line.startswith("  ") for line in lines[1:]):
        return f"{len(lines)} lines on stderr, not one: {err[:300]!r}"
    return None


def file_problems(case: Case, res: Result) -> list[str]:
    """Files of the user changed or deleted; files or directories left by a failed call;
    temporaries left; outputs that are not whole."""
    problems = []
    for path, digest in res.before.items():
        now = res.after.get(path)
        if now is None:
            problems.append(f"the user's {path} was deleted")
        elif now != digest and not allowed(path, case.keep):
            problems.append(f"the user's {path} was changed")
    new = sorted(p for p in res.after if p not in res.before)
    for path in new:
        if TEMPORARY.match(os.path.basename(path)):
            problems.append(f"temporary {path} left behind")
    # An interrupted run (130) writes its partial results on purpose, as a finished one does:
    # only its temporaries and whole outputs are judged.
    failed = res.rc not in (0, 1, 130, 143)
    if failed:
        left = [p for p in new if not TEMPORARY.match(os.path.basename(p))
                and not (res.after[p] == "dir" and any(q.startswith(p + "/") for q in new))]
        for path in left:
            kind = "directory" if res.after[path] == "dir" else "file"
            if not whole(case, path, res):
                problems.append(f"half-written {kind} {path} left by a failed call")
            elif res.after[path] == "dir" or case.expect == "refuse":
                problems.append(f"{kind} {path} left by a refused call")
    for path in new:
        if res.after[path] not in ("dir", "link", "special") and not whole(case, path, res):
            problems.append(f"output {path} is not whole")
    return problems


def allowed(path: str, keep: tuple[str, ...]) -> bool:
    return any(path == k or path.startswith(k.rstrip("/") + "/") for k in keep)


def whole(case: Case, path: str, res: Result) -> bool:
    """An output file is whole when its kind can be read to its end (JSON parses, XML and HTML
    are closed, a VCD or FST is not empty); an output the case does not name is judged by
    the same rules when it has one of those suffixes."""
    full = os.path.join(case_dir_of(case), path)
    if res.after.get(path) in ("dir", "link", "special"):
        return True
    try:
        with open(full, "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    if path.endswith(".json"):
        try:
            json.loads(data)
            return True
        except ValueError:
            return False
    if path.endswith((".xml", ".html")):
        return data.rstrip().endswith((b"</testsuites>", b"</html>"))
    if path.endswith((".vcd", ".fst", ".gtkw", ".dat")):
        return len(data) > 0
    return True


_CASE_DIRS: dict[int, str] = {}


def case_dir_of(case: Case) -> str:
    return _CASE_DIRS[id(case)]


def classify(case: Case, res: Result) -> list[str]:
    """What is wrong with `res` as the answer to `case`: an empty list when nothing is."""
    out = res.stdout.decode("utf-8", "replace")
    err = res.stderr.decode("utf-8", "replace")
    problems = []
    if res.rc is None and res.signal is None:
        problems.append(f"hang: no exit within {res.seconds:.0f} s")
    if res.signal is not None:
        name = signal.Signals(res.signal).name if res.signal in signal.valid_signals() else res.signal
        problems.append(f"killed by signal {name}")
    if PANIC.search(out) or PANIC.search(err):
        line = next((s for s in (err + out).splitlines() if PANIC.search(s)), "")
        problems.append(f"panic or abort: {line[:200]!r}")
    if res.survivors:
        problems.append(f"processes left behind: {res.survivors}")
    if res.rc is not None:
        problems.extend(exit_problems(case, res.rc, out, err))
    return problems


def exit_problems(case: Case, rc: int, out: str, err: str) -> list[str]:
    expect = case.expect
    if expect == "eval":
        if case.stdin is None:  # the lines as arguments, after `--`
            lines = case.argv[case.argv.index("--") + 1:]
            return eval_problems("\n".join(lines).encode() + b"\n", rc, out, err)
        return eval_problems(case.stdin, rc, out, err)
    if expect == "help":
        if rc != 2 or "Usage:" not in err:
            return [f"exit {rc}, expected 2 with the usage on stderr: {err[:200]!r}"]
        return []
    if expect in ("refuse", "fail"):
        allowed_rc = {2}
    elif expect == "any":
        allowed_rc = {0, 1, 2}
    elif expect == "signal":
        allowed_rc = {0, 1, 2, 130, 143}
    else:
        allowed_rc = set(expect)
    problems = []
    if rc not in allowed_rc:
        problems.append(f"exit {rc}, expected {' or '.join(map(str, sorted(allowed_rc)))}"
                        + (f" (stderr: {err.strip()[:200]!r})" if err.strip() else ""))
    if rc == 2:
        why = one_line_error(err)
        if why:
            problems.append(why)
        if expect == "refuse" and out.strip():
            problems.append(f"refused, yet wrote to stdout: {out.strip()[:200]!r}")
    if rc in (130, 143):
        lines = stderr_lines(err)
        if not lines or "interrupted" not in lines[-1]:
            problems.append(f"exit {rc} without saying it was interrupted: {err[-200:]!r}")
    return problems


def eval_problems(stdin: bytes, rc: int, out: str, err: str) -> list[str]:
    """A batch of `fma-model eval` lines: exit 0 or 1 (1 iff an `error:` line), nothing on
    stderr, each output line a result or `error: N: reason` with N rising, and as many output
    lines as the input has lines that must print one (between that and all lines)."""
    problems = []
    if rc not in (0, 1):
        problems.append(f"exit {rc}, expected 0 or 1" + (f": {err.strip()[:200]!r}" if err else ""))
    if err.strip():
        problems.append(f"stderr not empty: {err.strip()[:200]!r}")
    lines = stdin.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    must = sum(1 for raw in lines if prints(raw))
    got = out.split("\n")
    if got and got[-1] == "":
        got.pop()
    last = 0
    errors = 0
    for line in got:
        m = EVAL_OUT.match(line)
        if not m:
            problems.append(f"output line is neither a result nor an error: {line[:200]!r}")
            break
        if m.group(2):
            errors += 1
            n = int(m.group(2))
            if n <= last or n > len(lines):
                problems.append(f"error line number {n} out of order or range: {line[:200]!r}")
                break
            last = n
    if not must <= len(got) <= len(lines):
        problems.append(f"{len(got)} output lines for {len(lines)} input lines, "
                        f"{must} of which must print one")
    if rc in (0, 1) and (rc == 1) != (errors > 0):
        problems.append(f"exit {rc} with {errors} error lines")
    return problems


def prints(raw: bytes) -> bool:
    """Whether an eval input line must print a line: anything but blank, a comment or a
    `.target` directive (counted conservatively: a line that may be one of those does not)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    if len(raw) > (1 << 20):
        return True
    code = text.split("//", 1)[0]
    if not code.strip(" \t\r\n\x0b\x0c"):
        return False
    if any(c.isspace() and c not in " \t\r\n\x0b\x0c" for c in code):
        return False  # Unicode white space: Rust's trim and Python's differ in corners
    return not code.strip().startswith(".target")


def command_line(case: Case) -> str:
    text = " ".join(shlex.quote(a if len(a) < 120 else a[:60] + f"...({len(a)} chars)")
                    for a in case.argv)
    if case.stdin is not None:
        lines = case.stdin.count(b"\n")
        text += f" < ({len(case.stdin)} bytes, {lines} lines)"
    if case.ulimit_fsize is not None:
        text = f"(ulimit -f {case.ulimit_fsize // 512}; {text})"
    for delay, sig, group in case.signals:
        text += f" [{signal.Signals(sig).name} at {delay:.2f} s{' to the group' if group else ''}]"
    return text


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        raise Usage(message)


def parse(argv: list[str]) -> argparse.Namespace:
    ap = Parser(description=__doc__.split("\n\n")[0], add_help=True)
    ap.add_argument("--cosim", required=True, help="the fma-cosim binary")
    ap.add_argument("--model", required=True, help="the fma-model binary")
    ap.add_argument("--fuzz-lines", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--signals", type=int, default=24, help="runs interrupted by a signal")
    ap.add_argument("--only", default=",".join(CATEGORIES),
                    help=f"categories, comma-separated: {','.join(CATEGORIES)}")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds a call may take")
    ap.add_argument("--json", help="the report as JSON")
    ap.add_argument("--work", help="keep each call's directory under DIR")
    ap.add_argument("--verbose", action="store_true", help="a line per call")
    a = ap.parse_args(argv)
    if a.fuzz_lines < 0 or a.signals < 0 or a.timeout <= 0:
        raise Usage("--fuzz-lines and --signals must be >= 0, --timeout > 0")
    only = [c for c in a.only.split(",") if c]
    bad = [c for c in only if c not in CATEGORIES]
    if bad or not only:
        raise Usage(f"--only: unknown category {bad[0] if bad else '(none)'}; "
                    f"choose from {','.join(CATEGORIES)}")
    a.only = only
    for flag, path in (("--cosim", a.cosim), ("--model", a.model)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise Usage(f"{flag} {path}: no such executable (build it: make sweep builds both)")
        setattr(a, flag[2:], os.path.abspath(path))
    if a.work and os.path.exists(a.work) and os.listdir(a.work):
        raise Usage(f"--work {a.work} is not empty")
    if a.json:
        parent = os.path.dirname(os.path.abspath(a.json))
        if not os.path.isdir(parent):
            raise Usage(f"--json {a.json}: no directory {parent}")
    return a


def sweep(a: argparse.Namespace) -> int:
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="ptxfma-sweep-")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(a.seed)
    ctx = sweep_cases.Context(cosim=a.cosim, model=a.model, work=work, rng=rng,
                              fuzz_lines=a.fuzz_lines, signal_runs=a.signals)
    report = {"seed": a.seed, "fuzz_lines": a.fuzz_lines, "categories": {}, "bad": []}
    started = time.monotonic()
    try:
        for category in a.only:
            counts = {"calls": 0, "bad": 0, "seconds": 0.0}
            report["categories"][category] = counts
            t0 = time.monotonic()
            for case in sweep_cases.cases(category, ctx):
                counts["calls"] += 1
                d = os.path.join(work, f"{category}-{counts['calls']:04d}")
                os.makedirs(d)
                _CASE_DIRS[id(case)] = d
                res = execute(case, d, a.timeout)
                problems = classify(case, res) + file_problems(case, res)
                if case.check:
                    problems += case.check(res, d)
                if a.verbose:
                    print(f"{category} {case.name}: rc {res.rc} sig {res.signal} "
                          f"{res.seconds:.1f}s {'BAD' if problems else 'ok'}", flush=True)
                if problems:
                    counts["bad"] += 1
                    bad = {"category": category, "name": case.name,
                           "command": command_line(case), "dir": d, "rc": res.rc,
                           "signal": res.signal, "problems": problems,
                           "stderr": res.stderr.decode("utf-8", "replace")[-2000:]}
                    report["bad"].append(bad)
                    print(f"BAD {category} {case.name}: {command_line(case)}", flush=True)
                    for p in problems:
                        print(f"    {p}", flush=True)
                elif not a.work:
                    shutil.rmtree(d, ignore_errors=True)
                del _CASE_DIRS[id(case)]
            counts["seconds"] = round(time.monotonic() - t0, 1)
    finally:
        if not a.work:
            ctx.cleanup()
            shutil.rmtree(work, ignore_errors=True)
    report["seconds"] = round(time.monotonic() - started, 1)
    total = sum(c["calls"] for c in report["categories"].values())
    bad = sum(c["bad"] for c in report["categories"].values())
    print(f"{'category':<10}{'calls':>8}{'bad':>6}{'seconds':>10}")
    for name, c in report["categories"].items():
        print(f"{name:<10}{c['calls']:>8}{c['bad']:>6}{c['seconds']:>10.1f}")
    print(f"{'total':<10}{total:>8}{bad:>6}{report['seconds']:>10.1f}"
          f"   ({a.fuzz_lines} fuzzed eval lines; seed {a.seed})")
    if a.json:
        with open(a.json + ".tmp", "w") as fh:
            json.dump(report, fh, indent=1)
        os.replace(a.json + ".tmp", a.json)
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    try:
        a = parse(argv)
    except Usage as e:
        print(f"sweep.py: {e}", file=sys.stderr)
        return 2
    try:
        return sweep(a)
    except KeyboardInterrupt:
        print("sweep.py: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
