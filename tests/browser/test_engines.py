"""The harness itself: every engine loads a page from the local server and drives a sandboxed frame."""

from sandbox.policy import SANDBOX


def test_sandboxed_srcdoc_frame_has_an_opaque_origin(page, server):
    url = server.add_page(
        f'<!doctype html><title>host</title><iframe sandbox="{SANDBOX}" '
        'srcdoc="<button id=b onclick=&quot;document.body.dataset.clicked=1&quot;>b</button>'
        '<script>document.body.dataset.origin=String(self.origin)</script>"></iframe>'
    )
    page.goto(url)
    assert page.evaluate("() => document.title") == "host"
    assert page.wait_for("() => document.body.dataset.origin", frame="iframe") == "null"
    page.click("#b", frame="iframe")
    assert page.wait_for("() => document.body.dataset.clicked", frame="iframe") == "1"


def test_every_engine_is_found_in_ci():
    from sandbox.engines import ENGINE_NAMES, find_engines
    from sandbox.pytest_plugin import in_ci

    found = {e.name for e in find_engines()}
    if in_ci():
        assert found == set(ENGINE_NAMES), f"CI needs every engine; missing {set(ENGINE_NAMES) - found}"
    else:
        assert found <= set(ENGINE_NAMES)
