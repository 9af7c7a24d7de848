"""The distribution's shape: one top-level import name, every package mapped, no name claimed twice.

The wheel itself (built, installed into a fresh virtual environment, every command run there)
is tests/browser/test_wheel.py; these checks need no build.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _package_of(folder: Path) -> str:
    """The import name pyproject.toml's package-dir gives a repository folder."""
    rel = folder.relative_to(ROOT).as_posix()
    best = max((d for d in SETUPTOOLS["package-dir"].items() if rel == d[1] or rel.startswith(d[1] + "/")),
               key=lambda item: len(item[1]))
    name, base = best
    rest = rel[len(base):].strip("/")
    return ".".join([name, *rest.split("/")]) if rest else name


def test_every_python_folder_is_a_listed_package():
    listed = set(SETUPTOOLS["packages"])
    folders = [p.parent for part in ("sandbox", "bridge", "theme") for p in (ROOT / part).rglob("__init__.py")
               if "node_modules" not in p.parts]
    missing = sorted(f"{f.relative_to(ROOT)} -> {_package_of(f)}" for f in folders if _package_of(f) not in listed)
    assert not missing, f"folders with an __init__.py missing from [tool.setuptools] packages: {missing}"
    assert all(name == "flowui_sandbox" or name.startswith("flowui_sandbox.") for name in listed)


def test_entry_points_name_the_one_package():
    assert PYPROJECT["project"]["scripts"]["flowui-sandbox"].startswith("flowui_sandbox.")
    assert PYPROJECT["project"]["entry-points"]["pytest11"]["flowui_sandbox"].startswith("flowui_sandbox.")


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_a_project_with_its_own_sandbox_bridge_and_theme_packages(tmp_path):
    for name in ("sandbox", "bridge", "theme"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"WHO = 'the project {name}'\n", encoding="utf-8")
    run = _python("""
        import bridge, sandbox, theme
        import flowui_sandbox
        from flowui_sandbox.theme import Theme

        html = flowui_sandbox.build_srcdoc('<b data-bind="a.b"></b>', block_id="b1", state={"a": {"b": 1}})
        assert "flowUi" in html and sorted(flowui_sandbox.extract_paths('<b data-bind="a.b"></b>')) == ["a.b"]
        assert Theme.parse({"accent": "#123456"}).tokens["accent"] == "#123456"
        print(sandbox.WHO, bridge.WHO, theme.WHO, sep="|")
    """, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "the project sandbox|the project bridge|the project theme"


def test_the_distribution_claims_no_other_top_level_name(tmp_path):
    run = _python("""
        import importlib.util
        print([n for n in ("sandbox", "bridge", "theme") if importlib.util.find_spec(n) is not None])
    """, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_the_public_api_is_reexported_from_the_top():
    import flowui_sandbox

    for name in flowui_sandbox.__all__:
        assert getattr(flowui_sandbox, name) is not None, name
