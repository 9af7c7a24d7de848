"""The generator under test: ours (sandbox.block.srcdoc) or another platform's command, and the
static check of the iframe either one made against the fixed policy (sandbox/block/policy.py)."""

from __future__ import annotations

import asyncio
import json
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from ..block.extract import MAX_SOURCE_BYTES
from ..block.policy import CSP, REFERRER_POLICY, SANDBOX
from ..errors import OptionError, UsageError
from .probes import Block
from .request import GENERATOR_PROTOCOLS, REFUSED_STATUS, generator_request

#: The most a generator command may print: its iframe escapes a block source of at most
#: MAX_SOURCE_BYTES into the srcdoc attribute (``"`` becomes ``&quot;``: up to 6x) beside
#: the runtime and the state; anything larger is refused, and never held whole in memory.
MAX_OUTPUT_BYTES = 8 * MAX_SOURCE_BYTES
#: Seconds a generator command has for one block.
RUN_SECONDS = 20
#: How much of a command's stderr is kept (the end: its last line is its reason).
_STDERR_KEPT = 64 * 1024


class GeneratorOutputError(UsageError):
    """The generator's output is not one usable sandboxed iframe."""


class GeneratorRefused(UsageError):
    """The generator refused the input (exit status :data:`REFUSED_STATUS`); the message is its reason."""


@dataclass
class Built:
    """A block's iframe as the generator made it, and what the static check found wrong with it."""

    html: str
    problems: list[str]


def check_iframe(html: str) -> list[str]:
    """Problems of a generator's output against the fixed policy (empty when it is right).

    Raises :class:`GeneratorOutputError` when there is no single iframe to run at all.
    """
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    body = tree.body
    elements = [n for n in body.traverse() if n.tag not in ("-text", "-comment", "body")] if body else []
    iframes = [n for n in elements if n.tag == "iframe"]
    if len(iframes) != 1:
        raise GeneratorOutputError(f"expected exactly one <iframe>, found {len(iframes)}")
    head_extra = [n.tag for n in tree.head.traverse() if n.tag not in ("head", "-text", "-comment")] if tree.head else []
    problems = []
    others = sorted({n.tag or "" for n in elements if n.tag != "iframe"} | {t or "" for t in head_extra})
    if others:
        problems.append(f"elements beside the iframe: {', '.join('<' + t + '>' for t in others)}")
    attrs = iframes[0].attributes
    if attrs.get("srcdoc") is None:
        raise GeneratorOutputError("the iframe has no srcdoc attribute")
    sandbox = attrs.get("sandbox")
    if sandbox is None or sorted(sandbox.split()) != [SANDBOX]:
        problems.append(f"sandbox is {sandbox!r}, must be exactly {SANDBOX!r}")
    if attrs.get("referrerpolicy") != REFERRER_POLICY:
        problems.append(f"referrerpolicy is {attrs.get('referrerpolicy')!r}, must be {REFERRER_POLICY!r}")
    for name in ("allow", "allowfullscreen", "src", "csp"):
        if name in attrs:
            problems.append(f"the iframe has a {name!r} attribute")
    doc = LexborHTMLParser(attrs["srcdoc"] or "")
    first = next((n for n in doc.head.traverse() if n.tag not in ("head", "-text", "-comment")), None) if doc.head else None
    if first is None or first.tag != "meta" or (first.attributes.get("http-equiv") or "").lower() != "content-security-policy":
        problems.append("the srcdoc's first element in <head> is not the Content-Security-Policy meta")
    elif first.attributes.get("content") != CSP:
        problems.append(f"the srcdoc's CSP is {first.attributes.get('content')!r}, must be the fixed policy")
    return problems


class Generator:
    """Our generator (sandbox.block.srcdoc.build_iframe)."""

    name = "flowui-sandbox"
    #: Whether it takes fields, state and theme (an external command in the source protocol gets the source only).
    full = True
    #: Whether bridge probes mount the document this generator built (``srcdoc``) instead of letting the
    #: host module build it from the source. Ours: no, the host module builds the same bytes
    #: (fixtures/srcdoc golden documents); an external generator's document is what is under test.
    mounts_own_document = False

    async def build(self, block: Block, source: str, state: Any) -> Built:
        from ..block.srcdoc import build_iframe

        html = build_iframe(source, block_id=block.block_id, fields=block.fields, state=state, theme=block.theme)
        return Built(html, check_iframe(html))


