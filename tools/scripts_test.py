#!/usr/bin/env python3
"""Tests of the Makefile's scripts (`make scripts-test`, in `make test`'s test-lint group).

Each script under tools/ (and farm/farm.sh, tools/footprint.sh) given bad input (a knob with a bad
value, a missing argument, an unknown verb or option) stops before doing anything, with one line
on standard error and exit status 2. tools/apt-install.sh is also run against stand-ins for `id`,
`sudo`, `dpkg-query` and `apt-get` (first on PATH; the real apt-get is never reached): it installs
only what is missing, says how in one line (exit 1) when it cannot, and warns with --warn. And
`make help` lists every target of the Makefile, each once, each with its text.

Fast (a few seconds) and builds nothing. Python 3 standard library only.

    python3 tools/scripts_test.py
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAKE_VARS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEFILES", "MAKEOVERRIDES")


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the calling make's variables, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in MAKE_VARS}
    env.update(extra)
    return env


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, env=env or clean_env(), capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def tool(name: str) -> str:
    return os.path.join(HERE, name)


class BadInput(unittest.TestCase):
    """Every script refuses bad input in one line on stderr, with exit status 2."""

    def refused(self, args: list[str], mention: str, **env: str) -> None:
        r = run(args, clean_env(**env))
        what = f"{args} {env}: rc {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"
        self.assertEqual(r.returncode, 2, what)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, what)
        self.assertIn(mention, r.stderr, what)
        self.assertEqual(r.stdout, "", what)

    def test_apt_install(self) -> None:
        self.refused([tool("apt-install.sh"), "valgrind"], "--for WHAT is missing")
        self.refused([tool("apt-install.sh"), "--for", "make bench"], "no PACKAGE")
        self.refused([tool("apt-install.sh"), "--bogus", "--for", "x", "p"], "unknown option --bogus")
        self.refused([tool("apt-install.sh"), "--for", "x", "p", "--need"], "--need takes a COMMAND")
        self.refused([tool("apt-install.sh"), "--need", " ", "--for", "x", "p"], "--need takes a COMMAND")

    def test_deps(self) -> None:
        self.refused([tool("deps.sh")], "usage")
        self.refused([tool("deps.sh"), "verilator", "five"], "usage")

    def test_cpu_test(self) -> None:
        self.refused([tool("cpu-test.sh"), "qemu64:Portable"], "no CPU list or no build command")
        self.refused([tool("cpu-test.sh"), "qemu64", "false"], "not 'qemu64'")
        self.refused([tool("cpu-test.sh"), "qemu64:Portable EPYC:", "false"], "not 'EPYC:'")
        self.refused([tool("cpu-test.sh"), " ", "false"], "the CPU list is empty")

    def test_rtl_instructions(self) -> None:
        self.refused([tool("rtl-instructions.sh"), "/bin/true"], "two arguments")
        self.refused([tool("rtl-instructions.sh"), "/bin/true", "8k"], "BENCH_SPIN_CYCLES")
        self.refused([tool("rtl-instructions.sh"), "/nonexistent/fma-cosim", "8000"], "no fma-cosim")

    def test_dpi(self) -> None:
        self.refused([tool("dpi.sh")], "unknown verb ''")
        self.refused([tool("dpi.sh"), "run", "a", "b"], "unknown verb 'run'")
        self.refused([tool("dpi.sh"), "bench", "lib.a", "dir"], "bench needs")
        self.refused([tool("dpi.sh"), "bench", "lib.a", "dir", "5M"], "DPI_BENCH_CALLS")
        self.refused([tool("dpi.sh"), "test", "lib.a", "dir", "1", "0", "rtl/x.sv"], "DPI_COUNT")
        self.refused([tool("dpi.sh"), "test", "lib.a", "dir", "-1", "10", "rtl/x.sv"], "DPI_SEED")
        self.refused([tool("dpi.sh"), "test", "lib.a", "dir", "1", "10"], "test needs")

    def test_cocotb_test(self) -> None:
        self.refused([tool("cocotb-test.sh"), "out", "10", "1"], "four arguments")
        self.refused([tool("cocotb-test.sh"), "out", "many", "1", "make"], "COCOTB_COUNT")
        self.refused([tool("cocotb-test.sh"), "out", "10", "x", "make"], "COCOTB_SEED")

    def test_py_bench(self) -> None:
        py = sys.executable
        self.refused([tool("py-bench.sh"), "out", py], "three arguments")
        self.refused([tool("py-bench.sh"), "out", py, "false"], "PY_BENCH_BEST_FAMILY",
                     PY_BENCH_BEST_FAMILY="f 64")
        self.refused([tool("py-bench.sh"), "out", py, "false"], "BENCH_COUNT", BENCH_COUNT="-1")
        self.refused([tool("py-bench.sh"), "out", py, "false"], "PY_BENCH_COCOTB_COUNT",
                     PY_BENCH_COCOTB_COUNT="0")
        self.refused([tool("py-bench.sh"), "out", py, "false"], "MODEL_BENCH_OPS", MODEL_BENCH_OPS="1e6")
        self.refused([tool("py-bench.sh"), "out", "/nonexistent/python", "false"], "no Python")

    def test_farm_run_refuses_before_building(self) -> None:
        # FARM_BUILD_CMD would leave a mark: nothing may run before the knobs are checked.
        with tempfile.TemporaryDirectory() as tmp:
            mark = os.path.join(tmp, "built")
            build = f"touch {mark}"
            results = os.path.join(tmp, "results")
            self.refused([tool("farm-run.sh")], "FARM_SHARDS", FARM_SHARDS="four",
                         FARM_RESULTS=results, FARM_BUILD_CMD=build)
            self.refused([tool("farm-run.sh")], "FARM_SHARDS", FARM_SHARDS="0",
                         FARM_RESULTS=results, FARM_BUILD_CMD=build)
            self.refused([tool("farm-run.sh")], "FARM_RESULTS", FARM_SHARDS="4", FARM_RESULTS="",
                         FARM_BUILD_CMD=build)
            self.refused([tool("farm-run.sh")], "FARM_BUILD_CMD", FARM_SHARDS="4",
                         FARM_RESULTS=results, FARM_BUILD_CMD="", FARM_BIN="")
            self.assertFalse(os.path.exists(mark))
            self.assertFalse(os.path.exists(results))

    def test_farm_sh(self) -> None:
        self.refused([os.path.join(ROOT, "farm", "farm.sh")], "FARM_SHARDS", FARM_SHARDS="x",
                     FARM_RESULTS="/nonexistent")

    def test_gls_build(self) -> None:
        self.refused([tool("gls-build.sh"), "dir", "netlist.v", "fma-cosim"], "usage")

    def test_formal_wrappers(self) -> None:
        self.refused([tool("formal-wrappers.sh"), "bin", "venv/bin"], "usage")

    def test_bench_rebuild(self) -> None:
        self.refused([tool("bench-rebuild.sh")], "usage")

    def test_venv(self) -> None:
        self.refused([tool("venv.sh"), "venv", "no-such-requirements.txt", "stamp"], "usage")
        self.refused([tool("venv.sh"), "venv"], "usage")

    def test_screenshots(self) -> None:
        self.refused([tool("screenshots.sh"), "dir"], "usage")
        self.refused([tool("screenshots.sh"), "dir", "/nonexistent/fma-cosim"], "no fma-cosim")

    def test_footprint(self) -> None:
        self.refused(["bash", tool("footprint.sh"), "/bin/true", "many"], "OPS", VALGRIND="true")

    def test_sweep(self) -> None:
        self.refused(["python3", tool("sweep.py")], "--cosim")
        self.refused(["python3", tool("sweep.py"), "--cosim", "/bin/true", "--model", "/bin/true",
                      "--only", "eval,bogus"], "unknown category bogus")
        self.refused(["python3", tool("sweep.py"), "--cosim", "/nonexistent", "--model",
                      "/bin/true"], "no such executable")


def write_exe(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class AptInstall(unittest.TestCase):
    """tools/apt-install.sh against stand-ins: who the user is, whether sudo works, what dpkg
    lists as installed; apt-get only records how it was called."""

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="apt-install-test-")
        self.bin = os.path.join(self.dir, "bin")
        self.log = os.path.join(self.dir, "apt-get.log")
        os.mkdir(self.bin)
        write_exe(os.path.join(self.bin, "apt-get"),
                  f'#!/bin/sh\necho "$*" >> {self.log}\nexit "${{FAKE_APT_RC:-0}}"\n')
        write_exe(os.path.join(self.bin, "id"), '#!/bin/sh\necho "${FAKE_UID:-1000}"\n')
        write_exe(os.path.join(self.bin, "sudo"),
                  '#!/bin/sh\n[ "${FAKE_SUDO:-no}" = yes ] || exit 1\n[ "$1" = -n ] && shift\nexec "$@"\n')
        write_exe(os.path.join(self.bin, "dpkg-query"),
                  '#!/bin/sh\nfor p in $FAKE_INSTALLED; do [ "$p" = "$3" ] && '
                  'printf "install ok installed" && exit 0; done\nexit 1\n')

    def tearDown(self) -> None:
        shutil.rmtree(self.dir)

    def apt(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        e = clean_env(PATH=self.bin + os.pathsep + os.environ.get("PATH", ""), **env)
        return run([tool("apt-install.sh"), *args], e)

    def calls(self) -> list[str]:
        if not os.path.exists(self.log):
            return []
        with open(self.log, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_a_found_command_installs_nothing(self) -> None:
        r = self.apt("--need", "sh", "--for", "make x", "some-package")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        self.assertEqual(self.calls(), [])

    def test_installed_packages_are_left_alone(self) -> None:
        r = self.apt("--for", "make x", "a", "b", FAKE_INSTALLED="a b")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        self.assertEqual(self.calls(), [])

    def test_without_root_or_sudo_one_line_says_how(self) -> None:
        r = self.apt("--need", "no-such-command-here", "--for", "make cpu-test", "qemu-user", "b",
                     FAKE_INSTALLED="b")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr, "error: make cpu-test needs qemu-user; as root: apt-get install -y "
                                   "qemu-user\n")
        self.assertEqual(self.calls(), [])

    def test_warn_goes_on(self) -> None:
        r = self.apt("--warn", "--for", "the fast RTL build", "clang")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "warning: the fast RTL build needs clang; as root: apt-get "
                                   "install -y clang\n")
        self.assertEqual(self.calls(), [])

    def test_root_installs_only_what_is_missing(self) -> None:
        r = self.apt("--no-recommends", "--for", "make screenshots", "xvfb", "gtkwave", "netpbm",
                     FAKE_UID="0", FAKE_INSTALLED="gtkwave")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "installing xvfb netpbm with apt-get for make screenshots\n")
        self.assertEqual(self.calls(), ["update -qq",
                                        "install -y -qq --no-install-recommends xvfb netpbm"])

    def test_password_less_sudo_installs(self) -> None:
        r = self.apt("--for", "make deps", "verilator", FAKE_SUDO="yes")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.calls(), ["update -qq", "install -y -qq verilator"])

    def test_a_failed_apt_get_is_exit_1(self) -> None:
        r = self.apt("--for", "make deps", "verilator", FAKE_UID="0", FAKE_APT_RC="100")
        self.assertEqual(r.returncode, 1)
        self.assertIn("error: apt-get could not install verilator for make deps", r.stderr)


class SweepJudge(unittest.TestCase):
    """tools/sweep.py's judgement of a call, on made-up answers (nothing is run)."""

    @classmethod
    def setUpClass(cls) -> None:
        sys.path.insert(0, HERE)
        sys.dont_write_bytecode = True
        import sweep
        cls.sweep = sweep

    def judge(self, expect, rc, out=b"", err=b"", sig=None, stdin=None, survivors=()) -> list:
        s = self.sweep
        case = s.Case("calls", "t", ["fma-cosim", "run"], expect=expect, stdin=stdin)
        res = s.Result(rc=rc, signal=sig, stdout=out, stderr=err, seconds=1.0,
                       survivors=list(survivors), before={}, after={})
        return s.classify(case, res)

    def test_a_refusal_is_exit_2_in_one_line(self) -> None:
        self.assertEqual(self.judge("refuse", 2, err=b"error: `--count`: out of range\n"), [])
        self.assertTrue(self.judge("refuse", 0))
        self.assertTrue(self.judge("refuse", 1, err=b"error: x\n"))
        self.assertTrue(self.judge("refuse", 2, err=b"error: x\nUsage: fma-cosim\n"))
        self.assertTrue(self.judge("refuse", 2, out=b"ran\n", err=b"error: x\n"))
        # A tool's diagnosis: the error line, then indented lines of its own.
        self.assertEqual(self.judge("fail", 2, err=b"error: verilating failed\n  %Error: x\n"), [])

    def test_panics_signals_hangs_and_orphans_are_bad(self) -> None:
        self.assertTrue(self.judge("any", 101, err=b"thread 'main' panicked at src/x.rs:1:1\n"))
        self.assertTrue(self.judge("any", None, sig=6))
        self.assertTrue(self.judge("any", None))  # no exit in time
        self.assertTrue(self.judge("any", 0, survivors=[1234]))
        self.assertEqual(self.judge("any", 1), [])
        self.assertTrue(self.judge("signal", 130, err=b"error: x\n"))
        self.assertEqual(self.judge("signal", 130, err=b"\ninterrupted: finishing\n"), [])

    def test_eval_lines_answer_line_by_line(self) -> None:
        lines = b"fma.rn.f32 0x1 0x2 0x3\n// c\nbad\n"
        self.assertEqual(self.judge("eval", 1, out=b"0x00000001\nerror: 3: no\n", stdin=lines), [])
        self.assertTrue(self.judge("eval", 0, out=b"0x00000001\nerror: 3: no\n", stdin=lines))
        self.assertTrue(self.judge("eval", 1, out=b"error: 3: no\n", stdin=lines))  # a line lost
        self.assertTrue(self.judge("eval", 1, out=b"0x1\nerror: 9: no\n", stdin=lines))
        self.assertTrue(self.judge("eval", 2, out=b"", stdin=lines))

    def test_files_of_the_user_and_of_a_failed_call(self) -> None:
        s = self.sweep
        with tempfile.TemporaryDirectory() as d:
            case = s.Case("outputs", "t", ["x"])
            s._CASE_DIRS[id(case)] = d
            with open(os.path.join(d, "r.json"), "w") as f:
                f.write('{"a": ')
            res = s.Result(rc=2, signal=None, stdout=b"", stderr=b"error: x\n", seconds=0,
                           survivors=[], before={"mine.txt": "1", "keep": "2"},
                           after={"keep": "3", "r.json": "4", "new": "dir",
                                  ".r.json.jsontmp12@host": "5"})
            problems = " | ".join(s.file_problems(case, res))
            for says in ("mine.txt was deleted", "keep was changed", "half-written file r.json",
                         "directory new left", "temporary .r.json.jsontmp12@host"):
                self.assertIn(says, problems)


