"""Golden block documents (fixtures/srcdoc/): the exact bytes build_srcdoc writes for each case.

The JavaScript host module must write the same bytes from the same inputs.
The goldens embed bridge/flow-ui-runtime.js, so they change when it does:

    .venv/bin/python tests/regen_golden.py     # rewrite every golden file

tests/test_generator.py fails while a golden is stale.
"""

from __future__ import annotations

import json
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "srcdoc"
CASES_FILE = GOLDEN_DIR / "cases.json"
REGENERATE = ".venv/bin/python tests/regen_golden.py"


def load_cases() -> list[dict]:
    return json.loads(CASES_FILE.read_text(encoding="utf-8"))


def render(case: dict) -> str:
    from sandbox.generator import build_srcdoc

    return build_srcdoc(
        case["source"], block_id=case["block_id"], fields=case["fields"], paths=case["paths"],
        state=case["state"], theme=case["theme"],
    )


def main() -> None:
    for case in load_cases():
        # newline="" keeps CR as written: the goldens are compared byte for byte.
        with open(GOLDEN_DIR / case["golden"], "w", encoding="utf-8", newline="") as f:
            f.write(render(case))
        print(f"wrote fixtures/srcdoc/{case['golden']}")


if __name__ == "__main__":
    main()
