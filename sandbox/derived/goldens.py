"""The golden block documents (``fixtures/srcdoc/``): what ``build_srcdoc`` writes for each case.

The JavaScript host module must write the same bytes from the same inputs
(``tests/js/srcdoc.test.mjs``). A golden stores the document with the inlined runtime
replaced by :data:`RUNTIME_MARKER`, so an edit of ``bridge/flow-ui-runtime.js`` does not
rewrite every golden: a golden changes only when the document around the runtime does.
"""

from __future__ import annotations

import json
from pathlib import Path

from flowui_sandbox.bridge import BRIDGE_DIR, runtime_source

GOLDEN_DIR = BRIDGE_DIR.parent / "fixtures" / "srcdoc"
CASES_FILE = GOLDEN_DIR / "cases.json"

#: Stands in a golden where the document inlines the runtime's source.
RUNTIME_MARKER = "@@flow-ui-runtime.js@@"


def load_cases() -> list[dict]:
    return json.loads(CASES_FILE.read_text(encoding="utf-8"))


def render(case: dict) -> str:
    """The whole document ``build_srcdoc`` writes for ``case``."""
    from ..block.srcdoc import build_srcdoc

    return build_srcdoc(
        case["source"], block_id=case["block_id"], fields=case["fields"], paths=case["paths"],
        state=case["state"], theme=case["theme"],
    )


def to_golden(document: str) -> str:
    """``document`` with its one inlined runtime replaced by the marker."""
    runtime = runtime_source()
    if document.count(runtime) != 1:
        raise ValueError("the document does not inline the runtime exactly once")
    return document.replace(runtime, RUNTIME_MARKER)


def from_golden(golden: str) -> str:
    """The whole document a golden stands for."""
    return golden.replace(RUNTIME_MARKER, runtime_source(), 1)


def outputs() -> dict[Path, str]:
    """Every golden file and the text it must hold."""
    if not CASES_FILE.exists():
        return {}
    return {GOLDEN_DIR / case["golden"]: to_golden(render(case)) for case in load_cases()}
