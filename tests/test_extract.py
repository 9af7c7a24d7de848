"""flowui_sandbox.sandbox.block.extract: the conformance fixtures, the error reports, bad input and the CLI.

Parity with real browsers is proven in tests/browser/test_parity.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flowui_sandbox.sandbox as sandbox
from flowui_sandbox.sandbox.block import extract
from flowui_sandbox.sandbox.block.extract import ExtractionError, Problem, extract_paths
from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.errors import SandboxError

FIXTURES = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "extraction.json").read_text(encoding="utf-8"))
POSITION_FIELDS = ("line", "column", "element", "attribute", "value")


@pytest.mark.parametrize("case", FIXTURES, ids=[c["name"] for c in FIXTURES])
def test_fixture(case):
    assert ("paths" in case) != ("errors" in case), "a case has either paths or errors"
    frozen = case.get("frozen", ())
    if "paths" in case:
        assert extract_paths(case["source"], frozen=frozen) == case["paths"]
        return
    with pytest.raises(ExtractionError) as info:
        extract_paths(case["source"], frozen=frozen)
    got = [{k: getattr(p, k) for k in POSITION_FIELDS} for p in info.value.problems]
    assert got == case["errors"]


def test_fixtures_include_the_spec_case():
    spec = next(c for c in FIXTURES if c["name"] == "bind_and_show_in_order")
    assert spec["paths"] == ["order", "order.total", "customer.name"]
    assert len({c["name"] for c in FIXTURES}) == len(FIXTURES)


def test_lazy_exports():
    assert sandbox.extract_paths is extract_paths
    assert sandbox.ExtractionError is ExtractionError
    assert issubclass(ExtractionError, SandboxError)


def test_error_message_names_element_attribute_and_position():
    source = '<ul>\n  <li data-bind="items.0"></li>\n  <li data-show="Items.1"></li>\n</ul>'
    with pytest.raises(ExtractionError) as info:
        extract_paths(source)
    (problem,) = info.value.problems
    assert (problem.line, problem.column, problem.element, problem.attribute, problem.value) == (3, 3, "li", "data-show", "Items.1")
    assert "snake_case" in problem.reason
    message = str(info.value)
    # One GCC-style line per problem: NAME:LINE:COL: message.
    assert message.startswith('source:3:3: <li data-show="Items.1">: segment 1 "Items"') and "\n" not in message


def test_all_problems_in_one_error_frozen_included():
    source = '<b data-bind="Bad"></b><i data-bind="state.x"></i><u data-show="a..b"></u><s data-bind="fine"></s>'
    with pytest.raises(ExtractionError) as info:
        extract_paths(source, frozen=["state"])
    assert [p.value for p in info.value.problems] == ["Bad", "state.x", "a..b"]
    assert "frozen system field" in info.value.problems[1].reason
    assert str(info.value).count("\n") == 2  # one line per problem, no header


def test_frozen_accepts_any_iterable():
    assert extract_paths('<b data-bind="ok.x"></b>', frozen=iter(["state"])) == ["ok.x"]
    with pytest.raises(ExtractionError):
        extract_paths('<b data-bind="state"></b>', frozen=(f for f in ["state"]))


def test_position_not_found_is_said_honestly():
    (problem,) = extract._locate("<p>nothing here</p>", [("b", "data-bind", "Zed", "a reason")])
    assert problem.line is None and problem.column is None
    assert "could not be found" in str(problem)


def test_positions_count_cr_lf_as_the_html_input_stream_does():
    assert extract._position("a\r\nb\rc\nd", 7) == (4, 1)
    assert extract._position("ab\r\ncd", 5) == (2, 2)


def test_position_skips_lookalikes_in_raw_text_and_attribute_values():
    source = '<i title=\'<b data-bind="Bad">\'></i><textarea><b data-bind="Bad"></textarea>\n<b data-bind="Bad"></b>'
    with pytest.raises(ExtractionError) as info:
        extract_paths(source)
    assert [(p.line, p.column) for p in info.value.problems] == [(2, 1)]


def test_script_escape_states_are_followed_when_locating():
    source = '<script><!--<script></script><b data-bind="Bad"></b>--></script><b data-bind="Bad"></b>'
    with pytest.raises(ExtractionError) as info:
        extract_paths(source)
    assert [(p.line, p.column) for p in info.value.problems] == [(1, 65)]


# ------------------------------------------------------------------------ bad input


def test_not_a_string():
    with pytest.raises(ExtractionError, match="must be a str, not bytes"):
        extract_paths(b"<b data-bind=a></b>")


def test_nul_and_surrogates_are_refused_with_their_position():
    with pytest.raises(ExtractionError) as info:
        extract_paths('<b data-bind="a">\n x\0y\0</b>\ud83d')
    nul, surrogate = info.value.problems
    assert (nul.line, nul.column) == (2, 3) and "NUL" in nul.reason and "1 more" in nul.reason
    assert (surrogate.line, surrogate.column) == (2, 10) and "U+D83D" in surrogate.reason


def test_crlf_and_cr_become_lf_in_values_as_in_the_dom():
    with pytest.raises(ExtractionError) as info:
        extract_paths('<b data-bind="a\r\nb"></b><i data-bind="c\rd"></i>')
    assert [p.value for p in info.value.problems] == ["a\nb", "c\nd"]


def test_size_limit():
    limit = extract.MAX_SOURCE_BYTES
    with pytest.raises(ExtractionError, match=r"4,194,305 bytes of UTF-8; at most 4,194,304 \(4 MiB\)"):
        extract_paths("x" * (limit + 1))
    # counted in UTF-8 bytes, not characters
    with pytest.raises(ExtractionError, match="bytes of UTF-8"):
        extract_paths("é" * (limit // 2 + 1))


def test_100k_levels_of_nesting_end_in_a_clear_error():
    with pytest.raises(ExtractionError) as info:
        extract_paths('<div data-bind="a">' * 100_000)
    (problem,) = info.value.problems
    # the CPU-time limit, or on a loaded machine the wall-clock one: both say why
    assert "was stopped" in problem.reason and "nest" in problem.reason


def test_large_sources_parse_in_a_child_with_the_same_result():
    block = '<section data-show="order"><b data-bind="order.total">1</b><i data-bind="c.n">&amp;</i></section>\n'
    source = block * (extract.GUARD_THRESHOLD // len(block) + 10) + '<p data-bind="last"></p>'
    assert len(source) > extract.GUARD_THRESHOLD
    assert extract.raw_values(source) == extract._collect(extract._encode(source, allow_nul=False))
    assert extract_paths(source) == ["order", "order.total", "c.n", "last"]


def test_large_source_errors_are_located_too():
    source = "<p>filler</p>\n" * 5000 + '<b data-bind="Bad"></b>'
    with pytest.raises(ExtractionError) as info:
        extract_paths(source)
    assert [(p.line, p.column) for p in info.value.problems] == [(5001, 1)]


def test_moderate_nesting_is_answered():
    source = '<div data-bind="top">' + "<div>" * 2000 + '<b data-bind="deep"></b>'
    assert extract_paths(source) == ["top", "deep"]


def test_problem_to_json():
    problem = Problem(1, 2, "b", "data-bind", "X", "why")
    assert problem.to_json() == {"line": 1, "column": 2, "element": "b", "attribute": "data-bind", "value": "X", "reason": "why"}


# ------------------------------------------------------------------------------ CLI


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return str(path)


def test_cli_one_file(tmp_path, capsys):
    f = _write(tmp_path, "a.html", '<b data-bind="x"></b><i data-show="y.z"></i>')
    assert main(["paths", f]) == 0
    assert capsys.readouterr().out == "x\ny.z\n"


def test_cli_several_files_and_json(tmp_path, capsys):
    a = _write(tmp_path, "a.html", '<b data-bind="x"></b>')
    b = _write(tmp_path, "b.html", "\ufeff<i data-show=\"y\"></i>")
    assert main(["paths", a, b]) == 0
    assert capsys.readouterr().out == f"==> {a} <==\nx\n==> {b} <==\ny\n"
    assert main(["paths", "--json", a, b]) == 0
    assert json.loads(capsys.readouterr().out) == {a: ["x"], b: ["y"]}


def test_cli_errors_name_the_file_and_exit_2(tmp_path, capsys):
    good = _write(tmp_path, "good.html", '<b data-bind="ok"></b>')
    bad = _write(tmp_path, "bad.html", '<b data-bind="state.x"></b>\n<i data-bind="Nope"></i>')
    assert main(["paths", "--frozen", "state, other", good, bad]) == 2
    out, err = capsys.readouterr()
    assert "ok" in out
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith(f"{bad}:1:1: <b data-bind=\"state.x\">: \"state\" is a frozen system field")
    assert lines[1].startswith(f"{bad}:2:1: <i data-bind=\"Nope\">: segment 1")
    assert "Traceback" not in err


def test_cli_undecodable_bytes(tmp_path, capsys):
    f = _write(tmp_path, "latin1.html", b'<b data-bind="x">\n caf\xe9</b>')
    assert main(["paths", f]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2:5: not UTF-8 (byte 0xE9 at offset 22)" in err
    assert "Traceback" not in err


def test_cli_missing_file_and_oversize(tmp_path, capsys):
    assert main(["paths", str(tmp_path / "nope.html")]) == 2
    assert "cannot read" in capsys.readouterr().err
    big = _write(tmp_path, "big.html", b"x" * (extract.MAX_SOURCE_BYTES + 1))
    assert main(["paths", big]) == 2
    assert "at most 4,194,304 (4 MiB)" in capsys.readouterr().err


def test_cli_nul(tmp_path, capsys):
    nul = _write(tmp_path, "nul.html", "<b>\0</b>")
    assert main(["paths", nul]) == 2
    assert capsys.readouterr().err.startswith(f"{nul}:1:4: a NUL character")


def test_fast_path_check_agrees_with_the_path_grammar():
    """extract's one-regex check must accept exactly what sandbox.block.paths accepts."""
    import random

    from flowui_sandbox.sandbox.block.paths import MAX_LENGTH, MAX_SEGMENTS, path_problem

    rng = random.Random(7)
    samples = ["a" * MAX_LENGTH, "a" * (MAX_LENGTH + 1), ".".join("a" * MAX_SEGMENTS), ".".join("a" * (MAX_SEGMENTS + 1)),
               "0", "01", "a.0.b", "a\n", "é", ""]
    samples += ["".join(rng.choice("ab0_.1Z-\n ") for _ in range(rng.randrange(12))) for _ in range(20_000)]
    for value in samples:
        assert bool(extract._VALID_PATH.match(value)) == (path_problem(value) is None), repr(value)


