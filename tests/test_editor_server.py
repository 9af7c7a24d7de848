"""The editor's server and command without a browser: the guard, the API, saving, the CLI."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from flowui_sandbox.sandbox.block.extract import extract_paths
from flowui_sandbox.sandbox.block.policy import CSP
from flowui_sandbox.sandbox.editor.server import EditorServer, EditorSession, cheatsheet, preview_csp, sha256, write_atomically
from flowui_sandbox.theme import TOKENS

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "flowui_sandbox"]


@pytest.fixture(autouse=True)
def private_folders(tmp_path_factory, monkeypatch):
    """The editor's private files (the drafts' secret, the page that opens it) in a folder of the test's."""
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    return cache


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
    preview = preview_headers["Content-Security-Policy"]
    assert preview == preview_csp(f"http://127.0.0.1:{port}")
    # The editor frames its preview only, on another site; the preview is framed by the editor only.
    assert f"frame-src http://localhost:{port};" in csp and f"frame-ancestors http://127.0.0.1:{port}" in preview
    assert "X-Frame-Options" not in preview_headers
    # Neither the preview page nor its URL holds the token: it is the editor's alone.
    assert f'content="http://localhost:{port}/preview/"' in editor_html
    assert token not in preview_html
    # The block's srcdoc inherits the preview page's policy on top of its own: a directive of the
    # block's policy there too would report each violation twice (once per policy), one that
    # differs would change the block's policy. None is there: the block's policy alone applies.
    block_directives = {part.split()[0] for part in CSP.split(";") if part.strip()}
    assert {part.split()[0] for part in preview.split(";")} == {"form-action", "frame-ancestors"}
    assert "default-src" in block_directives and not block_directives & {"form-action", "frame-ancestors"}


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
    assert conflict == (409, {"conflict": True, "sha": sha256("<p>theirs</p>"), "source": "<p>theirs</p>", "problem": None})
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


# ---------------------------------------------------------------- the token off the command line, IPv6, disk, drafts, headers

FAKE_BROWSER = """#!/bin/sh
# Stands in for the user's browser: what it was given, and what that file was when it came.
file=$(printf '%s' "$1" | sed 's|^file://||')
{ printf 'argv %s\\n' "$*"; printf 'mode %s\\n' "$(stat -c %a "$file")"; printf 'folder %s\\n' "$(stat -c %a "$(dirname "$file")")";
  printf 'path %s\\n' "$file"; cat "$file"; } > "$BROWSER_LOG.part" 2>&1
mv "$BROWSER_LOG.part" "$BROWSER_LOG"
"""


def test_the_browser_gets_a_private_file_that_redirects_never_the_token_on_its_command_line(tmp_path):
    """A browser's command line is public (/proc/PID/cmdline, ps): the token goes through a file
    only the user can read, removed when the editor stops."""
    browser, log, runtime = tmp_path / "browser.sh", tmp_path / "browser.log", tmp_path / "run"
    browser.write_text(FAKE_BROWSER, encoding="utf-8")
    browser.chmod(0o755)
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BROWSER": f"{browser} %s", "BROWSER_LOG": str(log),
           "XDG_RUNTIME_DIR": str(runtime), "HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([*CLI, "edit", "b.html"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = proc.stdout.readline().strip()
        deadline = time.monotonic() + 30
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        seen = log.read_text(encoding="utf-8")
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
    token = url.rstrip("/").rsplit("/", 1)[1]
    argv = seen.splitlines()[0]
    assert token not in argv and argv.startswith("argv file://"), seen
    page = Path(re.search(r"^path (.*)$", seen, re.M).group(1))
    assert page.parent == runtime / "flowui-sandbox", page
    assert "mode 600\n" in seen and "folder 700\n" in seen, seen
    assert f'url={url}"' in seen and f'href="{url}"' in seen, seen
    assert code == 0 and not page.exists()  # removed when the editor stops


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def _serves_without_ipv6(tmp_path) -> None:
    """Where the machine has no IPv6 loopback (no program can listen on ::1 either), the editor
    listens on 127.0.0.1 alone and serves (a skip would fail CI: with CI=true every test runs)."""
    async def check(server, http):
        async with http.get(server.url + "api/disk") as r:
            return r.status

    assert run(_with_server(tmp_path / "b.html", check)) == 200


def test_the_preview_name_localhost_reaches_this_editor_on_ipv6_too(tmp_path):
    """Browsers resolve localhost, the preview's name, to ::1 first: the editor holds [::1]:PORT
    as well, so no other program can stand in for the preview there."""
    if not _ipv6_loopback():
        return _serves_without_ipv6(tmp_path)

    async def check(server, http):
        async with http.get(f"http://[::1]:{server.port}/preview/", headers={"Host": f"localhost:{server.port}"}) as r:
            return r.status, await r.text()

    status, page = run(_with_server(tmp_path / "b.html", check))
    assert status == 200 and "flowui-editor-origin" in page