class CommandGenerator(Generator):
    """Another platform's generator: a command that prints the iframe HTML on stdout.

    Protocol ``source``: stdin is the author source (UTF-8), nothing else; probes that need
    fields, state, theme or the bridge are n/a. Protocol ``json``: stdin is one JSON object,
    :func:`generator_request`; every probe runs, bridge probes on the srcdoc it built.
    """

    def __init__(self, command: str, protocol: str = "source"):
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise OptionError(f"--generator {command!r}: cannot split into words: {exc}") from None
        if not self.argv:
            raise OptionError("--generator: the command is empty")
        if protocol not in GENERATOR_PROTOCOLS:
            raise OptionError(f"--generator-protocol {protocol!r}: choose from {', '.join(GENERATOR_PROTOCOLS)}")
        self.protocol = protocol
        self.full = self.mounts_own_document = protocol == "json"
        self.name = command if protocol == "source" else f"{command} (protocol json)"
        self.command = command

    def run(self, stdin: str) -> str:
        try:
            status, out, err_tail = _run_bounded(self.argv, stdin.encode("utf-8"), limit=MAX_OUTPUT_BYTES, timeout=RUN_SECONDS)
        except FileNotFoundError:
            raise OptionError(f"--generator {self.command!r}: no such command {self.argv[0]!r}") from None
        except PermissionError:
            raise OptionError(f"--generator {self.command!r}: {self.argv[0]!r} is not executable") from None
        except subprocess.TimeoutExpired:
            raise GeneratorOutputError(f"the command did not finish within {RUN_SECONDS} s") from None
        if out is None:
            raise GeneratorOutputError(f"the output is more than {MAX_OUTPUT_BYTES:,} bytes "
                                       f"({MAX_OUTPUT_BYTES // MAX_SOURCE_BYTES}x the largest block source); the command was stopped")
        err = err_tail.decode("utf-8", "replace").strip().splitlines()
        if status == REFUSED_STATUS:
            raise GeneratorRefused(err[-1] if err else f"the command refused the input (exit status {REFUSED_STATUS})")
        if status != 0:
            raise GeneratorOutputError(f"the command exited with status {status}: {err[-1] if err else '(no stderr)'}")
        try:
            return out.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GeneratorOutputError(f"the output is not UTF-8 (offset {exc.start})") from None

    def _stdin(self, block: Block, source: str, state: Any) -> str:
        if self.protocol == "source":
            return source
        request = generator_request(source, block_id=block.block_id, fields=block.fields, state=state, theme=block.theme)
        return json.dumps(request, ensure_ascii=False)

    def preflight(self) -> None:
        """Run the command once on a plain block: a command that cannot start at all is a usage error."""
        try:
            html = self.run(self._stdin(Block(source="<p>hello</p>", block_id="preflight"), "<p>hello</p>", None))
            check_iframe(html)
        except GeneratorRefused as exc:
            raise OptionError(f"--generator {self.command!r}: refused a plain block (<p>hello</p>): {exc}") from None
        except GeneratorOutputError as exc:
            raise OptionError(f"--generator {self.command!r}: {exc}") from None

    async def build(self, block: Block, source: str, state: Any) -> Built:
        html = await asyncio.to_thread(self.run, self._stdin(block, source, state))
        return Built(html, check_iframe(html))


def _run_bounded(argv: list[str], data: bytes, *, limit: int, timeout: float) -> tuple[int, bytes | None, bytes]:
    """Run ``argv`` with ``data`` on stdin: its exit status, its stdout (``None``: more than
    ``limit`` bytes, the command killed) and the last bytes of its stderr (its last line is
    all a message quotes). Neither stream is held whole: a command printing gigabytes costs
    ``limit`` bytes of memory, not a MemoryError. Raises ``subprocess.TimeoutExpired``.
    """
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    assert process.stdin and process.stdout and process.stderr  # all three are pipes

    def feed() -> None:  # in a thread: a command may print before it has read all its input
        try:
            process.stdin.write(data)  # type: ignore[union-attr]
            process.stdin.close()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError):  # it stopped reading (or was killed)
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        try:
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise subprocess.TimeoutExpired(argv, timeout)
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    key.data.extend(chunk)
                    if key.data is err:
                        del err[:-_STDERR_KEPT]
                    elif len(out) > limit:
                        _kill(process)
                        return -1, None, bytes(err)
            status = process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(process)
            raise
        finally:
            process.stdout.close()
            process.stderr.close()
    return status, bytes(out), bytes(err)


def _kill(process: subprocess.Popen) -> None:
    """Stop the command and whatever it started (its own session), and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    process.wait()


def iframe_srcdoc(html: str) -> str:
    """The srcdoc of the one iframe of a generator's output (already checked by :func:`check_iframe`)."""
    from selectolax.lexbor import LexborHTMLParser

    iframe = LexborHTMLParser(html).css_first("iframe")
    return (iframe.attributes.get("srcdoc") if iframe is not None else None) or ""


__all__ = ["Generator", "CommandGenerator", "GeneratorOutputError", "GeneratorRefused", "Built", "check_iframe", "iframe_srcdoc"]
