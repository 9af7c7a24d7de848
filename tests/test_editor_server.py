"""The editor's server and command without a browser: the guard, the API, saving, the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from flowui_sandbox.sandbox.block.extract import extract_paths
from flowui_sandbox.sandbox.block.policy import CSP
from flowui_sandbox.sandbox.editor.server import EditorServer, EditorSession, cheatsheet, preview_csp, sha256, write_atomically
from flowui_sandbox.theme import TOKENS

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "flowui_sandbox"]


def run(coro):
    return asyncio.run(coro)


def own(server) -> dict[str, str]:
    """The headers the editor's own page sends with a POST."""
    return {"Origin": server.origin, "Sec-Fetch-Site": "same-origin", "X-Flowui-Editor": "1"}


async def _with_server(file: Path, fn):
    server = await EditorServer(EditorSession(file=file, state={"a": 1}, fields=["a"])).start()
    try:
        async with aiohttp.ClientSession() as http:
            return await fn(server, http)
    finally:
        await server.stop()


def test_the_guard_wants_the_token_and_the_printed_host(tmp_path):
    async def check(server, http):
        base = f"http://127.0.0.1:{server.port}"
        statuses = {}
        for name, url, headers in [
            ("ok", server.url, {}),
            ("no token", f"{base}/", {}),
            ("wrong token", f"{base}/{'A' * len(server.token)}/", {}),
            ("token as a query", f"{base}/?token={server.token}", {}),
            ("foreign host", server.url, {"Host": f"attacker.example:{server.port}"}),
            ("localhost", server.url, {"Host": f"localhost:{server.port}"}),
            ("static without token", f"{base}/static/editor.js", {}),
            ("bridge without token", f"{base}/bridge/flow-ui-host.js", {}),
        ]:
            async with http.get(url, headers=headers) as r:
                statuses[name] = r.status
        async with http.post(f"{server.url}api/save", data="source=x", headers={"Content-Type": "application/x-www-form-urlencoded"}) as r:
            statuses["form post"] = r.status
        return statuses

    statuses = run(_with_server(tmp_path / "b.html", check))
    assert statuses == {"ok": 200} | {k: 403 for k in statuses if k != "ok"}


def test_the_pages_carry_their_policies(tmp_path):
    port, token = 0, ""

    async def check(server, http):
        nonlocal port, token
        port, token = server.port, server.token
        async with http.get(server.url) as r:
            editor = dict(r.headers), await r.text()
        async with http.get(server.preview_url) as r:
            preview = dict(r.headers), await r.text()
        return editor, preview

    (editor_headers, editor_html), (preview_headers, preview_html) = run(_with_server(tmp_path / "b.html", check))
    csp = editor_headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    nonce = re.search(r"'nonce-([^']+)'", csp).group(1)
    assert f'content="{nonce}"' in editor_html and "<script>" not in editor_html
    assert editor_headers["Referrer-Policy"] == "no-referrer"
    # The preview page's policy is the block's, plus 'self' for the host module: every
    # directive of the block's policy is there, so the srcdoc's effective policy is the block's.
    preview = preview_headers["Content-Security-Policy"]
    assert preview == preview_csp(f"http://127.0.0.1:{port}")
    # The editor frames its preview only, on another site; the preview is framed by the editor only.
    assert f"frame-src http://localhost:{port};" in csp and f"frame-ancestors http://127.0.0.1:{port}" in preview
    assert "X-Frame-Options" not in preview_headers
    # Neither the preview page nor its URL holds the token: it is the editor's alone.
    assert f'content="http://localhost:{port}/preview/"' in editor_html
    assert token not in preview_html
    for directive in CSP.split(";"):
        name, *values = directive.split()
        got = next(d.split()[1:] for d in preview.split(";") if d.split() and d.split()[0] == name)
        assert set(values) <= set(got) and set(got) - set(values) <= {"'self'"}


def test_analyze_gives_the_generators_paths_and_the_problems_with_positions(tmp_path):
    source = (ROOT / "examples" / "starter.html").read_text(encoding="utf-8")

    async def check(server, http):
        out = []
        for body in ({"source": source, "fields": ["order.items"]}, {"source": '<p>\n  <b data-bind="Bad">x</b>', "fields": ["A"]}):
            async with http.post(server.url + "api/analyze", json=body, headers=own(server)) as r:
                out.append(await r.json())
        return out

    good, bad = run(_with_server(tmp_path / "b.html", check))
    assert good["paths"] == extract_paths(source) and good["problems"] == []
    assert bad["paths"] is None
    assert (bad["problems"][0]["line"], bad["problems"][0]["column"]) == (2, 3)  # the element that carries the bad path
    assert bad["fieldProblems"] and "A" in bad["fieldProblems"][0]


