"""The review's derived files, written by ``flowui-sandbox generate``: docs/REVIEW.md's rule
table (from the catalogue, ``rules.toml``) and ``report.schema.json`` (from the report model)."""

from __future__ import annotations

from pathlib import Path

from .render import SCHEMA_FILE, dumps, report_schema, rules_markdown

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "REVIEW.md"
BEGIN, END = "<!-- rules:begin -->\n", "<!-- rules:end -->"


def table_in(text: str) -> str:
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)]


def rewritten(text: str) -> str:
    return text[:text.index(BEGIN) + len(BEGIN)] + rules_markdown() + text[text.index(END):]


def outputs() -> dict[Path, str]:
    result = {SCHEMA_FILE: dumps(report_schema())}
    if DOC.exists():  # a source checkout; an installed package has no docs/
        result[DOC] = rewritten(DOC.read_text(encoding="utf-8"))
    return result
