"""flowui_sandbox.sandbox.harness.remote without browsers: the --remote grammar, the server names, the work queue."""

from __future__ import annotations

import asyncio

import pytest

from flowui_sandbox.sandbox.engines import Engine
from flowui_sandbox.sandbox.engines.remote import Endpoint, parse_remote, plan
from flowui_sandbox.sandbox.errors import UsageError
from flowui_sandbox.sandbox.harness.remote import SessionLost, Worker, server_names, spread


def test_endpoints_parse_with_their_protocol_and_pages():
    got = parse_remote([
        "chromium=ws://127.0.0.1:3000/abc", "firefox:5=wss://b.example:443/x", "webkit=http://127.0.0.1:4444",
        "webkit:8=https://grid.example:4444/wd/hub",
    ])
    assert got == [
        Endpoint("chromium", "ws://127.0.0.1:3000/abc", 3, "playwright"),
        Endpoint("firefox", "wss://b.example:443/x", 5, "playwright"),
        Endpoint("webkit", "http://127.0.0.1:4444", 1, "webdriver"),
        Endpoint("webkit", "https://grid.example:4444/wd/hub", 8, "webdriver"),
    ]


def test_every_bad_endpoint_is_one_line():
    with pytest.raises(UsageError) as err:
        parse_remote(["opera=ws://a:1", "chromium", "chromium=http://a:1", "webkit:0=http://a:2", "firefox=ftp://a:3",
                      "firefox=ws://nohost", "webkit=http://a:5", "webkit=http://a:5"])
    lines = str(err.value).splitlines()
    assert len(lines) == 7  # the first webkit=http://a:5 is right
    assert all(line.startswith("--remote ") for line in lines)
    assert "unknown engine 'opera'" in lines[0]
    assert "ENGINE[:PAGES]=URL" in lines[1]
    assert "webkit only" in lines[2]
    assert "PAGES" in lines[3]
    assert "ws://" in lines[4]
    assert "host and a port" in lines[5]
    assert "twice" in lines[6]


def test_server_names_default_to_loopback():
    names = server_names()
    assert (names.bind, names.host, names.canary) == ("127.0.0.1", "127.0.0.1", "localhost")


def test_server_names_for_remote_browsers_need_two_sites():
    names = server_names("0.0.0.0", "10.1.2.3", "verify-box")
    assert (names.bind, names.host, names.canary) == ("0.0.0.0", "10.1.2.3", "verify-box")
    with pytest.raises(UsageError, match="--public-host NAME"):
        server_names("0.0.0.0")
    with pytest.raises(UsageError, match="--canary-host"):
        server_names("10.1.2.3")
    with pytest.raises(UsageError, match="localhost is 127.0.0.1"):
        server_names("127.0.0.2")
    with pytest.raises(UsageError, match="must differ"):
        server_names("0.0.0.0", "box", "box")
    with pytest.raises(UsageError, match="not an IP address"):
        server_names("example.org")


def test_plan_runs_the_remote_engines_and_named_local_ones():
    engines, remote = plan(None, parse_remote(["chromium=ws://127.0.0.1:1/a", "webkit=http://127.0.0.1:2"]))
    assert [(e.name, e.driver, e.origin) for e in engines] == [("chromium", "playwright", "remote"), ("webkit", "webdriver", "remote")]
    assert sorted(remote) == ["chromium", "webkit"]
    with pytest.raises(UsageError, match="not among the --engine"):
        plan(["firefox"], parse_remote(["chromium=ws://127.0.0.1:1/a"]))


class _Session:
    """No browser: spread() only hands the session to run()."""


def _workers(*spec: tuple[str, int]) -> list[Worker]:
    return [Worker(_Session(), pages, label) for label, pages in spec]


def test_spread_uses_every_worker_at_its_width_and_keeps_order():
    running: dict[str, int] = {"a": 0, "b": 0}
    widest: dict[str, int] = {"a": 0, "b": 0}

    async def run(worker: Worker, job: int) -> tuple[str, int]:
        running[worker.label] += 1
        widest[worker.label] = max(widest[worker.label], running[worker.label])
        await asyncio.sleep(0.01)
        running[worker.label] -= 1
        return worker.label, job * 10

    results = asyncio.run(spread(_workers(("a", 3), ("b", 1)), list(range(20)), run, lambda j, why: ("failed", j)))
    assert [r[1] for r in results] == [j * 10 for j in range(20)]
    assert {r[0] for r in results} == {"a", "b"}
    assert widest == {"a": 3, "b": 1}


