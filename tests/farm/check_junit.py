#!/usr/bin/env python3
"""check_junit.py JUNIT.xml WORD: exit 0 when some <testcase> has a <failure> whose message or
text mentions WORD; otherwise prints what the file holds and exits 1."""
import sys
import xml.etree.ElementTree as ET

if len(sys.argv) != 3:
    sys.exit(__doc__)
path, word = sys.argv[1], sys.argv[2]
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError) as e:
    print(f"check_junit: cannot parse {path}: {e}", file=sys.stderr)
    sys.exit(1)

cases = list(root.iter("testcase"))
failing = []
for case in cases:
    for fl in case.findall("failure"):
        text = " ".join(filter(None, (fl.get("message"), fl.get("type"), fl.text)))
        failing.append((case, text))
        if word in text:
            name = f"{case.get('classname', '')}.{case.get('name', '')}".strip(".")
            first = next((l for l in text.splitlines() if word in l), text[:120]).strip()
            print(f"check_junit: {path}: testcase {name} fails: {first}")
            sys.exit(0)

print(f"check_junit: {path}: {len(cases)} testcases, {len(failing)} with a <failure>, "
      f"none mentioning {word!r}", file=sys.stderr)
for case, text in failing[:5]:
    print(f"  {case.get('name')}: {text[:200]!r}", file=sys.stderr)
sys.exit(1)
