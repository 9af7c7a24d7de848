"""Reading the files the commands are given: one reader, one set of clear errors.

Every file a user hands a command (a block source, a state or theme, a probe, standard
input) is read here. A problem becomes a :class:`UsageError` of one line in the form
``FILE:LINE:COL: message`` (``FILE: message`` when the problem has no position, e.g. a
missing file), the form editors and CI problem matchers parse.

* At most ``limit + 1`` bytes are ever read, from a file and from standard input alike:
  a 1 GiB file or ``/dev/zero`` is refused after reading 4 MiB, not after reading it all.
* JSON (:func:`read_json`) is parsed as ``JSON.parse`` reads it, with three refusals a
  browser would not make but the block's state could not survive: nesting deeper than
  ``max_depth`` (which also keeps Python's recursive parser from a ``RecursionError``),
  ``NaN``/``Infinity`` (not JSON), and numbers JavaScript cannot hold (an integer beyond
  ``Number.MAX_SAFE_INTEGER`` would be rounded, a float beyond the double range becomes
  ``Infinity``). Each is reported at its line and column.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from .block.jsonjs import MAX_DEPTH, MAX_SAFE_INTEGER
from .errors import UsageError


def display_name(name: str) -> str:
    """How errors name a file: ``-`` (standard input) is ``<stdin>``, as compilers write it;
    any other name as :func:`shown_name` writes it."""
    return "<stdin>" if name == "-" else shown_name(name)


def shown_name(name: str) -> str:
    """``name`` as one line of UTF-8 text, losslessly: a name holding a control character (a
    newline would split the one-line message) or a byte that is not UTF-8 (``os.fsdecode``
    keeps it as a lone surrogate, which no UTF-8 output can hold) is written with backslash
    escapes (``\\n``, ``\\xff``, a backslash doubled); any other name is left as it is."""
    if name.isprintable():  # the common case (a surrogate is not printable)
        return name
    out = []
    for char in name:
        if "\udc80" <= char <= "\udcff":  # the byte os.fsdecode could not decode
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif char == "\\" or not char.isprintable():
            out.append(repr(char)[1:-1])  # \\, \\n, \\x7f, \\u200b
        else:
            out.append(char)
    return "".join(out)


def read_bytes(name: str, *, limit: int) -> bytes:
    """The bytes of file ``name`` (``-``: standard input), refused beyond ``limit`` bytes.

    Reads at most ``limit + 1`` bytes, so the size of what is refused costs nothing (also from
    a device that never ends, ``/dev/zero``). A FIFO is opened without waiting: one that a
    program writes to (``<(command)``) is read as standard input is; one that no program writes
    to is refused at once, where a blocking open would wait for a writer forever.
    """
    shown = display_name(name)
    try:
        if name == "-":
            if sys.stdin is None:  # started with standard input closed (<&-)
                raise OSError(errno.EBADF, "standard input is closed")
            data = sys.stdin.buffer.read(limit + 1)
            size = None
        else:
            # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer
            fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            with open(fd, "rb") as handle:
                info = os.fstat(fd)
                if stat.S_ISDIR(info.st_mode):
                    raise IsADirectoryError(errno.EISDIR, "is a directory")
                first = b""
                if stat.S_ISFIFO(info.st_mode):  # a pipe: <(command), or a named FIFO
                    try:
                        first = os.read(fd, 65536)
                        if not first:  # no writer: a blocking read would wait for one forever
                            raise UsageError(f"{shown}: a FIFO that no program writes to (nothing to read)")
                    except BlockingIOError:  # a writer is there, not done yet: wait for it, as for stdin
                        pass
                os.set_blocking(fd, True)
                size = info.st_size if stat.S_ISREG(info.st_mode) else None
                data = first + handle.read(limit + 1 - len(first)) if len(first) <= limit else first
    except FileNotFoundError:
        raise UsageError(f"{shown}: no such file, cannot read it") from None
    except IsADirectoryError:
        raise UsageError(f"{shown}: is a directory, not a file") from None
    except (OSError, MemoryError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise UsageError(f"{shown}: cannot read: {why}") from None
    if len(data) > limit:
        mib = f" ({limit // 2**20} MiB)" if limit % 2**20 == 0 else ""
        has = f"{size:,} bytes" if size and size > limit else f"more than {limit:,} bytes"
        raise UsageError(f"{shown}: {has}; at most {limit:,}{mib} are accepted")
    return data


def read_text(name: str, *, limit: int) -> str:
    """The UTF-8 text of file ``name`` (``-``: standard input), a leading BOM dropped.

    A missing or unreadable file, one over ``limit`` bytes, or bytes that are not UTF-8
    raise :class:`UsageError` naming the file (and ``line:column`` of a bad byte).
    """
    return decode_utf8(read_bytes(name, limit=limit), display_name(name))


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text without a leading BOM; a bad byte is reported at its line and column."""
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


