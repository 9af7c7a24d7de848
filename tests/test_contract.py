"""bridge/contract.js and the runtime's constants carry the Python constants, and JavaScript's
copies of the grammars accept exactly what Python's accept (staleness: tests/test_generated.py)."""

from __future__ import annotations

import json
import re
import subprocess

from flowui_sandbox.bridge import runtime_source
from flowui_sandbox.sandbox.derived import contract


def test_the_runtime_carries_the_python_constants():
    from flowui_sandbox.bridge.protocol import MAX_MESSAGE_CHARS
    from flowui_sandbox.sandbox.block.paths import MAX_LENGTH, SEGMENT_PATTERN

    block = re.search(r"var C = (\{.*?\});\n", runtime_source()).group(1)
    constants = json.loads(block)
    assert constants["segmentPattern"] == SEGMENT_PATTERN
    assert constants["maxPathLength"] == MAX_LENGTH
    assert constants["maxMessageChars"] == MAX_MESSAGE_CHARS


def test_the_runtime_can_be_inlined():
    """The generator refuses a runtime holding these; the generated constants must not add one."""
    assert not re.search(r"</script|<script|<!--", runtime_source(), re.I)


GRAMMAR_SAMPLES = {
    "color": ["#fff", "#FFFFFF80", "rgb(1,2,3)", "rgb(1 2 3 / 50%)", "rgba( 1 , 2 , 3 , .5 )", "hsl(210deg 20% 90%)",
              "RebeccaPurple", "transparent", "#ffff f", "red;", "rgb(1,2,3)\n", "url(x)", "\u00a0red",
              "hsl(1turn,2%,3%)", "#12345", ""],
    "length": ["0", "1px", "-1.5rem", ".5em", "10%", "1 px", "1px;", "1PX", "calc(1px)", "1px\n"],
}
#: Python's re gives \d and \s their Unicode meaning unless the pattern is compiled with re.ASCII;
#: JavaScript's \d is ASCII. theme/grammar.py needs re.ASCII for the two to agree.
UNICODE_SAMPLES = {"color": ["rgb(\u0661,2,3)", "rgb(1\u00a02 3)"], "length": ["\u0661px"]}


def _disagreements(groups: dict[str, list[str]]) -> list:
    from flowui_sandbox.theme.grammar import color_problem, length_problem

    samples = [(kind, v) for kind, values in groups.items() for v in values]
    script = (
        "import { parseTheme } from './bridge/flow-ui-host.js';"
        "const samples = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(samples.map(([kind, v]) => {"
        "  try { parseTheme({[kind === 'color' ? 'accent' : 'radius']: v}); return true; } catch (e) { return false; } })));"
    )
    out = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(samples)],
                         capture_output=True, text=True, check=True, cwd=contract.BRIDGE_DIR.parent)
    js = json.loads(out.stdout)
    python = [(color_problem if kind == "color" else length_problem)(v) is None for kind, v in samples]
    return [s for s, a, b in zip(samples, js, python) if a != b]


def test_javascript_grammars_match_python():
    """Theme values: the regexes contract.js gives JavaScript accept exactly what theme.grammar accepts."""
    differ = _disagreements(GRAMMAR_SAMPLES)
    assert not differ, f"JavaScript and Python disagree on {differ}"


def test_javascript_grammars_match_python_beyond_ascii():
    differ = _disagreements(UNICODE_SAMPLES)
    assert not differ, f"JavaScript and Python disagree on {differ}"
