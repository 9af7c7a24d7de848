"""Engine discovery: a Playwright browser folder counts only in the revision the installed Playwright launches."""

from __future__ import annotations

import os

import pytest

from flowui_sandbox.sandbox.engines import discovery as engines
from flowui_sandbox.sandbox.engines.discovery import DEBIAN_CHROMIUM, DEBIAN_FIREFOX, find_engines, playwright_revisions


def _folder(root, name, complete=True):
    path = root / name
    (path / "chrome-linux").mkdir(parents=True)
    if complete:
        (path / "INSTALLATION_COMPLETE").write_text("")
    return path


@pytest.fixture
def browsers_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    return tmp_path


def test_the_revisions_come_from_the_installed_playwright():
    folders = playwright_revisions()
    assert {"chromium", "chromium-headless-shell", "firefox", "webkit"} <= set(folders)
    assert all(f.startswith("chromium_headless_shell-") for f in folders["chromium-headless-shell"])


def test_a_stale_or_foreign_folder_is_not_taken_for_playwrights_build(browsers_path):
    for name in ("chromium-1000", "chromium_headless_shell-1000", "firefox-1", "webkit-1"):
        _folder(browsers_path, name)
    _folder(browsers_path, "chromium-whatever")
    assert engines._playwright_builds() == {"chromium": False, "firefox": False, "webkit": False}
    by_name = {e.name: e for e in find_engines()}
    if os.access(DEBIAN_CHROMIUM, os.X_OK):
        assert by_name["chromium"].origin == "debian" and by_name["chromium"].executable == DEBIAN_CHROMIUM
    if os.access(DEBIAN_FIREFOX, os.X_OK):
        assert by_name["firefox"].origin == "debian"


def test_the_current_revision_counts_only_when_its_download_completed(browsers_path):
    shell = playwright_revisions()["chromium-headless-shell"][0]
    _folder(browsers_path, shell, complete=False)
    assert engines._playwright_builds()["chromium"] is False
    (browsers_path / shell / "INSTALLATION_COMPLETE").write_text("")
    assert engines._playwright_builds() == {"chromium": True, "firefox": False, "webkit": False}
    assert [e.origin for e in find_engines() if e.name == "chromium"] == ["playwright"]


def test_browsers_path_zero_means_inside_the_package(monkeypatch):
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", "0")
    assert engines.playwright_browsers_dir().endswith(os.path.join("playwright", "driver", "package", ".local-browsers"))


def test_a_webkit_driver_that_never_starts_its_session_is_killed_and_named(tmp_path, monkeypatch):
    """A WebKitWebDriver that takes the session request and never answers (its MiniBrowser never
    came up) once held its thread for good, and then asyncio.run's exit: the start is bounded."""
    import subprocess
    import sys
    import time

    from flowui_sandbox.sandbox.engines import webdriver
    from flowui_sandbox.sandbox.engines.base import Engine, EngineError

    pid_file = tmp_path / "pid"
    driver = tmp_path / "WebKitWebDriver"
    driver.write_text(f"""#!{sys.executable}
import os, socket, sys, time
port = int(next(a for a in sys.argv[1:] if a.isdigit() or a.startswith('--port=')).split('=')[-1])
open({str(pid_file)!r}, 'w').write(str(os.getpid()))
server = socket.create_server(('127.0.0.1', port))
held = []
while True:
    held.append(server.accept()[0])  # read nothing, answer nothing
""")
    driver.chmod(0o755)
    monkeypatch.setattr(webdriver, "WEBKIT_DRIVER", str(driver))
    monkeypatch.setattr(webdriver, "START_TIMEOUT", 1.0)
    monkeypatch.setattr(webdriver.Xvfb, "display", staticmethod(lambda: ":0"))
    started = time.monotonic()
    with pytest.raises(EngineError, match="did not start a session within 1 s"):
        webdriver.start_webkit_driver(Engine("webkit", "webdriver", sys.executable, "test"))
    assert time.monotonic() - started < 10
    pid = int(pid_file.read_text())
    time.sleep(0.2)
    assert subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip() in ("", "Z")