# A rule's line: `target: ...` (not `:=`, not a recipe, not a comment).
RULE = re.compile(r"^([^#\s][^:=]*):(?!=)")


class Help(unittest.TestCase):
    """`make help` lists every target of the Makefile once, each with its text."""

    @classmethod
    def setUpClass(cls) -> None:
        r = run(["make", "--no-print-directory", "-s", "help"])
        assert r.returncode == 0, r.stderr
        cls.listed = {}
        for line in r.stdout.splitlines():
            name, _, text = line.strip().partition(" ")
            assert name not in cls.listed, f"{name} listed twice"
            cls.listed[name] = text.strip()
        with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
            cls.lines = f.read().splitlines()

    def expand(self, names: list[str]) -> list[str]:
        """The names as make expands them (`$(PY_VENV)/.stamp`)."""
        rule = "__scripts_test_names: ; @printf '%s\\n' " + " ".join(names)
        r = run(["make", "--no-print-directory", "-s", f"--eval={rule}", "__scripts_test_names"])
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.split()

    def test_every_rule_line_has_its_text(self) -> None:
        for line in self.lines:
            m = RULE.match(line)
            if not m or line.startswith(".PHONY") or re.match(r"^[^:]+:\s*export\s", line) \
                    or re.match(r"^[^:]+:\s*\w+\s*=", line):
                continue
            self.assertIn(" ## ", line, f"no `## text` on: {line}")

    def test_help_lists_every_target_of_the_database(self) -> None:
        # The targets make knows (its database, with no built-in rules), against help's list.
        r = run(["make", "--no-print-directory", "-pRrq", "help"])
        targets, not_a_target = set(), False
        for line in r.stdout.splitlines():
            if line.startswith("# Not a target"):
                not_a_target = True
                continue
            m = RULE.match(line)
            if m and not line.startswith((".", "#")) and not not_a_target:
                targets.add(m.group(1).strip())
            not_a_target = False
        self.assertIn("structure-test", targets)
        listed = dict(zip(self.expand(list(self.listed)), self.listed.values()))
        self.assertEqual(sorted(targets - set(listed)), [], "targets missing from make help")
        self.assertEqual(sorted(set(listed) - targets), [], "make help lists what is no target")
        for name, text in listed.items():
            self.assertTrue(text, f"{name} has no text")

    def test_every_plain_target_is_phony(self) -> None:
        r = run(["make", "--no-print-directory", "-pRrq", "help"])
        phony = set()
        for line in r.stdout.splitlines():
            if line.startswith(".PHONY:"):
                phony.update(line.split(":", 1)[1].split())
        plain = {n for n in self.listed if re.fullmatch(r"[a-z-]+", n)}
        self.assertEqual(sorted(plain - phony), [])

    def test_structure_test_is_in_the_lint_group(self) -> None:
        group = next(line for line in self.lines if "$(TEST_SIDE_BY_SIDE) clippy" in line)
        for step in ("clippy", "lint", "structure-test", "scripts-test"):
            self.assertIn(f" {step} ", group + " ")


if __name__ == "__main__":
    unittest.main(verbosity=2)
