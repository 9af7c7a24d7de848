"""Templates (SPEC §5) against fixtures/templates.json."""

import json
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.block.templates import TemplateError, render_template, template_paths

CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "templates.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_template_case(case):
    if "error" in case:
        with pytest.raises(TemplateError, match=case["error"]):
            template_paths(case["template"])
        return
    assert template_paths(case["template"]) == case["paths"]
    assert render_template(case["template"], case["state"]) == case["text"]