class _Window:
    """A WebDriver window as `navigate` sees it: ``get`` starts a load, each script call reads
    the top document's (time origin, readyState, URL) from ``documents`` in turn."""

    def __init__(self, before, *after):
        from types import SimpleNamespace

        self.before, self.after, self.asked = before, list(after), []
        self.command_executor = SimpleNamespace(client_config=SimpleNamespace(timeout=120.0))

    def execute_script(self, script):
        if not self.asked:
            self.asked.append(script)
            return self.before
        state = self.after.pop(0) if len(self.after) > 1 else self.after[0]
        if isinstance(state, Exception):
            raise state
        return state

    def get(self, url):
        self.url = url

    def set_script_timeout(self, seconds):
        self.script_timeout = seconds


def test_a_navigation_ends_when_a_new_document_has_loaded_not_when_the_old_one_reads_complete():
    from flowui_sandbox.sandbox.engines.webdriver import navigate

    url = "http://127.0.0.1:1/page"
    # The same URL again (a kept host page reloaded): the old document still answers "complete" first.
    window = _Window([1.0, "complete", url], [1.0, "complete", url], [2.0, "loading", url], [2.0, "interactive", url],
                     [2.0, "complete", url], [3.0, "loading", url])
    navigate(window, url, 5)
    assert window.url == url
    assert window.after[0] == [3.0, "loading", url]  # returned at the first new document that is complete


def test_a_navigation_asks_again_when_the_old_document_goes_under_the_script():
    from selenium.common.exceptions import JavascriptException

    from flowui_sandbox.sandbox.engines.webdriver import navigate

    window = _Window([1.0, "complete", "about:blank"], JavascriptException("document unloaded"), [2.0, "complete", "http://a/"])
    navigate(window, "http://a/", 5)


def test_a_fragment_only_navigation_keeps_its_document_and_ends():
    from flowui_sandbox.sandbox.engines.webdriver import navigate

    window = _Window([1.0, "complete", "http://a/p"], [1.0, "complete", "http://a/p#x"])
    navigate(window, "http://a/p#x", 5)


def test_a_dialog_that_holds_the_load_ends_the_wait():
    from selenium.common.exceptions import UnexpectedAlertPresentException

    from flowui_sandbox.sandbox.engines.webdriver import navigate

    window = _Window([1.0, "complete", "about:blank"], [2.0, "loading", "http://a/"], UnexpectedAlertPresentException("alert"))
    navigate(window, "http://a/", 5)


def test_a_dialog_the_old_document_opens_before_the_navigation_is_asked_for_again_ends_the_wait(monkeypatch):
    """The window kept the old document past NAVIGATE_ASK_AGAIN and that document opened a dialog
    meanwhile: asking for the navigation again meets the dialog, which ends the wait as a read that
    meets one does (the next call meets the dialog), instead of escaping navigate."""
    from selenium.common.exceptions import UnexpectedAlertPresentException

    from flowui_sandbox.sandbox.engines import webdriver

    monkeypatch.setattr(webdriver, "NAVIGATE_ASK_AGAIN", 0.1)
    window = _Window([1.0, "complete", "http://a/"], [1.0, "complete", "http://a/"])
    gets = []

    def get(url):
        gets.append(url)
        if len(gets) > 1:
            raise UnexpectedAlertPresentException("alert")

    window.get = get
    assert webdriver.navigate(window, "http://b/", 5) == webdriver.Asked(navigations=1)
    assert gets == ["http://b/", "http://b/"]


def test_a_load_that_never_ends_is_a_script_timeout_at_its_deadline():
    import time

    from flowui_sandbox.sandbox.engines.base import ScriptTimeout
    from flowui_sandbox.sandbox.engines.webdriver import navigate

    window = _Window([1.0, "complete", "about:blank"], [2.0, "loading", "http://a/"])
    started = time.monotonic()
    with pytest.raises(ScriptTimeout, match=r"http://a/ did not load within 0.3s"):
        navigate(window, "http://a/", 0.3)
    assert time.monotonic() - started < 2