def test_a_port_whose_ipv6_loopback_is_taken_is_refused_in_one_line(tmp_path):
    if not _ipv6_loopback():
        return _serves_without_ipv6(tmp_path)
    with socket.socket(socket.AF_INET6) as other:
        other.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        other.bind(("::1", 0))
        other.listen()
        port = other.getsockname()[1]
        proc = subprocess.run([*CLI, "edit", "b.html", "--no-open", "--port", str(port)], cwd=tmp_path, capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=30)
    assert proc.returncode == 2 and proc.stdout == "", proc
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"[::1]:{port}" in lines[0] and "localhost" in lines[0], lines


def test_a_random_port_whose_ipv6_loopback_is_taken_is_passed_over(tmp_path, monkeypatch):
    from flowui_sandbox.sandbox.editor import server as editor_server

    taken: list[int] = []
    listen = editor_server.EditorServer._listen

    async def first_ipv6_taken(self, host, port):
        if host == "::1" and not taken:
            taken.append(port)
            raise OSError(errno.EADDRINUSE, "Address already in use")
        return await listen(self, host, port)

    monkeypatch.setattr(editor_server.EditorServer, "_listen", first_ipv6_taken)

    async def check(server, http):
        async with http.get(server.url + "api/disk") as r:
            return server.port, r.status

    port, status = run(_with_server(tmp_path / "b.html", check))
    assert status == 200 and taken and port != taken[0]


def test_a_file_that_stops_being_utf8_is_reported_and_never_saved_over_silently(tmp_path):
    file = tmp_path / "b.html"
    file.write_text("<p>café</p>", encoding="utf-8")

    async def check(server, http):
        out = {}
        file.write_bytes("<p>café, elsewhere</p>".encode("latin-1"))
        for name in ("disk", "disk/text", "session"):
            async with http.get(server.url + f"api/{name}") as r:
                out[name] = await r.json()
        # What the page sends after it took the file for deleted (base null), then with its own base.
        for base in (None, sha256("<p>café</p>")):
            async with http.post(server.url + "api/save", json={"source": "", "base": base}, headers=own(server)) as r:
                out[f"save {base}"] = (r.status, await r.json())
        return out

    out = run(_with_server(file, check))
    assert file.read_bytes() == "<p>café, elsewhere</p>".encode("latin-1")
    problem = out["disk/text"]["problem"]
    assert problem.startswith("is not UTF-8 text") and "0xE9" in problem, problem
    assert out["disk/text"]["source"] is None and out["disk"]["problem"] == problem and out["disk"]["sha"] not in (None, sha256("<p>café</p>"))
    assert out["session"]["exists"] is True and out["session"]["problem"] == problem and out["session"]["source"] == ""
    for base in (None, sha256("<p>café</p>")):
        status, body = out[f"save {base}"]
        assert status == 409 and body["conflict"] is True and body["problem"] == problem, body


def test_a_file_too_large_on_disk_is_reported_and_never_read(tmp_path):
    from flowui_sandbox.sandbox.block.extract import MAX_SOURCE_BYTES

    file = tmp_path / "b.html"
    file.write_text("<p>x</p>", encoding="utf-8")

    async def check(server, http):
        out = {}
        os.truncate(file, 100 * MAX_SOURCE_BYTES)  # 400 MB (sparse)
        for name in ("disk", "disk/text", "session"):
            async with http.get(server.url + f"api/{name}") as r:
                out[name] = (len(await r.read()), await r.json())
        async with http.post(server.url + "api/save", json={"source": "mine", "base": out["disk"][1]["sha"]}, headers=own(server)) as r:
            out["save"] = (r.status, await r.json())
        return out

    out = run(_with_server(file, check))
    for name in ("disk", "disk/text", "session"):
        size, body = out[name]
        assert size < 10_000 and "too large on disk" in body["problem"] and "419,430,400 bytes" in body["problem"], (name, body)
    assert out["disk/text"][1]["source"] is None
    assert out["save"][0] == 409 and file.stat().st_size == 100 * MAX_SOURCE_BYTES


def test_a_save_over_the_size_limit_is_refused(tmp_path):
    file = tmp_path / "b.html"
    file.write_text("<p>v0</p>", encoding="utf-8")

    async def check(server, http):
        big = "<p>" + "a" * 6_000_000 + "</p>"
        async with http.post(server.url + "api/save", json={"source": big, "base": sha256("<p>v0</p>")}, headers=own(server)) as r:
            return r.status, await r.json()

    status, body = run(_with_server(file, check))
    assert status == 413 and body["error"] == "the text is 6,000,007 bytes; a block has at most 4,194,304 (4 MiB)", body
    assert file.read_text(encoding="utf-8") == "<p>v0</p>"