def test_a_lost_workers_job_runs_elsewhere_once():
    async def run(worker: Worker, job: int) -> str:
        await asyncio.sleep(0.01)
        if worker.label == "dies" and job >= 2:
            raise SessionLost("killed")
        return worker.label

    workers = _workers(("dies", 2), ("lives", 2))
    results = asyncio.run(spread(workers, list(range(12)), run, lambda j, why: f"failed: {why}"))
    assert all(r in ("dies", "lives") for r in results), results
    assert results.count("dies") <= 2
    assert workers[0].lost == "killed" and not workers[1].lost


def test_a_job_lost_twice_fails_and_no_worker_left_ends_the_run():
    async def run(worker: Worker, job: int) -> str:
        await asyncio.sleep(0.01)
        raise SessionLost(f"{worker.label} gone")

    workers = _workers(("a", 1), ("b", 1), ("c", 1))
    results = asyncio.run(asyncio.wait_for(spread(workers, list(range(5)), run, lambda j, why: f"failed: {why}"), 10))
    assert len(results) == 5
    assert all(r.startswith("failed: ") for r in results)
    assert all(w.lost for w in workers)


def test_server_names_without_a_canary_site():
    """review's proxies: one name, no canary site to ask for."""
    assert (server_names("127.0.0.1", canary=False).host, server_names("10.1.2.3", canary=False).host) == ("127.0.0.1", "10.1.2.3")
    assert server_names("0.0.0.0", "box.internal", canary=False).host == "box.internal"
    with pytest.raises(UsageError, match="--public-host NAME"):
        server_names("0.0.0.0", canary=False)


def test_the_review_proxy_is_named_by_the_public_host():
    import asyncio

    import aiohttp

    from flowui_sandbox.sandbox.harness.server import tls_context
    from flowui_sandbox.sandbox.review.browser.proxy import Tap

    async def run() -> None:
        _, context = tls_context("127.0.0.1", "localhost")
        tap = await Tap(context, bind="127.0.0.1", public_host="localhost").start()
        try:
            assert tap.proxy_url == f"http://localhost:{tap.port}"
            async with aiohttp.ClientSession() as session, session.get("http://leak.example/x.gif", proxy=tap.proxy_url) as response:
                assert response.status == 200
            assert [s.host for s in tap.seen] == ["leak.example"]
        finally:
            await tap.stop()

    asyncio.run(run())


@pytest.mark.parametrize("spec, message", [
    ("chromium:\u00b2=ws://a:1", "PAGES must be a whole number from 1 to 64, not '\u00b2'"),  # a digit to str.isdigit, not to int
    ("chromium:" + "9" * 5000 + "=ws://a:1", "PAGES must be a whole number from 1 to 64, not '999"),  # int() refuses 5,000 digits
    ("chromium:65=ws://a:1", "PAGES must be a whole number from 1 to 64, not '65'"),
    ("chromium=ws://[::1/x", "not a URL (Invalid IPv6 URL)"),
    ("webkit=http://[::1/x", "not a URL (Invalid IPv6 URL)"),
])
def test_a_bad_spec_is_one_short_line_never_a_crash(spec, message):
    with pytest.raises(UsageError) as err:
        parse_remote([spec])
    assert message in str(err.value) and "\n" not in str(err.value)
    assert len(str(err.value)) < 300


