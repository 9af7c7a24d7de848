"""Every derived file is what `flowui-sandbox generate` would write; the command finds and rewrites stale ones."""

from __future__ import annotations

from pathlib import Path

from flowui_sandbox.sandbox.cli import main
from flowui_sandbox.sandbox.derived import generate, goldens


def test_generated_files_are_current():
    stale = [generate.relative(p) for p in generate.stale()]
    assert not stale, f"stale generated files {stale}: run `{generate.COMMAND}`"


def test_every_kind_of_derived_file_is_generated():
    names = {generate.relative(p) for p in generate.outputs()}
    assert {"bridge/contract.js", "bridge/flow-ui-runtime.js", "bridge/protocol.schema.json"} <= names
    assert {f"fixtures/srcdoc/{c['golden']}" for c in goldens.load_cases()} <= names
    assert {"sandbox/review/report.schema.json", "docs/REVIEW.md"} <= names


def test_check_names_stale_files_and_generate_rewrites_them(tmp_path, monkeypatch, capsys):
    target = tmp_path / "derived.js"
    target.write_text("// old\n", encoding="utf-8")
    monkeypatch.setattr(generate, "outputs", lambda: {target: "// new\n"})
    assert main(["generate", "--check"]) == 1
    assert "derived.js" in capsys.readouterr().err and target.read_text() == "// old\n"
    assert main(["generate"]) == 0
    assert target.read_text() == "// new\n"
    assert main(["generate", "--check"]) == 0


def test_goldens_do_not_embed_the_runtime():
    """A runtime edit leaves the goldens as they are: they hold the marker in its place."""
    for case in goldens.load_cases():
        text = Path(goldens.GOLDEN_DIR, case["golden"]).read_text(encoding="utf-8")
        assert text.count(goldens.RUNTIME_MARKER) == 1, case["golden"]
