"""One exception tree: every exception class flowui_sandbox defines is a SandboxError (sandbox/errors.py).

Found by importing every module of the packages pyproject.toml lists, so a new class outside the
tree fails here; bad input stays a ValueError, a browser's trouble a RuntimeError.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

from flowui_sandbox.sandbox.engines import DocumentReplaced, EngineError, PageGone, ScriptTimeout, Unsupported
from flowui_sandbox.sandbox.errors import OptionError, Recovered, SandboxError, UsageError
from flowui_sandbox.sandbox.harness.remote import SessionLost
from flowui_sandbox.theme import ThemeError
from tests.test_import_graph import modules


def defined_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in modules():
        if name.endswith("__main__"):
            continue  # running it is the CLI
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{attr}"] = value
    return found


def test_the_search_finds_the_exceptions():
    found = defined_exceptions()
    assert len(found) >= 25
    assert found["flowui_sandbox.theme.ThemeError"] is ThemeError


def test_every_exception_is_in_the_one_tree():
    outside = sorted(name for name, cls in defined_exceptions().items() if not issubclass(cls, SandboxError))
    assert not outside, "exceptions outside SandboxError: " + ", ".join(outside)


@pytest.mark.parametrize("cls", [UsageError, OptionError, ThemeError])
def test_bad_input_is_a_usage_error_and_a_value_error(cls):
    assert issubclass(cls, UsageError) and issubclass(cls, ValueError)


@pytest.mark.parametrize("cls", [EngineError, PageGone, DocumentReplaced, ScriptTimeout, Unsupported, SessionLost])
def test_a_browser_s_trouble_is_an_engine_error_and_no_usage_error(cls):
    assert issubclass(cls, EngineError) and issubclass(cls, RuntimeError) and not issubclass(cls, UsageError)


def test_every_named_error_says_bad_input_or_browser():
    # The two branches of the tree: a class of ours is one or the other, except the internal
    # signals that never leave their module (a parse that gave up, a child the kernel stopped, a
    # check that found enough problems).
    internal = {"flowui_sandbox.sandbox.block.cpu_limited.ChildStopped", "flowui_sandbox.sandbox.review.js.TooComplex",
                "flowui_sandbox.sandbox.document.validate._Enough"}
    neither = sorted(name for name, cls in defined_exceptions().items()
                     if cls is not SandboxError and not issubclass(cls, UsageError | EngineError | Recovered) and name not in internal)
    assert not neither, neither


def test_a_recovered_step_is_one_note_line_on_the_command_line(monkeypatch, capsys):
    """A driver's remedy that worked (engines/webdriver.py: a first navigation done again in a fresh
    window) is warned as :class:`Recovered`; the command prints each as one note and goes on."""
    import warnings

    from flowui_sandbox.sandbox import cli
    from flowui_sandbox.sandbox.review import command

    def review_files(*args, **kwargs) -> int:
        for window in ("first", "second"):  # each recovery, not the first at this line only
            warnings.warn(Recovered(f"webkit: WebDriver call timed out after 15s ({window})\nmore"), stacklevel=1)
        warnings.warn(Recovered(""), stacklevel=1)  # no words: still one line, not a crash of the printer
        return 0

    monkeypatch.setattr(command, "review_files", review_files)
    with warnings.catch_warnings():
        assert cli.main(["review", "x.html"]) == 0
    err = capsys.readouterr().err
    assert err == ("flowui-sandbox review: note: webkit: WebDriver call timed out after 15s (first)\n"
                   "flowui-sandbox review: note: webkit: WebDriver call timed out after 15s (second)\n"
                   "flowui-sandbox review: note: Recovered\n"), err
