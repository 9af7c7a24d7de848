"""The harness itself: every engine loads a page from the local server and drives a sandboxed frame."""

from flowui_sandbox.sandbox.block.policy import SANDBOX


def test_sandboxed_srcdoc_frame_has_an_opaque_origin(flowui_page, flowui_server):
    url = flowui_server.add_page(
        f'<!doctype html><title>host</title><iframe sandbox="{SANDBOX}" '
        'srcdoc="<button id=b onclick=&quot;document.body.dataset.clicked=1&quot;>b</button>'
        '<script>document.body.dataset.origin=String(self.origin)</script>"></iframe>'
    )
    flowui_page.goto(url)
    assert flowui_page.evaluate("() => document.title") == "host"
    assert flowui_page.wait_for("() => document.body.dataset.origin", frame="iframe") == "null"
    flowui_page.click("#b", frame="iframe")
    assert flowui_page.wait_for("() => document.body.dataset.clicked", frame="iframe") == "1"


def test_every_engine_is_found_in_ci():
    from flowui_sandbox.sandbox.engines import ENGINE_NAMES, find_engines
    from flowui_sandbox.sandbox.plugin.fixtures import in_ci

    found = {e.name for e in find_engines()}
    if in_ci():
        assert found == set(ENGINE_NAMES), f"CI needs every engine; missing {set(ENGINE_NAMES) - found}"
    else:
        assert found <= set(ENGINE_NAMES)


def test_a_stale_playwright_folder_falls_back_to_debians_chromium_which_launches(tmp_path, monkeypatch):
    """A stale or foreign chromium-* folder in PLAYWRIGHT_BROWSERS_PATH once made `engines` pick it and
    `verify` fail to launch; only the revision the installed Playwright needs counts. A real launch."""
    import asyncio
    import os

    import pytest

    from flowui_sandbox.sandbox.engines import DEBIAN_CHROMIUM, find_engines, launch
    from flowui_sandbox.sandbox.plugin.fixtures import in_ci

    if not os.access(DEBIAN_CHROMIUM, os.X_OK):
        (pytest.fail if in_ci() else pytest.skip)(f"{DEBIAN_CHROMIUM} is not installed (the fallback under test)")
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))
    for name in ("chromium-1000", "chromium_headless_shell-1000"):
        (tmp_path / name / "chrome-linux").mkdir(parents=True)
        (tmp_path / name / "INSTALLATION_COMPLETE").write_text("")
    (engine,) = [e for e in find_engines() if e.name == "chromium"]
    assert engine.executable == DEBIAN_CHROMIUM

    async def title() -> str:
        session = await launch(engine)
        try:
            page = await session.new_page()
            await page.goto("data:text/html,<title>up</title>")
            return await page.evaluate("() => document.title")
        finally:
            await session.close()

    assert asyncio.run(title()) == "up"


def test_a_frame_path_reaches_a_frame_inside_a_frame(flowui_page, flowui_server):
    """``frame=(outer, inner)``: each selector in the frame before it, in every driver; an empty path is refused."""
    import pytest

    from flowui_sandbox.sandbox.engines import EngineError

    inner = flowui_server.add_page("<!doctype html><title>inner</title><button id=b onclick='document.title=\"clicked\"'>b</button>")
    outer = flowui_server.add_page(f'<!doctype html><title>outer</title><iframe id=inner src="{inner}"></iframe>')
    flowui_page.goto(flowui_server.add_page(f'<!doctype html><title>top</title><iframe id=outer src="{outer}"></iframe>'))
    assert flowui_page.wait_for("() => document.title", frame="#outer") == "outer"
    assert flowui_page.wait_for("() => document.title", frame=("#outer", "#inner")) == "inner"
    flowui_page.click("#b", frame=("#outer", "#inner"))
    assert flowui_page.wait_for("() => document.title === 'clicked' && document.title", frame=("#outer", "#inner")) == "clicked"
    assert flowui_page.evaluate("() => document.title") == "top"  # back in the top document after each call
    with pytest.raises(EngineError, match="empty frame path"):
        flowui_page.evaluate("() => 1", frame=())


