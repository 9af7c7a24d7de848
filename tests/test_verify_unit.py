"""The verify harness without a browser: the probe loader, the generator-output check, verdicts, the report, the CLI's errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.block.policy import CSP
from flowui_sandbox.sandbox.block.srcdoc import build_iframe
from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.verify import report
from flowui_sandbox.sandbox.verify.generators import GeneratorRefused
from flowui_sandbox.sandbox.verify.probes import CATEGORIES, HELPER_FILE, PROBES_DIR, Expect, ProbeError, helper, load_catalogue, load_probe
from flowui_sandbox.sandbox.verify.runner import CommandGenerator, EngineRun, GeneratorOutputError, check_iframe, conclude, verdict_of

MINIMAL = {
    "id": "demo.probe", "title": "t", "category": "network", "attack": "a",
    "detect": [{"kind": "request", "path": "{{token}}/x"}],
    "expect": {"default": "blocked"},
}


def write(tmp_path: Path, data: dict, name: str = "demo.probe", html: str | None = "<script>alive();</script>\n") -> Path:
    """A probe: ``name.json`` and (unless ``html`` is None) its block ``name.html``."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    if html is not None:
        path.with_suffix(".html").write_text(html, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ catalogue


def test_the_catalogue_loads_and_is_large_enough():
    probes = load_catalogue()
    assert len(probes) >= 60
    assert len({p.id for p in probes}) == len(probes)


def test_the_catalogue_covers_every_area_of_the_issue():
    ids = {p.id for p in load_catalogue()}
    cats = {p.category for p in load_catalogue()}
    assert set(CATEGORIES) <= cats, f"categories without a probe: {set(CATEGORIES) - cats}"
    for needed in [
        "host.dom_read", "host.cookie_read", "host.local_storage", "host.title_write", "host.location_read",
        "storage.local_storage", "storage.indexeddb", "network.fetch", "network.xhr", "network.websocket",
        "network.eventsource", "network.send_beacon", "network.ping", "network.prefetch", "network.webtransport",
        "loading.script_src", "loading.stylesheet", "loading.iframe", "loading.object", "loading.worker_blob",
        "loading.wasm", "loading.eval", "forms.submit_get", "navigation.popup_click", "navigation.top_script",
        "navigation.self", "navigation.meta_refresh", "navigation.history_back", "ui.alert", "ui.fullscreen",
        "ui.pointer_lock", "ui.download_link", "ui.clipboard_write", "ui.geolocation", "exfiltration.img_https",
        "exfiltration.font", "exfiltration.media", "exfiltration.css_background", "dns.preconnect", "dns.dns_prefetch",
        "webrtc.stun", "base.relative_image", "credentials.img_host_api", "bridge.sibling_spoof",
        "bridge.window_message_spoof", "bridge.setvalue_outside_fields", "bridge.oversize_message", "bridge.flood",
        "bridge.openurl_javascript", "bridge.prototype_path", "leakage.hidden_state", "leakage.change_timing",
        "breakout.close_srcdoc", "breakout.state_value", "breakout.theme_value", "host-csp.img_blocked", "dos.busy_loop",
    ]:
        assert needed in ids, needed


def test_every_allowed_outcome_says_why():
    for probe in load_catalogue():
        for engine in ("chromium", "firefox", "webkit"):
            expected = probe.expected(engine)
            assert expected.outcome == "blocked" or len(expected.why) > 20, (probe.id, engine)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"kind": "nope"}, "kind"),
        ({"id": "Bad Id"}, "dotted lower-case"),
        ({"expect": {"default": "allowed"}}, "needs a 'why'"),
        ({"expect": {"chromium": "blocked"}}, "no outcome for firefox, webkit"),
        ({"expect": {"default": "blocked", "opera": "blocked"}}, "unknown key"),
        ({"host_html": "{{nope}}"}, "unknown template variable {{nope}}"),
        ({"block": {"source": "<p></p>"}}, "block.source: the source lives in demo.probe.html"),
        ({"detect": []}, "detect"),
        ({"extra": 1}, "extra"),
    ],
)
def test_a_bad_probe_is_refused_naming_the_file_and_the_problem(tmp_path, change, message):
    data = {**MINIMAL, **change}
    if "kind" in change:
        data = {**MINIMAL, "detect": [change]}
    with pytest.raises(ProbeError) as info:
        load_probe(write(tmp_path, data))
    assert "demo.probe.json" in str(info.value) and message in str(info.value)


