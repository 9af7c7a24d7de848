"""Where the data shipped with the package lives: the probe catalogue, the examples, the harness's scripts.

Installed from a wheel they are package data, ``flowui_sandbox/probes`` and
``flowui_sandbox/examples`` (pyproject.toml maps them from the repository's
``fixtures/probes`` and ``examples``). In a checkout, and in an editable install (which
cannot import a package that holds only data), they are the repository's own folders.
"""

from __future__ import annotations

from pathlib import Path

from .errors import SandboxError

#: ``site-packages/flowui_sandbox`` when installed; the repository root in a checkout.
_ABOVE = Path(__file__).resolve().parent.parent


def _shipped(installed: str, checkout: str) -> Path:
    path = _ABOVE / installed
    return path if path.is_dir() else _ABOVE / checkout


PROBES_DIR = _shipped("probes", "fixtures/probes")
EXAMPLES_DIR = _shipped("examples", "examples")


def shipped_script(path: Path, *, inline: bool = True) -> str:
    """The text of a JavaScript file the package ships (a host page's script); ``inline``: it goes
    inside a page's ``<script>`` element, so it must not hold ``</script``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SandboxError(f"{path}: {exc} (a broken installation?)") from None
    if inline and "</script" in text.lower():
        raise SandboxError(f"{path}: holds '</script', which would end the page's script element")
    return text