class _UnansweringDriverServer:
    """A WebDriver server on 127.0.0.1 that answers a session's calls as a browser would, except
    the script calls numbered in ``silent``: those it takes and never answers (WebKitWebDriver
    does that to a script call made while a new document commits)."""

    def __init__(self, silent: set[int], url: str, lag: int = 0, dropped: int = 0):
        import http.server
        import json
        import threading

        #: ``lag``: script calls after the navigation that still read the old document.
        #: ``dropped``: navigations it takes and drops (the window keeps the old document, as WebKitGTK's now and then).
        self.silent, self.scripts, self.origin, self.lag, self.answered = silent, 0, 1.0, 0, 0.0
        self.dropped, self.gets = dropped, 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                value = None
                if self.path == "/session":
                    value = {"sessionId": "s", "capabilities": {"browserName": "fake"}}
                elif self.path.endswith("/url"):
                    server.gets += 1
                    if server.gets > server.dropped:
                        server.lag = lag
                        server.origin += 1  # the navigation brings a new document
                elif self.path.endswith("/execute/sync"):
                    server.scripts += 1
                    if server.scripts in server.silent:
                        server.stop.wait(30)
                        return
                    shown = server.origin - 1 if server.lag else server.origin
                    server.lag = max(0, server.lag - 1)
                    server.answered = shown
                    value = [shown, "complete", url]
                body = json.dumps({"value": value}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_DELETE = do_POST

        self.stop = threading.Event()
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"

    def close(self):
        self.stop.set()
        self.http.shutdown()


@pytest.fixture
def unanswering(monkeypatch):
    """``start(silent, url, lag=0, dropped=0)``: an :class:`_UnansweringDriverServer` and a Selenium
    session on it, with NAVIGATE_READ_ANSWER at 0.5 s and NAVIGATE_ASK_AGAIN at 1 s; the servers are
    closed after the test."""
    from selenium import webdriver as selenium_webdriver

    from flowui_sandbox.sandbox.engines import webdriver

    monkeypatch.setattr(webdriver, "NAVIGATE_READ_ANSWER", 0.5)
    monkeypatch.setattr(webdriver, "NAVIGATE_ASK_AGAIN", 1.0)
    servers: list[_UnansweringDriverServer] = []

    def start(silent: set[int], url: str, lag: int = 0, dropped: int = 0):
        servers.append(_UnansweringDriverServer(silent, url, lag, dropped))
        options = selenium_webdriver.ChromeOptions()
        return servers[-1], webdriver.prepare_driver(selenium_webdriver.Remote(command_executor=servers[-1].url, options=options))

    yield start
    for server in servers:
        server.close()


def _navigated(driver, url: str) -> list:
    """``[navigate's result]`` if it ends within 8 s, else ``[]`` (it still waits, in a thread of its own)."""
    import threading

    from flowui_sandbox.sandbox.engines import webdriver

    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(webdriver.navigate(driver, url, 10)), daemon=True)
    thread.start()
    thread.join(8)
    return done


@pytest.mark.parametrize("silent", [{1}, {2}, {2, 3}], ids=["before", "after", "twice-after"])
def test_a_read_the_driver_never_answers_is_asked_again_and_the_navigation_ends(unanswering, silent):
    """Through a real HTTP connection: the read past NAVIGATE_READ_ANSWER is asked again, and the
    navigation ends at the new document with the unanswered reads counted (before the bound, it
    waited on the read for the whole HTTP limit)."""
    from flowui_sandbox.sandbox.engines import webdriver

    page_url = "http://127.0.0.1:1/editor"
    _, driver = unanswering(silent, page_url)
    done = _navigated(driver, page_url)
    assert done == [webdriver.Asked(reads=len(silent))], "the navigation still waited on a read nobody answers"
    assert driver.command_executor.client_config.timeout == webdriver.HTTP_TIMEOUT  # the bound is the read's alone


def test_an_unanswered_read_before_the_navigation_is_asked_again_so_the_old_document_never_passes(unanswering):
    """Without a reading from before, the old document (loaded, not about:blank) would pass for the
    new one: the first read is asked until answered, and the navigation ends on the new document."""
    page_url = "http://127.0.0.1:1/kept"
    server, driver = unanswering({1}, page_url, lag=2)  # the same URL again: a kept page loaded anew
    done = _navigated(driver, page_url)
    assert done and done[0].reads == 1 and server.answered == 2.0, f"the navigation ended on document {server.answered}"


