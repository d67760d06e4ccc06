#!/usr/bin/env python3
"""Tests of `tools/mutate.py --check-study` (`make mutate-test`): the recorded all-sites study
(tools/mutate-all-study.json) leaves no survivor unjudged, and the check fails when a
judgement goes missing or the RTL's sites are no longer the ones the study ran."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "tools" / "mutate-all-study.json"
JUDGED = ROOT / "tools" / "mutate-equivalent.json"


def check(*args):
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "mutate.py"), "--check-study",
                        *args], capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


class CheckStudy(unittest.TestCase):
    def test_every_survivor_of_the_recorded_study_is_judged(self):
        rc, out, err = check(str(STUDY))
        blind = [l for l in out.splitlines() if l.startswith("blind spot")]
        self.assertEqual(len(blind), 0, "survivors of the recorded study with no judgement, "
                         "first: " + "; ".join(blind[:3]))
        self.assertEqual(rc, 0, err)
        self.assertIn("--compare registers: killed", out)
        self.assertIn("--compare ports: killed", out)

    def test_a_judgement_taken_away_is_a_blind_spot(self):
        judged = json.loads(JUDGED.read_text())
        study = json.loads(STUDY.read_text())
        surv = {(r["file"], r["mutated"].strip()) for r in study["mutants"]
                if any(r[m]["verdict"] == "survived" for m in study["modes"])}
        gone = next(e for e in judged if (e["file"], e["mutated"].strip()) in surv)
        with tempfile.TemporaryDirectory() as d:
            less = Path(d) / "judged.json"
            less.write_text(json.dumps([e for e in judged if e is not gone]))
            rc, out, _ = check(str(STUDY), "--equivalent", str(less))
        self.assertEqual(rc, 1)
        self.assertIn(f"({gone['file']}:", "\n".join(l for l in out.splitlines()
                                                    if l.startswith("blind spot")))

    def test_a_study_of_other_sites_is_refused_as_stale(self):
        study = json.loads(STUDY.read_text())
        study["mutants"][0]["mutated"] += " // edited"
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "study.json"
            p.write_text(json.dumps(study))
            rc, _, err = check(str(p))
        self.assertEqual(rc, 2)
        self.assertIn("the study is stale", err)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_a_file_that_is_no_study_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "no.json"
            p.write_text("[1, 2]")
            rc, _, err = check(str(p))
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.strip().splitlines()), 1)


class SettleSurvivors(unittest.TestCase):
    def test_a_file_that_is_no_study_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "no.json"
            p.write_text("[1]")
            r = subprocess.run([sys.executable, str(ROOT / "tools" / "mutate.py"),
                                "--settle-survivors", str(p)],
                               capture_output=True, text=True, cwd=ROOT)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.strip().splitlines(),
                         [f"mutate: {p} is not a `make mutate` study (its --json file)"])


if __name__ == "__main__":
    unittest.main()