def test_the_id_must_match_the_file_name_and_json_must_parse(tmp_path):
    with pytest.raises(ProbeError, match="must equal the file name"):
        load_probe(write(tmp_path, MINIMAL, name="other.name"))
    bad = tmp_path / "broken.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ProbeError, match=r"broken.json:1:2: not JSON"):
        load_probe(bad)


def test_all_bad_files_are_reported_at_once(tmp_path):
    write(tmp_path, {**MINIMAL, "id": "a.one"}, "a.one")
    write(tmp_path, {**MINIMAL, "id": "b.two", "category": "nowhere"}, "b.two")
    write(tmp_path, {**MINIMAL, "id": "c.three", "expect": {}}, "c.three")
    with pytest.raises(ProbeError) as info:
        load_catalogue(tmp_path)
    assert "b.two.json" in str(info.value) and "c.three.json" in str(info.value)


def test_the_block_is_the_html_file_beside_after_the_one_helper(tmp_path):
    path = write(tmp_path, {**MINIMAL, "block": {"fields": ["x"]}}, html="<p>from the file</p>\n")
    probe = load_probe(path)
    # The helper goes first, as an inline script (so the block's CSP governs it as it governs the attack);
    # the file's single final newline is not part of the block.
    assert probe.block.source == helper() + "<p>from the file</p>"
    assert helper() == "<script>\n" + HELPER_FILE.read_text(encoding="utf-8") + "</script>"
    assert "</script" not in HELPER_FILE.read_text(encoding="utf-8")
    assert probe.block.fields == ["x"]


def test_siblings_are_their_own_files_mounted_verbatim(tmp_path):
    path = write(tmp_path, {**MINIMAL, "siblings": [{"block_id": "one"}, {"block_id": "two"}]})
    (tmp_path / "demo.probe.sibling-1.html").write_text("<p>one</p>\n", encoding="utf-8")
    (tmp_path / "demo.probe.sibling-2.html").write_text("<p>two</p>", encoding="utf-8")
    probe = load_probe(path)
    assert [(b.block_id, b.source) for b in probe.siblings] == [("one", "<p>one</p>"), ("two", "<p>two</p>")]


LOCATED = r"^\S+:\d+:\d+: \S"


def lines_of(info) -> list[str]:
    lines = str(info.value).splitlines()
    for line in lines:
        assert __import__("re").match(LOCATED, line), line
    return lines


def test_a_missing_or_bad_html_file_is_one_located_line_each(tmp_path):
    with pytest.raises(ProbeError) as info:
        load_probe(write(tmp_path, {**MINIMAL, "siblings": [{"block_id": "b"}]}, html=None))
    assert [line.split(": ", 1)[1] for line in lines_of(info)] == [
        "demo.probe.html is missing; the block's source lives in that file beside the JSON",
        "demo.probe.sibling-1.html is missing; the block's source lives in that file beside the JSON",
    ]
    path = write(tmp_path, MINIMAL, html="<p>\n  {{nope}}</p>")
    with pytest.raises(ProbeError) as info:
        load_probe(path)
    assert lines_of(info)[0].startswith(f"{tmp_path / 'demo.probe.html'}:2:3: unknown template variable {{{{nope}}}}")
    path.with_suffix(".html").write_bytes(b"<p>caf\xe9</p>")
    with pytest.raises(ProbeError) as info:
        load_probe(path)
    assert lines_of(info) == [f"{tmp_path / 'demo.probe.html'}:1:7: not UTF-8 (byte 0xE9 at offset 6); save the file as UTF-8"]
    path.with_suffix(".html").write_bytes(b"<p>\n<b>\0</b>")
    with pytest.raises(ProbeError) as info:
        load_probe(path)
    assert lines_of(info) == [f"{tmp_path / 'demo.probe.html'}:2:4: a NUL character; a block is text"]
    path.with_suffix(".html").unlink()
    path.with_suffix(".html").mkdir()
    with pytest.raises(ProbeError) as info:
        load_probe(path)
    assert lines_of(info) == [f"{tmp_path / 'demo.probe.html'}:1:1: is a directory, not a file"]