@pytest.mark.parametrize("dropped", [1, 2], ids=["once", "twice"])
def test_a_navigation_the_window_dropped_is_asked_for_once_more(unanswering, dropped):
    """WebKitGTK now and then drops a navigation: the window keeps the old document, loaded, its reads
    answered. Past NAVIGATE_ASK_AGAIN the navigation is asked for again, once (a slow server keeps
    the old document too); dropped twice, the navigation ends at its deadline, saying it asked again
    (before: it waited out its deadline with the old document)."""
    from flowui_sandbox.sandbox.engines import webdriver
    from flowui_sandbox.sandbox.engines.base import ScriptTimeout

    page_url = "http://127.0.0.1:1/editor"
    server, driver = unanswering(set(), page_url, dropped=dropped)
    if dropped == 1:
        done = _navigated(driver, page_url)
        assert done == [webdriver.Asked(navigations=1)] and server.answered == 2.0, done
    else:
        with pytest.raises(ScriptTimeout, match=r"did not load within 3s .*asked for again"):
            webdriver.navigate(driver, page_url, 3)
    assert server.gets == 2


def test_a_page_that_got_there_by_asking_again_says_so(unanswering):
    import asyncio
    import sys

    from flowui_sandbox.sandbox.engines import webdriver
    from flowui_sandbox.sandbox.engines.base import Engine
    from flowui_sandbox.sandbox.errors import Recovered

    _, driver = unanswering({2}, "http://127.0.0.1:1/editor")
    page = webdriver.WebDriverPage(Engine("webkit", "webdriver", sys.executable, "test"), driver)
    with pytest.warns(Recovered, match=r"http://127.0.0.1:1/editor: 1 read\(s\) of the document .* unanswered for 0.5s; asked again"):
        asyncio.run(page.goto("http://127.0.0.1:1/editor", 10))
    assert page.visited


def test_every_minibrowser_session_asks_for_the_page_load_strategy_none(monkeypatch):
    """No WebDriver command waits on WebKitGTK's record of a page's loads (see PAGE_LOAD_STRATEGY):
    the local and the remote session both ask for "none"."""
    import sys

    from selenium import webdriver as selenium_webdriver

    from flowui_sandbox.sandbox.engines import remote, webdriver
    from flowui_sandbox.sandbox.engines.base import Engine

    class Driver:
        pass

    asked = []
    monkeypatch.setattr(selenium_webdriver, "WebKitGTK", lambda options, service: asked.append(options.page_load_strategy) or Driver())
    monkeypatch.setattr(selenium_webdriver, "Remote", lambda command_executor, options: asked.append(options.page_load_strategy))
    monkeypatch.setattr(webdriver, "prepare_driver", lambda driver, display=None: driver)
    monkeypatch.setattr(remote, "prepare_driver", lambda driver: driver)
    monkeypatch.setattr(webdriver.Xvfb, "display", staticmethod(lambda: ":0"))
    engine = Engine("webkit", "webdriver", sys.executable, "test")
    webdriver.start_webkit_driver(engine)
    remote.RemoteWebDriverSession(engine, remote.parse_remote(["webkit=http://127.0.0.1:1"])[0])._start()
    assert webdriver.PAGE_LOAD_STRATEGY == "none"
    assert asked == ["none", "none"]


def test_a_document_read_lost_over_the_commit_is_bounded_and_asked_again():
    """A read of the document that meets the new document's commit may never be answered; with
    the reads' script timeout bounded, it fails after NAVIGATE_READ_TIMEOUT and is asked again
    (CI: a goto held its whole WebDriver call past 20 s)."""
    from selenium.common.exceptions import TimeoutException

    from flowui_sandbox.sandbox.engines.webdriver import NAVIGATE_READ_TIMEOUT, navigate

    window = _Window([1.0, "complete", "about:blank"], TimeoutException("script timeout"), [2.0, "complete", "http://a/"])
    navigate(window, "http://a/", 5)
    assert window.script_timeout == NAVIGATE_READ_TIMEOUT <= 2


