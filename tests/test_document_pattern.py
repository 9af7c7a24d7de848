"""Text input patterns (sandbox/document/pattern.py): the subset of ECMAScript's v mode and
the server's linear-time matcher. fixtures/document/patterns.json is shared with
tests/js/patterns.test.mjs, which holds every verdict to the browser's
``new RegExp('^(?:' + p + ')$', 'v')``."""

import json
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.document import check_document
from flowui_sandbox.sandbox.document.pattern import compile_pattern, pattern_problem, utf16_length

FIXTURE = json.loads((Path(__file__).parent.parent / "fixtures" / "document" / "patterns.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", FIXTURE["verdicts"], ids=[c["pattern"] for c in FIXTURE["verdicts"]])
def test_the_server_gives_the_browsers_verdict(case):
    pattern = compile_pattern(case["pattern"])
    assert [pattern.fullmatch(c["input"]) for c in case["inputs"]] == [c["match"] for c in case["inputs"]]


@pytest.mark.parametrize("case", FIXTURE["refused"], ids=[c["pattern"] for c in FIXTURE["refused"]])
def test_refused_at_save_time_at_its_column(case):
    problem = pattern_problem(case["pattern"])
    assert problem is not None and problem.offset + 1 == case["column"], problem
    doc = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
        {"block_id": "t", "type": "text_input", "field": "code", "pattern": case["pattern"]}]}]}
    assert [str(p) for p in check_document(doc).problems] == [f"pages[0].blocks[0].pattern:1:{case['column']}: {problem.reason}"]


def test_the_issues_dialect_cases():
    """Issue 21 item 5: ECMAScript's dialect, not Python's."""
    assert compile_pattern(r"\p{L}+").fullmatch("Анна")
    assert pattern_problem("(?P<x>a)") is not None and pattern_problem("(?i)abc") is not None
    assert not compile_pattern(r"\w+").fullmatch("абв")  # ASCII, as in ECMAScript
    assert compile_pattern("a|ab").fullmatch("ab")  # the whole value, as HTML wraps it: ^(?:…)$


def test_nested_quantifiers_run_in_linear_time():
    # (a+)+b backtracks exponentially in Python's re; RE2 answers at once (bench/patterns.py times it)
    assert not compile_pattern("(a+)+b").fullmatch("a" * 10_000)
    assert compile_pattern("(a+)+b").fullmatch("a" * 9_999 + "b")


def test_lengths_count_utf16_units_as_the_browser_does():
    assert utf16_length("abc") == 3 and utf16_length("😀") == 2 and utf16_length("é") == 1
