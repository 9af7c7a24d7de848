"""The generated files through which JavaScript reads the Python constants, and the `contract` command.

``flowui-sandbox contract --write`` writes three things from their single sources:

* ``bridge/contract.js``: an ES module for the host module and the Node tests, holding
  the CSP, sandbox value and referrer policy (:mod:`sandbox.policy`), the path grammar
  (:mod:`sandbox.paths`), the generator's constants (:mod:`sandbox.generator`,
  :mod:`sandbox.jsonjs`, :mod:`sandbox.extract`), the theme tokens, grammars and
  defaults (:mod:`theme`), the message limits (:mod:`bridge.protocol`), the runtime's
  source text (so the host can build a srcdoc itself) and ``core``, the runtime's pure
  functions, copied from the runtime's ``@core`` section;
* the ``@generated-constants`` block of ``bridge/flow-ui-runtime.js``: the runtime is a
  classic script inlined into the block document and cannot import anything, yet it must
  check paths and arguments synchronously, before the host's port arrives;
* ``bridge/protocol.schema.json``, exported from the pydantic models.

``--check`` exits 1 naming the stale files; ``tests/test_contract.py`` does the same.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bridge import BRIDGE_DIR, RUNTIME_FILE
from .files import write_output

CONTRACT_FILE = BRIDGE_DIR / "contract.js"
SCHEMA_FILE = BRIDGE_DIR / "protocol.schema.json"
COMMAND = "flowui-sandbox contract --write"

_CONSTANTS = re.compile(r"(// @generated-constants-begin[^\n]*\n(?://[^\n]*\n)*)(.*?)(\n\s*// @generated-constants-end)", re.S)
_CORE = re.compile(r"// @core-begin[^\n]*\n(?://[^\n]*\n)*(.*?)\n\s*// @core-end", re.S)


def _js(value: object) -> str:
    """A JavaScript literal for ``value``, safe inside an inline script (``<`` and ``>`` escaped)."""
    from .jsonjs import script_json

    return script_json(value, "contract")


def _js_regex(pattern: str) -> str:
    """A Python pattern of the ASCII grammars, in JavaScript's syntax and meaning.

    ``\\d`` and ``\\s`` are spelled out so both languages accept exactly the same characters.
    """
    return pattern.replace(r"\d", "[0-9]").replace(r"\s", "[ \\t\\n\\r\\f\\v]")


def runtime_constants() -> dict:
    """What the in-block runtime needs (its ``C`` object)."""
    from bridge import protocol

    from . import paths

    limits = protocol.limits()
    return {
        "segmentPattern": paths.SEGMENT_PATTERN,
        "maxPathLength": paths.MAX_LENGTH,
        "maxPathSegments": paths.MAX_SEGMENTS,
        **{k: limits[k] for k in ("protocolVersion", "maxMessageChars", "maxMessageDepth", "actionPattern",
                                  "actionMaxLength", "urlMaxLength", "queueLimit", "heightReportMs",
                                  "heightResizeWaitMs", "reasons")},
    }


def runtime_text(current: str | None = None) -> str:
    """The runtime file with its constants block up to date."""
    text = RUNTIME_FILE.read_text(encoding="utf-8") if current is None else current
    match = _CONSTANTS.search(text)
    if match is None:
        raise RuntimeError(f"{RUNTIME_FILE}: no @generated-constants-begin/-end block")
    indent = re.match(r"\s*", text[text.rfind("\n", 0, match.start(1)) + 1 :]).group()
    body = f"{indent}var C = {_js(runtime_constants())};"
    return text[: match.start(2)] + body + text[match.end(2) :]


def contract_text(runtime: str) -> str:
    from bridge import protocol
    from theme import DARK, LIGHT, TOKENS
    from theme import grammar
    from theme.tokens import COLOR_SCHEMES, CSS_PREFIX

    from . import generator, jsonjs, paths, policy
    from .extract import EXTRACTION_PREFIX, MAX_SOURCE_BYTES

    core = _CORE.search(runtime)
    if core is None:
        raise RuntimeError(f"{RUNTIME_FILE}: no @core-begin/-end section")
    constants = {
        "CSP": policy.CSP,
        "SANDBOX": policy.SANDBOX,
        "REFERRER_POLICY": policy.REFERRER_POLICY,
        "PATHS": {
            "segmentPattern": paths.SEGMENT_PATTERN,
            "pathPattern": paths.PATH_PATTERN,
            "maxSegments": paths.MAX_SEGMENTS,
            "maxLength": paths.MAX_LENGTH,
        },
        "GENERATOR": {
            "blockIdPattern": generator.BLOCK_ID_PATTERN,
            "maxSourceBytes": MAX_SOURCE_BYTES,
            "maxInitChars": generator.MAX_INIT_CHARS,
            "baseCss": generator.BASE_CSS,
            "extractionPrefix": EXTRACTION_PREFIX,
            "stateMaxDepth": jsonjs.MAX_DEPTH,
        },
        "THEME": {
            "prefix": CSS_PREFIX,
            "tokens": dict(TOKENS),
            "colorSchemes": list(COLOR_SCHEMES),
            "colorPattern": _js_regex(grammar.COLOR_PATTERN),
            "lengthPattern": _js_regex(grammar.LENGTH_PATTERN),
            "namedColors": sorted(grammar.NAMED_COLORS),
            "maxValueLength": grammar.MAX_VALUE_LENGTH,
            "defaults": {"light": LIGHT.to_json(), "dark": DARK.to_json()},
        },
        "LIMITS": protocol.limits(),
    }
    lines = [
        f"// GENERATED by `{COMMAND}` from sandbox/policy.py, sandbox/paths.py, sandbox/generator.py,",
        "// sandbox/jsonjs.py, sandbox/extract.py, theme/ and bridge/protocol.py, and from the @core section",
        "// of bridge/flow-ui-runtime.js. Do not edit: tests/test_contract.py fails when this file is stale.",
        "",
    ]
    lines += [f"export const {name} = {_js(value)};" for name, value in constants.items()]
    lines.append("")
    lines.append("// The in-block runtime, exactly as the generator inlines it.")
    lines.append(f"export const RUNTIME_SOURCE = {_js(runtime)};")
    lines.append("")
    lines.append("// The runtime's pure functions (lookup, formatting, emptiness, validation), for the host and the tests.")
    lines.append("export const core = (function () {")
    lines.append("  'use strict';")
    lines.append(f"  var C = {_js(runtime_constants())};")
    lines.append(core.group(1).rstrip())
    lines.append("  return Object.freeze(core);")
    lines.append("})();")
    return "\n".join(lines) + "\n"


def outputs() -> dict[Path, str]:
    """Every generated file and the text it must hold."""
    from bridge.protocol import schema_text

    runtime = runtime_text()
    return {RUNTIME_FILE: runtime, CONTRACT_FILE: contract_text(runtime), SCHEMA_FILE: schema_text()}


def stale() -> list[Path]:
    return [p for p, text in outputs().items() if not p.exists() or p.read_text(encoding="utf-8") != text]


def write() -> list[Path]:
    """Write the stale files; return them."""
    changed = []
    for path, text in outputs().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            write_output(path, text)  # a file that cannot be written is one located line
            changed.append(path)
    return changed


def add_cli(sub: argparse._SubParsersAction, command) -> None:
    p = sub.add_parser("contract", help="write (or check) bridge/contract.js, the runtime's constants and protocol.schema.json")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="rewrite the generated files that are stale")
    group.add_argument("--check", action="store_true", help="exit 1 when a generated file is stale (default)")
    command("contract")(_contract_command)


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(BRIDGE_DIR.parent))
    except ValueError:
        return str(path)


def _contract_command(args: argparse.Namespace) -> int:
    if args.write:
        changed = write()
        for path in changed:
            print(f"wrote {_relative(path)}")
        if not changed:
            print("generated files are up to date")
        return 0
    old = stale()
    if old:
        print(f"stale: {', '.join(_relative(p) for p in old)}; run `{COMMAND}`", file=sys.stderr)
        return 1
    print("generated files are up to date")
    return 0
