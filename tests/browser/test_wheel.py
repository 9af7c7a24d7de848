"""Installed from a wheel, every command works: the probes and the examples are package data.

Builds the wheel from this checkout, installs it (with its dependencies) into a fresh virtual
environment, and runs each command there from a folder outside the repository, ending with
the issue's own check: ``flowui-sandbox verify --engine chromium --probe host.dom_read``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.engines import find_engines
from flowui_sandbox.sandbox.plugin.fixtures import in_ci

ROOT = Path(__file__).resolve().parent.parent.parent

#: Building the wheel and installing its dependencies into a fresh environment takes a minute or
#: two on a quiet machine (pip's cache is warm after `make setup`), far more under load.
pytestmark = pytest.mark.timeout(1800)


def _run(args, cwd, timeout=300):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh environment's bin folder, a work folder outside the repository)."""
    if not any(e.name == "chromium" for e in find_engines()):
        (pytest.fail if in_ci() else pytest.skip)("Chromium is not installed")
    base = tmp_path_factory.mktemp("wheel")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", base / "dist", ROOT], base, 600)
    assert built.returncode == 0, built.stderr
    # A folder setuptools sees as importable but is not told about (bridge/host, the editor's static
    # files) makes it warn at length at every install, and would be left out of a wheel built by
    # its package discovery: each is listed in pyproject.toml.
    assert "absent from the `packages` configuration" not in built.stderr, built.stderr[-3000:]
    wheels = list((base / "dist").glob("flowui_sandbox-*.whl"))
    assert len(wheels) == 1, wheels
    venv.create(base / "env", with_pip=True)
    bin_dir = base / "env" / "bin"
    pip = _run([bin_dir / "python", "-m", "pip", "install", "-q", wheels[0]], base, 900)
    assert pip.returncode == 0, pip.stderr
    work = base / "work"
    work.mkdir()
    return bin_dir, work


def test_the_wheel_holds_one_top_level_name_and_its_data(installed):
    bin_dir, work = installed
    run = _run([bin_dir / "python", "-c", "import flowui_sandbox, importlib.util as u;"
                "from flowui_sandbox.sandbox.data import PROBES_DIR, EXAMPLES_DIR;"
                "print(flowui_sandbox.__file__, PROBES_DIR, EXAMPLES_DIR, [n for n in ('sandbox', 'bridge', 'theme') if u.find_spec(n)], sep='\\n')"],
               work)
    assert run.returncode == 0, run.stderr
    init, probes, examples, claimed = run.stdout.splitlines()
    site = Path(init).parent
    assert "site-packages" in init and not init.startswith(str(ROOT))
    assert Path(probes) == site / "probes" and any(Path(probes).glob("host.dom_read.*"))
    assert Path(examples) == site / "examples" and (Path(examples) / "starter.html").is_file()
    scripts = ("sandbox/verify/probe-helper.js", "sandbox/verify/host-page.js", "sandbox/review/browser/host-page.js",
               "sandbox/review/browser/block-frame.js")
    assert [s for s in scripts if not (site / s).is_file()] == []
    assert claimed == "[]"


def test_every_command_runs_from_the_wheel(installed):
    bin_dir, work = installed
    cli = bin_dir / "flowui-sandbox"
    site = Path(_run([bin_dir / "python", "-c", "import flowui_sandbox; print(flowui_sandbox.__file__)"], work)
                .stdout.strip()).parent
    starter, examples = site / "examples" / "starter.html", site / "examples"
    fields = "order.items,draft.email,draft.agree"
    checks = {
        "engines": ([cli, "engines"], "chromium"),
        "paths": ([cli, "paths", starter], "order.total"),
        "build": ([cli, "build", starter, "--state", examples / "starter.state.json", "--fields", fields,
                   "--block-id", "starter", "--page", "-o", work / "starter.html"], ""),
        "review": ([cli, "review", starter, "--static", "--fields", fields, "--format", "json"], '"findings"'),
        "document": ([cli, "document", examples / "document.json"], ""),
        "diff": ([cli, "diff", examples / "state.before.json", examples / "state.after.json"], '"op"'),
        "python -m": ([bin_dir / "python", "-m", "flowui_sandbox", "--help"], "verify"),
    }
    for name in ("generate", "edit", "browser-server", "verify"):
        checks[f"{name} --help"] = ([cli, name, "--help"], "usage:")
    failed = {}
    for name, (args, expect) in checks.items():
        run = _run(args, work)
        if run.returncode != 0 or expect not in run.stdout:
            failed[name] = (run.returncode, run.stdout[-300:], run.stderr[-300:])
    assert not failed, failed
    refused = _run([cli, "generate", "--check"], work)  # derived files belong to a checkout
    assert refused.returncode == 2 and refused.stderr.startswith("flowui-sandbox generate: error: "), refused.stderr
    page = (work / "starter.html").read_text(encoding="utf-8")  # the host page mounts the block itself
    assert "importmap" in page and "mountHtmlBlock" in page


def test_verify_runs_a_probe_from_the_wheel(installed):
    bin_dir, work = installed
    run = _run([bin_dir / "flowui-sandbox", "verify", "--engine", "chromium", "--probe", "host.dom_read",
                "--json", work / "verify.json", "-q"], work, 600)
    assert run.returncode == 0, (run.stdout, run.stderr)
    report = json.loads((work / "verify.json").read_text(encoding="utf-8"))
    assert [p["id"] for p in report["probes"]] == ["host.dom_read"]
    assert [r["engine"] for r in report["engines"]] == ["chromium"] and not report["engines"][0]["error"]
    assert len(report["results"]) == 1 and report["results"][0]["verdict"] == "held", report["results"]
