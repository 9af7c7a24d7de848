"""The one exception tree: every error flowui-sandbox raises on purpose is a :class:`SandboxError`.

::

    SandboxError                 catch this one for anything of ours
    ├── UsageError (ValueError)  bad input: a file, an option, a value, a message, a theme...
    │   └── OptionError          an option or the set-up, located in no file
    ├── EngineError (RuntimeError, engines/base.py)  a browser could not be launched or driven
    │   ├── PageGone (DocumentReplaced), ScriptTimeout, Unsupported     (engines/base.py)
    │   └── SessionLost                              a remote browser went away (harness/remote.py)
    └── Recovered (UserWarning)  never raised, warned: something failed and the run went on without it

Each part defines its own kinds under these (``ExtractionError``, ``PathError``, ``ThemeError``...);
``tests/test_errors.py`` finds every exception class of the package and fails on one outside the tree.
This module imports nothing, so every layer may import it, ``theme`` included (tests/test_import_graph.py).

The CLI prints a :class:`UsageError`'s text as it is: one line per problem, each in the
form ``FILE:LINE:COL: message`` (``FILE: message`` when the problem has no position),
which editors and CI problem matchers parse. A problem that belongs to no file (an
option, the set-up) is an :class:`OptionError`; the CLI prints it as
``flowui-sandbox COMMAND: error: message``, the form argparse uses for a bad option.
"""

from __future__ import annotations


class SandboxError(Exception):
    """The root of every error flowui-sandbox raises on purpose."""


class UsageError(SandboxError, ValueError):
    """Bad input to a command or a function (a file, an option, a value); a ValueError too."""


class OptionError(UsageError):
    """A bad option or set-up, not located in any file; the message names the option."""


class Recovered(SandboxError, UserWarning):
    """A warning, never raised: something failed and the run went on: a driver step done again (a
    first navigation in a fresh window), a remote browser that did not answer or was lost while
    another of its engine took its share. Its message says what failed and what was done instead (a
    remedy that leaves no trace tells nothing of how often the failure comes, nor of its cause).
    The command line prints each as one note line."""
