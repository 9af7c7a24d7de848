"""verify through browser servers gives what verify gives locally, and survives losing one server.

Per engine: two browser servers on 127.0.0.1 (Playwright browser servers for Chromium
and Firefox, WebKitWebDriver for WebKit) as subprocesses, started with
``flowui_sandbox.sandbox.harness.browser_server`` as a browser machine would; then ``flowui-sandbox verify``
itself (a subprocess, ``--json``) through them and on this machine, compared probe by probe.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.verify.probes import load_catalogue

#: Probes of several kinds: host secrets, the network, a dialog event, storage, the bridge,
#: and one whose verdict differs between engines (ancestorOrigins).
PROBES = ["host.dom_read", "host.ancestor_origins", "network.fetch", "ui.alert", "storage.indexeddb", "bridge.bad_action_name"]
#: What `--probe` selects with them (it takes prefixes).
SELECTED = sorted(p.id for p in load_catalogue() if any(p.id.startswith(prefix) for prefix in PROBES))
#: A probe that watches 9 s, for the test that kills a server while it holds it.
LONG = "bridge.openurl_no_gesture"


def _verify(tmp: Path, name: str, engine: str, remote: list[str], *, probes: list[str] = PROBES, on_progress=None,
            timeout: float = 400) -> dict:
    out = tmp / f"{name}.json"
    argv = [sys.executable, "-m", "flowui_sandbox", "verify", "--engine", engine, "--json", str(out)]
    for probe in probes:
        argv += ["--probe", probe]
    for spec in remote:
        argv += ["--remote", spec]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if on_progress is not None:
        for line in process.stderr:
            if line.startswith("["):
                on_progress(line)
    stdout, stderr = process.communicate(timeout=timeout)
    assert process.returncode in (0, 1), f"verify exited {process.returncode}: {stderr[-2000:]}"
    return json.loads(out.read_text())


def _outcomes(report: dict) -> dict[str, tuple[str, str]]:
    return {r["probe"]: (r["status"], r["verdict"]) for r in report["results"]}


@pytest.mark.timeout(900)
def test_remote_verify_gives_the_local_json(flowui_engine, two_servers, tmp_path):
    remote = _verify(tmp_path, "remote", flowui_engine.name, [s.spec for s in two_servers])
    local = _verify(tmp_path, "local", flowui_engine.name, [])
    assert sorted(_outcomes(remote)) == SELECTED
    assert _outcomes(remote) == _outcomes(local)
    assert remote["summary"] == local["summary"]
    assert remote["probes"] == local["probes"]
    # The work was spread: both servers ran probes, and every result names its browser.
    browsers = remote["engines"][0]["browsers"]
    assert sorted(b["url"] for b in browsers) == sorted(s.url for s in two_servers)
    assert all(b["probes"] > 0 for b in browsers), browsers
    assert sum(b["probes"] for b in browsers) == len(SELECTED)
    assert {r["observed"]["browser"] for r in remote["results"]} == {s.url for s in two_servers}
    assert "browsers" not in local["engines"][0]


@pytest.mark.timeout(900)
def test_a_killed_server_s_probes_run_on_the_other(flowui_engine, two_servers, tmp_path):
    doomed, survivor = two_servers
    killed_at: list[float] = []

    def on_progress(line: str) -> None:
        if not killed_at:  # the first probe is done; the long one is still in flight on the doomed server
            doomed.kill()
            killed_at.append(time.monotonic())

    # The probes go out in id order, each server's pages taking the next: the long probe (a 9 s
    # window, blocked) is the doomed server's second. With short probes only, a kill that came late
    # on a loaded machine could find the doomed server done with all it had, and nothing to move.
    report = _verify(tmp_path, "killed", flowui_engine.name, [s.spec for s in two_servers], probes=PROBES + [LONG],
                     on_progress=on_progress)
    assert killed_at
    outcomes = _outcomes(report)
    assert sorted(outcomes) == sorted(SELECTED + [LONG])
    assert {r["probe"]: r["observed"]["browser"] for r in report["results"]}[LONG] == survivor.url, "the long probe was not moved"
    bad = {p: o for p, o in outcomes.items() if o[0] == "error" or o[1] == "UNEXPECTED"}
    assert not bad, bad
    browsers = {b["url"]: b for b in report["engines"][0]["browsers"]}
    assert browsers[doomed.url].get("lost"), browsers
    assert not browsers[survivor.url].get("lost"), browsers
    assert report["engines"][0]["error"] == ""