def test_a_script_whose_document_is_replaced_ends_in_an_engine_error(flowui_page, flowui_server):
    """A frame that navigates while a script runs in it (the editor's preview reloading as the
    author types): the driver's own error escaped Playwright's driver (CI: Firefox's "Execution
    context was destroyed"); it is an EngineError in every driver, which callers retry on."""
    import pytest

    from flowui_sandbox.sandbox.engines import EngineError

    one = flowui_server.add_page("<!doctype html><title>one</title>")
    two = flowui_server.add_page("<!doctype html><title>two</title>")
    flowui_page.goto(flowui_server.add_page(f'<!doctype html><title>top</title><iframe id=f src="{one}"></iframe>'))
    assert flowui_page.wait_for("() => document.title", frame="#f") == "one"
    script = "(url) => new Promise((done) => { setTimeout(() => { location.href = url; }, 300); setTimeout(done, 5000); })"
    with pytest.raises(EngineError):
        flowui_page.evaluate(script, two, frame="#f", timeout=10)
    assert flowui_page.wait_for("() => document.title", frame="#f") == "two"


def test_wait_for_goes_on_in_the_document_a_navigation_brings(flowui_page, flowui_server):
    """A wait whose script is in flight when the page navigates (the editor's page.leave on a
    loaded machine; CI: WebKitWebDriver's "Could not parse script result" escaped wait_for):
    the driver says DocumentReplaced and wait_for asks the new document."""
    import json

    two = flowui_server.add_page("<!doctype html><title>two</title>")
    flowui_page.goto(flowui_server.add_page(
        f"<!doctype html><title>one</title><script>setTimeout(() => {{ location.href = {json.dumps(two)}; }}, 300)</script>"))
    script = "() => new Promise((done) => setTimeout(() => done(document.title === 'two' && 'two'), 1500))"
    assert flowui_page.wait_for(script, timeout=20) == "two"


def test_the_clock_leaps_every_frame_that_has_it_one_leap_at_a_time(flowui_page, flowui_server, flowui_portal):
    """CLOCK: ``clock_fast_forward`` moves the top document's controlled clock and every frame's
    that has one (Playwright's clock is an init script: where it does not reach a frame, that frame
    keeps the real date): a timer due within a leap fires, and a timer the frame set after an answer
    that came between two leaps fires in the second. A driver without CLOCK says so."""
    import time

    import pytest

    from flowui_sandbox.sandbox.engines import Capability, Unsupported

    page = flowui_page.async_page
    if not page.supports(Capability.CLOCK):
        with pytest.raises(Unsupported):
            flowui_portal.run(page.clock_install())
        return
    day = 86_400_000
    # The timers are set once the test asks, not as the frame loads: an init script may reach a
    # frame after its first script ran (Chromium, a sandboxed srcdoc frame under load: CI).
    frame = ("<script>window.fired = 0; window.second = 0;"
             f"window.start = () => setTimeout(() => {{ fired++; parent.postMessage('ask', '*'); }}, {day});"
             f"addEventListener('message', () => {{ window.answered = 1; setTimeout(() => {{ second++; }}, {20 * day}); }});"
             "</script>")
    top = ("<!doctype html><title>top</title><script>addEventListener('message', (e) => e.source.postMessage('answer', '*'));</script>"
           f'<iframe sandbox="allow-scripts" srcdoc="{frame}"></iframe>')
    flowui_portal.run(page.clock_install())
    flowui_page.goto(flowui_server.add_page(top))
    flowui_portal.run(page.clock_set_system_time(time.time()))
    controlled = flowui_page.wait_for("() => typeof globalThis.__pwClock === 'object' ? 'yes' : 'no'", frame="iframe") == "yes"
    flowui_page.evaluate("() => { start(); return 1; }", frame="iframe")
    flowui_portal.run(page.clock_fast_forward(day + 1))
    if controlled:
        assert flowui_page.wait_for("() => window.answered", frame="iframe") == 1
        assert flowui_page.evaluate("() => window.fired", frame="iframe") == 1
    flowui_portal.run(page.clock_fast_forward(20 * day + 1))
    days = "(t) => Math.round((Date.now() - t) / 86400000)"
    assert flowui_page.evaluate(days, time.time() * 1000) == 21
    if controlled:
        assert flowui_page.evaluate("() => [window.fired, window.second]", frame="iframe") == [1, 1]
        assert flowui_page.evaluate(days, time.time() * 1000, frame="iframe") == 21
    else:
        assert flowui_page.evaluate(days, time.time() * 1000, frame="iframe") == 0


