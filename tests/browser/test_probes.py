"""The whole attack-probe catalogue on every engine, and proof that the probes can fail.

One case per (probe, engine); the first case runs every selected probe on every selected engine at
once through sandbox.verify's runner (each engine's page pool on the session's browser, the engines
side by side as `verify` runs them). The weakened-generator tests run a
few probes against generators that drop one protection each: the probes must catch it.
"""

from __future__ import annotations

import asyncio
import shlex
import sys

import pytest
from selection import selected_cases

from flowui_sandbox.sandbox.engines import select_engines
from flowui_sandbox.sandbox.verify.probes import load_catalogue
from flowui_sandbox.sandbox.verify.runner import CommandGenerator, Generator, run_engine
from flowui_sandbox.sandbox.verify.servers import Servers


@pytest.fixture(scope="module")
def servers(flowui_portal):
    s = flowui_portal.run(Servers().start())
    yield s
    flowui_portal.run(s.stop())


def _run(portal, _browsers, engine, servers, probes, generator):
    session = _browsers.session(engine.name)
    return portal.run(run_engine(session, probes, servers, generator), timeout=1200)


async def _run_all(sessions, selected, servers):
    """Every engine's selected probes at once, as `verify` runs the engines (side by side)."""
    async def one(name: str):
        return name, await run_engine(sessions[name], selected[name], servers, Generator())

    return dict(await asyncio.gather(*(one(name) for name in selected)))


CATALOGUE = {p.id: p for p in load_catalogue()}


def _selected_probe_ids(request: pytest.FixtureRequest) -> dict[str, list[str]]:
    """The probe ids of this session's ``test_probe`` cases per engine (after ``-k``/deselection)."""
    ids: dict[str, list[str]] = {}
    for name, params in selected_cases(request.session, request.module):
        if name == "test_probe":
            ids.setdefault(params["flowui_engine"], []).append(params["probe_id"])
    return ids


@pytest.fixture(scope="module")
def catalogue_results(flowui_portal, flowui_browsers, servers, request):
    """The outcomes of the selected probes, per engine: the first case runs every selected probe on
    every selected engine at once (through the runner's page pools, as `verify` does); the others
    read their result."""
    cache: dict[str, dict[str, object]] = {}

    def results_for(engine) -> dict[str, object]:
        if not cache:
            selected = {name: [CATALOGUE[i] for i in ids] for name, ids in _selected_probe_ids(request).items()}
            sessions = {name: flowui_browsers.session(name) for name in selected}
            runs = flowui_portal.run(_run_all(sessions, selected, servers), timeout=1200)
            cache.update({name: {r.probe: r for r in results} for name, results in runs.items()})
        return cache[engine.name]

    return results_for


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("probe_id", sorted(CATALOGUE))
def test_probe(flowui_engine, catalogue_results, probe_id):
    """One case per (probe, engine): `pytest -k 'host.dom_read and firefox'` runs one."""
    r = catalogue_results(flowui_engine)[probe_id]
    assert r.verdict != "UNEXPECTED", f"{probe_id} on {flowui_engine.name}: observed {r.status}: {r.reason} | {'; '.join(r.evidence[:3])}"


# Each weakened generator is our generator with one protection removed.
WEAKENED = {
    "allow-same-origin": "h = h.replace('sandbox=\"allow-scripts\"', 'sandbox=\"allow-scripts allow-same-origin\"')",
    "no-csp": "h = h.replace('Content-Security-Policy', 'X-Dropped')",
}


def weakened(kind: str) -> CommandGenerator:
    code = (
        "import sys; from flowui_sandbox.sandbox.block.srcdoc import build_iframe; "
        "h = build_iframe(sys.stdin.read(), block_id='probe'); " + WEAKENED[kind] + "; sys.stdout.write(h)"
    )
    return CommandGenerator(shlex.join([sys.executable, "-c", code]))


@pytest.mark.parametrize("kind, probe_ids", [
    ("allow-same-origin", ["host.dom_read", "host.cookie_read", "host.dom_write"]),
    ("no-csp", ["network.fetch", "loading.script_src", "loading.eval"]),
])
def test_a_weakened_generator_is_caught(flowui_engine, flowui_portal, flowui_browsers, servers, kind, probe_ids):
    probes = [p for p in load_catalogue() if p.id in probe_ids]
    results = _run(flowui_portal, flowui_browsers, flowui_engine, servers, probes, weakened(kind))
    by_id = {r.probe: r for r in results}
    for pid in probe_ids:
        r = by_id[pid]
        assert r.verdict == "UNEXPECTED", (pid, r.status, r.reason)
        # Not only the static check: the browser showed the attack getting through.
        assert r.status == "allowed" and r.evidence, (pid, r.status, r.reason, r.observed.get("why"))



def test_the_focus_probe_fails_a_host_without_the_focus_guard(flowui_portal, flowui_browsers, servers):
    """ui.focus_steal's 1 s threshold still catches a host that lets the block keep the focus: the
    same block in a static iframe (no host module, so no guard), in Chromium, where a frame's
    focus() takes the keyboard without user activation (THREATS.md, "Focus"; Firefox and WebKitGTK
    did not let this static frame take it)."""
    probe = next(p for p in load_catalogue() if p.id == "ui.focus_steal")
    unguarded = probe.model_copy(update={
        "bridge": False, "require": [o for o in probe.require if getattr(o, "what", "") != "the bridge connected"]})
    chromium = next(e for e in select_engines() if e.name == "chromium")
    [r] = _run(flowui_portal, flowui_browsers, chromium, servers, [unguarded], Generator())
    assert r.status == "allowed", (r.status, r.reason, r.observed.get("why"), r.observed.get("self_report"))
    assert any("/held" in e for e in r.evidence), r.evidence
