"""Reading the files the commands are given: one reader, one set of clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import UsageError


def read_text(name: str, *, limit: int) -> str:
    """The UTF-8 text of file ``name`` (``-``: standard input), a leading BOM dropped.

    A missing or unreadable file, one over ``limit`` bytes, or bytes that are not UTF-8
    raise :class:`UsageError` naming the file (and ``line:column`` of a bad byte).
    """
    try:
        data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{name}: no such file, cannot read it") from None
    except IsADirectoryError:
        raise UsageError(f"{name}: is a directory, not a file") from None
    except OSError as exc:
        raise UsageError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        mib = f" ({limit // 2**20} MiB)" if limit % 2**20 == 0 else ""
        raise UsageError(f"{name}: {len(data):,} bytes; at most {limit:,}{mib} are accepted")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = data[: exc.start]
        line = head.count(b"\n") + 1
        column = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        raise UsageError(
            f"{name}:{line}:{column}: not UTF-8 (byte 0x{data[exc.start]:02X} at offset {exc.start}); save the file as UTF-8"
        ) from None
