"""pytest-playwright's ``browser`` on a machine with Debian's browsers instead of Playwright's.

Registered by the ``flowui_sandbox`` plugin at ``pytest_configure`` (after every other plugin), so
this ``browser_type_launch_args`` receives pytest-playwright's and adds to it only what
:func:`flowui_sandbox.sandbox.pytest_plugin.with_debian_browser` says; a conftest that overrides the fixture
comes after it and has the last word (docs/PYTEST.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from .pytest_plugin import with_debian_browser


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], browser_name: str) -> dict[str, Any]:
    """pytest-playwright's launch arguments, plus Debian's executable where Playwright's own build of
    ``browser_name`` is not installed (and the arguments name no executable or channel of their own)."""
    return with_debian_browser(browser_type_launch_args, browser_name)
