"""verify's judge without a browser: hand-made observations in, a status and a verdict out.

The judge (sandbox/verify/judge.py) reads a frozen ProbeObservation and nothing else, so every
branch is a plain function call here: an attack that got through, a host page that stopped
answering, a probe that did not run as designed, a driver without download events.
"""

from __future__ import annotations

import dataclasses

import pytest

from flowui_sandbox.sandbox.harness.server import LoggedRequest
from flowui_sandbox.sandbox.verify.judge import outcome_of, reason_of, verdict_of
from flowui_sandbox.sandbox.verify.observation import ProbeObservation
from flowui_sandbox.sandbox.verify.probes import TEMPLATE_VARS, load_catalogue
from flowui_sandbox.sandbox.verify.results import conclude

PROBES = {p.id: p for p in load_catalogue()}
IMG = PROBES["exfiltration.img_https"]  # detects a request for {{token}}/img?v=projection-data
VALUES = {name: f"<{name}>" for name in TEMPLATE_VARS} | {"token": "run-1"}


def request(path: str, query: str = "") -> LoggedRequest:
    return LoggedRequest("GET", path, query, {}, {}, b"")


ALIVE = ("canary", request("/run-1/alive"))


def observe(probe=IMG, **fields) -> ProbeObservation:
    return ProbeObservation(probe, VALUES, "run-1", "https://host.test/host/run-1", **fields)


def test_a_request_the_probe_detects_is_an_attack_that_got_through():
    seen = observe(requests=(ALIVE, ("evil", request("/run-1/img", "v=projection-data"))))
    outcome = outcome_of(seen)
    assert outcome.status == "allowed"
    assert outcome.evidence == ("request seen: evil GET /run-1/img?v=projection-data",)


def test_nothing_seen_but_the_blocks_beacon_is_blocked():
    assert outcome_of(observe(requests=(ALIVE,))).status == "blocked"


def test_another_runs_request_is_not_this_runs_evidence():
    other = ("evil", request("/run-2/img", "v=projection-data"))
    assert outcome_of(observe(requests=(ALIVE, other))).status == "blocked"


def test_without_the_beacon_the_probe_did_not_run():
    outcome = outcome_of(observe())
    assert outcome.status == "invalid" and "missing a request to canary matching 'run-1/alive'" in outcome.why


def test_a_click_that_could_not_happen_makes_the_run_invalid():
    outcome = outcome_of(observe(requests=(ALIVE,), click_error="TimeoutError: no element"))
    assert outcome.status == "invalid" and "TimeoutError: no element" in outcome.why


def test_a_host_page_that_stopped_answering_is_a_timeout_unless_an_attack_showed():
    outcome = outcome_of(observe(requests=(ALIVE,), host_alive=False, host_unanswered="EngineError: busy"))
    # The host page not answering is evidence for the "unresponsive" probes only; for the others it is a timeout.
    assert outcome.status == "timeout" and outcome.evidence == ("the host page did not answer: EngineError: busy",)
    leaked = observe(requests=(ALIVE, ("evil", request("/run-1/img", "v=projection-data"))), host_alive=False)
    assert outcome_of(leaked).status == "allowed"


def test_browser_events_are_attacks_for_every_probe():
    assert outcome_of(observe(requests=(ALIVE,), popups=("https://evil.test/",))).evidence == ("popup: https://evil.test/",)
    assert outcome_of(observe(requests=(ALIVE,), left=("top: https://evil.test/",))).status == "allowed"


def test_a_driver_without_download_events_counts_an_attachment_request_of_the_run():
    download = ("host", request("/dl/run-1/report.pdf"))
    assert outcome_of(observe(requests=(ALIVE, download), reports_downloads=True)).status == "blocked"
    outcome = outcome_of(observe(requests=(ALIVE, download), reports_downloads=False))
    assert outcome.status == "allowed" and outcome.evidence[0].startswith("download: host GET /dl/run-1/")


def test_the_host_pages_checks_are_read_from_its_answer():
    # ALWAYS holds one host check (the host page intact): its answer is the first of "checks".
    seen = observe(requests=(ALIVE,), host={"checks": ["marker planted"]})
    assert outcome_of(seen).evidence == ("host page intact (title, secret element, no marker planted): marker planted",)


def test_the_judge_changes_nothing_it_reads():
    seen = observe(requests=(ALIVE,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen.host_alive = False  # type: ignore[misc]
    assert outcome_of(seen) == outcome_of(seen)


def test_a_result_is_concluded_once_and_notes_cannot_change_its_verdict():
    expected = IMG.expected("chromium")
    result = conclude(IMG.id, "chromium", "blocked", expected, observed={"generator_problems": ["sandbox is wrong"]})
    assert result.verdict == "UNEXPECTED" and result.reason.startswith("generator output: sandbox is wrong")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.verdict = "held"  # type: ignore[misc]
    noted = result.noting(browser="ws://127.0.0.1:1/", generator_problems=[])
    assert noted.verdict == "UNEXPECTED" and noted.observed["browser"] == "ws://127.0.0.1:1/"
    assert "browser" not in result.observed


@pytest.mark.parametrize("status, why, reason", [
    ("allowed", "", "img-src https: is in the fixed policy"),
    ("blocked", "", "expected allowed, observed blocked"),
    ("invalid", "the probe did not run as designed", "the probe did not run as designed"),
    ("n/a", "", "n/a"),
])
def test_reasons(status, why, reason):
    assert reason_of(status, IMG.expected("chromium"), (), why).startswith(reason)
    assert verdict_of(status, IMG.expected("chromium")) == {"allowed": "allowed", "blocked": "UNEXPECTED",
                                                              "invalid": "UNEXPECTED", "n/a": "n/a"}[status]
