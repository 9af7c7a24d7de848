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
