"""``review --remote``: the command with one browser server per engine, blocks spread over two
servers when one of them is killed, and the one-line refusals of a bad ``--remote``. (The
findings through browser servers against a local run: test_review_remote.py.)
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from remote_blocks import remote_blocks

from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.engines.remote import parse_remote
from flowui_sandbox.sandbox.errors import Recovered
from flowui_sandbox.sandbox.review.browser import run_browser_layer

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.timeout(600)
def test_a_killed_server_s_blocks_are_reviewed_on_the_other(browser_servers):
    two_chromium_servers = browser_servers(["chromium", "chromium"])
    doomed, survivor = two_chromium_servers
    blocks = remote_blocks()
    lines: list[str] = []

    def progress(line: str) -> None:
        lines.append(line)
        if len(lines) == 1:  # one block done: the doomed server's next one is in flight or about to start
            doomed.kill()

    # One page per server, so the doomed one holds a block when it goes; the loss is said once.
    with pytest.warns(Recovered, match=rf"^chromium@{doomed.url}: lost \(.*\); its blocks go to the engine's other browsers$"):
        remote = run_browser_layer(blocks, ["chromium"], remote=parse_remote([f"chromium:1={s.url}" for s in two_chromium_servers]),
                                   progress=progress)
    for block, result in zip(blocks, remote):
        assert not result.errors and not result.timed_out, (block.file, result.errors, result.timed_out)
    rules = {b.file: {f.rule for f in r.findings} for b, r in zip(blocks, remote)}
    assert "exfil.state-to-url" in rules["exfil_image"] and "bridge.send" in rules["benign_form_send"], rules
    assert "bridge.open-url" in rules["exfil_openurl"], rules
    # After the kill, every block was reviewed on the survivor but at most two the doomed server's
    # slot took before it noticed the loss: the block in flight (done, or failed) and the next one
    # on the same page, which fails at once. A failed one is reviewed again on the survivor, its
    # line staying where it was first reported (late on a loaded machine: CI saw a doomed line at
    # index 2 or after); its verdict has no error (above).
    after = [line for line in lines[1:] if f"chromium@{survivor.url}" not in line]
    assert len(after) <= 2 and all(f"chromium@{doomed.url}" in line for line in after), lines


@pytest.mark.timeout(600)
def test_review_remote_command(browser_servers, tmp_path):
    one_server_per_engine = browser_servers(["chromium", "webkit"])
    sarif, report = tmp_path / "r.sarif", tmp_path / "r.json"
    hostile = str(ROOT / "examples/hostile.html")
    # And a Chromium browser that does not answer (a port nobody listens on): the review goes on
    # on the one that does, and says so in one note line (verify's rule).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        silent = f"ws://127.0.0.1:{s.getsockname()[1]}/x"
    remote = [arg for s in one_server_per_engine for arg in ("--remote", s.spec)] + ["--remote", f"chromium={silent}"]
    # The remote browsers reach the proxies by the name given (--public-host, as for a browser
    # elsewhere); sockets stay on 127.0.0.1.
    argv = [sys.executable, "-m", "flowui_sandbox", "review", hostile, "--fields", "order.total,customer.email", *remote,
            "--bind", "127.0.0.1", "--public-host", "localhost"]
    # One review, two reports (each -o's format by its ending).
    run = subprocess.run([*argv, "-o", str(report), "-o", str(sarif)], capture_output=True, text=True, timeout=400)
    assert run.returncode == 1, run.stderr[-2000:]  # the block leaks: high findings
    notes = [line for line in run.stderr.splitlines() if line.startswith("flowui-sandbox review: note: ")]
    assert len(notes) == 1 and f"--remote chromium: {silent}: " in notes[0] and notes[0].endswith("the engine's blocks go to its other browsers"), run.stderr[-2000:]
    data = json.loads(report.read_text())
    assert data["engines"] == ["chromium", "webkit"]
    block = data["blocks"][0]
    assert not block["browser"]["errors"] and not block["browser"]["timed_out"], block["browser"]
    assert sorted(block["browser"]["screenshots"]) == ["chromium", "webkit"]  # the JSON report holds them
    leak = [f for f in block["findings"] if f["rule"] == "exfil.state-to-url" and f["paths"] == ["order.total"]]
    assert len(leak) == 1 and leak[0]["engines"] == ["chromium", "webkit"], block["findings"]
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    seen = {e for r in results for e in r["properties"].get("engines", [])}
    assert seen == {"chromium", "webkit"}, results[:3]


@pytest.mark.parametrize(("remote", "says"), [
    (["--remote", "chromium"], "--remote chromium: expected ENGINE[:PAGES]=URL"),
    (["--remote", "opera=ws://127.0.0.1:1/x"], "unknown engine 'opera'"),
    (["--remote", "chromium=http://127.0.0.1:1"], "a WebDriver endpoint is supported for webkit only"),
    (["--remote", "chromium=ws://127.0.0.1:9/x", "--engine", "firefox"], "chromium is not among the --engine given"),
    (["--static", "--remote", "chromium=ws://127.0.0.1:9/x"], "--static runs no browser"),
])
def test_a_bad_remote_is_one_line_and_status_2(remote, says, capsys):
    argv = ["review", str(ROOT / "examples/starter.html"), *remote]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and err.startswith("flowui-sandbox review: error: "), err


def test_an_unreachable_remote_is_one_line_and_status_2(capsys):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["review", str(ROOT / "examples/starter.html"), "--remote", f"webkit=http://127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--remote webkit: http://127.0.0.1:{port}: " in err and "does not answer" in err, err
