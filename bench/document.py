"""The server's side of a document, against peers measured in the same run.

    .venv/bin/python bench/document.py [--quick]

1. Paths: ``check_document`` (shape, ids, templates, paths, every html source
   extracted) of a 1,000-block document with 50 html blocks of 5 KB, against its
   floor: the pydantic shape check alone plus ``extract_paths`` of the 50 sources.
2. Diff: ``diff`` of two 1 MB states (leaves changed, keys added and removed, array
   elements inserted and removed) against the jsonpatch package's ``make_patch``:
   time, and patch size (operations, bytes of JSON). Both patches are applied with
   jsonpatch to check them.
3. Bad input, answered or refused, in process and through the command (the command's
   time includes starting Python): a 100,000-deep state, a 10 MB document, a
   document whose html source is over the limit.
4. A document with as many problems as a check reports (MAX_PROBLEMS): the document
   command (every problem located in the file) against ``check_document`` alone.

CPU time of this process, best of several rounds, so that other work on the machine
hardly moves the ratios, which are the result; the command rows are wall time.
"""

from __future__ import annotations

import copy
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jsonpatch

from flowui_sandbox.sandbox.block.extract import MAX_SOURCE_BYTES, extract_paths
from flowui_sandbox.sandbox.document import check_document, diff
from flowui_sandbox.sandbox.document.model import Document
from flowui_sandbox.sandbox.document.validate import MAX_PROBLEMS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extraction import block

