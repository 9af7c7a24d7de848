"""The JavaScript parser choice for the review's static layer, measured.

    .venv/bin/pip install esprima-fork pyjsparser calmjs.parse   # the peers (not dependencies)
    .venv/bin/python bench/review_js_parsers.py

Correctness: each parser on modern syntax a block may use (each snippet is valid
ECMAScript 2022+; a parser passes when it parses it without error, and for the
tree-sitter grammar when the tree has no ERROR or MISSING node). Speed: CPU time to
parse the scripts of the typical 5 KB block (bench/extraction.py), best of rounds,
as blocks per second and as a ratio to tree-sitter. Results: docs/REVIEW.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction import block

SNIPPETS = {
    "optional chaining": "const t = flowUi.state?.order?.total ?? 0; a?.[k]?.(x);",
    "nullish assignment": "let o = {}; o.a ??= 1; o.b ||= 2; o.c &&= 3;",
    "template literal": "const u = `https://x.example/${encodeURIComponent(v)}?q=${a + b}`;",
    "tagged template": "const s = html`<b>${name}</b>`;",
    "class fields": "class A { #secret = 1; static count = 0; get v() { return this.#secret; } static { A.count++; } }",
    "async/await": "async function f() { for await (const x of gen()) { await x; } } const g = async () => await f();",
    "regex literal": "const r = /https?:\\/\\/[^/]+\\/(?<path>.*)/giu; const d = a / b / c;",
    "regex v flag": "const re = /[\\p{L}--[a-z]]/v;",
    "spread/destructuring": "const {a, b: [c, ...d], ...rest} = obj; f(...args);",
    "numeric separators, bigint": "const n = 1_000_000n + 0x_ff;".replace("0x_ff", "0xff"),
    "exponent, logical": "x **= 2; y = a ** b;",
    "arrow in default": "function f(a = () => 1, {b} = {}) { return a() + b; }",
    "generators": "function* g() { yield* other(); }",
    "async arrow in class": "class C { m = async (x) => { await x; }; }",
    "hashbang-free module import meta": "const u = import.meta.url;",
    "array holes, trailing commas": "const a = [, 1, , 2,]; f(a, b,);",
    "labels, continue": "outer: for (const i of a) { for (const j of b) { if (j) continue outer; } }",
    "object getters, computed": "const o = { get [k]() { return 1; }, async *m() {}, [`x${y}`]: 2 };",
    "private in": "class B { #p; static has(o) { return #p in o; } }",
    "error cause, at()": "throw new Error('x', { cause: e }); [1].at(-1);",
}


#: Invalid scripts: a parser should refuse each (the review reports a syntax error).
INVALID = {
    "unclosed call": "f(a, b;",
    "missing operand": "const x = 1 + ;",
    "bad assignment target": "a + b = c;",
    "unterminated template": "const s = `abc${x};",
    "duplicate const": "const a = 1, a;".replace(", a", "; const a = 2"),
}


def tree_sitter_parser():
    import tree_sitter_javascript as tsjs
    from tree_sitter import Language, Parser

    parser = Parser(Language(tsjs.language()))

    def parse(code: str):
        tree = parser.parse(code.encode("utf-8"))
        if tree.root_node.has_error:
            raise SyntaxError("ERROR or MISSING node in the tree")
        return tree

    return parse


def esprima_fork_parser():
    import esprima

    def parse(code: str):
        try:
            return esprima.parseScript(code, {"loc": True, "range": True})
        except Exception:
            return esprima.parseModule(code, {"loc": True, "range": True})

    return parse


def pyjsparser_parser():
    import pyjsparser

    return pyjsparser.PyJsParser().parse


def calmjs_parser():
    from calmjs.parse import es5

    return es5


PARSERS = {"tree-sitter-javascript": tree_sitter_parser, "esprima-fork": esprima_fork_parser,
           "pyjsparser": pyjsparser_parser, "calmjs.parse (es5)": calmjs_parser}


def scripts_of(source: str) -> list[str]:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(source)
    out = [node.text() for node in tree.css("script")]
    out += [v for node in tree.css("[onclick]") for k, v in node.attributes.items() if k.startswith("on")]
    return out


def best_seconds(fn, budget: float = 0.5) -> float:
    fn()
    best = float("inf")
    deadline = time.process_time() + budget
    while time.process_time() < deadline:
        start = time.process_time()
        count = 0
        while time.process_time() - start < 0.05:
            fn()
            count += 1
        best = min(best, (time.process_time() - start) / count)
    return best


def main() -> int:
    typical = block(5 * 1024)
    scripts = scripts_of(typical)
    rows = []
    for name, make in PARSERS.items():
        try:
            parse = make()
        except ImportError as exc:
            print(f"{name}: not installed ({exc})")
            continue
        failed = []
        for label, code in SNIPPETS.items():
            try:
                parse(code)
            except Exception:
                failed.append(label)
        accepted = []
        for label, code in INVALID.items():
            try:
                parse(code)
                accepted.append(label)
            except Exception:
                pass
        try:
            seconds = best_seconds(lambda parse=parse: [parse(s) for s in scripts])
        except Exception as exc:
            seconds = float("nan")
            failed.append(f"typical block: {type(exc).__name__}")
        rows.append((name, len(SNIPPETS) - len([f for f in failed if f in SNIPPETS]), failed, seconds,
                     len(INVALID) - len(accepted), accepted))
    base = next((r[3] for r in rows if r[0] == "tree-sitter-javascript"), None)
    print(f"typical 5 KB block: {len(scripts)} scripts, {sum(map(len, scripts))} characters of JavaScript\n")
    print(f"{'parser':26} {'modern syntax':>14} {'invalid refused':>16} {'blocks/s':>10} {'x tree-sitter':>14}  failures")
    for name, ok, failed, seconds, refused, accepted in rows:
        rate = 1 / seconds if seconds == seconds else 0
        ratio = seconds / base if base and seconds == seconds else float("nan")
        print(f"{name:26} {ok:>6}/{len(SNIPPETS):<7} {refused:>8}/{len(INVALID):<7} {rate:>10,.0f} {ratio:>13.1f}x  "
              f"{', '.join(failed + ['accepted ' + a for a in accepted]) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