def test_hot_path_reads_what_the_browser_proven_path_reads():
    """extract_paths reads values only (_values); the parity test proves _collect against the
    browsers. Both must agree on the whole parity corpus."""
    import importlib.util

    here = Path(__file__).resolve().parent / "browser" / "parity"
    spec = importlib.util.spec_from_file_location("parity_generate", here / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = json.loads((here / "traps.json").read_text(encoding="utf-8")) + module.generate()
    assert len(cases) >= 300
    for case in cases:
        document = extract._encode(case["source"], allow_nul=True)
        assert extract._values(document) == [v for _, _, v in extract._collect(document)], case["name"]


def test_many_bad_binds_are_located_in_one_pass():
    # 20,000 bad values took over 10 s when each problem's position re-counted the source before it.
    count = 20_000
    source = "\r\n".join(f'<b data-bind="Bad{i}"></b>' for i in range(count))
    with pytest.raises(ExtractionError) as info:
        extract_paths(source)
    problems = info.value.problems
    assert len(problems) == count
    assert [(p.line, p.column, p.value) for p in problems[::4999]] == [
        (i + 1, 1, f"Bad{i}") for i in range(0, count, 4999)]


def test_many_sources_are_extracted_in_order_with_their_own_problems():
    sources = [f'<p data-bind="item_{i}"></p>' + "<span>text</span>" * 200 for i in range(30)]
    sources[7] = '<p>\n<i data-show="Bad"></i></p>' + "<span>text</span>" * 200
    sources[12] = "a\0b"
    assert sum(len(s) for s in sources) > extract.GUARD_THRESHOLD  # parsed together in one child
    results = extract.extract_paths_many(sources, frozen=["item_3"])
    assert results[0] == ["item_0"] and results[29] == ["item_29"]
    assert isinstance(results[3], ExtractionError) and "item_3" in str(results[3])
    assert isinstance(results[7], ExtractionError) and results[7].problems[0].line == 2 and "Bad" in str(results[7])
    assert isinstance(results[12], ExtractionError) and "NUL" in str(results[12])
    assert [r if isinstance(r, list) else None for r in results] == [
        extract_paths(s, frozen=["item_3"]) if i not in (3, 7, 12) else None for i, s in enumerate(sources)]


def test_a_document_s_sources_share_one_parse_budget():
    """Ten sources of 100 KB of nested <div> each got a child of their own with its own 1.5 s
    of CPU (6.5 s in all on this machine); together they now get one child and one budget, and
    each is refused, saying so. (Each costs about half a second of CPU on its own.)"""
    nested = "<div>" * 20_000
    results = extract.extract_paths_many([nested] * 10)
    assert all(isinstance(r, ExtractionError) and "not checked" in str(r) and "the document's html sources" in str(r)
               for r in results), results[0]
