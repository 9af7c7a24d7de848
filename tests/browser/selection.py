"""The selected cases of a module that runs them in one batch (the probe catalogue, the review
corpus): what is left after ``-k`` and deselection, so the batch runs only what they read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


def selected_cases(session: pytest.Session, module: object) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(test function name, its parameters)`` for each selected case of ``module`` that runs per engine."""
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "module", None) is module and callspec and "flowui_engine" in callspec.params:
            yield getattr(item, "originalname", ""), callspec.params
