"""docs/PYTEST.md's worked examples are real tests: the files in examples/pytest/ run here, in
every engine, and the doc must show each of them exactly as it is (so the doc cannot rot)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "examples" / "pytest"
DOC = ROOT / "docs" / "PYTEST.md"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"flowui_pytest_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The examples' tests, collected as this module's (each keeps its marks; the fixtures are the plugin's).
for _path in sorted(EXAMPLES.glob("test_*.py")):
    for _name, _value in vars(_load(_path)).items():
        if _name.startswith("test_") and callable(_value):
            assert _name not in globals(), f"two examples define {_name}"
            globals()[_name] = _value


def python_blocks(markdown: str) -> list[str]:
    """The text of each fenced ```python block, line by line as CommonMark fences go."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in markdown.splitlines(keepends=True):
        if current is None:
            if line.rstrip() == "```python":
                current = []
        elif line.rstrip() == "```":
            blocks.append("".join(current))
            current = None
        else:
            current.append(line)
    return blocks


def test_the_doc_shows_every_example_file_as_it_is():
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    files = sorted(EXAMPLES.glob("*.py"))
    assert len(files) >= 3
    for path in files:
        assert path.read_text(encoding="utf-8") in blocks, f"docs/PYTEST.md does not show {path.relative_to(ROOT)} as it is"
