"""pytest-playwright and this plugin in one pytest run: a plain pytest-playwright test (its `page`,
`browser`, `browser_name`, `--browser`, `browser_type_launch_args`) passes next to flowui_* tests.

Each case runs a separate pytest on a fresh folder (the plugins load from their entry points, as
in a user's project) with `--browser NAME --engine NAME`, and reads its JUnit XML.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PLAIN = '''
import re


def test_set_content(page):
    page.set_content("<h1 id='t'>hello</h1>")
    assert page.inner_text("#t") == "hello"


def test_goto(page):
    page.goto("data:text/html,<title>from goto</title><p>x</p>")
    assert page.title() == "from goto"
    assert re.match("data:", page.url)


def test_browser_and_browser_name(browser, browser_name, context):
    assert browser.browser_type.name == browser_name
    assert context.browser is browser


@pytest.mark.parametrize("browser_type_launch_args", [{"args": ["--mute-audio"], "slow_mo": 1}], indirect=True)
def test_launch_args_from_a_parameter_are_kept(browser_type_launch_args):
    assert browser_type_launch_args["slow_mo"] == 1
    assert "--mute-audio" in browser_type_launch_args.get("args", [])
'''

FLOWUI = '''
def test_flowui_page(flowui_page, flowui_server, flowui_engine):
    flowui_page.goto(flowui_server.add_page("<title>flowui</title>"))
    assert flowui_page.evaluate("() => document.title") == "flowui"
    assert flowui_page.name == flowui_engine.name


def test_both_in_one_test(page, flowui_host):
    page.set_content("<p id='p'>playwright</p>")
    block = flowui_host.mount("<button id='b' onclick=\\"flowUi.send('hello')\\">hi</button>", block_id="b")
    block.click("#b")
    assert block.wait_for_traffic("actions")[0]["action"] == "hello"
    assert page.inner_text("#p") == "playwright"
'''

# A conftest override of pytest-playwright's fixture, as its docs show: it has the last word.
OVERRIDE_CONFTEST = '''
import pytest


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "slow_mo": 5}
'''
OVERRIDE_TEST = '''
def test_the_conftest_override_wins(browser_type_launch_args, page):
    assert browser_type_launch_args["slow_mo"] == 5
    page.set_content("<b>ok</b>")
    assert page.inner_text("b") == "ok"
'''


def _write(folder: Path, name: str, text: str, header: str = "import pytest\n") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(header + textwrap.dedent(text), encoding="utf-8")


def _outcomes(junit: Path) -> dict[str, tuple[str, str]]:
    """test name (with its parameters) -> (passed | failed | error | skipped, message)."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag if child.tag != "failure" else "failed"
                message = (child.get("message") or "") + "\n" + (child.text or "")
        found[case.get("name")] = (outcome, message)
    return found


@pytest.mark.timeout(900)
def test_a_plain_pytest_playwright_test_runs_next_to_the_plugin(flowui_engine, tmp_path):
    project = tmp_path / "project"
    _write(project, "test_plain.py", PLAIN)
    _write(project, "test_flowui.py", FLOWUI, header="")
    _write(project / "overridden", "conftest.py", OVERRIDE_CONFTEST, header="")
    _write(project / "overridden", "test_override.py", OVERRIDE_TEST, header="")
    junit = tmp_path / "junit.xml"
    name = flowui_engine.name
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(project), "--junitxml", str(junit),
         "--browser", name, "--engine", name, "--output", str(tmp_path / "results"), str(project)],
        cwd=project, capture_output=True, text=True, timeout=840, check=False, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    report = f"exit {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert junit.exists(), report
    outcomes = _outcomes(junit)
    def named(test: str) -> dict[str, tuple[str, str]]:
        return {k: v for k, v in outcomes.items() if k.split("[")[0] == test}

    # The flowui_* test passes on every engine, WebKitGTK included (its own WebDriver driver).
    assert list(named("test_flowui_page").values()) == [("passed", "")], report
    # The launch arguments of an indirect parameter reach pytest-playwright's fixture (no browser needed).
    assert [v[0] for v in named("test_launch_args_from_a_parameter_are_kept").values()] == ["passed"], report
    plain = {k: v for test in ("test_set_content", "test_goto", "test_browser_and_browser_name",
                               "test_the_conftest_override_wins", "test_both_in_one_test") for k, v in named(test).items()}
    assert len(plain) == 5, (sorted(outcomes), report)
    if flowui_engine.driver == "playwright":
        # Playwright drives this engine (its own build, or Debian's handed to pytest-playwright by
        # the plugin): every plain pytest-playwright test passes.
        bad = {k: v[0] for k, v in outcomes.items() if v[0] != "passed"}
        assert not bad, (bad, report)
        assert done.returncode == 0, report
    else:
        # WebKitGTK is no Playwright browser: pytest-playwright's webkit needs Playwright's own
        # build, and says so; the plugin neither hides nor replaces that.
        for test, (outcome, message) in plain.items():
            assert outcome == "error" and "playwright install" in message, (test, outcome, message[:500], report)
