"""Rewrite docs/REVIEW.md's rule table from the catalogue: ``python -m sandbox.review.docs``."""

from __future__ import annotations

import sys
from pathlib import Path

from .render import rules_markdown

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "REVIEW.md"
BEGIN, END = "<!-- rules:begin -->\n", "<!-- rules:end -->"


def table_in(text: str) -> str:
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)]


def rewritten(text: str) -> str:
    return text[:text.index(BEGIN) + len(BEGIN)] + rules_markdown() + text[text.index(END):]


def main() -> int:
    DOC.write_text(rewritten(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{DOC}: rule table rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
