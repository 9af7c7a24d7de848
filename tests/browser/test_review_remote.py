"""review through browser servers finds what review finds locally.

Per engine: two browser servers on 127.0.0.1 (Playwright browser servers for Chromium and
Firefox, WebKitWebDriver for WebKit), started with ``flowui_sandbox.sandbox.harness.browser_server`` as a
browser machine would; a few corpus blocks (remote_blocks.py) reviewed through them and on this
machine, compared finding by finding. The command itself, a lost server and bad ``--remote``
values: test_review_remote_command.py (a file of its own, so the two run on two workers).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from remote_blocks import remote_blocks

from flowui_sandbox.sandbox.engines.remote import parse_remote
from flowui_sandbox.sandbox.review.browser import run_browser_layer
from flowui_sandbox.sandbox.review.model import BrowserResult


def _findings(result: BrowserResult) -> list[tuple]:
    return sorted((f.rule, tuple(f.paths), tuple(f.hosts), tuple(f.engines)) for f in result.findings)


def _bridge(result: BrowserResult) -> list[tuple]:
    """The bridge calls by kind and what they name (an openUrl by its host: its query holds this run's canaries)."""
    return sorted({(b["type"], b.get("action") or b.get("path") or urlsplit(b.get("url", "")).hostname) for b in result.bridge})


#: The per-block time limit of both runs. What is compared is what the two see, not how fast: a
#: full CI run once took Firefox's review of `benign_form_send` through a browser server past the
#: default 15 s twice (its simulated user alone takes 7-10 s there on a loaded machine).
TIME_LIMIT = 30


@pytest.mark.timeout(600)
def test_remote_review_gives_the_local_findings(flowui_engine, two_servers):
    blocks = remote_blocks()
    ran_on: list[str] = []
    remote = run_browser_layer(blocks, [flowui_engine.name], remote=parse_remote([s.spec for s in two_servers]),
                               progress=ran_on.append, time_limit=TIME_LIMIT)
    local = run_browser_layer(blocks, [flowui_engine.name], time_limit=TIME_LIMIT)
    for block, there, here in zip(blocks, remote, local):
        assert not there.errors and not there.timed_out, (block.file, there.errors, there.timed_out)
        assert _findings(there) == _findings(here), block.file
        assert _bridge(there) == _bridge(here), block.file
    # What each block is about was seen remotely too (not an empty run on both sides).
    rules = {b.file: {f.rule for f in r.findings} for b, r in zip(blocks, remote)}
    assert "exfil.state-to-url" in rules["exfil_image"] and "bridge.send" in rules["benign_form_send"], rules
    assert "bridge.open-url" in rules["exfil_openurl"], rules
    assert "exfil.state-to-url" in rules["evade_timezone_utc"] and "exfil.state-to-url" in rules["evade_headless_ua"], rules
    # The blocks were spread: both servers reviewed some (progress names ENGINE@URL).
    used = {line.split(" ")[1] for line in ran_on}
    assert used == {f"{flowui_engine.name}@{s.url}" for s in two_servers}, ran_on
