"""flowui_sandbox.sandbox.files: the one reader of user files (bounded reads, located JSON errors) and the one --frozen/--fields parser."""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.block.jsonjs import MAX_DEPTH
from flowui_sandbox.sandbox.block.paths import parse_path_list
from flowui_sandbox.sandbox.errors import UsageError
from flowui_sandbox.sandbox.files import (
    GuardedStdout,
    display_name,
    member_positions,
    parse_json,
    read_bytes,
    read_json,
    shown_name,
    writable_output,
    write_output,
)


class _Endless(io.RawIOBase):
    """Standard input that never ends, counting what was read."""

    def __init__(self):
        self.given = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = b"x" * len(buffer)
        self.given += len(buffer)
        return len(buffer)


def test_at_most_the_limit_plus_one_byte_is_read_from_stdin(monkeypatch):
    endless = _Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(endless, buffer_size=1024)))
    with pytest.raises(UsageError, match=r"^<stdin>: more than 1,000 bytes; at most 1,000 are accepted$"):
        read_bytes("-", limit=1000)
    assert endless.given <= 1000 + 1024  # one buffer beyond the limit at most, not the whole stream


def test_a_large_file_is_refused_without_reading_it(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(2**40)  # a sparse terabyte: reading it whole could never finish
    with pytest.raises(UsageError, match=r"big: 1,099,511,627,776 bytes; at most 4,096 are accepted"):
        read_bytes(str(big), limit=4096)


def test_depth_is_bounded_and_located(tmp_path):
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(ok, "s.json") is not None
    deeper = '{"a":\n  ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    with pytest.raises(UsageError, match=rf"^s.json:2:{MAX_DEPTH + 2}: nested deeper than {MAX_DEPTH} objects and arrays$"):
        parse_json(deeper, "s.json")
    (tmp_path / "deep.json").write_text('{"k": "[[[", "v": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(UsageError, match=rf"deep.json:1:{19 + MAX_DEPTH - 1}: nested deeper"):
        read_json(str(tmp_path / "deep.json"), limit=2**20)


@pytest.mark.parametrize("text, message", [
    ('{"a": "NaN", "b": NaN}', "s.json:1:19: not accepted: NaN is not JSON"),
    ('[-Infinity]', "s.json:1:2: not accepted: -Infinity is not JSON"),
    ('[1, 2,\n 9007199254740992]', "s.json:2:2: not accepted: the integer 9007199254740992 is beyond"),
    ('[-9007199254740991, 1' + "0" * 5000 + "]", "s.json:1:21: not accepted: the integer 1000000000000000000000000000000000000..."),
    ('{"x": 1e400}', "s.json:1:7: not accepted: the number 1e400 is beyond the range"),
    ('{"x": 1,}', "s.json:1:9: not JSON: Expecting property name"),
])
def test_refusals_are_located(text, message):
    with pytest.raises(UsageError) as info:
        parse_json(text, "s.json")
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


def test_member_positions():
    text = '{\n  "a": {"b": 1},\n  "c\\"d": [{"e": 2}], "f": "g:"\n}'
    assert member_positions(text) == {"a": "2:3", 'c"d': "3:3", "f": "3:23"}


def test_one_parser_for_path_lists():
    assert parse_path_list(" a, b.c ,a", "--fields") == (["a", "b.c"], [])
    assert parse_path_list("", "--fields") == ([], [])
    paths, problems = parse_path_list("Bad..x,ok,sys.y", "--fields", frozen=["sys"])
    assert paths == ["ok"]
    assert [p.split(":")[0] for p in problems] == ["--fields", "--fields"]
    assert 'item 1 "Bad..x"' in problems[0] and 'item 3 "sys.y"' in problems[1] and "frozen" in problems[1]
    assert parse_path_list("sys,a.b", "--frozen", top_level=True)[1] == [
        '--frozen: item 2 "a.b": a frozen field is a top-level name (one segment); paths under it are frozen with it']


def test_paths_and_build_agree_on_the_frozen_list(tmp_path, capsys):
    from flowui_sandbox.sandbox.cli import main

    (tmp_path / "ok.html").write_text('<b data-bind="x"></b>', encoding="utf-8")
    for frozen in ("Bad..x", "a.b", "x,,y", "Sys"):
        codes = [main([command, str(tmp_path / "ok.html"), "--frozen", frozen]) for command in ("paths", "build")]
        err = capsys.readouterr().err.splitlines()
        assert codes == [2, 2], (frozen, err)
        assert err[0].replace("sandbox paths:", "sandbox build:") == err[1], err
    assert [main([c, str(tmp_path / "ok.html"), "--frozen", "sys, state"]) for c in ("paths", "build")] == [0, 0]


def test_a_fifo_no_program_writes_to_is_refused_without_blocking_and_a_piped_one_is_read(tmp_path):
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)  # no writer ever comes: a blocking open would wait forever
    with pytest.raises(UsageError, match=r"x.json: a FIFO that no program writes to \(nothing to read\)$"):
        read_bytes(str(fifo), limit=4096)
    # <(command): a pipe with a writer is read to its end, as standard input is.
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=lambda: (time.sleep(0.2), os.write(write_end, b'{"a": 1}'), os.close(write_end)))
    writer.start()
    try:
        assert read_bytes(f"/dev/fd/{read_end}", limit=4096) == b'{"a": 1}'
    finally:
        writer.join()
        os.close(read_end)
    # A device that never ends is cut at the limit, as a big file is.
    with pytest.raises(UsageError, match=r"^/dev/zero: more than 4,096 bytes"):
        read_bytes("/dev/zero", limit=4096)


