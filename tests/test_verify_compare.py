"""bench/verify_compare.py: two verify JSON files compared probe by probe, engine by engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "verify_compare.py"


def _report(tmp_path: Path, name: str, results: list[tuple[str, str, str, str]]) -> str:
    data = {
        "wall_seconds": 1.0, "summary": {}, "engines": [],
        "results": [{"probe": p, "engine": e, "status": s, "verdict": v} for p, e, s, v in results],
    }
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=30)


def test_equal_files_agree(tmp_path):
    rows = [("a.x", "chromium", "blocked", "held"), ("a.x", "webkit", "allowed", "allowed")]
    done = _run(_report(tmp_path, "a.json", rows), _report(tmp_path, "b.json", rows))
    assert done.returncode == 0, done.stdout
    assert "every (probe, engine) pair agrees" in done.stdout


def test_a_changed_outcome_and_a_missing_pair_are_named(tmp_path):
    before = _report(tmp_path, "a.json", [("a.x", "chromium", "blocked", "held"), ("a.y", "firefox", "blocked", "held")])
    after = _report(tmp_path, "b.json", [("a.x", "chromium", "allowed", "UNEXPECTED")])
    done = _run(before, after)
    assert done.returncode == 1
    assert "a.x [chromium]: blocked/held -> allowed/UNEXPECTED" in done.stdout
    assert "a.y [firefox]: only in the first file" in done.stdout
    # --common: only the pairs both hold (a subset run).
    done = _run("--common", before, after)
    assert done.returncode == 1 and "a.y" not in done.stdout


def test_an_unexercised_run_is_marked(tmp_path):
    before = _report(tmp_path, "a.json", [("a.x", "firefox", "invalid", "UNEXPECTED")])
    after = _report(tmp_path, "b.json", [("a.x", "firefox", "blocked", "held")])
    done = _run(before, after)
    assert done.returncode == 1 and "(not exercised)" in done.stdout


def test_an_unreadable_file_is_one_located_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    done = _run(str(bad), str(bad))
    assert done.returncode == 2
    assert done.stderr.startswith(f"{bad}:1:1: ") and len(done.stderr.strip().splitlines()) == 1