def test_the_json_problems_are_reported_with_the_missing_html(tmp_path):
    with pytest.raises(ProbeError) as info:
        load_probe(write(tmp_path, {"id": "demo.probe", "category": "nowhere"}, html=None))
    lines = lines_of(info)
    assert "demo.probe.html is missing" in lines[0]
    assert any("category: Input should be" in line for line in lines)
    assert any(line.endswith("title: Field required") for line in lines)


def test_an_orphan_html_file_is_an_error(tmp_path):
    write(tmp_path, MINIMAL)
    (tmp_path / "lost.probe.html").write_text("<p>x</p>", encoding="utf-8")
    (tmp_path / "demo.probe.sibling-1.html").write_text("<p>x</p>", encoding="utf-8")
    with pytest.raises(ProbeError) as info:
        load_catalogue(tmp_path)
    lines = lines_of(info)
    assert [line.split(":", 1)[0] for line in lines] == [
        str(tmp_path / "demo.probe.sibling-1.html"), str(tmp_path / "lost.probe.html")]
    assert all("no probe claims this file" in line for line in lines)


def test_a_broken_probe_owns_its_files_so_it_is_one_error(tmp_path):
    write(tmp_path, {**MINIMAL, "category": "nowhere"})
    with pytest.raises(ProbeError) as info:
        load_catalogue(tmp_path)
    assert len(lines_of(info)) == 1


def test_the_catalogue_is_pairs_and_every_probe_block_uses_the_helper():
    jsons = {p.stem for p in PROBES_DIR.glob("*.json")}
    for probe in load_catalogue():
        source = (PROBES_DIR / f"{probe.id}.html").read_text(encoding="utf-8")
        # The plumbing lives in the helper only; a probe's file holds its attack.
        assert "window.__probe = {}" not in source and "const send" not in source and "{{alive}}" not in source, probe.id
    assert len(jsons) == len(load_catalogue())


# ---------------------------------------------------------------------- generator output


def ours(source: str = "<p>x</p>") -> str:
    return build_iframe(source, block_id="probe")


def test_our_generator_passes_the_static_check():
    assert check_iframe(ours()) == []


@pytest.mark.parametrize(
    "weaken, problem",
    [
        (lambda h: h.replace('sandbox="allow-scripts"', 'sandbox="allow-scripts allow-same-origin"'), "sandbox is 'allow-scripts allow-same-origin'"),
        (lambda h: h.replace(' sandbox="allow-scripts"', ""), "sandbox is None"),
        (lambda h: h.replace('referrerpolicy="no-referrer"', ""), "referrerpolicy"),
        (lambda h: h.replace("Content-Security-Policy", "X-Nothing"), "not the Content-Security-Policy meta"),
        (lambda h: h.replace("default-src &#x27;none&#x27;", "default-src *").replace("default-src 'none'", "default-src *"), "must be the fixed policy"),
        (lambda h: h.replace("<iframe ", '<iframe allow="clipboard-write" '), "'allow' attribute"),
        (lambda h: h + "<script>alert(1)</script>", "elements beside the iframe: <script>"),
    ],
)
def test_a_weakened_generator_output_is_flagged(weaken, problem):
    html = weaken(ours())
    assert html != ours()
    assert any(problem in p for p in check_iframe(html)), check_iframe(html)


@pytest.mark.parametrize("html, message", [
    ("<p>no frame</p>", "exactly one <iframe>, found 0"),
    (ours() + ours(), "exactly one <iframe>, found 2"),
    ('<iframe sandbox="allow-scripts"></iframe>', "no srcdoc"),
])
def test_an_unusable_generator_output_is_an_error(html, message):
    with pytest.raises(GeneratorOutputError, match=message):
        check_iframe(html)


def test_a_command_generator_is_run_with_the_source_on_stdin(tmp_path):
    script = tmp_path / "gen.py"
    script.write_text(
        "import sys\nfrom flowui_sandbox.sandbox.block.srcdoc import build_iframe\n"
        "sys.stdout.write(build_iframe(sys.stdin.read(), block_id='probe'))\n", encoding="utf-8")
    gen = CommandGenerator(f"{sys.executable} {script}")
    gen.preflight()
    html = gen.run("<b>hi</b>")
    assert check_iframe(html) == [] and "&lt;b&gt;hi&lt;/b&gt;" in html


