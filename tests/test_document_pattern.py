"""Text input patterns (sandbox/document/pattern.py): the subset of ECMAScript's v mode and
the server's linear-time matcher. fixtures/document/patterns.json is shared with
tests/js/patterns.test.mjs, which holds every verdict to the browser's
``new RegExp('^(?:' + p + ')$', 'v')``."""

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.document import check_document
from flowui_sandbox.sandbox.document.pattern import compile_pattern, pattern_problem, utf16_length

FIXTURE = json.loads((Path(__file__).parent.parent / "fixtures" / "document" / "patterns.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", FIXTURE["verdicts"], ids=[c["pattern"] for c in FIXTURE["verdicts"]])
def test_the_server_gives_the_browsers_verdict(case):
    pattern = compile_pattern(case["pattern"])
    assert [pattern.fullmatch(c["input"]) for c in case["inputs"]] == [c["match"] for c in case["inputs"]]


def test_a_documents_patterns_share_one_compile_budget():
    # Twenty distinct large patterns (each alone within RE2's bound) took 7 s to check: once the
    # document's programs pass MAX_PROGRAM_TOTAL, a further distinct pattern is refused uncompiled.
    blocks = [{"block_id": f"t{n}", "type": "text_input", "field": f"f{n}", "pattern": f"\\p{{L}}{{{350 + n}}}"} for n in range(20)]
    blocks += [{"block_id": f"again{n}", "type": "text_input", "field": f"g{n}", "pattern": "\\p{L}{350}"} for n in range(5)]
    problems = [str(p) for p in check_document({"start_page_id": "p", "pages": [{"page_id": "p", "blocks": blocks}]}).problems]
    refused = [p.split(".pattern")[0] for p in problems]
    assert refused == [f"pages[0].blocks[{n}]" for n in range(4, 20)], problems  # the same pattern again costs nothing
    assert all("the document's patterns together compile to more than 1,500,000 instructions" in p for p in problems)


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


# ------------------------------------------------------------------ random patterns against Node

POOL = ["a", "b", "c", "A", "é", "ж", "😀", "1", "٣", "_", " ", "\u00a0", "\ufeff", "\n", "\r", "\u2028", "-", ".", "&", "/"]
TOKENS = ["a", "b", "é", "😀", " ", "-", "/", "&", ".", "^", "$", "|", "(", ")", "(?:", "[", "]", "[^", "\\d", "\\w",
          "\\s", "\\D", "\\W", "\\S", "\\b", "\\B", "\\p{L}", "\\P{Lu}", "\\p{Nd}", "*", "+", "?", "{2}", "{1,3}", "{2,}",
          "{,2}", "*?", "\\.", "\\-", "\\u{1F600}", "\\x41", "\\t", "a-z", "&&", "--", "\\1", "(?=", "(?<n>", "(?i)", "{",
          "}", "\\k<n>", "\\p{Script=Latin}", "\\q{a}", "\\0", "\\/", "\\&"]
CLASSES = ["[a-c]", "[^a]", "[\\d\\s]", "[\\p{L}]", "[\\-a]", "[😀-😂]", "\\w", "\\d", "\\s", "\\W", "\\S", "\\D",
           "\\p{Lu}", "\\P{L}", "[^\\P{L}]", "[\\&.]", "[а-я]", "[\\t\\n]", "."]


def _structured(rng, depth=0) -> str:
    """A pattern built from the subset's constructs (most are in it)."""
    items = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if kind < 0.35:
            atom = rng.choice(["a", "b", "é", "😀", " ", "-", "\\.", "\\/", "1", "ж"])
        elif kind < 0.7 or depth >= 2:
            atom = rng.choice(CLASSES)
        else:
            inner = "|".join(_structured(rng, depth + 1) for _ in range(rng.randint(1, 2)))
            atom = rng.choice(["(", "(?:"]) + inner + ")"
        if rng.random() < 0.5:
            atom += rng.choice(["*", "+", "?", "{2}", "{1,3}", "{0,}", "+?", "??"])
        items.append(atom)
    if rng.random() < 0.1:
        items.insert(rng.randint(0, len(items)), rng.choice(["^", "$", "\\b", "\\B"]))
    return "".join(items)


def test_random_patterns_get_the_browsers_verdicts_and_what_it_refuses_is_refused():
    """4,000 random patterns (half from the subset's constructs, half from random tokens), each
    on 8 inputs, through Node's ``new RegExp('^(?:' + p + ')$', 'v')``: a pattern the server takes
    compiles in Node and gets the same verdict on every input; one Node refuses, the server refuses."""
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    rng = random.Random(20261201)
    patterns = [_structured(rng) for _ in range(2000)] + ["".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 6))) for _ in range(2000)]
    cases = [(p, ["".join(rng.choice(POOL) for _ in range(rng.randint(0, 5))) for _ in range(8)]) for p in patterns]
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(([p, inputs]) => {"
        "  let re; try { re = new RegExp('^(?:' + p + ')$', 'v'); } catch (e) { return null; }"
        "  return inputs.map((s) => re.test(s)); })));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(cases), capture_output=True, text=True, timeout=120, check=True)
    taken = wrong = 0
    for (pattern, inputs), verdicts in zip(cases, json.loads(done.stdout)):
        problem = pattern_problem(pattern)
        if verdicts is None:
            assert problem is not None, f"Node refuses {pattern!r}, the server takes it"
            continue
        if problem is None:
            taken += 1
            compiled = compile_pattern(pattern)
            mismatches = [(s, v) for s, v in zip(inputs, verdicts) if compiled.fullmatch(s) != v]
            assert not mismatches, (pattern, mismatches)
            wrong += sum(not v for v in verdicts)
    assert taken > 1500 and 0 < wrong < taken * 8  # both verdicts occur


def test_unpaired_surrogates_are_refused_in_patterns():
    assert [pattern_problem(p).offset for p in ("\ud800", "[\udc00]", "a\ud83d")] == [0, 1, 1]


@pytest.mark.parametrize("case", FIXTURE["lengths"], ids=[c["input"] for c in FIXTURE["lengths"]])
def test_lengths_from_the_shared_fixture(case):
    assert utf16_length(case["input"]) == case["length"]
