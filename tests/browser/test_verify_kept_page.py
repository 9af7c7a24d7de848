"""A kept host page (docs/SCALE.md): runs that mount their blocks in a page that earlier runs
used must see only their own secrets, and a run that showed anything must not leave its page.

Each pair is a probe that holds (our generator), then a probe whose block gets the host's
secrets (a generator that adds allow-same-origin) mounted in the same kept page: the leak must
be found, and it must be the second run's secrets (made from its token), not the first's.
"""

from __future__ import annotations

import shlex
import sys

import pytest

from flowui_sandbox.sandbox.harness.pages import PagePool
from flowui_sandbox.sandbox.verify.probes import load_catalogue
from flowui_sandbox.sandbox.verify.runner import CommandGenerator, Generator, attempt_probe
from flowui_sandbox.sandbox.verify.servers import Servers

#: The secrets a kept page must swap at each mount, each with the probe that reads it.
LEAKS = {"cookie": "host.cookie_read", "local_storage": "host.local_storage", "session_storage": "host.session_storage",
         "dom": "host.dom_read", "location": "host.location_read"}
HOLDS = "network.fetch"


@pytest.fixture(scope="module")
def servers(flowui_portal):
    s = flowui_portal.run(Servers().start())
    yield s
    flowui_portal.run(s.stop())


def same_origin() -> CommandGenerator:
    code = ("import sys; from flowui_sandbox.sandbox.block.srcdoc import build_iframe; "
            "h = build_iframe(sys.stdin.read(), block_id='probe'); "
            "sys.stdout.write(h.replace('sandbox=\"allow-scripts\"', 'sandbox=\"allow-scripts allow-same-origin\"'))")
    return CommandGenerator(shlex.join([sys.executable, "-c", code]))


@pytest.mark.timeout(600)
def test_a_kept_host_page_holds_each_run_s_own_secrets(flowui_engine, flowui_portal, flowui_browsers, servers):
    catalogue = {p.id: p for p in load_catalogue()}
    session = flowui_browsers.session(flowui_engine.name)
    pages = PagePool(session, 1)

    async def pairs():
        out = []
        for secret, probe_id in LEAKS.items():
            held = await attempt_probe(catalogue[HOLDS], pages, servers, Generator())
            leaked = await attempt_probe(catalogue[probe_id], pages, servers, same_origin())
            out.append((secret, held, leaked, len(pages.kept)))
        await pages.close()
        return out

    for secret, held, leaked, kept_after in flowui_portal.run(pairs(), timeout=500):
        assert held.status == "blocked", (held.status, held.reason)
        assert leaked.status == "allowed", (secret, leaked.status, leaked.reason, leaked.observed.get("why"))
        # Mounted in the page the run before it kept, not in a page loaded for it.
        assert leaked.observed.get("kept_host_page_run", 0) >= 2, leaked.observed
        # The evidence is this run's secret: its token is in what leaked.
        token = leaked.observed["token"]
        assert any(f"secret {secret} leaked" in e and token in e for e in leaked.evidence), (secret, leaked.evidence)
        # A run that showed something does not leave its page to the next one.
        assert kept_after == 0
