"""pytest-playwright's ``browser`` on a machine with Debian's browsers instead of Playwright's.

Registered by the ``flowui_sandbox`` plugin at ``pytest_configure`` (after every other plugin), so
this ``browser_type_launch_args`` receives pytest-playwright's and adds to it only what
:func:`with_debian_browser` says; a conftest that overrides the fixture comes after it and has
the last word (docs/PYTEST.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from ..engines import Engine, find_engines, playwright_launch_options


def with_debian_browser(launch_args: dict[str, Any], browser_name: str, engines: list[Engine] | None = None) -> dict[str, Any]:
    """``launch_args`` for ``browser_name``, plus the Debian executable (and the flags it needs) when
    Playwright's own build is not installed. Unchanged when Playwright's build is there, when the
    arguments already name an ``executable_path`` or a ``channel`` (``--browser-channel``), or when
    there is nothing Playwright can launch (WebKitGTK is not a Playwright browser)."""
    if "executable_path" in launch_args or "channel" in launch_args:
        return launch_args
    engine = next((e for e in (find_engines() if engines is None else engines) if e.name == browser_name), None)
    if engine is None or engine.origin != "debian" or engine.driver != "playwright":
        return launch_args
    extra = playwright_launch_options(engine)
    merged = {**extra, **launch_args}
    if "args" in extra:
        merged["args"] = list(launch_args.get("args") or []) + [a for a in extra["args"] if a not in (launch_args.get("args") or [])]
    return merged


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], browser_name: str) -> dict[str, Any]:
    """pytest-playwright's launch arguments, plus Debian's executable where Playwright's own build of
    ``browser_name`` is not installed (and the arguments name no executable or channel of their own)."""
    return with_debian_browser(browser_type_launch_args, browser_name)