QUICK = "--quick" in sys.argv
ROUNDS = 2 if QUICK else 5


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best(fn, rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        start = cpu()
        fn()
        times.append(cpu() - start)
    return min(times)


# ------------------------------------------------------------------------ 1. paths


def big_document() -> dict:
    source = block(5 * 1024)
    pages = []
    n = 0
    for p in range(10):
        blocks = []
        for i in range(100):
            n += 1
            kind = i % 20
            if kind == 0:
                blocks.append({"block_id": f"html_{n}", "type": "html", "source": source, "fields": [f"draft.field_{n}"]})
            elif kind in (1, 2, 3):
                blocks.append({"block_id": f"in_{n}", "type": "text_input", "field": f"form_{p}.field_{n}", "label": f"Field {{labels.l_{n}|#{n}}}",
                               "required": n % 2 == 0, "pattern": "[a-z]+", "visible_when": {"path": f"flags.f_{n % 7}"}})
            elif kind == 4:
                blocks.append({"block_id": f"sel_{n}", "type": "select", "field": f"form_{p}.choice_{n}",
                               "options": [{"value": v, "label": f"Option {v}"} for v in ("a", "b", "c")]})
            elif kind == 5:
                blocks.append({"block_id": f"btn_{n}", "type": "button", "label": "Send {?form_name}", "action": {"name": "submit", "payload": {"n": n}}})
            elif kind == 6:
                blocks.append({"block_id": f"tbl_{n}", "type": "data_table", "path": f"tables.t_{n}", "columns": [{"key": "name", "label": "Name"}]})
            else:
                blocks.append({"block_id": f"txt_{n}", "type": "text",
                               "markdown": f"Hello **{{customer.name|guest}}**, order {{orders.{n % 50}.id}} of {{?orders.{n % 50}.date}}\nTotal: {{totals.t_{n}}}"})
        pages.append({"page_id": f"page_{p}", "title": f"Page {p} {{?title_{p}}}", "blocks": blocks})
    return {"start_page_id": "page_0", "pages": pages}


def bench_paths() -> None:
    doc = big_document()
    text = json.dumps(doc)
    sources = [b["source"] for page in doc["pages"] for b in page["blocks"] if b["type"] == "html"]
    report = check_document(doc)
    assert report.ok and len(report.html) == 50, report.problems[:3]
    ours = best(lambda: check_document(doc))
    shape = best(lambda: Document.model_validate(doc))
    extraction = best(lambda: [extract_paths(s) for s in sources])
    floor = shape + extraction
    print("1. paths of a document: 1,000 blocks, 50 html blocks of 5 KB "
          f"({len(text) / 1024:.0f} KB of JSON, {len(report.paths)} projection paths)")
    print(f"   check_document (everything)            {ours * 1000:8.1f} ms")
    print(f"   floor: pydantic shape + 50 extractions {floor * 1000:8.1f} ms  "
          f"(shape {shape * 1000:.1f} ms, extraction {extraction * 1000:.1f} ms)")
    print(f"   ratio to the floor                      {ours / floor:8.2f}x")


# ------------------------------------------------------------------------ 2. diff


def state_of(size: int, seed: int) -> dict:
    rng = random.Random(seed)
    orders = []
    while len(json.dumps(orders)) < size:
        n = len(orders)
        orders.append({
            "id": n, "status": rng.choice(["new", "paid", "sent"]), "total": round(rng.uniform(1, 500), 2),
            "customer": {"name": f"Customer {n}", "email": f"c{n}@example.com", "vip": rng.random() < 0.1},
            "items": [{"sku": f"S{rng.randrange(10_000)}", "qty": rng.randrange(1, 5), "price": rng.randrange(100, 9_999) / 100}
                      for _ in range(rng.randrange(1, 6))],
            "tags": rng.sample(["a", "b", "c", "d", "e"], rng.randrange(0, 3)),
        })
    return {"orders": orders, "meta": {"version": 1, "region": "eu"}}


def changed(state: dict, seed: int) -> dict:
    """About 1% of leaves changed, a few keys added and removed, array elements inserted and removed."""
    rng = random.Random(seed)
    new = copy.deepcopy(state)
    orders = new["orders"]
    for _ in range(len(orders) // 20):
        order = rng.choice(orders)
        what = rng.randrange(6)
        if what == 0:
            order["status"] = "cancelled"
        elif what == 1:
            order["total"] = round(order["total"] + 1, 2)
        elif what == 2:
            order["customer"]["phone"] = "+1 555 0100"
        elif what == 3:
            order["customer"].pop("email", None)
        elif what == 4:
            order["items"].insert(rng.randrange(len(order["items"]) + 1), {"sku": "NEW", "qty": 1, "price": 1.0})
        elif order["items"]:
            order["items"].pop(rng.randrange(len(order["items"])))
    for _ in range(5):  # new orders in the middle, some removed
        orders.insert(rng.randrange(len(orders)), {"id": -1, "status": "new", "total": 0, "customer": {}, "items": [], "tags": []})
        orders.pop(rng.randrange(len(orders)))
    new["meta"]["version"] = 2
    return new


def bench_diff() -> None:
    old = state_of(1_000_000, 1)
    new = changed(old, 2)
    ours_ops = diff(old, new)
    theirs_ops = jsonpatch.make_patch(old, new).patch
    assert jsonpatch.apply_patch(old, ours_ops) == new
    assert jsonpatch.apply_patch(old, theirs_ops) == new
    ours = best(lambda: diff(old, new))
    theirs = best(lambda: jsonpatch.make_patch(old, new), rounds=max(1, ROUNDS // 2))
    size = lambda ops: len(json.dumps(ops, separators=(",", ":")))  # noqa: E731
    print(f"2. diff of two {len(json.dumps(old)) / 1e6:.2f} MB states ({len(old['orders'])} orders, ~1% changed)")
    print(f"   diff (ours)               {ours * 1000:8.1f} ms   {len(ours_ops):5d} ops {size(ours_ops):8d} bytes")
    print(f"   jsonpatch.make_patch      {theirs * 1000:8.1f} ms   {len(theirs_ops):5d} ops {size(theirs_ops):8d} bytes "
          f"(ops used: {', '.join(sorted({o['op'] for o in theirs_ops}))})")
    print(f"   ours faster by            {theirs / ours:8.1f}x; patch size ratio (ours / theirs) {size(ours_ops) / size(theirs_ops):.2f}")

    front = copy.deepcopy(old)
    front["orders"].insert(0, {"id": -2})
    ours_ops = diff(old, front)
    theirs_ops = jsonpatch.make_patch(old, front).patch
    assert jsonpatch.apply_patch(old, theirs_ops) == front and jsonpatch.apply_patch(old, ours_ops) == front
    print(f"   one order inserted at the front: ours {len(ours_ops)} op / {size(ours_ops)} bytes, "
          f"jsonpatch {len(theirs_ops)} ops / {size(theirs_ops)} bytes")

    flags = {"flags": [i % 3 == 0 for i in range(5000)]}
    fewer = {"flags": [f for i, f in enumerate(flags["flags"]) if i % 250 != 7]}
    ours_ops = diff(flags, fewer)
    theirs_ops = jsonpatch.make_patch(flags, fewer).patch
    assert jsonpatch.apply_patch(flags, theirs_ops) == fewer and jsonpatch.apply_patch(flags, ours_ops) == fewer
    ours = best(lambda: diff(flags, fewer))
    theirs = best(lambda: jsonpatch.make_patch(flags, fewer), rounds=max(1, ROUNDS // 2))
    print(f"   20 of 5,000 booleans removed ({size(fewer)} bytes): ours {len(ours_ops)} op / {size(ours_ops)} bytes "
          f"{ours * 1000:.1f} ms, jsonpatch {len(theirs_ops)} ops / {size(theirs_ops)} bytes {theirs * 1000:.1f} ms")


# ------------------------------------------------------------------------ 3. bad input


def bench_bad_input() -> None:
    from flowui_sandbox.sandbox.document.jsontext import load_json
    from flowui_sandbox.sandbox.errors import UsageError

    print("3. bad input (each must be answered or refused within 2 s)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        deep = tmp / "deep.json"
        deep.write_text("[" * 100_000 + "]" * 100_000)
        (tmp / "empty.json").write_text("{}")
        big = tmp / "big.json"
        big.write_text(json.dumps({"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
            {"block_id": f"t{i}", "type": "text", "markdown": "x" * 1000} for i in range(10_500)]}]}))
        over = tmp / "over.json"
        over.write_text(json.dumps({"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
            {"block_id": "h", "type": "html", "source": "<p>" + "x" * MAX_SOURCE_BYTES}]}]}))

        start = time.monotonic()
        try:
            load_json(deep.read_text(), "deep.json")
        except UsageError as exc:
            print(f"   100,000-deep state, in process          {time.monotonic() - start:6.3f} s  {str(exc)[:70]}")
        doc = json.loads(over.read_text())
        start = time.monotonic()
        report = check_document(doc)
        print(f"   source over the limit, in process        {time.monotonic() - start:6.3f} s  {str(report.problems[0])[:70]}")
        for label, argv in [
            ("100,000-deep state: diff", ["diff", str(deep), str(tmp / "empty.json")]),
            ("10 MB document: document", ["document", str(big)]),
            ("source over the limit: document", ["document", str(over)]),
        ]:
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "flowui_sandbox", *argv], capture_output=True, text=True)
            seconds = time.monotonic() - start
            line = proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else "(no error)"
            print(f"   {label:<40} {seconds:6.3f} s  exit {proc.returncode}: {line.replace(str(tmp) + '/', '')[:90]}")
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "flowui_sandbox", "document", "--help"], capture_output=True)
        print(f"   (peer: the command's start-up alone, --help)  {time.monotonic() - start:6.3f} s")


def bench_many_problems() -> None:
    """The document command on a document with MAX_PROBLEMS problems, against check_document alone."""
    import contextlib
    import io

    from flowui_sandbox.sandbox.cli import main

    n = MAX_PROBLEMS
    doc = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [
        {"block_id": f"t{i}", "type": "text", "markdown": "{Bad}"} for i in range(n)]}]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "many.json"
        path.write_text(json.dumps(doc, indent=1))

        def command() -> None:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                assert main(["document", str(path)]) == 2

        whole = best(command, rounds=max(1, ROUNDS // 2))
        alone = best(lambda: check_document(doc), rounds=max(1, ROUNDS // 2))
    print(f"4. {n:,} problems: the document command (in process) {whole * 1000:.0f} ms, check_document alone {alone * 1000:.0f} ms")


if __name__ == "__main__":
    bench_paths()
    bench_diff()
    bench_bad_input()
    bench_many_problems()
