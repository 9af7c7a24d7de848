"""The generator under test: ours (sandbox.block.srcdoc) or another platform's command, and the
static check of the iframe either one made against the fixed policy (sandbox/block/policy.py)."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
from dataclasses import dataclass
from typing import Any

from ..block.policy import CSP, REFERRER_POLICY, SANDBOX
from ..errors import OptionError, UsageError
from .probes import Block
from .request import GENERATOR_PROTOCOLS, REFUSED_STATUS, generator_request


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
            done = subprocess.run(self.argv, input=stdin.encode("utf-8"), capture_output=True, timeout=20)
        except FileNotFoundError:
            raise OptionError(f"--generator {self.command!r}: no such command {self.argv[0]!r}") from None
        except PermissionError:
            raise OptionError(f"--generator {self.command!r}: {self.argv[0]!r} is not executable") from None
        except subprocess.TimeoutExpired:
            raise GeneratorOutputError("the command did not finish within 20 s") from None
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        if done.returncode == REFUSED_STATUS:
            raise GeneratorRefused(err[-1] if err else f"the command refused the input (exit status {REFUSED_STATUS})")
        if done.returncode != 0:
            raise GeneratorOutputError(f"the command exited with status {done.returncode}: {err[-1] if err else '(no stderr)'}")
        try:
            return done.stdout.decode("utf-8")
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


def iframe_srcdoc(html: str) -> str:
    """The srcdoc of the one iframe of a generator's output (already checked by :func:`check_iframe`)."""
    from selectolax.lexbor import LexborHTMLParser

    iframe = LexborHTMLParser(html).css_first("iframe")
    return (iframe.attributes.get("srcdoc") if iframe is not None else None) or ""


__all__ = ["Generator", "CommandGenerator", "GeneratorOutputError", "GeneratorRefused", "Built", "check_iframe", "iframe_srcdoc"]