def test_the_state_pane_json_errors_have_line_and_column(tmp_path):
    async def check(server, http):
        out = []
        for text in ('{\n  "a": [1, 2,\n}', '{"a": NaN}', "[1]", '{"a": {"b": 1}}'):
            async with http.post(server.url + "api/json", json={"text": text}, headers=own(server)) as r:
                out.append(await r.json())
        return out

    trailing, nan, array, ok = run(_with_server(tmp_path / "b.html", check))
    assert (trailing["ok"], trailing["line"], trailing["column"]) == (False, 3, 1)
    assert nan["ok"] is False and "NaN" in nan["message"]
    assert array["ok"] is False and "object" in array["message"]
    assert ok == {"ok": True, "value": {"a": {"b": 1}}}


def test_save_is_atomic_and_refuses_a_stale_base(tmp_path):
    file = tmp_path / "b.html"
    file.write_text("<p>one</p>", encoding="utf-8")
    os.chmod(file, 0o640)

    async def check(server, http):
        out = []
        async with http.post(server.url + "api/save", json={"source": "<p>two</p>", "base": sha256("<p>one</p>")}, headers=own(server)) as r:
            out.append((r.status, await r.json()))
        file.write_text("<p>theirs</p>", encoding="utf-8")
        async with http.post(server.url + "api/save", json={"source": "<p>three</p>", "base": sha256("<p>two</p>")}, headers=own(server)) as r:
            out.append((r.status, await r.json()))
        out.append(file.read_text(encoding="utf-8"))
        async with http.post(server.url + "api/save", json={"source": "<p>three</p>", "base": None, "force": True}, headers=own(server)) as r:
            out.append((r.status, await r.json()))
        return out

    saved, conflict, after_conflict, forced = run(_with_server(file, check))
    assert saved == (200, {"sha": sha256("<p>two</p>")})
    assert conflict == (409, {"conflict": True, "sha": sha256("<p>theirs</p>"), "source": "<p>theirs</p>"})
    assert after_conflict == "<p>theirs</p>"
    assert forced[0] == 200 and file.read_text(encoding="utf-8") == "<p>three</p>"
    assert file.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["b.html"]


def test_write_atomically_creates_folders_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "new" / "block.html"
    write_atomically(target, "é")
    assert target.read_bytes() == "é".encode()
    assert [p.name for p in target.parent.iterdir()] == ["block.html"]


def test_the_cheatsheet_is_read_from_the_sources_of_truth():
    sheet = cheatsheet()
    protocol = (ROOT / "bridge" / "PROTOCOL.md").read_text(encoding="utf-8")
    members = [a["member"] for a in sheet["api"]]
    assert "flowUi.send(action, payload)" in members and "flowUi.onTheme(cb)" in members
    assert all(f"| `{m}` |" in protocol for m in members)
    assert [t["token"] for t in sheet["tokens"]] == list(TOKENS)
    assert sheet["csp"] == CSP


