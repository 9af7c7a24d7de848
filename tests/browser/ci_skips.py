"""With ``CI=true`` a skipped browser test is a failure (an error when a fixture or a mark skips it): every engine and every case must run in
CI, and a skip from anywhere (a fixture, a plugin, pytest-playwright, a test) would otherwise pass
quietly. tests/browser/conftest.py takes the hook; tests/test_ci_skips.py runs it in a pytest of
its own."""

from __future__ import annotations

import pytest

from flowui_sandbox.sandbox.plugin.fixtures import in_ci


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = (report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)).removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = f"skipped with CI=true ({reason}): in CI every browser test runs"