def test_a_generator_that_prints_without_end_is_stopped_at_the_output_limit(tmp_path):
    # Its whole output used to be held (a MemoryError, exit 70, or the 20 s timeout first).
    script = tmp_path / "endless.py"
    script.write_text("import sys\nsys.stdin.read()\nwhile True:\n    sys.stdout.write('x' * 65536)\n", encoding="utf-8")
    with pytest.raises(GeneratorOutputError, match=r"^the output is more than 33,554,432 bytes \(8x the largest block source\)"):
        CommandGenerator(f"{sys.executable} {script}").run("<b>hi</b>")


def test_a_generator_reads_a_large_input_while_it_prints_and_its_stderr_end_is_kept(tmp_path):
    script = tmp_path / "chatty.py"
    script.write_text("import sys\nsys.stdout.write('a' * 200000)\nsys.stderr.write('noise\\n' * 100000 + 'the reason\\n')\n"
                      "sys.stdin.read()\nsys.exit(2)\n", encoding="utf-8")
    with pytest.raises(GeneratorRefused, match=r"^the reason$"):
        CommandGenerator(f"{sys.executable} {script}").run("x" * 1_000_000)


# ---------------------------------------------------------------------------- verdicts


BLOCKED = Expect(outcome="blocked")
ALLOWED = Expect(outcome="allowed", why="by design, because the policy says so")


@pytest.mark.parametrize("status, expected, problems, verdict", [
    ("blocked", BLOCKED, [], "held"),
    ("allowed", ALLOWED, [], "allowed"),
    ("allowed", BLOCKED, [], "UNEXPECTED"),
    ("blocked", ALLOWED, [], "UNEXPECTED"),
    ("invalid", BLOCKED, [], "UNEXPECTED"),
    ("error", BLOCKED, [], "UNEXPECTED"),
    ("timeout", BLOCKED, [], "UNEXPECTED"),
    ("blocked", BLOCKED, ["sandbox is wrong"], "UNEXPECTED"),
    ("n/a", BLOCKED, [], "n/a"),
])
def test_verdicts(status, expected, problems, verdict):
    assert verdict_of(status, expected, problems) == verdict


# ------------------------------------------------------------------------------ report


def sample_runs() -> tuple[list, list[EngineRun]]:
    probes = load_catalogue()[:2]
    evil = "<script>alert('x')</script>"
    runs = [
        EngineRun("chromium", [
            conclude(probes[0].id, "chromium", "blocked", BLOCKED),
            conclude(probes[1].id, "chromium", "allowed", BLOCKED, evidence=[f"request seen: {evil}"], observed={"self_report": evil}),
        ]),
    ]
    return probes, runs


def test_the_text_matrix_lists_unexpected_outcomes_with_their_evidence():
    probes, runs = sample_runs()
    text = report.text_matrix(probes, runs, 1.5)
    assert "UNEXPECTED" in text and "held" in text
    assert f"{probes[1].id} [chromium] observed allowed: expected blocked, observed allowed" in text
    assert "evidence: request seen:" in text
    assert report.unexpected(runs)[0].probe == probes[1].id


def test_a_lost_browser_s_probes_ran_on_the_others_only_when_its_engine_did_not_fail():
    probes, runs = sample_runs()
    lost = {"url": "ws://10.0.0.7:3000/a", "error": "could not connect"}
    spread = report.text_matrix(probes, [EngineRun("firefox", runs[0].results, browsers=[lost, {"url": "ws://b", "probes": 2}])])
    assert "BROWSER LOST firefox ws://10.0.0.7:3000/a: could not connect (its probes ran on the others)" in spread
    failed = report.text_matrix(probes, [EngineRun("firefox", [], "no remote browser answered", browsers=[lost])])
    assert "ENGINE FAILED firefox: no remote browser answered" in failed
    assert "BROWSER LOST firefox ws://10.0.0.7:3000/a: could not connect\n" in failed + "\n" and "the others" not in failed


def test_the_html_report_escapes_everything():
    probes, runs = sample_runs()
    page = report.to_html(probes, runs, generator="<b>gen</b>", wall=1.0)
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert "<b>gen</b>" not in page
    assert page.count("<script") == 0


def test_the_json_report_round_trips():
    probes, runs = sample_runs()
    data = json.loads(json.dumps(report.to_json(probes, runs, generator="ours", wall=2.0)))
    assert data["summary"] == {"held": 1, "allowed": 0, "UNEXPECTED": 1, "n/a": 0}
    assert data["policy"]["csp"] == CSP
    assert {r["verdict"] for r in data["results"]} == {"held", "UNEXPECTED"}


