"""Every bad input to every subcommand: one located line per problem on stderr, exit 2, no traceback.

Each case runs the real command (``python -m flowui_sandbox``) as a process of its own in a folder
holding the files of :func:`folder`, forked from a warm interpreter (:mod:`tests.forked_cli`); a
sample of the cases also runs as fresh interpreters and must give the same bytes and status. A
line of stderr is ``FILE:LINE:COL: message``, ``FILE: message`` (a problem of a whole file, e.g. a missing one) or ``flowui-sandbox COMMAND: error: message``
(an option, not a file). Times are not asserted here (see bench/); the cases include the
inputs that used to take seconds or end in a traceback (a 1 GiB file, /dev/zero, JSON nested
100,000 levels deep).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from flowui_sandbox.sandbox.verify.probes import PROBES_DIR
from tests.forked_cli import ForkedCli

DEEP = "[" * 100_000 + "]" * 100_000


def folder(root: Path) -> None:
    (root / "ok.html").write_text('<b data-bind="x"></b>', encoding="utf-8")
    (root / "bad.html").write_text('<b data-bind="state.x"></b>\n<i data-bind="Nope"></i>', encoding="utf-8")
    (root / "nul.html").write_bytes(b"<b>\0</b>")
    (root / "binary.html").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    (root / "latin1.json").write_bytes(b'{"name":\n "caf\xe9"}')
    with open(root / "huge.html", "wb") as f:  # sparse: 1 GiB on disk costs nothing
        f.truncate(2**30)
    (root / "dir").mkdir()
    (root / "file").write_text("x", encoding="utf-8")
    (root / "deep.json").write_text(DEEP, encoding="utf-8")
    (root / "broken.json").write_text('{"a": 1,\n  "b": }', encoding="utf-8")
    (root / "empty.json").write_text("", encoding="utf-8")
    (root / "nan.json").write_text('{"a": [1, NaN]}', encoding="utf-8")
    (root / "inf.json").write_text('{"a": 1e999}', encoding="utf-8")
    (root / "bigint.json").write_text('{"a": 9007199254740993}', encoding="utf-8")
    (root / "list.json").write_text("  [1]", encoding="utf-8")
    (root / "theme2.json").write_text('{"accent": "red;}",\n "radius": "calc(1px)", "text": "#000"}', encoding="utf-8")
    (root / "theme-unknown.json").write_text('{"color-scheme": "dark", "colour": "#000"}', encoding="utf-8")
    probes = root / "probes"
    probes.mkdir()
    (probes / "deep.one.json").write_text(DEEP, encoding="utf-8")
    (probes / "bad.two.json").write_text('{"id": "bad.two", "title": "t", "category": "nowhere"}', encoding="utf-8")
    (probes / "lost.three.html").write_text("<p>no JSON claims this block</p>", encoding="utf-8")
    (root / "noprobes").mkdir()
    os.mkfifo(root / "fifo.json")  # no writer ever comes: a blocking open waits forever
    os.mkfifo(root / "fifo.html")
    (root / "fifodir").mkdir()
    (root / "fifodir" / "ok.html").write_text('<b data-bind="x"></b>', encoding="utf-8")
    os.mkfifo(root / "fifodir" / "stuck.html")
    (root / "fifoprobes").mkdir()
    real = sorted(PROBES_DIR.glob("*.json"))[0]  # a valid probe whose block is a FIFO
    (root / "fifoprobes" / real.name).write_bytes(real.read_bytes())
    os.mkfifo(root / "fifoprobes" / real.with_suffix(".html").name)
    (root / "nl\nname.html").write_text('<i data-bind="Nope"></i>', encoding="utf-8")
    (root / os.fsdecode(b"bad\xff.html")).write_text('<b data-bind="x"></b>', encoding="utf-8")


LOCATED = r"[^:\s][^:]*:\d+:\d+: \S"
WHOLE_FILE = r"[^:\s][^:]*: \S"

# (id, argv, stdin file or None, [(line pattern kind, substring)] one per expected line)
CASES = [
    # paths
    ("paths-missing", ["paths", "missing.html"], None, [(WHOLE_FILE, "missing.html: no such file")]),
    ("paths-directory", ["paths", "dir"], None, [(WHOLE_FILE, "dir: is a directory")]),
    ("paths-dev-zero", ["paths", "/dev/zero"], None, [(WHOLE_FILE, "/dev/zero: more than 4,194,304 bytes")]),
    ("paths-stdin-zero", ["paths", "-"], "/dev/zero", [(WHOLE_FILE, "<stdin>: more than 4,194,304 bytes")]),
    ("paths-huge", ["paths", "huge.html"], None, [(WHOLE_FILE, "huge.html: 1,073,741,824 bytes; at most 4,194,304 (4 MiB)")]),
    ("paths-binary", ["paths", "binary.html"], None, [(LOCATED, "binary.html:1:1: not UTF-8 (byte 0x89")]),
    ("paths-nul", ["paths", "nul.html"], None, [(LOCATED, "nul.html:1:4: a NUL character")]),
    ("paths-several", ["paths", "--frozen", "state", "ok.html", "missing.html", "bad.html"], None, [
        (WHOLE_FILE, "missing.html: no such file"),
        (LOCATED, 'bad.html:1:1: <b data-bind="state.x">: "state" is a frozen system field'),
        (LOCATED, 'bad.html:2:1: <i data-bind="Nope">: segment 1 "Nope" must be snake_case'),
    ]),
    ("paths-bad-frozen", ["paths", "--frozen", "Bad..x", "ok.html"], None, [("option", "--frozen: item 1 \"Bad..x\"")]),
    ("paths-dotted-frozen", ["paths", "--frozen", "a.b", "ok.html"], None, [("option", "--frozen: item 1 \"a.b\": a frozen field is a top-level name")]),
    ("paths-unknown-option", ["paths", "--nope", "ok.html"], None, [("option", "unrecognized arguments: --nope")]),
    ("paths-no-file", ["paths"], None, [("option", "the following arguments are required: FILE")]),
    # build: the state
    ("state-deep", ["build", "ok.html", "--state", "deep.json"], None, [(LOCATED, "deep.json:1:65: nested deeper than 64 objects and arrays")]),
    ("state-deep-stdin", ["build", "ok.html", "--state", "-"], "deep.json", [(LOCATED, "<stdin>:1:65: nested deeper than 64")]),
    ("state-broken", ["build", "ok.html", "--state", "broken.json"], None, [(LOCATED, "broken.json:2:8: not JSON: Expecting value")]),
    ("state-empty", ["build", "ok.html", "--state", "empty.json"], None, [(LOCATED, "empty.json:1:1: not JSON: Expecting value")]),
    ("state-nan", ["build", "ok.html", "--state", "nan.json"], None, [(LOCATED, "nan.json:1:11: not accepted: NaN is not JSON")]),
    ("state-inf", ["build", "ok.html", "--state", "inf.json"], None, [(LOCATED, "inf.json:1:7: not accepted: the number 1e999 is beyond the range")]),
    ("state-bigint", ["build", "ok.html", "--state", "bigint.json"], None, [(LOCATED, "bigint.json:1:7: not accepted: the integer 9007199254740993 is beyond")]),
    ("state-list", ["build", "ok.html", "--state", "list.json"], None, [(LOCATED, "list.json:1:3: the state must be a JSON object, not an array")]),
    ("state-latin1", ["build", "ok.html", "--state", "latin1.json"], None, [(LOCATED, "latin1.json:2:6: not UTF-8 (byte 0xE9")]),
    ("state-dev-zero", ["build", "ok.html", "--state", "/dev/zero"], None, [(WHOLE_FILE, "/dev/zero: more than 4,194,304 bytes")]),
    ("state-directory", ["build", "ok.html", "--state", "dir"], None, [(WHOLE_FILE, "dir: is a directory")]),
    # build: the theme
    ("theme-deep", ["build", "ok.html", "--theme", "deep.json"], None, [(LOCATED, "deep.json:1:65: nested deeper than 64")]),
    ("theme-two-bad", ["build", "ok.html", "--theme", "theme2.json"], None, [
        (LOCATED, "theme2.json:1:2: theme token 'accent': value 'red;}' is not a color"),
        (LOCATED, "theme2.json:2:2: theme token 'radius': value 'calc(1px)'"),
    ]),
    ("theme-unknown-token", ["build", "ok.html", "--theme", "theme-unknown.json"], None, [(LOCATED, "theme-unknown.json:1:26: theme: unknown token 'colour'")]),
    # build: the source and options
    ("build-missing", ["build", "missing.html"], None, [(WHOLE_FILE, "missing.html: no such file")]),
    ("build-bad-paths", ["build", "bad.html", "--frozen", "state"], None, [
        (LOCATED, 'bad.html:1:1: <b data-bind="state.x">'), (LOCATED, 'bad.html:2:1: <i data-bind="Nope">'),
    ]),
    ("build-binary", ["build", "binary.html"], None, [(LOCATED, "binary.html:1:1: not UTF-8")]),
    ("build-bad-frozen", ["build", "ok.html", "--frozen", "Bad..x"], None, [("option", "--frozen: item 1 \"Bad..x\"")]),
    ("build-fields", ["build", "ok.html", "--fields", "a,,B"], None, [
        ("option", "--fields: item 2 \"\": the path is empty"), ("option", "--fields: item 3 \"B\": segment 1"),
    ]),
    ("build-block-id", ["build", "ok.html", "--block-id", "9x"], None, [("option", "--block-id: block id '9x'")]),
    ("build-out-directory", ["build", "ok.html", "-o", "dir"], None, [(WHOLE_FILE, "dir: is a directory, not a file")]),
    ("build-out-under-file", ["build", "ok.html", "-o", "file/page.html"], None, [(WHOLE_FILE, "file/page.html: cannot write: file is not a folder")]),
    ("build-out-full", ["build", "ok.html", "-o", "/dev/full"], None, [(WHOLE_FILE, "/dev/full: cannot write: No space left on device")]),
    ("build-missing-value", ["build", "ok.html", "--state"], None, [("option", "argument --state: expected one argument")]),
    # verify (every one is refused before a browser starts)
    ("verify-probes", ["verify", "--probes-dir", "probes"], None, [
        (LOCATED, "probes/bad.two.json:1:1: bad.two.html is missing"),
        (LOCATED, "probes/bad.two.json:1:33: category: Input should be"),
        (LOCATED, "probes/bad.two.json:1:1: attack: Field required"),
        (LOCATED, "probes/bad.two.json:1:1: detect: Field required"),
        (LOCATED, "probes/bad.two.json:1:1: expect: Field required"),
        (LOCATED, "probes/deep.one.json:1:73: nested deeper than 72"),
        (LOCATED, "probes/lost.three.html:1:1: no probe claims this file"),
    ]),
    ("verify-no-probes", ["verify", "--probes-dir", "noprobes"], None, [(WHOLE_FILE, "noprobes: no probes (*.json)")]),
    ("verify-probes-dir-missing", ["verify", "--probes-dir", "nowhere"], None, [("option", "--probes-dir nowhere: not a folder")]),
    ("verify-engine", ["verify", "--engine", "opera"], None, [("option", "--engine: unknown engine 'opera'")]),
    ("verify-json-directory", ["verify", "--json", "dir"], None, [(WHOLE_FILE, "dir: is a directory, not a file")]),
    ("verify-html-under-file", ["verify", "--html", "file/r.html"], None, [(WHOLE_FILE, "file/r.html: cannot write: file is not a folder")]),
    ("verify-protocol-alone", ["verify", "--generator-protocol", "json"], None, [("option", "--generator-protocol: needs --generator CMD")]),
    ("verify-protocol-unknown", ["verify", "--generator", "x", "--generator-protocol", "xml"], None, [("option", "argument --generator-protocol: invalid choice: 'xml'")]),
    ("verify-generator-missing", ["verify", "--generator", "no-such-command-xyz"], None, [("option", "no such command 'no-such-command-xyz'")]),
    # the others
    ("engines-option", ["engines", "--nope"], None, [("option", "unrecognized arguments: --nope")]),
    ("generate-option", ["generate", "--nope"], None, [("option", "unrecognized arguments: --nope")]),
    ("no-command", ["frobnicate"], None, [("top", "invalid choice: 'frobnicate'")]),
    # review (--static: these are refused before any browser starts)
    ("review-missing", ["review", "missing.html", "--static"], None, [(WHOLE_FILE, "missing.html: no such file")]),
    ("review-no-file", ["review", "--static"], None, [("option", "give at least one FILE")]),
    ("review-fields", ["review", "ok.html", "--static", "--fields", "a,Bad"], None, [("option", '--fields: item 2 "Bad"')]),
    ("review-state-deep", ["review", "ok.html", "--static", "--state", "deep.json"], None, [(LOCATED, "deep.json:1:65: nested deeper")]),
    ("review-output-directory", ["review", "ok.html", "--static", "-o", "dir"], None, [(WHOLE_FILE, "dir: is a directory")]),
    ("review-baseline-broken", ["review", "ok.html", "--static", "--baseline", "broken.json"], None, [(LOCATED, "broken.json:2:")]),
    # document and diff
    ("document-missing", ["document", "missing.json"], None, [(WHOLE_FILE, "missing.json: no such file")]),
    ("document-none", ["document"], None, [("option", "give DOC.json")]),
    ("document-deep", ["document", "deep.json"], None, [(LOCATED, "deep.json:1:")]),
    ("diff-broken", ["diff", "ok.html", "broken.json"], None, [(LOCATED, "ok.html:1:1: not JSON")]),
    ("diff-dev-zero", ["diff", "/dev/zero", "empty.json"], None, [(WHOLE_FILE, "/dev/zero: more than")]),
    ("diff-stdin-zero", ["diff", "-", "empty.json"], "/dev/zero", [(WHOLE_FILE, "<stdin>: more than")]),
    # edit (refused before the server starts)
    ("edit-directory", ["edit", "dir", "--no-open"], None, [(WHOLE_FILE, "dir: is a directory")]),
    ("edit-state-missing", ["edit", "ok.html", "--state", "missing.json", "--no-open"], None, [(WHOLE_FILE, "missing.json: no such file")]),
    # browser-server
    ("browser-server-engine", ["browser-server", "opera"], None, [("option", "invalid choice: 'opera'")]),
    ("browser-server-port-high", ["browser-server", "webkit", "--port", "70000"], None, [("option", "--port 70000: not a port number (0 to 65535")]),
    ("browser-server-port-negative", ["browser-server", "webkit", "--port", "-5"], None, [("option", "--port -5: not a port number")]),
    ("browser-server-host", ["browser-server", "webkit", "--host", "bad.invalid"], None, [("option", "--host bad.invalid: not an address or a name")]),
    # a FIFO, as any input or output: refused at once (it used to block forever)
    ("fifo-diff", ["diff", "fifo.json", "empty.json"], None, [(WHOLE_FILE, "fifo.json: a FIFO that no program writes to")]),
    ("fifo-document", ["document", "fifo.json"], None, [(WHOLE_FILE, "fifo.json: a FIFO that no program writes to")]),
    ("fifo-paths", ["paths", "fifo.html"], None, [(WHOLE_FILE, "fifo.html: a FIFO that no program writes to")]),
    ("fifo-build", ["build", "fifo.html"], None, [(WHOLE_FILE, "fifo.html: a FIFO that no program writes to")]),
    ("fifo-build-state", ["build", "ok.html", "--state", "fifo.json"], None, [(WHOLE_FILE, "fifo.json: a FIFO that no program writes to")]),
    ("fifo-build-theme", ["build", "ok.html", "--theme", "fifo.json"], None, [(WHOLE_FILE, "fifo.json: a FIFO that no program writes to")]),
    ("fifo-build-output", ["build", "ok.html", "-o", "fifo.html"], None, [(WHOLE_FILE, "fifo.html: cannot write: not a regular file")]),
    ("fifo-review", ["review", "--static", "fifo.html"], None, [(WHOLE_FILE, "fifo.html: a FIFO that no program writes to")]),
    ("fifo-review-folder", ["review", "--static", "fifodir"], None, [(WHOLE_FILE, "fifodir/stuck.html: a FIFO that no program writes to")]),
    ("fifo-edit", ["edit", "fifo.html", "--no-open"], None, [(WHOLE_FILE, "fifo.html: is not a regular file (a FIFO): the editor edits a file")]),
    ("fifo-probe", ["verify", "--probes-dir", "fifoprobes"], None, [(LOCATED, ".html:1:1: a FIFO that no program writes to")]),
    # --remote: one line per bad spec, before any browser starts
    ("remote-superscript-pages", ["verify", "--remote", "chromium:\u00b2=ws://a:1"], None, [("option", "PAGES must be a whole number from 1 to 64")]),
    ("remote-long-pages", ["review", "ok.html", "--remote", "chromium:" + "9" * 5000 + "=ws://a:1"], None, [("option", "PAGES must be a whole number")]),
    ("remote-bad-ipv6", ["review", "ok.html", "--remote", "chromium=ws://[::1/x"], None, [("option", "not a URL (Invalid IPv6 URL)")]),
    # a file name that would break the one line (a newline) or is not UTF-8: escaped
    ("name-newline", ["paths", "nl\nname.html"], None, [(LOCATED, 'nl\\nname.html:1:1: <i data-bind="Nope">')]),
    ("name-newline-missing", ["build", "miss\ning.html"], None, [(WHOLE_FILE, "miss\\ning.html: no such file")]),
]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = tmp_path_factory.mktemp("bad-input")
    folder(path)
    return path


@pytest.fixture(scope="module")
def forked():
    cli = ForkedCli()
    yield cli
    cli.close()


def _fresh(argv: list[str], root: Path, stdin: str | None) -> subprocess.CompletedProcess[bytes]:
    """The command in an interpreter of its own, as a user runs it."""
    env = {**os.environ, "FLOWUI_SANDBOX_TRACEBACK": ""}
    with open(_stdin(root, stdin), "rb") as feed:
        return subprocess.run([sys.executable, "-m", "flowui_sandbox", *argv], cwd=root, stdin=feed,
                              capture_output=True, timeout=120, env=env)


def _stdin(root: Path, stdin: str | None) -> str:
    return str(root / stdin) if stdin and not stdin.startswith("/") else stdin or os.devnull


def _format(kind: str, command: str) -> str:
    if kind == "option":
        return rf"flowui-sandbox {command}: error: \S"
    if kind == "top":
        return r"flowui-sandbox: error: \S"
    return kind


@pytest.mark.parametrize("argv, stdin, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_input_is_one_located_line_per_problem_and_exit_2(root, forked, argv, stdin, expected):
    done = forked.run(argv, cwd=root, stdin=_stdin(root, stdin), env={"FLOWUI_SANDBOX_TRACEBACK": ""})
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err and "internal error" not in err, err
    lines = err.splitlines()
    assert len(lines) == len(expected), err
    for line, (kind, text) in zip(lines, expected):
        assert re.match(_format(kind, argv[0]), line), line
        assert text in line, (text, line)
    assert len(done.stdout) < 10_000  # nothing half-built is printed (paths may print the good files' paths)


#: Cases run as fresh interpreters too: every command that reads files, the top level, stdin and FIFOs among them.
FRESH = ["paths-stdin-zero", "state-deep-stdin", "build-out-full", "verify-probes", "no-command", "review-fields",
         "fifo-review-folder", "document-deep", "diff-stdin-zero", "edit-state-missing", "browser-server-host",
         "name-newline"]


@pytest.mark.parametrize("case", FRESH)
def test_a_forked_command_is_the_command_a_fresh_interpreter_runs(root, forked, case):
    """The fork's child gives byte for byte the output and the status of ``python -m flowui_sandbox``
    started afresh: what the cases above read of the forked runs is what a user sees."""
    _, argv, stdin, _ = next(c for c in CASES if c[0] == case)
    fresh = _fresh(argv, root, stdin)
    child = forked.run(argv, cwd=root, stdin=_stdin(root, stdin), env={"FLOWUI_SANDBOX_TRACEBACK": ""})
    assert (child.returncode, child.stdout, child.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)

def _closed(fd: int):
    return lambda: os.close(fd)


# (id, argv, what stdout is: "full" /dev/full or "closed" >&-, stdin closed, expected line)
STREAMS = [
    ("build-stdout-full", ["build", "ok.html"], "full", False, "<stdout>: cannot write: No space left on device"),
    ("document-stdout-full", ["document", "doc.json"], "full", False, "<stdout>: cannot write: No space left on device"),
    ("diff-stdout-full", ["diff", "empty-object.json", "empty-object.json"], "full", False, "<stdout>: cannot write: No space left on device"),
    ("build-stdout-closed", ["build", "ok.html"], "closed", False, "<stdout>: cannot write: standard output is closed"),
    ("paths-stdout-closed", ["paths", "ok.html"], "closed", False, "<stdout>: cannot write: standard output is closed"),
    ("document-stdin-closed", ["document", "-"], None, True, "<stdin>: cannot read: standard input is closed"),
    ("paths-stdin-closed", ["paths", "-"], None, True, "<stdin>: cannot read: standard input is closed"),
]


@pytest.mark.parametrize("argv, stdout, stdin_closed, expected", [c[1:] for c in STREAMS], ids=[c[0] for c in STREAMS])
def test_a_standard_stream_that_fails_is_one_line_and_exit_2(root, argv, stdout, stdin_closed, expected):
    (root / "doc.json").write_text('{"start_page_id": "main", "pages": [{"page_id": "main", "blocks": []}]}', encoding="utf-8")
    (root / "empty-object.json").write_text('{"a": 1}', encoding="utf-8")
    env = {**os.environ, "FLOWUI_SANDBOX_TRACEBACK": ""}
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "flowui_sandbox", *argv], cwd=root, env=env, timeout=120,
                              stdin=None if stdin_closed else subprocess.DEVNULL,
                              stdout=full if stdout == "full" else None if stdout == "closed" else subprocess.DEVNULL,
                              stderr=subprocess.PIPE,
                              preexec_fn=_closed(1) if stdout == "closed" else _closed(0) if stdin_closed else None)
    err = done.stderr.decode("utf-8", "replace")
    assert (done.returncode, err) == (2, expected + "\n")


def test_review_json_names_a_file_that_is_not_utf8(root):
    done = subprocess.run([sys.executable, "-m", "flowui_sandbox", "review", "--static", "--format", "json",
                           os.fsdecode(b"bad\xff.html")], cwd=root, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["blocks"][0]["file"] == "bad\\xff.html"


def test_edit_on_a_busy_port_is_an_option_error(root):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "flowui_sandbox", "edit", "ok.html", "--port", str(port), "--no-open"],
                              cwd=root, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                              env={**os.environ, "XDG_CACHE_HOME": str(root / "cache")})  # the drafts' secret: not the user's
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"flowui-sandbox edit: error: --port {port}: cannot listen on 127.0.0.1:{port}"), err  # not "--port:1:1:"