def test_a_new_about_blank_document_is_not_the_page_a_navigation_asked_for():
    """WebKitGTK can show a new, complete about:blank (another time origin) before the page asked
    for commits: CI ran the editor's test script in it ("null is not an object"), the reading from
    before notwithstanding. The navigation waits for the page it asked for; one to about:blank
    itself still ends on a new about:blank."""
    from flowui_sandbox.sandbox.engines.webdriver import navigate

    window = _Window([1.0, "complete", "about:blank"], [2.0, "complete", "about:blank"], [3.0, "complete", "http://a/"],
                     [4.0, "loading", "http://a/"])
    navigate(window, "http://a/", 5)
    assert window.after[0] == [4.0, "loading", "http://a/"]  # returned at the page asked for, not at the new about:blank
    window = _Window([1.0, "complete", "http://a/"], [2.0, "complete", "about:blank"], [3.0, "loading", "about:blank"])
    navigate(window, "about:blank", 5)
    assert window.after[0] == [3.0, "loading", "about:blank"]


def test_with_no_reading_from_before_a_window_still_on_about_blank_is_not_the_new_document():
    """The read before the navigation failed (a busy window), so any loaded document would do, and
    the pooled window's about:blank did: CI ran a test's script in it, the editor not yet come."""
    from selenium.common.exceptions import TimeoutException

    from flowui_sandbox.sandbox.engines.webdriver import navigate

    window = _Window(TimeoutException("script timeout"), [1.0, "complete", "about:blank"], [1.0, "complete", "about:blank"],
                     [2.0, "loading", "http://a/"], [2.0, "complete", "http://a/"])
    window.execute_script = _raising_first(window)
    navigate(window, "http://a/", 5)
    assert window.after == [[2.0, "complete", "http://a/"]]  # it waited for the editor's page, not the blank


def _raising_first(window):
    """``window.execute_script`` whose first read (the one before the navigation) raises its ``before``."""
    read = window.execute_script

    def execute_script(script):
        if not window.asked:
            window.asked.append(script)
            raise window.before
        return read(script)

    return execute_script


# ---------------------------------------------------------------- a WebDriver call that does not come back


def test_a_stalled_call_says_whether_it_started_what_it_waits_on_and_what_the_browser_does():
    """CI saw WebKit calls pass their limit with nothing but "timed out": the message now says."""
    import subprocess
    import sys
    import time

    from flowui_sandbox.sandbox.engines.webdriver import stall_report

    class Driver:
        pass

    assert stall_report(Driver(), []) == "it never started: no thread of the loop was free"
    driver = Driver()
    assert stall_report(driver, [time.monotonic()]) == "no WebDriver command in flight"
    child = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(30)"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"  # started, not mid-exec
        driver.flowui_command = ("navigateBrowsingContext", time.monotonic() - 3)
        driver.service = type("Service", (), {"process": child})()
        report = stall_report(driver, [time.monotonic()])
        command, processes = report.split("; ")
        waited = command.removeprefix("navigateBrowsingContext unanswered for ").removesuffix("s")
        assert float(waited) >= 3, command  # no upper bound: a loaded machine may take its time between the two
        name, state, cpu = processes.split(" ")
        assert name.startswith("python") and state in {"S", "R", "D"} and cpu.endswith("s")
    finally:
        child.kill()
        child.wait()


def test_a_prepared_driver_bounds_its_http_calls_and_names_the_command_in_flight():
    from flowui_sandbox.sandbox.engines import webdriver

    seen = []

    class Driver:
        def __init__(self):
            self.command_executor = type("Executor", (), {"client_config": type("Config", (), {"timeout": None})()})()

        def execute(self, command, params=None):
            seen.append(self.flowui_command[0])
            return {"value": command}

    driver = webdriver.prepare_driver(Driver())
    assert driver.command_executor.client_config.timeout == webdriver.HTTP_TIMEOUT
    assert driver.execute("getTitle") == {"value": "getTitle"}
    assert seen == ["getTitle"] and driver.flowui_command is None