def read_json(name: str, *, limit: int, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of file ``name`` (``-``: standard input); see the module doc for what is refused."""
    return parse_json(read_text(name, limit=limit), display_name(name), max_depth=max_depth)


class _Refused(UsageError):
    def __init__(self, token: str, why: str):
        super().__init__(why)
        self.token, self.why = token, why


def _constant(token: str) -> Any:
    raise _Refused(token, f"{token} is not JSON")


def _integer(token: str) -> int:
    if len(token) < 16:  # at most 15 digits: always safe (the common case, kept cheap)
        return int(token)
    digits = token.lstrip("-")
    if len(digits) > 16 or int(digits) > MAX_SAFE_INTEGER:
        shown = token if len(token) <= 40 else token[:37] + "..."
        raise _Refused(token, f"the integer {shown} is beyond ±{MAX_SAFE_INTEGER:,} (Number.MAX_SAFE_INTEGER); JavaScript would round it")
    return int(token)


def _float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        shown = token if len(token) <= 40 else token[:37] + "..."
        raise _Refused(token, f"the number {shown} is beyond the range of a JavaScript number (it would read Infinity)")
    return value


_DECODER = json.JSONDecoder(parse_constant=_constant, parse_int=_integer, parse_float=_float)


def parse_json(text: str, name: str, *, max_depth: int = MAX_DEPTH, object_pairs_hook: Any = None) -> Any:
    """``text`` parsed as JSON; a problem is a one-line :class:`UsageError` ``NAME:LINE:COL: ...``.

    ``object_pairs_hook`` builds each object (as ``json`` takes it); a ``ValueError`` it raises
    is not caught here, so its caller can locate its own kind of problem.
    """
    decoder = _DECODER if object_pairs_hook is None else json.JSONDecoder(
        parse_constant=_constant, parse_int=_integer, parse_float=_float, object_pairs_hook=object_pairs_hook)
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except _Refused as exc:
        offset = _scan(text, max_depth, exc.token)
        raise UsageError(f"{name}:{position(text, offset)}: not accepted: {exc.why}") from None
    except RecursionError:
        value = None  # deeper than Python's stack: certainly deeper than max_depth
    else:
        if _depth(value) <= max_depth:
            return value
    offset = _scan(text, max_depth, None)
    raise UsageError(f"{name}:{position(text, offset)}: nested deeper than {max_depth} objects and arrays")


def _string_end(text: str, start: int) -> int:
    """The offset of the quote that ends the JSON string opened at ``start`` (or the text's end)."""
    i = text.find('"', start + 1)
    while i != -1:
        k = i - 1
        while k > start and text[k] == "\\":
            k -= 1
        if (i - 1 - k) % 2 == 0:  # an even run of backslashes escapes itself, not the quote
            return i
        i = text.find('"', i + 1)
    return len(text)


def position(text: str, offset: int) -> str:
    """``LINE:COL`` (1-based, columns in characters) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def top_position(text: str) -> str:
    """``LINE:COL`` of the first value in a JSON text (where a wrong top-level type is)."""
    stripped = len(text) - len(text.lstrip(" \t\r\n"))
    return position(text, stripped)


_CONTAINERS = (dict, list)


def _depth(value: Any) -> int:
    """How deeply ``value`` nests objects and arrays (a scalar: 0), level by level, without
    recursion: a list per level, not a stack of (item, depth) pairs, which takes 8.6 s for 2.6
    million ``{}`` against 0.6 s."""
    deepest = 0
    level = [value] if type(value) in _CONTAINERS else []
    while level:
        deepest += 1
        level = [child for node in level for child in (node.values() if type(node) is dict else node)
                 if type(child) in _CONTAINERS]
    return deepest


#: The characters a JSON number is made of (a token next to one is part of a longer number).
_NUMBER = frozenset("0123456789.eE+-")


def _scan(text: str, max_depth: int, token: str | None) -> int:
    """The offset of the first container opened beyond ``max_depth``, or (``token`` given)
    of the first occurrence of that literal outside strings. Runs on the error path only;
    the text is JSON up to the point it finds, so strings and escapes are all it must know.
    It jumps from one string quote, bracket or brace to the next with ``str.find`` (numbers,
    commas and blanks are never looked at one by one), so 4 MiB take milliseconds.
    """
    depth = 0
    targets = '"[]{}' if token is None else ('"', token)
    ahead = {t: text.find(t) for t in targets}
    pos = 0
    while True:
        for t, at in ahead.items():
            if at != -1 and at < pos:
                ahead[t] = text.find(t, pos)
        live = [(at, t) for t, at in ahead.items() if at != -1]
        if not live:
            return 0
        i, found = min(live)
        pos = i + 1
        if found == '"':
            pos = _string_end(text, i) + 1
        elif found in "[{":
            depth += 1
            if depth > max_depth:
                return i
        elif found in "]}":
            depth -= 1
        elif not (i and text[i - 1] in _NUMBER) and text[i + len(found) : i + len(found) + 1] not in _NUMBER:
            return i  # the token itself, not the start or the end of a longer number (its digits then ".5")


def member_positions(text: str) -> dict[str, str]:
    """``LINE:COL`` of each key of the top-level JSON object in ``text`` (valid JSON), by key."""
    found: dict[str, str] = {}
    depth = 0
    i, end = 0, len(text)
    while i < end:
        char = text[i]
        if char == '"':
            start = i
            i = _string_end(text, i)
            if depth == 1 and text[i + 1 :].lstrip(" \t\r\n").startswith(":"):
                found.setdefault(json.loads(text[start : i + 1]), position(text, start))
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        i += 1
    return found


def writable_output(name: str) -> Path:
    """``name`` as a file a command may write later (checked before the work, not after).

    Missing folders are created when writing; a directory, a path under a file, or a
    folder the user may not write to is refused now.
    """
    path = Path(name)
    shown = shown_name(name)
    if path.is_dir():
        raise UsageError(f"{shown}: is a directory, not a file")
    if path.is_fifo() or path.is_socket():  # opening one would wait for a reader
        raise UsageError(f"{shown}: cannot write: not a regular file (a FIFO or socket)")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{shown}: cannot write: {shown_name(str(folder))} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{shown}: cannot write: permission denied")
    return path


def write_output(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, creating its folders; a failure is one located line.

    A FIFO or socket is refused, not opened: opening one waits for a reader that may never
    come. A device (``/dev/null``, ``/dev/full``) is written as a file is.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of waiting
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o666)
        with open(fd, "w", encoding="utf-8", newline="") as f:  # newline="": CR and CRLF kept as written
            mode = os.fstat(fd).st_mode
            if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                raise UsageError(f"{shown_name(str(path))}: cannot write: not a regular file (a FIFO or socket)")
            os.set_blocking(fd, True)
            if stat.S_ISREG(mode):
                os.ftruncate(fd, 0)  # O_TRUNC only now: a FIFO is refused before anything is changed
            f.write(text)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise UsageError(f"{shown_name(str(path))}: cannot write: not a regular file (a FIFO or socket)") from None
        raise write_failed(shown_name(str(path)), exc) from None


def write_failed(name: str, exc: OSError) -> UsageError:
    """The one line for an output that could not be written (a full disk, a closed stream)."""
    return UsageError(f"{name}: cannot write: {exc.strerror or exc}")


class GuardedStdout:
    """Standard output whose failures are bad input, not bugs: a full disk (``> /dev/full``)
    or a closed stream (``>&-``, where Python's ``print`` would drop the output silently)
    is the same one line as ``-o /dev/full`` (:func:`write_failed`). A reader that left
    (``| head``) stays a ``BrokenPipeError``, which the CLI treats as success.
    """

    name = "<stdout>"

    def __init__(self, stream: Any):
        self.stream = stream

    def write(self, text: str) -> int:
        if self.stream is None:
            raise UsageError(f"{self.name}: cannot write: standard output is closed")
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OSError) -> UsageError:
        # What is still buffered goes to /dev/null, so the interpreter's flush at exit
        # does not fail a second time ("Exception ignored ...", exit 120).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # not a real file (a test's capture): nothing to protect
            pass
        return write_failed(self.name, exc)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.stream, attribute)
