"""The edited file on disk: what it is now, told by a stat before any read.

A path that is not a regular file (a FIFO waits for its writer when read), or one larger than a
block may be, is never read; any other is read up to the limit, and is either UTF-8 text or a
problem to show. Nothing here writes.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flowui_sandbox.sandbox.block.extract import MAX_SOURCE_BYTES


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, by its ``st_mode``."""
    for test, kind in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a file"


def not_a_file(mode: int) -> str:
    """The problem of a path that is not a regular file (reading a FIFO waits for its writer)."""
    return f"is not a regular file ({file_kind(mode)}): the editor edits a file"


def too_large(size: int) -> str:
    return f"is too large on disk ({size:,} bytes; the editor opens at most {MAX_SOURCE_BYTES:,}, {MAX_SOURCE_BYTES // 2**20} MiB)"


@dataclass(frozen=True)
class OnDisk:
    """The edited file as it is on disk now: its text, or why it has none.

    ``sha`` is the sha256 of its bytes (for a UTF-8 file, of its text: :func:`sha256`), a word
    that stands for it when the file was not read (``too-large``, never a sha256), or ``None``
    when there is no file. ``problem`` says why there is no text: the file is not UTF-8, too
    large, not a regular file or cannot be read (a clause to follow the file's name: ``is not
    UTF-8 text (…)``); the page shows no text for it, and a save over it is a conflict.
    """

    text: str | None = None
    sha: str | None = None
    problem: str | None = None

    def json(self) -> dict[str, Any]:
        return {"sha": self.sha, "source": self.text, "problem": self.problem}


#: How the edited file is opened: never waiting (a FIFO put in its place after the stat).
_OPEN = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read_disk(path: Path) -> OnDisk:
    """``path`` as it is now (:class:`OnDisk`). Stat first: a path that is not a regular file or
    is over MAX_SOURCE_BYTES is never read; at most MAX_SOURCE_BYTES + 1 bytes are (it may grow
    meanwhile)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return OnDisk(sha="not-a-file", problem=not_a_file(info.st_mode))
        if info.st_size > MAX_SOURCE_BYTES:
            return OnDisk(sha="too-large", problem=too_large(info.st_size))
        fd = os.open(path, _OPEN)
        with open(fd, "rb") as handle:
            info = os.fstat(fd)  # the file opened: the path may name another one since the stat
            if not stat.S_ISREG(info.st_mode):
                return OnDisk(sha="not-a-file", problem=not_a_file(info.st_mode))
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except FileNotFoundError:
        return OnDisk()
    except OSError as exc:
        return OnDisk(sha="unreadable", problem=f"cannot be read: {exc.strerror or type(exc).__name__}")
    if len(data) > MAX_SOURCE_BYTES:
        return OnDisk(sha="too-large", problem=too_large(max(len(data), info.st_size)))
    sha = hashlib.sha256(data).hexdigest()
    try:
        return OnDisk(text=data.decode("utf-8"), sha=sha)
    except UnicodeDecodeError as exc:
        head = data[: exc.start]
        line, column = head.count(b"\n") + 1, len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        return OnDisk(sha=sha, problem=f"is not UTF-8 text (byte 0x{data[exc.start]:02X} at line {line}, column {column})")