def _stalling_session(monkeypatch, stalls, error=None):
    """A WebDriver session of scripted windows whose navigations stall as ``stalls`` says (per window
    name), with ``error`` (a call that never came back, by default)."""
    import sys

    from flowui_sandbox.sandbox.engines import webdriver
    from flowui_sandbox.sandbox.engines.base import Engine

    class Window:
        def __init__(self, name):
            self.name, self.sizes = name, []
            self.flowui_proxy, self.flowui_env = "http://127.0.0.1:9", {"TZ": "Asia/Tokyo"}

        def set_window_size(self, width, height):
            self.sizes.append((width, height))

    visited, started = [], []

    def navigate(driver, url, timeout):
        visited.append((driver.name, url))
        if driver.name in stalls:
            raise (error or webdriver.CallStalled)(f"webkit: WebDriver call timed out after 15s ({driver.name})")
        return webdriver.Asked()

    monkeypatch.setattr(webdriver, "navigate", navigate)
    session = webdriver.WebDriverSession(Engine("webkit", "webdriver", sys.executable, "test"))
    fresh = iter(Window(f"fresh{i}") for i in range(1, 3))
    monkeypatch.setattr(session, "_start_window", lambda proxy, env: started.append((proxy, env)) or next(fresh))
    first = Window("first")
    session._all.append(first)
    page = session.page_class(session.engine, first)
    page._session, page.window_size = session, (1280, 900)
    return page, session, visited, started


def test_a_pages_first_navigation_that_stalls_is_done_again_in_a_fresh_window(monkeypatch):
    """The window holds nothing of the caller's before its first navigation: a stalled one is
    abandoned and a window started as it was (proxy, environment, size) navigates instead."""
    import asyncio

    from flowui_sandbox.sandbox.errors import Recovered

    page, session, visited, started = _stalling_session(monkeypatch, {"first"})
    # The remedy leaves a trace: what stalled, and where the fresh window went.
    # and whether the page's server answered (port 1: nobody listens).
    with pytest.warns(Recovered, match=r"timed out after 15s \(first\); the page's server does not answer: .*; done again in a fresh window, on the display"):
        asyncio.run(page.goto("http://127.0.0.1:1/editor"))
    assert visited == [("first", "http://127.0.0.1:1/editor"), ("fresh1", "http://127.0.0.1:1/editor")]
    assert page.raw.name == "fresh1" and session._all == [page.raw] and page.raw.sizes == [(1280, 900)]
    assert started == [("http://127.0.0.1:9", {"TZ": "Asia/Tokyo"})]


def test_a_first_navigation_whose_window_stays_on_about_blank_is_done_again_in_a_fresh_window(monkeypatch):
    """CI saw the other face of the stall too: the navigation's call came back, and the window never
    left about:blank within the time (a ScriptTimeout, not a stalled call)."""
    import asyncio

    from flowui_sandbox.sandbox.engines.base import ScriptTimeout
    from flowui_sandbox.sandbox.errors import Recovered

    page, session, visited, started = _stalling_session(monkeypatch, {"first"}, error=ScriptTimeout)
    with pytest.warns(Recovered, match=r"\(first\); the page's server does not answer: .*; done again in a fresh window"):
        asyncio.run(page.goto("http://127.0.0.1:1/editor"))
    assert visited == [("first", "http://127.0.0.1:1/editor"), ("fresh1", "http://127.0.0.1:1/editor")]
    assert page.raw.name == "fresh1"
    page, *_ = _stalling_session(monkeypatch, {"first", "fresh1"}, error=ScriptTimeout)
    with pytest.raises(ScriptTimeout, match=r"\(first\); the page's server does not answer: .*; in a fresh window: .*\(fresh1\)"):
        asyncio.run(page.goto("http://127.0.0.1:1/editor"))


