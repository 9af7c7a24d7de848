"""Which HTML parser gives the browser's answer, and how fast: the measurement behind docs/PARSER.md.

    .venv/bin/python bench/parsers.py [--engine chromium] [--quick]

1. Loads the parity corpus (tests/browser/parity) in a real browser exactly as the
   parity test does and takes the DOM's data-bind/data-show values as the truth.
2. Runs each candidate parser on the same documents (EXTRACTION_PREFIX + input) and
   counts the inputs whose (attribute, value) list differs from the browser's.
   Every candidate gets the same selection: elements in document order, attributes
   in order, template content skipped. Only the chosen one (sandbox.block.extract) also
   applies the declarative-shadow-DOM rule, which no parser models.
3. Times a bare parse plus that selection on the 5 KB and 1 MB blocks of
   bench/extraction.py (CPU time, best of several rounds).
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flowui_sandbox.sandbox.block.extract import EXTRACTION_PREFIX, ExtractionError, raw_values  # noqa: E402

WANTED = ("data-bind", "data-show")


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


parity = _load("parity_test", ROOT / "tests" / "browser" / "test_parity.py")
extraction = _load("bench_extraction", ROOT / "bench" / "extraction.py")


# ------------------------------------------------------------------ the candidates


def lexbor_chosen(source: str) -> list[tuple[str, str]]:
    return [(a, v) for _, a, v in raw_values(source)]


def lexbor_default(source: str) -> list[tuple[str, str]]:
    """selectolax's defaults: scripting off, no shadow-root rule."""
    from selectolax.lexbor import LexborHTMLParser

    out, seen = [], set()
    for node in LexborHTMLParser(EXTRACTION_PREFIX + source).css("[data-bind],[data-show]"):
        if node.mem_id not in seen:
            seen.add(node.mem_id)
            out += [(k, v or "") for k, v in node.attributes.items() if k in WANTED]
    return out


def _walk_etree(root, is_template):
    stack = [root]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):  # comments, processing instructions
            continue
        yield el
        if not is_template(el):
            stack.extend(reversed(list(el)))


def html5lib_parse(source: str) -> list[tuple[str, str]]:
    import html5lib

    root = html5lib.parse(EXTRACTION_PREFIX + source, treebuilder="etree", namespaceHTMLElements=False, scripting=True)
    out = []
    for el in _walk_etree(root, lambda e: e.tag == "template"):
        out += [(k, v) for k, v in el.attrib.items() if k in WANTED]
    return out


def lxml_html(source: str) -> list[tuple[str, str]]:
    import lxml.html

    root = lxml.html.document_fromstring(EXTRACTION_PREFIX + source)
    out = []
    for el in _walk_etree(root, lambda e: e.tag == "template"):
        out += [(k, v) for k, v in el.attrib.items() if k in WANTED]
    return out


def _bs4(builder: str):
    def parse(source: str) -> list[tuple[str, str]]:
        from bs4 import BeautifulSoup, Tag

        soup = BeautifulSoup(EXTRACTION_PREFIX + source, builder)
        out = []
        stack = [soup]
        while stack:
            node = stack.pop()
            for k, v in node.attrs.items() if node is not soup else ():
                if k in WANTED:
                    out.append((k, " ".join(v) if isinstance(v, list) else v))
            if node.name != "template":
                stack.extend(reversed([c for c in node.children if isinstance(c, Tag)]))
        return out

    return parse


def justhtml_parse(source: str) -> list[tuple[str, str]]:
    from justhtml import JustHTML

    doc = JustHTML(EXTRACTION_PREFIX + source, sanitize=False, scripting_enabled=True)
    out = []
    stack = [doc.root]
    while stack:
        node = stack.pop()
        attrs = getattr(node, "attrs", None) or {}
        out += [(k, v or "") for k, v in attrs.items() if k in WANTED]
        if node.name != "template":
            stack.extend(reversed(node.children or []))
    return out


CANDIDATES = {
    "lexbor (sandbox.block.extract)": lexbor_chosen,
    "lexbor, selectolax defaults": lexbor_default,
    "html5lib": html5lib_parse,
    "justhtml": justhtml_parse,
    "lxml.html": lxml_html,
    "bs4 + lxml": _bs4("lxml"),
    "bs4 + html.parser": _bs4("html.parser"),
}


# ------------------------------------------------------------------------ the run


async def browser_answers(engine_name: str, sources: list[str]):
    from flowui_sandbox.sandbox.engines import find_engines, launch
    from flowui_sandbox.sandbox.harness.server import LocalServer

    engines = {e.name: e for e in find_engines()}
    if engine_name not in engines:
        raise SystemExit(f"engine {engine_name!r} is not installed")
    server = await LocalServer().start()
    session = await launch(engines[engine_name])
    try:
        page = await session.new_page()
        await page.goto(server.add_page("<!DOCTYPE html><title>parity host</title><body></body>"))
        answers = await page.evaluate(parity.BATCH_SCRIPT, {"prefix": parity.SRCDOC_PREFIX, "sources": sources, "parallel": 12}, timeout=300)
        await page.close()
    finally:
        await session.close()
        await server.stop()
    return [[(a, v) for _, a, v in answer] if isinstance(answer, list) else answer for answer in answers]


def main() -> int:
    engine = sys.argv[sys.argv.index("--engine") + 1] if "--engine" in sys.argv else "chromium"
    quick = "--quick" in sys.argv
    cases = parity.corpus()
    truth = asyncio.run(browser_answers(engine, [c["source"] for c in cases]))
    typical = {"5 KB": extraction.block(5_000), "1 MB": extraction.block(1_000_000)}
    print(f"{len(cases)} inputs, truth: {engine}'s DOM\n")
    print(f"{'parser':<28} {'differ':>7}  {'5 KB':>9} {'1 MB':>10}  first differing inputs")
    for name, fn in CANDIDATES.items():
        differ = []
        for case, want in zip(cases, truth):
            try:
                got = fn(case["source"])
            except ExtractionError as exc:
                got = f"refused: {exc.problems[0].reason}"
            except Exception as exc:  # a parser that crashes on an input differs on it
                got = f"{type(exc).__name__}: {exc}"
            if got != want:
                differ.append(case["name"])
        timings = []
        for label, source in typical.items():
            slow = name.startswith(("html5lib", "bs4", "justhtml")) and label == "1 MB" and quick
            timings.append(None if slow else extraction.best(fn, source, 0.3 if quick else 1.0))
        shown = [f"{t * 1e3:.2f}ms" if t is not None else "-" for t in timings]
        print(f"{name:<28} {len(differ):>7}  {shown[0]:>9} {shown[1]:>10}  {', '.join(differ[:4])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
