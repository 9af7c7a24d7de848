"""The plugin's additions to pytest-playwright, without a browser: what it adds to
browser_type_launch_args and when it adds nothing, and which engines flowui_engine runs on."""

from __future__ import annotations

from types import SimpleNamespace

from flowui_sandbox.sandbox.engines import CHROMIUM_ARGS, Engine
from flowui_sandbox.sandbox.plugin.fixtures import selected_engines, with_debian_browser

DEBIAN = [
    Engine("chromium", "playwright", "/usr/bin/chromium", "debian"),
    Engine("firefox", "playwright", "/usr/bin/firefox-esr", "debian"),
    Engine("webkit", "webdriver", "/usr/lib/x/webkit2gtk-4.1/MiniBrowser", "debian"),
]
PLAYWRIGHTS_OWN = [Engine(n, "playwright", None, "playwright") for n in ("chromium", "firefox", "webkit")]


def test_debian_chromium_is_added_with_its_flags_after_the_users():
    args = with_debian_browser({"headless": False, "args": ["--mute-audio", "--no-sandbox"]}, "chromium", DEBIAN)
    assert args["executable_path"] == "/usr/bin/chromium" and args["headless"] is False
    assert args["args"][:2] == ["--mute-audio", "--no-sandbox"]
    assert sorted(args["args"]) == sorted({"--mute-audio", *CHROMIUM_ARGS})


def test_debian_firefox_is_driven_over_webdriver_bidi():
    assert with_debian_browser({"slow_mo": 3}, "firefox", DEBIAN) == {
        "slow_mo": 3, "channel": "moz-firefox", "executable_path": "/usr/bin/firefox-esr"}


def test_nothing_is_added_when_the_user_chose_or_playwright_has_its_own():
    for own in ({"executable_path": "/opt/chrome"}, {"channel": "chrome"}):
        assert with_debian_browser(dict(own), "chromium", DEBIAN) == own
    for name in ("chromium", "firefox", "webkit"):
        assert with_debian_browser({}, name, PLAYWRIGHTS_OWN) == {}
    # WebKitGTK is no Playwright browser: pytest-playwright's webkit stays Playwright's own.
    assert with_debian_browser({}, "webkit", DEBIAN) == {}
    assert with_debian_browser({}, "chromium", []) == {}


def _config(engine=None, browser=None):
    options = {"engine": engine, "browser": browser}
    return SimpleNamespace(getoption=lambda name, default=None: options.get(name, default))


def test_engines_follow_engine_then_browser_then_all():
    assert selected_engines(_config()) == ["chromium", "firefox", "webkit"]
    assert selected_engines(_config(browser=[])) == ["chromium", "firefox", "webkit"]
    assert selected_engines(_config(browser=["firefox"])) == ["firefox"]
    assert selected_engines(_config(engine=["webkit"], browser=["firefox"])) == ["webkit"]
    assert selected_engines(_config(engine=["webkit", "webkit", "chromium"])) == ["webkit", "chromium"]
