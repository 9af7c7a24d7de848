"""Errors the public API raises: each message says what is wrong and where."""

from __future__ import annotations


class SandboxError(ValueError):
    """Base class of every error flowui-sandbox reports to a user."""


class UsageError(SandboxError):
    """Bad input to a command or a function (a file, an option, a value)."""
