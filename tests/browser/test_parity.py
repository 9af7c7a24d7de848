"""Differential test: sandbox.block.extract against the DOM of every browser engine.

Each corpus input is loaded the way a block is parsed: an iframe whose srcdoc is
the block document's prefix (a CSP that blocks every script, so no author script
alters the DOM while the scripting flag stays on) + the input. The iframe has no
sandbox attribute, so the host page (same origin) reads
``contentDocument.querySelectorAll('[data-bind],[data-show]')``. One host page runs
the whole corpus in one evaluate, several iframes at a time.

The comparison is stricter than the contract: per element, tag name, attribute
name and value, in order, nothing deduplicated (sandbox.block.extract.raw_values, which
extract_paths validates and deduplicates).

Corpus: tests/browser/parity/traps.json (hand-written traps) + a seeded random
grammar (tests/browser/parity/generate.py). Where one engine genuinely differs
from the others, tests/browser/parity/expectations.json records its answer and
the evidence; nothing else is tolerated.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from flowui_sandbox.sandbox.block.extract import EXTRACTION_PREFIX, raw_values

HERE = Path(__file__).resolve().parent / "parity"
# The block document's head as far as the tree builder cares, plus a CSP that stops scripts.
SRCDOC_PREFIX = (
    '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
    "content=\"script-src 'none'\"></head><body>"
)


def _generated() -> list[dict[str, str]]:
    spec = importlib.util.spec_from_file_location("parity_generate", HERE / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate()


def corpus() -> list[dict[str, str]]:
    traps = json.loads((HERE / "traps.json").read_text(encoding="utf-8"))
    cases = traps + _generated()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "corpus names must be unique"
    return cases


def expected_by_parser(source: str) -> list[list[str]]:
    """What extraction yields, in the browser script's shape. raw_values accepts NUL
    (extract_paths refuses it), since the browser is given such sources as they are."""
    return [list(v) for v in raw_values(source)]


# Runs in the host page: load every input in an iframe, read what the DOM holds.
BATCH_SCRIPT = """async ({prefix, sources, parallel}) => {
  const results = new Array(sources.length);
  const load = (index) => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.style.display = 'none';  // the DOM is built all the same; no layout to wait for
    let finished = false;
    const finish = (why) => {
      if (finished) return;
      finished = true;
      try {
        const doc = frame.contentDocument;
        const out = [];
        for (const el of doc.querySelectorAll('[data-bind],[data-show]')) {
          for (const attr of el.attributes) {
            if (attr.name === 'data-bind' || attr.name === 'data-show') out.push([el.localName, attr.name, attr.value]);
          }
        }
        results[index] = why === 'load' ? out : {error: 'no load event within 10 s', partial: out};
      } catch (e) {
        results[index] = {error: String(e)};
      }
      frame.remove();
      resolve();
    };
    frame.addEventListener('load', () => finish('load'));
    setTimeout(() => finish('timeout'), 10000);
    frame.srcdoc = prefix + sources[index];
    document.body.appendChild(frame);
  });
  let next = 0;
  const worker = async () => { while (next < sources.length) await load(next++); };
  await Promise.all(Array.from({length: parallel}, worker));
  return results;
}"""


def test_the_srcdoc_prefix_is_the_extraction_context():
    """Only the closed CSP meta in head differs: the tree builder is in body with
    frameset-ok off when the input begins, in both (docs/DESIGN.md)."""
    meta = SRCDOC_PREFIX[SRCDOC_PREFIX.index("<meta"):SRCDOC_PREFIX.index("</head>")]
    assert SRCDOC_PREFIX.replace(meta, "") == EXTRACTION_PREFIX


def test_corpus_size():
    cases = corpus()
    assert len(cases) >= 300
    traps = json.loads((HERE / "traps.json").read_text(encoding="utf-8"))
    assert len(traps) >= 200


def test_extraction_matches_the_browser_dom(flowui_page, flowui_server):
    cases = corpus()
    expectations = json.loads((HERE / "expectations.json").read_text(encoding="utf-8"))
    url = flowui_server.add_page("<!DOCTYPE html><title>parity host</title><body></body>")
    flowui_page.goto(url)
    got = flowui_page.evaluate(
        BATCH_SCRIPT,
        {"prefix": SRCDOC_PREFIX, "sources": [c["source"] for c in cases], "parallel": 12},
        timeout=240,
    )
    assert len(got) == len(cases)
    mismatches = []
    for case, browser in zip(cases, got):
        ours = expected_by_parser(case["source"])
        recorded = expectations.get(case["name"], {}).get(flowui_page.name)
        want = recorded["dom"] if recorded else ours
        if browser != want:
            mismatches.append(
                f"--- {case['name']} on {flowui_page.name}\n"
                f"input:   {json.dumps(case['source'], ensure_ascii=False)[:600]}\n"
                f"browser: {json.dumps(browser, ensure_ascii=False)[:600]}\n"
                f"extract: {json.dumps(ours, ensure_ascii=False)[:600]}"
                + (f"\nrecorded for {flowui_page.name}: {json.dumps(want, ensure_ascii=False)[:600]}" if recorded else "")
            )
        elif recorded and browser == ours:
            mismatches.append(f"--- {case['name']} on {flowui_page.name}: the recorded difference is gone; remove it from expectations.json")
    assert not mismatches, f"{len(mismatches)} of {len(cases)} inputs differ:\n" + "\n".join(mismatches)


def test_recorded_expectations_are_well_formed():
    """expectations.json entries name a corpus input, an engine, the DOM answer and evidence."""
    expectations = json.loads((HERE / "expectations.json").read_text(encoding="utf-8"))
    names = {c["name"] for c in corpus()}
    for case_name, engines in expectations.items():
        assert case_name in names, f"{case_name} is not in the corpus"
        for engine, entry in engines.items():
            assert engine in ("chromium", "firefox", "webkit")
            assert set(entry) == {"dom", "evidence"} and entry["evidence"].strip()
