"""verify --generator-protocol json: a third-party generator command gets the state, theme and fields,
so the probes that need them (and the bridge probes, on the document it built) run against it.

The generators are tests/generators/json_generator.py: a correct one (our build_iframe behind the
JSON request) must hold every probe, and one that writes the state unescaped must be caught.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.verify.probes import load_catalogue
from flowui_sandbox.sandbox.verify.runner import CommandGenerator, run_engine
from flowui_sandbox.sandbox.verify.servers import Servers

SCRIPT = Path(__file__).resolve().parent.parent / "generators" / "json_generator.py"
#: The two non-bridge probes that need a state or theme, and bridge probes of each kind.
PROBE_IDS = ["breakout.state_value", "breakout.theme_value", "breakout.bridge_state_value",
             "bridge.setvalue_outside_fields", "bridge.openurl_javascript", "leakage.hidden_state"]


@pytest.fixture(scope="module")
def servers(flowui_portal):
    s = flowui_portal.run(Servers().start())
    yield s
    flowui_portal.run(s.stop())


def _generator(*flags: str) -> CommandGenerator:
    generator = CommandGenerator(shlex.join([sys.executable, str(SCRIPT), *flags]), "json")
    generator.preflight()
    return generator


def _run(portal, _browsers, engine, servers, generator):
    probes = [p for p in load_catalogue() if p.id in PROBE_IDS]
    assert sorted(p.id for p in probes) == sorted(PROBE_IDS)
    session = _browsers.session(engine.name)
    return {r.probe: r for r in portal.run(run_engine(session, probes, servers, generator), timeout=900)}


@pytest.mark.timeout(1000)
def test_a_correct_json_generator_holds_the_state_theme_and_bridge_probes(flowui_engine, flowui_portal, flowui_browsers, servers):
    results = _run(flowui_portal, flowui_browsers, flowui_engine, servers, _generator())
    for pid, r in results.items():
        assert r.status != "n/a", (pid, r.reason)
        assert r.verdict == "held", (pid, r.status, r.reason, r.evidence[:2], r.observed.get("why"))
    # The theme probe was refused by the generator (exit status 2), not silently dropped.
    assert "is not a color" in results["breakout.theme_value"].observed["generator_refused"]
    # The bridge probes ran on the document the generator built.
    assert results["bridge.setvalue_outside_fields"].observed.get("bridge_log"), results["bridge.setvalue_outside_fields"].observed


@pytest.mark.timeout(1000)
def test_a_generator_that_does_not_escape_the_state_is_caught(flowui_engine, flowui_portal, flowui_browsers, servers):
    results = _run(flowui_portal, flowui_browsers, flowui_engine, servers, _generator("--unescaped-state"))
    r = results["breakout.state_value"]
    assert r.verdict == "UNEXPECTED", (r.status, r.reason)
    # The browser ran the state's script in the block: evidence, not only a static check.
    assert r.status == "allowed" and any("state's script ran" in e for e in r.evidence), (r.status, r.evidence)
