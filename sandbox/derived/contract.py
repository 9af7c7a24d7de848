"""The generated files through which JavaScript reads the Python constants.

``flowui-sandbox generate`` (:mod:`flowui_sandbox.sandbox.derived.generate`) writes, among others, these three from
their single sources:

* ``bridge/contract.js``: an ES module for the host module and the Node tests, holding
  the CSP, sandbox value and referrer policy (:mod:`flowui_sandbox.sandbox.block.policy`), the path and
  block id grammars (:mod:`flowui_sandbox.bridge.grammar`), the generator's constants (:mod:`flowui_sandbox.sandbox.block.srcdoc`,
  :mod:`flowui_sandbox.sandbox.block.jsonjs`, :mod:`flowui_sandbox.sandbox.block.extract`), the theme tokens, grammars and
  defaults (:mod:`theme`), the message limits and the message table (``MESSAGES``: every
  message type with its keys, checks, request-or-not and reason codes, from the models'
  one list in :mod:`flowui_sandbox.bridge.protocol`; the host module validates and dispatches with it), the runtime's
  source text (so the host can build a srcdoc itself) and ``core``, the runtime's pure
  functions, copied from the runtime's ``@core`` section;
* the ``@generated-constants`` block of ``bridge/flow-ui-runtime.js``: the runtime is a
  classic script inlined into the block document and cannot import anything, yet it must
  check paths and arguments synchronously, before the host's port arrives;
* ``bridge/protocol.schema.json``, exported from the pydantic models.

"""

from __future__ import annotations

import re
from pathlib import Path

from flowui_sandbox.bridge import BRIDGE_DIR, RUNTIME_FILE

CONTRACT_FILE = BRIDGE_DIR / "contract.js"
SCHEMA_FILE = BRIDGE_DIR / "protocol.schema.json"

_CONSTANTS = re.compile(r"(// @generated-constants-begin[^\n]*\n(?://[^\n]*\n)*)(.*?)(\n\s*// @generated-constants-end)", re.S)
_CORE = re.compile(r"// @core-begin[^\n]*\n(?://[^\n]*\n)*(.*?)\n\s*// @core-end", re.S)


def _js(value: object) -> str:
    """A JavaScript literal for ``value``, safe inside an inline script (``<`` and ``>`` escaped)."""
    from ..block.jsonjs import script_json

    return script_json(value, "contract")


def _js_regex(pattern: str) -> str:
    """A Python pattern of the ASCII grammars, in JavaScript's syntax and meaning.

    ``\\d`` and ``\\s`` are spelled out so both languages accept exactly the same characters.
    """
    return pattern.replace(r"\d", "[0-9]").replace(r"\s", "[ \\t\\n\\r\\f\\v]")


def runtime_constants() -> dict:
    """What the in-block runtime needs (its ``C`` object)."""
    from flowui_sandbox.bridge import grammar as paths
    from flowui_sandbox.bridge import protocol

    limits = protocol.limits()
    table = protocol.message_table()
    return {
        "segmentPattern": paths.SEGMENT_PATTERN,
        "maxPathLength": paths.MAX_LENGTH,
        "maxPathSegments": paths.MAX_SEGMENTS,
        **{k: limits[k] for k in ("protocolVersion", "maxMessageChars", "maxMessageDepth", "actionPattern",
                                  "actionMaxLength", "urlMaxLength", "queueLimit", "heightReportMs",
                                  "heightResizeWaitMs", "wrappedFrameName", "reasons")},
        # From the message table: the handshake's types, and the longest text each key of the
        # block's messages may carry (the runtime clips the reports it relays to them).
        "hello": next(t for t, e in table.items() if e["model"] == protocol.Hello.__name__),
        "connect": next(t for t, e in table.items() if e["model"] == protocol.Connect.__name__),
        "textLimits": {
            type_: limits_
            for type_, entry in table.items() if entry["from"] == "block" and entry["channel"] == "port"
            if (limits_ := {key: k["accepts"]["maxLength"] for key, k in entry["keys"].items() if "maxLength" in k["accepts"]})
        },
    }


def runtime_text(current: str | None = None) -> str:
    """The runtime file with its constants block up to date."""
    text = RUNTIME_FILE.read_text(encoding="utf-8") if current is None else current
    match = _CONSTANTS.search(text)
    if match is None:
        raise RuntimeError(f"{RUNTIME_FILE}: no @generated-constants-begin/-end block")
    line = text[text.rfind("\n", 0, match.start(1)) + 1 :]
    indent = line[: len(line) - len(line.lstrip())]
    body = f"{indent}var C = {_js(runtime_constants())};"
    return text[: match.start(2)] + body + text[match.end(2) :]


def contract_text(runtime: str) -> str:
    from flowui_sandbox.bridge import grammar as paths
    from flowui_sandbox.bridge import protocol
    from flowui_sandbox.theme import DARK, LIGHT, TOKEN_TABLE, TOKENS, grammar
    from flowui_sandbox.theme.tokens import COLOR_SCHEMES, CSS_PREFIX

    from ..block import jsonjs, policy
    from ..block import srcdoc as generator
    from ..block.extract import EXTRACTION_PREFIX, MAX_SOURCE_BYTES
    from .goldens import RUNTIME_MARKER

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
            "blockIdPattern": paths.BLOCK_ID_PATTERN,
            "maxSourceBytes": MAX_SOURCE_BYTES,
            "maxInitChars": generator.MAX_INIT_CHARS,
            "baseCss": generator.BASE_CSS,
            "extractionPrefix": EXTRACTION_PREFIX,
            "stateMaxDepth": jsonjs.MAX_DEPTH,
        },
        "THEME": {
            "prefix": CSS_PREFIX,
            "tokens": dict(TOKENS),
            "purposes": {t.name: t.purpose for t in TOKEN_TABLE},
            "colorSchemes": list(COLOR_SCHEMES),
            "colorPattern": _js_regex(grammar.COLOR_PATTERN),
            "lengthPattern": _js_regex(grammar.LENGTH_PATTERN),
            "namedColors": sorted(grammar.NAMED_COLORS),
            "maxValueLength": grammar.MAX_VALUE_LENGTH,
            "defaults": {"light": LIGHT.to_json(), "dark": DARK.to_json()},
        },
        "LIMITS": protocol.limits(),
        "MESSAGES": protocol.message_table(),
    }
    lines = [
        "// GENERATED by `flowui-sandbox generate` from sandbox/block/policy.py, bridge/grammar.py, sandbox/block/srcdoc.py,",
        "// sandbox/block/jsonjs.py, sandbox/block/extract.py, theme/ and bridge/protocol.py, and from the @core section",
        "// of bridge/flow-ui-runtime.js. Do not edit: tests/test_generated.py fails when this file is stale.",
        "",
    ]
    lines += [f"export const {name} = {_js(value)};" for name, value in constants.items()]
    lines.append("")
    lines.append("// The in-block runtime, exactly as the generator inlines it.")
    lines.append(f"export const RUNTIME_SOURCE = {_js(runtime)};")
    lines.append("// What stands in for RUNTIME_SOURCE in the golden documents of fixtures/srcdoc/ (sandbox/derived/goldens.py).")
    lines.append(f"export const GOLDEN_RUNTIME_MARKER = {_js(RUNTIME_MARKER)};")
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
    from flowui_sandbox.bridge.protocol import schema_text

    runtime = runtime_text()
    return {RUNTIME_FILE: runtime, CONTRACT_FILE: contract_text(runtime), SCHEMA_FILE: schema_text()}