def test_a_browser_server_that_takes_the_connection_and_says_nothing_is_found_silent_in_the_answer_time():
    """A port that accepts and never answers held the Playwright client for its whole 30 s connect
    time: the handshake is asked first, and only silence counts (real sockets on 127.0.0.1)."""
    import socket
    import threading
    import time

    from flowui_sandbox.sandbox.engines.remote import handshake_answered

    held = []  # the mute server's connections stay open (a closed one is an answer of its own)

    def server(reply: bytes | None) -> tuple[socket.socket, int]:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)

        def serve() -> None:
            conn, _ = listener.accept()
            held.append(conn)
            conn.recv(4096)
            if reply is not None:
                conn.sendall(reply)

        threading.Thread(target=serve, daemon=True).start()
        return listener, listener.getsockname()[1]

    mute, mute_port = server(None)
    talks, talks_port = server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    nobody = socket.socket()
    nobody.bind(("127.0.0.1", 0))
    free_port = nobody.getsockname()[1]
    nobody.close()
    try:
        started = time.monotonic()
        assert handshake_answered(f"ws://127.0.0.1:{mute_port}/x", timeout=0.5) is False
        assert time.monotonic() - started < 2
        assert handshake_answered(f"ws://127.0.0.1:{talks_port}/x?a=1", timeout=5) is True
        assert handshake_answered(f"ws://127.0.0.1:{free_port}/x", timeout=5) is True  # refused: Playwright's own error says so
    finally:
        for sock in (mute, talks, *held):
            sock.close()


def test_review_goes_on_while_one_browser_of_each_engine_answers_and_says_which_did_not(monkeypatch):
    """verify's rule for review: a browser that does not answer while another of its engine does is
    a note (Recovered) and its share goes to the others; an engine none of whose browsers answers is
    refused before any block runs, naming them (one line each)."""
    from flowui_sandbox.sandbox.engines.fake import FakeSession
    from flowui_sandbox.sandbox.errors import OptionError, Recovered
    from flowui_sandbox.sandbox.review import browser

    chromium, webkit = Engine("chromium", "playwright", None, "t"), Engine("webkit", "webdriver", None, "t")
    answering = {"ws://a:1/x"}

    async def connect_all(engine, endpoints):
        workers = [Worker(FakeSession(), e.pages, e.url, endpoint=e) for e in endpoints if e.url in answering]
        errors = [{"url": e.url, "error": f"{engine.name}: {e.url}: does not answer"} for e in endpoints if e.url not in answering]
        return workers, errors

    monkeypatch.setattr(browser, "connect_all", connect_all)
    endpoints: dict[str, list[Endpoint]] = {"chromium": [], "webkit": []}
    for e in parse_remote(["chromium=ws://a:1/x", "chromium=ws://b:1/x", "webkit=http://c:1"]):
        endpoints[e.engine].append(e)
    with pytest.warns(Recovered, match=r"^--remote chromium: ws://b:1/x: does not answer; the engine's blocks go to its other browsers$"):
        workers = asyncio.run(browser._connect([chromium], {"chromium": endpoints["chromium"]}))
    assert [w.label for w in workers["chromium"]] == ["ws://a:1/x"]
    with pytest.raises(OptionError, match=r"^--remote webkit: http://c:1: does not answer$"):
        asyncio.run(browser._connect([chromium, webkit], endpoints))
    # An error without words (a bare TimeoutError's) is still one note, naming the URL.
    async def wordless(engine, endpoints):
        workers, errors = await connect_all(engine, endpoints)
        return workers, [{**e, "error": ""} for e in errors]

    monkeypatch.setattr(browser, "connect_all", wordless)
    with pytest.warns(Recovered, match=r"^--remote ws://b:1/x: no answer; the engine's blocks go to its other browsers$"):
        asyncio.run(browser._connect([chromium], {"chromium": endpoints["chromium"]}))


def test_a_remote_browser_lost_in_a_review_is_said_once():
    from flowui_sandbox.sandbox.engines.fake import FakeSession
    from flowui_sandbox.sandbox.errors import Recovered
    from flowui_sandbox.sandbox.review.browser.run import Lane

    lane = Lane(Engine("chromium", "playwright", None, "t"), None, time_limit=5,
                remote=[Worker(FakeSession(), 1, "ws://a:1/x"), Worker(FakeSession(), 1, "ws://b:1/x")])
    with pytest.warns(Recovered, match=r"^chromium@ws://a:1/x: lost \(ConnectionError: gone\); its blocks go to the engine's other browsers$"):
        assert lane._retire(0, ConnectionError("gone")) is True
    with pytest.warns(Recovered) as said:
        assert lane._retire(0, ConnectionError("again")) is True  # the same browser: said once
        assert lane._retire(1, ConnectionError("gone too")) is False
    assert [str(w.message) for w in said] == ["chromium@ws://b:1/x: lost (ConnectionError: gone too); no other browser of the engine is left"]