def _start_cli(*args: str, cwd: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([*CLI, "edit", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    return proc, proc.stdout.readline().strip()


def test_the_command_prints_its_url_first_serves_the_starter_and_stops_on_ctrl_c(tmp_path):
    proc, url = _start_cli("new.html", "--no-open", cwd=tmp_path)
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{32}/", url), url

        async def fetch():
            async with aiohttp.ClientSession() as http:
                async with http.get(url + "api/session") as r:
                    return await r.json()

        session = run(fetch())
        assert session["exists"] is False and session["sha"] is None
        assert session["source"] == (ROOT / "examples" / "starter.html").read_text(encoding="utf-8")
        assert session["fields"] == ["order.items", "draft.email", "draft.agree"]
        assert session["state"]["customer"]["name"]
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
    assert code == 0
    assert "Traceback" not in proc.stderr.read()
    assert not (tmp_path / "new.html").exists()  # nothing is written until the author saves


def test_bad_inputs_are_one_line_each_and_exit_2(tmp_path):
    (tmp_path / "state.json").write_text("{oops", encoding="utf-8")
    (tmp_path / "theme.json").write_text('{"accent": "nope"}', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    files = subprocess.run([*CLI, "edit", "b.html", "--no-open", "--state", "state.json", "--theme", "theme.json"],
                           cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert files.returncode == 2 and files.stdout == "" and "Traceback" not in files.stderr
    lines = files.stderr.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("state.json:1:2: ") and "not JSON" in lines[0]
    assert lines[1].startswith("theme.json:1:2: ") and "nope" in lines[1]
    options = subprocess.run([*CLI, "edit", "b.html", "--no-open", "--fields", "A,ok", "--block-id", "1x"],
                             cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert options.returncode == 2 and "Traceback" not in options.stderr
    lines = options.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("flowui-sandbox edit: error: ") for line in lines)
    assert any("--fields: item 1" in line for line in lines) and any("--block-id" in line for line in lines)


@pytest.mark.parametrize("port", ["-1", "70000"])
def test_a_bad_port_is_refused(tmp_path, port):
    proc = subprocess.run([*CLI, "edit", "b.html", "--no-open", "--port", port], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=20)
    assert proc.returncode == 2 and "--port" in proc.stderr and "Traceback" not in proc.stderr


def test_the_static_files_ship_with_the_package():
    data = Path(__file__).resolve().parents[1] / "pyproject.toml"
    text = data.read_text(encoding="utf-8")
    assert '"**/*.js"' in text and '"**/*.html"' in text and '"**/*.css"' in text
    static = ROOT / "sandbox" / "editor" / "static"
    for name in ("editor.html", "editor.js", "editor.css", "preview.html", "preview.js", "preview.css", "codemirror.js"):
        assert (static / name).is_file(), name
    assert json.loads((ROOT / "sandbox" / "editor" / "bundle" / "package.json").read_text())["devDependencies"]["codemirror"] == "6.0.2"


def test_the_state_beside_the_file_and_the_starters_fields_are_the_defaults(tmp_path):
    from flowui_sandbox.sandbox.editor.command import STARTER_FIELDS, editor_session

    (tmp_path / "card.html").write_text("<p data-bind='a'></p>", encoding="utf-8")
    (tmp_path / "card.state.json").write_text('{"a": "beside"}', encoding="utf-8")
    card = editor_session(str(tmp_path / "card.html"))
    assert (card.state, card.fields, card.starter) == ({"a": "beside"}, [], "")
    starter = editor_session(str(ROOT / "examples" / "starter.html"))
    assert starter.fields == STARTER_FIELDS and starter.state["customer"]["name"]
    (tmp_path / "card.state.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(Exception) as refused:
        editor_session(str(tmp_path / "card.html"))
    assert "card.state.json" in str(refused.value)


def test_the_findings_are_the_static_reviews_at_their_positions(tmp_path):
    from flowui_sandbox.sandbox.review import review_static

    source = "<p>x</p>\n<script>\n  document.cookie;\n</script>"

    async def check(server, http):
        async with http.post(server.url + "api/findings", json={"source": source, "fields": []}, headers=own(server)) as r:
            return await r.json()

    findings = run(_with_server(tmp_path / "b.html", check))["findings"]
    expected = review_static(source, file="source", fields=[])
    assert [(f["rule"], f["line"], f["column"], f["severity"]) for f in findings] == [(f.rule, f.line, f.column, f.severity) for f in expected]
    assert ("blocked.cookie", 3, 3) in [(f["rule"], f["line"], f["column"]) for f in findings]


def test_a_state_changing_request_must_come_from_the_editors_own_page(tmp_path):
    server = EditorServer(EditorSession(file=tmp_path / "b.html"), token="T" * 32)
    server.port = 8123
    save = "/" + "T" * 32 + "/api/save"
    mine = {"Host": "127.0.0.1:8123", "Origin": "http://127.0.0.1:8123", "Sec-Fetch-Site": "same-origin",
            "X-Flowui-Editor": "1", "Content-Type": "application/json"}
    assert server.refusal("POST", save, mine) is None
    assert server.refusal("POST", save, {k: v for k, v in mine.items() if k != "Sec-Fetch-Site"}) is None  # an engine without it
    refused = {
        "no Origin": {k: v for k, v in mine.items() if k != "Origin"},
        "Origin null": mine | {"Origin": "null"},
        "the preview's origin": mine | {"Origin": "http://localhost:8123"},
        "another port": mine | {"Origin": "http://127.0.0.1:8124"},
        "cross-site": mine | {"Sec-Fetch-Site": "cross-site"},
        "same-site": mine | {"Sec-Fetch-Site": "same-site"},
        "no editor header": {k: v for k, v in mine.items() if k != "X-Flowui-Editor"},
        "a form": mine | {"Content-Type": "application/x-www-form-urlencoded"},
        "text/plain": mine | {"Content-Type": "text/plain"},
    }
    for name, headers in refused.items():
        assert server.refusal("POST", save, headers), name
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        assert server.refusal(method, save, {k: v for k, v in mine.items() if k != "X-Flowui-Editor"}), method
    # GETs change nothing: the token and the Host are enough.
    assert server.refusal("GET", "/" + "T" * 32 + "/api/session", {"Host": "127.0.0.1:8123"}) is None
    # The preview's address: GET under /preview/ only, never the editor's pages or API.
    preview = {"Host": "localhost:8123"}
    assert server.refusal("GET", "/preview/", preview) is None
    assert server.refusal("GET", "/preview/bridge/flow-ui-host.js", preview) is None
    for method, path in [("GET", "/" + "T" * 32 + "/api/session"), ("GET", "/" + "T" * 32 + "/"), ("POST", "/preview/"),
                         ("GET", "/static/editor.js")]:
        assert server.refusal(method, path, preview | mine | {"Host": "localhost:8123"}), (method, path)


def test_a_cross_site_save_leaves_the_file_untouched_and_the_editors_save_writes_it(tmp_path):
    file = tmp_path / "b.html"
    file.write_text("<p>mine</p>", encoding="utf-8")
    body = json.dumps({"source": "<p>pwned</p>", "base": None, "force": True})

    async def check(server, http):
        out = {}
        attacks = {
            # fetch(url, {method: 'POST', mode: 'no-cors', body: new Blob([json], {type: 'application/json'})})
            "no-cors blob": {"Origin": "http://localhost:9", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
            "form": {"Origin": "http://localhost:9", "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"},
            "beacon": {"Origin": "http://localhost:9", "Content-Type": "application/json"},
            "sandboxed block": {"Origin": "null", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
        }
        for name, headers in attacks.items():
            async with http.post(server.url + "api/save", data=body, headers=headers) as r:
                out[name] = r.status
        async with http.options(server.url + "api/save", headers={"Origin": "http://localhost:9", "Access-Control-Request-Method": "POST",
                                                                  "Access-Control-Request-Headers": "x-flowui-editor"}) as r:
            out["preflight"] = (r.status, r.headers.get("Access-Control-Allow-Origin"))
        out["file after"] = file.read_text(encoding="utf-8")
        async with http.post(server.url + "api/save", json={"source": "<p>saved</p>", "base": sha256("<p>mine</p>")},
                             headers=own(server)) as r:
            out["own"] = r.status
        out["refused"] = list(server.refused)
        return out

    out = run(_with_server(file, check))
    assert {k: out[k] for k in ("no-cors blob", "form", "beacon", "sandboxed block")} == dict.fromkeys(
        ("no-cors blob", "form", "beacon", "sandboxed block"), 403)
    assert out["preflight"] == (403, None)
    assert out["file after"] == "<p>mine</p>"
    assert out["own"] == 200 and file.read_text(encoding="utf-8") == "<p>saved</p>"
    assert len(out["refused"]) == 5 and all("TOKEN" in line for line in out["refused"])


def test_deep_json_is_one_located_error_never_a_500(tmp_path):
    deep = "[" * 100_000

    async def check(server, http):
        out = {}
        async with http.post(server.url + "api/json", json={"text": deep}, headers=own(server)) as r:
            out["state"] = (r.status, await r.json())
        # The request body itself, to every JSON endpoint.
        for name in ("json", "analyze", "findings", "save", "review"):
            async with http.post(server.url + f"api/{name}", data=deep, headers=own(server) | {"Content-Type": "application/json"}) as r:
                out[name] = (r.status, await r.json())
        return out

    out = run(_with_server(tmp_path / "b.html", check))
    status, state = out.pop("state")
    assert status == 422
    assert state == {"ok": False, "line": 1, "column": 65, "message": "nested deeper than 64 objects and arrays",
                     "error": "state.json:1:65: nested deeper than 64 objects and arrays"}
    for name, (status, body) in out.items():
        assert (status, body) == (400, {"error": "request body:1:65: nested deeper than 64 objects and arrays"}), name
    assert not (tmp_path / "b.html").exists()


def test_the_editor_stops_without_waiting_for_a_request_still_being_answered(tmp_path, monkeypatch):
    """A request the editor is still answering when it stops (a slow analysis, a review) is cut
    after STOP_WAIT seconds: aiohttp's default waited 60 s, and a restart on the same port with it."""
    from flowui_sandbox.sandbox.editor import server as editor_server

    async def slow(self, request):
        await asyncio.sleep(30)

    monkeypatch.setattr(editor_server.EditorServer, "_api_disk", slow)

    async def go():
        server = await EditorServer(EditorSession(file=tmp_path / "b.html", state={}, fields=[])).start()
        async with aiohttp.ClientSession() as http:
            pending = asyncio.ensure_future(http.get(server.url + "api/disk", headers=own(server)))
            await asyncio.sleep(0.3)
            loop = asyncio.get_running_loop()
            started = loop.time()
            await server.stop()
            took = loop.time() - started
            pending.cancel()
            return took

    assert run(go()) < 10
