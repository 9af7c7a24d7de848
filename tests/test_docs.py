"""The docs hold true: their Python snippets run, the packages' docstring examples pass,
and every `SPEC §n` the code and docs cite is a section of the repository's own docs/SPEC.md.

Snippets: every ```python block of README.md and docs/*.md that is written as a session
(`>>>`) runs as a doctest, the blocks of one file sharing one namespace in order, from the
repository root (so `examples/…` paths resolve). A block without `>>>` (one that needs real
browsers, say) must still compile and its imports must resolve.
"""
import ast
import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SNIPPET_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PACKAGES = ("flowui_sandbox.sandbox", "flowui_sandbox.bridge", "flowui_sandbox.theme")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# Where citations and relative references are looked for, and what is not the project's own text.
TEXT_SUFFIXES = {".py", ".md", ".js", ".mjs", ".json", ".toml", ".txt", ".html", ".css"}
NOT_OURS = {".git", ".venv", "node_modules", "build", "out", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(line of the first code line, code) of each ```python fenced block, in order."""
    blocks, code, start = [], None, 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = line.strip()
        if code is None:
            if fence.startswith("```") and fence[3:].strip().split(" ")[0] in ("python", "py", "pycon"):
                code, start = [], number + 1
        elif fence.startswith("```"):
            blocks.append((start, "\n".join(code) + "\n"))
            code = None
        else:
            code.append(line)
    assert code is None, f"{path}: a ```python block is never closed"
    return blocks


@pytest.mark.parametrize("path", SNIPPET_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_snippets_run(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=FLAGS)
    globs: dict = {"__name__": "__snippets__"}
    failures = []
    for line, code in python_blocks(path):
        where = f"{path.relative_to(ROOT)}:{line}"
        if ">>>" not in code:
            tree = compile(code, where, "exec", ast.PyCF_ONLY_AST)
            imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
            exec(compile(ast.Module(body=imports, type_ignores=[]), where, "exec"), {})
            continue
        test = parser.get_doctest(code, globs, where, str(path), line - 1)
        out: list[str] = []
        result = runner.run(test, out=out.append, clear_globs=False)
        if result.failed:
            failures.append("".join(out))
    assert not failures, "\n".join(failures)


def library_modules() -> list[str]:
    names = ["flowui_sandbox"]
    for package in PACKAGES:
        names.append(package)
        root = importlib.import_module(package)
        names += [info.name for info in pkgutil.walk_packages(root.__path__, package + ".")
                  if not info.name.endswith(".__main__") and ".sandbox.api" not in info.name]  # running it is the CLI, not an import
    return names


def modules_with_examples() -> list[str]:
    finder = doctest.DocTestFinder()
    return [name for name in library_modules()
            if any(test.examples for test in finder.find(importlib.import_module(name)))]


EXAMPLES = modules_with_examples()


def test_the_public_api_has_docstring_examples():
    # The parse functions, the projection and the policy show their use in their docstrings.
    for name in ("flowui_sandbox.bridge.grammar", "flowui_sandbox.sandbox.block.paths", "flowui_sandbox.sandbox.block.projection", "flowui_sandbox.sandbox.block.policy"):
        assert name in EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    runner, out = doctest.DocTestRunner(optionflags=FLAGS), []
    for test in doctest.DocTestFinder().find(importlib.import_module(name)):
        runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.attempted and not result.failed, "".join(out)


def project_text_files():
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if path.suffix in TEXT_SUFFIXES and path.is_file() and not any(
                part in NOT_OURS or part.endswith(".egg-info") for part in parts[:-1]) \
                and parts[:3] != ("sandbox", "editor", "bundle") and path.name != "codemirror.js":
            yield path


SECTION = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.M)
# "SPEC §2", "SPEC §2, §3, §5" (the list may wrap onto the next line); a dotted number
# (a subsection) must be a heading of its own.
CITATION = re.compile(r"SPEC(?:\.md)?\s+§\d+(?:\.\d+)*(?:,?\s+(?:and\s+)?§\d+(?:\.\d+)*)*")


def test_spec_citations_resolve_in_the_repositorys_spec():
    spec = ROOT / "docs" / "SPEC.md"
    sections = set(SECTION.findall(spec.read_text(encoding="utf-8")))
    assert sections >= {"1", "2", "3", "4", "5"}
    cited, dangling = 0, []
    for path in project_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in CITATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            for number in re.findall(r"§(\d+(?:\.\d+)*)", match.group()):
                cited += 1
                if number not in sections:
                    dangling.append(f"{path.relative_to(ROOT)}:{line}: SPEC §{number} is not a section of docs/SPEC.md")
    assert not dangling, "\n".join(dangling)
    assert cited >= 30, f"only {cited} citations found: the scanner no longer sees them"


RELATIVE = re.compile(r"(?<![\w./])(?:\.\./)+[\w.-][\w./-]*")


def test_docs_and_code_cite_nothing_outside_the_repository():
    # A reference like ../shared/X.md resolves only on the machine it was written on: each
    # ../ reference in the docs and the Python sources names a file of this repository, read
    # from the citing file's folder (a Markdown link) or from the root (a command's argument).
    outside = []
    for path in project_text_files():
        if path.suffix not in {".md", ".py"} or path.relative_to(ROOT).parts[0] == "fixtures" or path == Path(__file__):
            continue  # fixtures are payloads (a block fetching ../account/export.csv), not references
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in RELATIVE.finditer(text):
            reference = match.group().rstrip(".")
            targets = [(base / reference).resolve() for base in (path.parent, ROOT)]
            if not any(target.is_relative_to(ROOT) and target.exists() for target in targets):
                line = text.count("\n", 0, match.start()) + 1
                outside.append(f"{path.relative_to(ROOT)}:{line}: {reference} is not a file of this repository")
    assert not outside, "\n".join(outside)