def test_a_later_navigation_that_stalls_is_an_error_since_the_window_holds_the_callers_state(monkeypatch):
    import asyncio

    from flowui_sandbox.sandbox.engines.webdriver import CallStalled

    page, session, visited, started = _stalling_session(monkeypatch, set())
    asyncio.run(page.goto("http://127.0.0.1:1/a"))
    session._all[0].name = "first-now-stalling"

    def stall(driver, url, timeout):
        raise CallStalled("webkit: WebDriver call timed out after 15s")

    from flowui_sandbox.sandbox.engines import webdriver

    monkeypatch.setattr(webdriver, "navigate", stall)
    with pytest.raises(CallStalled):
        asyncio.run(page.goto("http://127.0.0.1:1/b"))
    assert started == []


def test_a_first_navigation_that_stalls_in_the_fresh_window_too_says_both(monkeypatch):
    import asyncio

    from flowui_sandbox.sandbox.engines.webdriver import CallStalled

    page, *_ = _stalling_session(monkeypatch, {"first", "fresh1"})
    with pytest.raises(CallStalled, match=r"\(first\); the page's server does not answer: .*; in a fresh window: .*\(fresh1\)"):
        asyncio.run(page.goto("http://127.0.0.1:1/editor"))


def test_a_window_goes_back_to_the_pool_with_every_webdriver_call_off_the_loop(monkeypatch):
    """The return to about:blank, the extra windows' closing and the switch back are WebDriver
    calls: each blocks until the browser answers, so none may run on the loop's thread."""
    import asyncio
    import sys
    import threading

    from flowui_sandbox.sandbox.engines import webdriver
    from flowui_sandbox.sandbox.engines.base import Engine

    calls = []

    class Window:
        def __init__(self):
            self.switch_to = self

        def _call(self, name):
            calls.append((name, threading.current_thread() is loop_thread[0]))

        def default_content(self):
            self._call("default_content")

        @property
        def window_handles(self):
            self._call("window_handles")
            return ["main", "popup"]

        def window(self, handle):
            self._call(f"window {handle}")

        def close(self):
            self._call("close")

    loop_thread = []
    monkeypatch.setattr(webdriver, "navigate", lambda driver, url, timeout: driver._call(f"navigate {url}") or webdriver.Asked())
    session = webdriver.WebDriverSession(Engine("webkit", "webdriver", sys.executable, "test"))
    window = Window()
    session._all.append(window)
    page = session.page_class(session.engine, window)
    page._session = session

    async def release():
        loop_thread.append(threading.current_thread())
        await page.close()

    asyncio.run(release())
    assert [name for name, _ in calls] == ["default_content", "navigate about:blank", "window_handles", "window popup", "close", "window main"]
    assert not any(on_loop for _, on_loop in calls)
    assert session._idle == [window]


def test_the_portal_loop_has_threads_for_many_slow_calls():
    from flowui_sandbox.sandbox.engines.base import LOOP_THREADS
    from flowui_sandbox.sandbox.harness.portal import Portal

    portal = Portal()
    try:
        assert portal.loop._default_executor._max_workers == LOOP_THREADS >= 32
    finally:
        portal.close()


def test_a_stall_report_asks_the_pages_server_whether_it_answers():
    """A first navigation that stalls is reported with whether the page's server answers a GET of the
    URL (real sockets on 127.0.0.1): a window waits on its server as much as on WebKit."""
    import http.server
    import socket
    import threading

    from flowui_sandbox.sandbox.engines.webdriver import url_answers

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # takes the connection, never answers
    try:
        assert url_answers(f"http://127.0.0.1:{server.server_port}/", timeout=2).startswith("the page's server answers (HTTP 200")
        said = url_answers(f"http://127.0.0.1:{silent.getsockname()[1]}/", timeout=0.3)
        assert said.startswith("the page's server does not answer: ") and "timed out" in said, said
        assert url_answers("about:blank") == "about:blank: not an http URL"
        # Asked as the window asks: through its proxy (a silent one here, so no answer although
        # the URL's own server answers; the review's host names resolve only through the proxy).
        through = url_answers(f"http://127.0.0.1:{server.server_port}/", timeout=0.3, proxy=f"http://127.0.0.1:{silent.getsockname()[1]}")
        assert through.startswith("the page's server does not answer: "), through
    finally:
        server.shutdown()
        silent.close()