def _fifo_with_a_writer(path: Path) -> int:
    """A named FIFO at ``path`` that a program holds open for writing (the fd returned), with bytes in it."""
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # Linux: a reader and a writer at once, without waiting
    os.write(fd, b"<p>x</p>\n")
    return fd


def test_a_fifo_or_a_pipe_is_refused_at_start_in_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    fd = _fifo_with_a_writer(tmp_path / "named.fifo")
    read, write = os.pipe()
    os.write(write, b"<p>x</p>\n")
    os.close(write)
    try:
        named = subprocess.run([*CLI, "edit", "named.fifo", "--no-open"], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=30)
        piped = subprocess.run([*CLI, "edit", f"/dev/fd/{read}", "--no-open"], cwd=tmp_path, capture_output=True, text=True, env=env,
                               timeout=30, pass_fds=(read,))
    finally:
        os.close(fd)
        os.close(read)
    for proc, name in ((named, "named.fifo"), (piped, f"/dev/fd/{read}")):
        assert proc.returncode == 2 and proc.stdout == "", proc
        assert proc.stderr.splitlines() == [f"{name}: is not a regular file (a FIFO): the editor edits a file"], proc.stderr


def test_a_file_replaced_by_a_fifo_is_reported_never_read(tmp_path):
    """Reading a FIFO whose writer stays blocks until the writer closes it: the server stats first."""
    import threading
    import urllib.request

    file = tmp_path / "b.html"
    file.write_text("<p>x</p>", encoding="utf-8")
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(EditorServer(EditorSession(file=file)).start())
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    file.unlink()
    fd = _fifo_with_a_writer(file)
    try:
        out = {}
        for name in ("disk", "disk/text", "session"):
            with urllib.request.urlopen(server.url + f"api/{name}", timeout=5) as r:
                out[name] = json.loads(r.read())
    finally:
        os.close(fd)  # a server stuck reading it gets its end of file
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
    for name, body in out.items():
        assert body["problem"] == "is not a regular file (a FIFO): the editor edits a file", (name, body)
    assert out["disk/text"]["source"] is None and out["session"]["source"] == ""


def test_every_response_carries_the_security_headers(tmp_path):
    async def check(server, http):
        out = {}
        base, preview = server.url, f"http://127.0.0.1:{server.port}/preview/"
        for name, method, url, headers, body in [
            ("404", "GET", base + "nope", {}, None),
            ("405", "GET", base + "api/save", {}, None),
            ("static 404", "GET", base + "static/nope.js", {}, None),
            ("preview 404", "GET", preview + "nope", {"Host": server.preview_host}, None),
            ("413", "POST", base + "api/json", own(server) | {"Content-Type": "application/json"}, b'{"text": "{}"}' + b" " * (9 * 2**20)),
            ("400", "POST", base + "api/json", own(server) | {"Content-Type": "application/json"}, b"["),
            ("200", "GET", base + "api/session", {}, None),
        ]:
            async with http.request(method, url, headers=headers, data=body) as r:
                out[name] = (r.status, {k: r.headers.get(k) for k in ("Cache-Control", "X-Content-Type-Options", "Referrer-Policy",
                                                                      "Cross-Origin-Resource-Policy")})
        return out

    out = run(_with_server(tmp_path / "b.html", check))
    assert {name: status for name, (status, _) in out.items()} == {"404": 404, "405": 405, "static 404": 404, "preview 404": 404,
                                                                 "413": 413, "400": 400, "200": 200}
    for name, (_, headers) in out.items():
        assert headers == {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                           "Cross-Origin-Resource-Policy": "same-origin"}, name


def test_drafts_are_sealed_with_a_key_only_this_users_editor_hands_out(tmp_path, private_folders):
    """The page keeps unsaved text in the origin's localStorage, which any other server on
    127.0.0.1:PORT reads: sealed (AES-GCM) with a key kept in a file only the user reads, the
    same for the same file after a restart, under a name that does not tell the file."""
    cache = private_folders
    first, second = tmp_path / "a.html", tmp_path / "b.html"

    async def draft(server, http):
        async with http.get(server.url + "api/session") as r:
            return (await r.json())["draft"]

    a, again, b = run(_with_server(first, draft)), run(_with_server(first, draft)), run(_with_server(second, draft))
    assert a == again and a["key"] != b["key"] and a["id"] != b["id"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", a["key"]) and re.fullmatch(r"[0-9a-f]{64}", a["id"])
    assert "a.html" not in a["id"] and str(tmp_path) not in a["id"]
    folder = cache / "flowui-sandbox"
    secret = folder / "drafts.key"
    assert folder.stat().st_mode & 0o777 == 0o700 and secret.stat().st_mode & 0o777 == 0o600
    assert len(secret.read_bytes()) == 32