def test_a_first_navigation_on_a_display_that_stopped_answering_is_done_again_on_a_new_one():
    """CI saw WebKit's first navigation in a window stall with every browser process asleep, and the
    fresh window meant to replace it not start within 60 s: both wait on the X server. Here its
    Xvfb is stopped: the stall is seen, the display replaced, the navigation done in a new window,
    and the pool's other window, on the stopped display, is not handed out again."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    from flowui_sandbox.sandbox.engines import find_engines
    from flowui_sandbox.sandbox.plugin.fixtures import in_ci

    if "webkit" not in {e.name for e in find_engines()}:
        (pytest.fail if in_ci() else pytest.skip)("webkit is not installed (the engine under test)")
    env = {k: v for k, v in __import__("os").environ.items() if k != "DISPLAY"}
    run = subprocess.run([sys.executable, str(Path(__file__).with_name("stopped_display.py"))],
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen == {"answered_before": True, "answered_stopped": False, "title": "first", "new_display": True,
                    "again": "again"}, seen


def test_the_display_of_our_own_ends_with_the_process_and_is_reaped():
    """The Xvfb a process starts for WebKitGTK goes when the process exits, reaped: no display left
    running, and no ResourceWarning (it was only signalled, so Python warned of a process still
    running at every exit of a run that used WebKitGTK)."""
    import os
    import shutil
    import subprocess
    import sys

    import pytest

    from flowui_sandbox.sandbox.plugin.fixtures import in_ci

    if not shutil.which("Xvfb"):
        (pytest.fail if in_ci() else pytest.skip)("Xvfb is not installed (WebKitGTK's display)")
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    script = ("from flowui_sandbox.sandbox.engines.webdriver import Xvfb; Xvfb.display(); "
              "print(Xvfb.server().pid, flush=True)")
    run = subprocess.run([sys.executable, "-X", "dev", "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "ResourceWarning" not in run.stderr, run.stderr[-2000:]
    pid = int(run.stdout.split()[-1])
    assert not os.path.exists(f"/proc/{pid}"), f"Xvfb {pid} outlived its process"


def test_a_browser_whose_driver_is_gone_is_started_again_for_the_next_test(flowui_portal):
    """CI saw Playwright's driver process end on an exception of its own (Firefox over WebDriver
    BiDi, a navigation committed in a frame it had dropped), and every later test of the engine
    fail with it. The fixtures' browser is started again when its driver is gone."""
    import pytest

    from flowui_sandbox.sandbox.plugin.fixtures import Browsers

    browsers = Browsers(flowui_portal)
    try:
        first = browsers.session("chromium")
        flowui_portal.run(first._manager.__aexit__(None, None, None))  # the driver process ends under the browser
        with pytest.raises(Exception, match="closed"):  # what every later test met
            flowui_portal.run(first.new_page())
        page = browsers.new_page("chromium")
        assert browsers.sessions["chromium"] is not first
        flowui_portal.run(page.goto("data:text/html,<title>up</title>"))
        assert flowui_portal.run(page.evaluate("() => document.title")) == "up"
        flowui_portal.run(page.close())
    finally:
        browsers.close()
