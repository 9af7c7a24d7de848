"""The static layer against the corpus (fixtures/review/): precision and recall, every rule
needed (disabling one loses recall), positions in the author's source, bad input."""

from __future__ import annotations

import time

import pytest

from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.review import review, review_static
from flowui_sandbox.sandbox.review.catalogue import load_rules
from flowui_sandbox.sandbox.review.corpus import Score, load_corpus, score
from flowui_sandbox.sandbox.review.model import Finding

CASES = load_corpus()


def static_score() -> Score:
    total = Score()
    for case in CASES:
        total.add(score(case.name, review_static(case.source, file=case.name, fields=case.fields), case.expected["static"]))
    return total


def test_corpus_size():
    assert len(CASES) >= 40
    names = {c.name for c in CASES}
    assert sum(n.startswith("benign") or n == "starter" for n in names) >= 10
    assert sum(n.startswith("exfil") for n in names) >= 15


def test_static_precision_and_recall():
    total = static_score()
    assert total.recall == 1.0, "\n".join(total.misses)
    assert total.precision == 1.0, "\n".join(total.extras)


def test_an_optional_expectation_is_neither_a_hit_nor_a_miss():
    def finding(rule: str, hosts: list[str]) -> Finding:
        return Finding(rule=rule, severity="low", message="m", file="f", line=1, column=1, layer="browser", hosts=hosts,
                       fingerprint=rule + hosts[0])

    expected = [{"rule": "bridge.open-url"}, {"rule": "bridge.open-url", "optional": True}]
    one, two = finding("bridge.open-url", ["one.example"]), finding("bridge.open-url", ["two.example"])
    assert (score("b", [one], expected).tp, score("b", [one], expected).fn, score("b", [one], expected).fp) == (1, 0, 0)
    assert (score("b", [one, two], expected).tp, score("b", [one, two], expected).fp) == (1, 0)
    assert score("b", [], expected).fn == 1  # the required one is still required
    assert score("b", [one, two, finding("bridge.open-url", ["x"])], expected).fp == 1  # a third is too many


STATIC_RULES = sorted({e["rule"] for c in CASES for e in c.expected["static"]})


@pytest.mark.parametrize("rule_id", STATIC_RULES)
def test_disabling_a_rule_loses_recall(rule_id, monkeypatch):
    monkeypatch.setenv("FLOWUI_REVIEW_DISABLE", rule_id)
    assert rule_id not in load_rules()
    assert static_score().recall < 1.0


def test_every_static_rule_is_exercised():
    # source.refused and source.too-complex: the bad-input tests below.
    exercised = set(STATIC_RULES) | {"source.refused", "source.too-complex"}
    missing = [r.id for r in load_rules().values() if r.layer != "browser" and r.id not in exercised]
    assert not missing, f"rules no corpus block expects: {missing}"


def positions(source: str, rule: str, **kw) -> list[tuple[int, int]]:
    return [(f.line, f.column) for f in review_static(source, **kw) if f.rule == rule]


def test_positions_in_scripts_handlers_and_styles():
    source = (
        "<p>x</p>\r\n"
        "<div style='color:red;\n  background:url(https://a.example/x.png)'></div>\n"
        "<button onclick=\"alert(1)\">b</button>\n"
        "<style>\n.a{}\n  .b { background: url(https://b.example/y.png) }\n</style>\n"
        "<script>\n  const é = 1; fetch('/x');\n</script>\n"
    )
    assert positions(source, "url.external") == [(3, 14), (7, 20)]  # the url( token
    assert positions(source, "blocked.dialog") == [(4, 18)]
    assert positions(source, "blocked.network-api") == [(10, 16)]  # a non-ASCII name before it: columns count characters


def test_oversized_source_is_a_finding_and_the_run_goes_on(tmp_path):
    big = tmp_path / "big.html"
    big.write_text("<p>" + "x" * (4 * 1024 * 1024) + "</p>", encoding="utf-8")
    ok = tmp_path / "ok.html"
    ok.write_text("<img src='https://cdn.example/a.png' alt=''>", encoding="utf-8")
    start = time.monotonic()
    report = review([str(big), str(ok)], static_only=True)
    assert time.monotonic() - start < 10
    assert [f.rule for f in report.blocks[0].findings] == ["source.refused"]
    assert [f.rule for f in report.blocks[1].findings] == ["url.external"]
    assert main(["review", "--static", str(big), str(ok)]) == 1


def test_nul_and_directory(tmp_path, capsys):
    (tmp_path / "a.html").write_text("<p>\0</p>", encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>fine</p>", encoding="utf-8")
    report = review([str(tmp_path)], static_only=True)
    assert [b.file.rsplit("/", 1)[-1] for b in report.blocks] == ["a.html", "b.html"]
    assert report.blocks[0].findings[0].rule == "source.refused"
    assert main(["review", "--static", str(tmp_path / "empty-dir-missing")]) == 2


def test_invalid_path_in_markup_is_reported_with_position():
    findings = review_static('<p>\n  <b data-bind="Bad Path"></b></p>')
    assert [(f.rule, f.line, f.column) for f in findings] == [("source.refused", 2, 3)]


def test_sensitive_words_are_configurable():
    kw = dict(fields=["user.shoe_size"])
    assert not positions("<p data-bind='user.shoe_size'></p>", "projection.sensitive-path", **kw)
    assert positions("<p data-bind='user.shoe_size'></p>", "projection.sensitive-path", sensitive=["shoe_size"], **kw)


def test_deep_or_slow_scripts_give_a_finding_not_a_hang():
    deep = "<script>x = " + "(" * 3000 + "1" + ")" * 3000 + ";</script>"
    assert [f.rule for f in review_static(deep)] == ["source.too-complex"]
    long = "<script>" + "var a = flowUi.state.x;\n" * 3000 + "</script>"
    start = time.monotonic()
    findings = review_static(long, time_limit=0.01)
    assert time.monotonic() - start < 5
    assert [f.rule for f in findings] == ["source.too-complex"] and "time limit" in findings[0].message
