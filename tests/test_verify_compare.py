"""Comparing two verify reports probe by probe (sandbox/verify/compare.py, bench/compare_verify.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.errors import UsageError
from flowui_sandbox.sandbox.verify.compare import compare, compare_files

ROOT = Path(__file__).resolve().parent.parent


def report(*rows: tuple[str, str, str]) -> dict:
    return {"results": [{"probe": p, "engine": e, "status": s, "verdict": "held"} for p, e, s in rows]}


def test_the_same_outcomes_agree():
    rows = [("a.one", "chromium", "blocked"), ("a.one", "firefox", "allowed"), ("b.two", "chromium", "invalid")]
    result = compare(report(*rows), report(*reversed(rows)))
    assert result.agree and len(result.same) == 3
    assert result.lines() == ["2 probes x 2 engines (chromium, firefox): outcomes: 3 the same, 0 changed, 0 in one report only"]


def test_a_changed_or_missing_outcome_is_named():
    before = report(("a.one", "chromium", "blocked"), ("a.one", "webkit", "blocked"), ("c.gone", "chromium", "blocked"))
    after = report(("a.one", "chromium", "allowed"), ("a.one", "webkit", "blocked"), ("d.new", "chromium", "blocked"))
    result = compare(before, after)
    assert not result.agree
    assert result.lines()[:3] == [
        "a.one [chromium]: blocked before, allowed after",
        "c.gone [chromium]: only in the report before",
        "d.new [chromium]: only in the report after",
    ]


def test_a_file_that_is_not_a_report_is_one_located_line(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report(("a.one", "chromium", "blocked"))), encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"results": [{"probe": 1}]}', encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text('{"results": [', encoding="utf-8")
    with pytest.raises(UsageError, match=r"other.json:1:1: results\[0\] has no probe"):
        compare_files(str(good), str(other))
    with pytest.raises(UsageError, match=r"broken.json:1:\d+: "):
        compare_files(str(broken), str(good))


def test_the_script_exits_0_1_2(tmp_path):
    a = tmp_path / "a.json"
    a.write_text(json.dumps(report(("a.one", "chromium", "blocked"))), encoding="utf-8")
    b = tmp_path / "b.json"
    b.write_text(json.dumps(report(("a.one", "chromium", "allowed"))), encoding="utf-8")
    script = [sys.executable, str(ROOT / "bench" / "compare_verify.py")]
    same = subprocess.run([*script, str(a), str(a)], capture_output=True, text=True, timeout=60)
    assert same.returncode == 0 and "outcomes: 1 the same, 0 changed" in same.stdout
    changed = subprocess.run([*script, str(a), str(b)], capture_output=True, text=True, timeout=60)
    assert changed.returncode == 1 and "a.one [chromium]: blocked before, allowed after" in changed.stdout
    bad = subprocess.run([*script, str(a), str(tmp_path / "missing.json")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "missing.json" in bad.stderr and "Traceback" not in bad.stderr
