"""tests/browser/ci_skips.py in a pytest of its own: with ``CI=true`` a skipped test fails, from a
test, a fixture or a mark; without it a skip stays a skip; an expected failure stays one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BROWSER_TESTS = Path(__file__).resolve().parent / "browser"

CASES = """
import pytest

def test_skips_itself():
    pytest.skip("no engine")

@pytest.fixture
def engine():
    pytest.skip("engine missing")

def test_through_a_fixture(engine):
    pass

@pytest.mark.skip(reason="marked")
def test_marked():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_expected_to_fail():
    assert False

def test_runs():
    pass
"""


def outcomes(tmp_path: Path, ci: str) -> str:
    (tmp_path / "test_cases.py").write_text(CASES, encoding="utf-8")
    env = {**os.environ, "CI": ci, "PYTHONPATH": os.pathsep.join([str(BROWSER_TESTS), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "ci_skips", "-p", "no:cacheprovider", "-p", "no:flowui_sandbox",
                          "-q", "-rA", str(tmp_path)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    return run.stdout


def test_with_ci_every_skip_fails(tmp_path):
    out = outcomes(tmp_path, "true")
    # a skip in the call fails it; one in the set-up (a fixture, a mark) is an error
    assert "1 failed, 1 passed, 1 xfailed, 2 errors" in out, out
    assert "skipped with CI=true (no engine)" in out and "(engine missing)" in out and "(marked)" in out, out


def test_without_ci_a_skip_is_a_skip(tmp_path):
    out = outcomes(tmp_path, "")
    assert "1 passed, 3 skipped, 1 xfailed" in out, out