def test_standard_input_closed_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)  # what Python gives a process started with <&-
    with pytest.raises(UsageError, match=r"^<stdin>: cannot read: standard input is closed$"):
        read_bytes("-", limit=10)


@pytest.mark.parametrize("name, shown", [
    ("ok.html", "ok.html"),
    ("café ü.html", "café ü.html"),
    ("a\\b.html", "a\\b.html"),  # nothing to escape: left as it is
    ("nl\nbad.json", "nl\\nbad.json"),
    (os.fsdecode(b"bad\xff\\.html"), "bad\\xff\\\\.html"),
    ("tab\t\x7f\u200b.html", "tab\\t\\x7f\\u200b.html"),
])
def test_a_file_is_named_on_one_line_of_utf8(name, shown):
    assert shown_name(name) == shown
    assert display_name(name) == shown and display_name("-") == "<stdin>"
    shown.encode("utf-8")  # no lone surrogate left


def test_a_bad_name_is_escaped_in_the_error_line(tmp_path):
    with pytest.raises(UsageError) as info:
        read_bytes(str(tmp_path / "miss\ning.json"), limit=10)
    assert str(info.value).endswith("miss\\ning.json: no such file, cannot read it") and "\n" not in str(info.value)


def test_a_refused_integer_is_located_past_a_float_with_its_digits():
    text = '{"a": 90071992547409931.5,\n "b": 90071992547409931}'
    with pytest.raises(UsageError, match=r"^s.json:2:7: not accepted: the integer 90071992547409931 is beyond"):
        parse_json(text, "s.json")


def test_an_output_fifo_is_refused_without_waiting_for_a_reader(tmp_path):
    fifo = tmp_path / "out.html"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match=r"out.html: cannot write: not a regular file \(a FIFO or socket\)$"):
        writable_output(str(fifo))
    with pytest.raises(UsageError, match=r"out.html: cannot write: not a regular file \(a FIFO or socket\)$"):
        write_output(fifo, "x")


def test_output_to_a_file_replaces_it_and_devices_are_written(tmp_path):
    out = tmp_path / "sub" / "out.html"
    write_output(out, "a long first text")
    write_output(out, "short\r\n")
    assert out.read_bytes() == b"short\r\n"
    write_output(Path(os.devnull), "x")
    with pytest.raises(UsageError, match=r"^/dev/full: cannot write: No space left on device$"):
        write_output(Path("/dev/full"), "x")


def test_standard_output_failures_are_usage_errors(tmp_path):
    closed = GuardedStdout(None)
    with pytest.raises(UsageError, match=r"^<stdout>: cannot write: standard output is closed$"):
        closed.write("x")
    closed.flush()  # nothing buffered, nothing to say
    with open("/dev/full", "w") as full:
        guarded = GuardedStdout(full)
        guarded.write("x")  # buffered
        with pytest.raises(UsageError, match=r"^<stdout>: cannot write: No space left on device$"):
            guarded.flush()
        full.flush()  # the rest went to /dev/null: closing does not fail a second time