# -------------------------------------------------------------------------- CLI errors


@pytest.mark.parametrize("argv, message", [
    (["verify", "--engine", "opera"], "unknown engine 'opera'"),
    (["verify", "--generator", "/no/such/generator"], "no such command '/no/such/generator'"),
    (["verify", "--generator", f"{sys.executable} -c print(1)"], "exactly one <iframe>, found 0"),
    (["verify", "--generator", f"{sys.executable} -c import\\ sys;\\ sys.exit(3)"], "exited with status 3"),
    (["verify", "--generator", "'unbalanced"], "cannot split"),
    (["verify", "--json", "/dev/null/out.json"], "/dev/null is not a folder"),
    (["verify", "--probe", "nothing.like.this"], "no probe id starts with that"),
])
def test_verify_usage_errors_exit_2_with_a_clear_message(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_missing_engine_is_a_usage_error(monkeypatch, capsys):
    from flowui_sandbox.sandbox.engines import discovery

    monkeypatch.setattr(discovery, "find_engines", lambda: [])
    assert main(["verify", "--engine", "webkit"]) == 2
    assert "engine 'webkit' is not installed" in capsys.readouterr().err


def test_threats_md_cites_every_probe_and_only_real_ones():
    import re

    ids = {p.id for p in load_catalogue()}
    text = (Path(__file__).resolve().parent.parent / "docs" / "THREATS.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"\[([a-z][a-z0-9_-]*\.[a-z0-9_.-]+)\]", text))
    assert cited <= ids, f"THREATS.md cites unknown probes: {sorted(cited - ids)}"
    assert ids <= cited, f"probes THREATS.md does not discuss: {sorted(ids - cited)}"


def test_the_json_protocol_hands_the_generator_the_whole_block(tmp_path):
    """--generator-protocol json: the command reads {version, source, block_id, fields, state, theme};
    the correct test generator's output equals our own build for the same block."""
    import asyncio
    import shlex

    from flowui_sandbox.sandbox.verify.probes import Block
    from flowui_sandbox.sandbox.verify.request import generator_request
    from flowui_sandbox.sandbox.verify.runner import CommandGenerator

    script = Path(__file__).resolve().parent / "generators" / "json_generator.py"
    block = Block(source='<p data-bind="a.b"></p>', block_id="blk", fields=["c"], state={"a": {"b": "</script>"}, "c": 1, "d": 2},
                  theme={"color-scheme": "dark"})
    generator = CommandGenerator(shlex.join([sys.executable, str(script)]), "json")
    assert generator.full and generator.mounts_own_document
    built = asyncio.run(generator.build(block, block.source, block.state))
    assert built.html == build_iframe(block.source, block_id="blk", fields=["c"], state=block.state, theme=block.theme)
    assert built.problems == []
    assert list(generator_request("s", block_id="b", fields=[], state=None, theme=None)) == [
        "version", "source", "block_id", "fields", "state", "theme"]
    # A refusal (exit status 2) is the generator blocking the input, not a broken generator.
    from flowui_sandbox.sandbox.verify.runner import GeneratorRefused

    with pytest.raises(GeneratorRefused, match="is not a color"):
        asyncio.run(generator.build(Block(source="<p></p>", theme={"accent": "red;}"}), "<p></p>", None))
    source_only = CommandGenerator(shlex.join([sys.executable, str(script)]))
    assert not source_only.full and not source_only.mounts_own_document


def test_a_probe_mounts_in_a_kept_host_page_unless_the_page_must_be_its_own():
    """docs/SCALE.md: a run mounts its blocks in a kept host page unless the host page is the
    probe's own or the run would leave a mark on it; most of the catalogue mounts."""
    base = next(p for p in load_catalogue() if p.id == "network.fetch")
    assert base.mountable
    for change in ({"host_html": "<p>x</p>"}, {"host_headers": {"X": "y"}}, {"host_scheme": "http"},
                   {"click": "button"}, {"grant": ["geolocation"]}, {"category": "dos"}, {"fresh_page": True}):
        assert not base.model_copy(update=change).mountable, change
    probes = load_catalogue()
    assert sum(p.mountable for p in probes) > len(probes) // 2
