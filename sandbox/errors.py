"""Errors the public API raises: each message says what is wrong and where.

The CLI prints a :class:`UsageError`'s text as it is: one line per problem, each in the
form ``FILE:LINE:COL: message`` (``FILE: message`` when the problem has no position),
which editors and CI problem matchers parse. A problem that belongs to no file (an
option, the set-up) is an :class:`OptionError`; the CLI prints it as
``flowui-sandbox COMMAND: error: message``, the form argparse uses for a bad option.
"""

from __future__ import annotations


class SandboxError(ValueError):
    """Base class of every error flowui-sandbox reports to a user."""


class UsageError(SandboxError):
    """Bad input to a command or a function (a file, an option, a value)."""


class OptionError(UsageError):
    """A bad option or set-up, not located in any file; the message names the option."""
