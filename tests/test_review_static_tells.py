"""``obfuscation.environment-probe``: the static layer names each mark of an automated browser or
of the machine a block reads, however it reaches it (an alias, destructuring, a computed or
joined key, ``Reflect``, ``in``), and nothing for what blocks read to format and adapt."""

from __future__ import annotations

import pytest

from flowui_sandbox.sandbox.review import review_static

RULE = "obfuscation.environment-probe"


def tells(script: str) -> list[str]:
    """The tells the rule names, in the order found (the message's ``reads NAME``)."""
    found = review_static(f"<p>x</p><script>{script}</script>", file="b.html")
    return [f.message.split(":")[0].removeprefix("reads ") for f in found if f.rule == RULE]


@pytest.mark.parametrize(("script", "expected"), [
    ("if (!navigator.webdriver) {}", ["navigator.webdriver"]),
    ("const c = window.navigator.hardwareConcurrency;", ["navigator.hardwareConcurrency"]),
    ("const n = navigator; const m = n.deviceMemory;", ["navigator.deviceMemory"]),
    ("const {webdriver, plugins} = navigator; console.log(webdriver, plugins.length);", ["navigator.webdriver", "navigator.plugins"]),
    ("const k = 'web' + 'driver'; navigator[k];", ["navigator.webdriver"]),
    ("navigator[['hardware', 'Concurrency'].join('')];", ["navigator.hardwareConcurrency"]),
    ("const s = window.screen; if (s.width === 800 && s.height === 600) {}", ["screen.width", "screen.height"]),
    ("if (outerWidth === 0 || window.outerHeight === 0) {}", ["outerWidth", "outerHeight"]),
    ("const synth = window.speechSynthesis; synth.getVoices();", ["speechSynthesis.getVoices"]),
    ("Reflect.get(navigator, 'webdriver');", ["navigator.webdriver"]),
    ("Object.getOwnPropertyDescriptor(Navigator.prototype, 'webdriver');", ["navigator.webdriver"]),
    ("if ('webdriver' in navigator) {}", ["navigator.webdriver"]),
    ("navigator.getBattery().then(() => {});", ["navigator.getBattery"]),
    ("performance.memory;", ["performance.memory"]),
    # navigator's other names, the interface's prototype, a copy of its descriptors, the name as a string
    ("clientInformation.webdriver; window.clientInformation.deviceMemory;", ["navigator.webdriver", "navigator.deviceMemory"]),
    ("Navigator.prototype.hardwareConcurrency;", ["navigator.hardwareConcurrency"]),
    ("const d = Object.getOwnPropertyDescriptors(Navigator.prototype); d.webdriver.get;", ["navigator.webdriver"]),
    ("for (const k in navigator) { if (k === 'webdriver') {} }", ["navigator.webdriver"]),
    ("navigator?.webdriver;", ["navigator.webdriver"]),
    # The name built from pieces and compared with navigator's keys, or handed on
    ("for (const k in navigator) { if (k === 'web' + 'driver') {} }", ["navigator.webdriver"]),
    ("const w = 'web', d = 'driver'; for (const k in navigator) if (k === w + d) {}", ["navigator.webdriver"]),
    ("Object.keys(Navigator.prototype).includes(['web', 'driver'].join(''));", ["navigator.webdriver"]),
    ("for (const k in navigator) { if (k === `hardware${'Concurrency'}`) {} }", ["navigator.hardwareConcurrency"]),
    # The name decoded or changed by a string function, or read in a `with`
    ("const k = 'Driver'.toLowerCase(); navigator['web' + k];", ["navigator.webdriver"]),
    ("navigator[atob('d2ViZHJpdmVy')];", ["navigator.webdriver"]),
    ("navigator[String.fromCharCode(119, 101, 98, 100, 114, 105, 118, 101, 114)];", ["navigator.webdriver"]),
    ("navigator[' WEBDRIVER '.trim().toLowerCase()];", ["navigator.webdriver"]),
    ("with (navigator) { if (webdriver) {} }", ["navigator.webdriver"]),
    ("if (Notification.permission === 'denied') {}", ["Notification.permission"]),
    ("if (window.history.length < 2) {}", ["history.length"]),
    # Globals automation tools leave, as globals or looked for among the window's keys
    ("if (window.callPhantom || window._phantom) {}", ["callPhantom", "_phantom"]),
    ("if (typeof __nightmare !== 'undefined' || window.domAutomationController) {}", ["__nightmare", "domAutomationController"]),
    ("if ('__pwInitScripts' in window) {}", ["__pwInitScripts"]),
    ("Object.keys(document).some((k) => k.startsWith('$cdc_'));", ["$cdc_"]),
    ("if (window.cdc_adoQpoasnfa76pfcZLmcfl_Array) {}", ["cdc_adoQpoasnfa76pfcZLmcfl_Array"]),
    ("Object.getOwnPropertyNames(window).filter((k) => /^cdc_|__playwright/.test(k));", ["looks for 'cdc_'"]),
    # A headless browser looked for by name
    ("if (/HeadlessChrome/.test(navigator.userAgent)) {}", ["looks for 'headless'"]),
    ("if (navigator.userAgent.includes('HeadlessChrome')) {}", ["looks for 'HeadlessChrome'"]),
    ("if (navigator.userAgent.toLowerCase().indexOf('headless') >= 0) {}", ["looks for 'headless'"]),
    # Built from pieces, as a name is
    ("Object.keys(window).some((k) => k === '__pw' + 'InitScripts');", ["__pwInitScripts"]),
    ("const p = 'Headless' + 'Chrome'; navigator.userAgent.includes(p);", ["looks for 'HeadlessChrome'"]),
    ("if (/phantomjs/i.test(navigator.userAgent)) {}", ["looks for 'phantomjs'"]),
    ("const gl = document.createElement('canvas').getContext('webgl'); gl.getParameter(0x9246);", ["asks WebGL for the real graphics card (WEBGL_debug_renderer_info)"]),
    # The same tell twice is one finding.
    ("navigator.webdriver; window.navigator.webdriver;", ["navigator.webdriver"]),
])
def test_each_tell_is_named_however_it_is_reached(script, expected):
    assert tells(script) == expected


def test_webgls_renderer_info_is_one_finding_for_the_extension_and_its_constants():
    script = ("const gl = document.createElement('canvas').getContext('webgl');"
              "const info = gl.getExtension('WEBGL_debug_renderer_info');"
              "gl.getParameter(info.UNMASKED_RENDERER_WEBGL); gl.getParameter(info.UNMASKED_VENDOR_WEBGL);")
    found = [f for f in review_static(f"<script>{script}</script>", file="b.html") if f.rule == RULE]
    assert len(found) == 1 and "WEBGL_debug_renderer_info" in found[0].message


@pytest.mark.parametrize("script", [
    "new Intl.NumberFormat(navigator.language).format(3); navigator.languages;",
    "Intl.DateTimeFormat().resolvedOptions().timeZone;",
    "if (/Mobile/.test(navigator.userAgent)) {}",
    "const w = innerWidth; const m = matchMedia('(prefers-color-scheme: dark)').matches;",
    "function f(outerWidth) { return outerWidth; } const o = {outerWidth: 1}; o.outerWidth;",
    "const box = {screen: {width: 3}}; box.screen.width;",
    "const o = {a: 1}; if ('a' in o) {}",
    "const label = 'web' + ' driver'; const t = `Web${'Driver'} guide`;",
    # Words a block shows, names of its own, a renderer's limits
    "const city = 'Cypress'; const element = 'Selenium'; const pitch = 'Our headless CMS, by the playwright';",
    "function emit(x) { return x; } emit(1); const phantom = {callPhantom: 1}; phantom.callPhantom;",
    "const gl = document.createElement('canvas').getContext('webgl'); gl.getParameter(gl.MAX_TEXTURE_SIZE); gl.getParameter(3379);",
    "const s = 'ABC'.toLowerCase(); const t = atob('aGVsbG8='); const u = 'x'.repeat(3);",
])
def test_what_blocks_read_to_format_and_adapt_is_no_tell(script):
    assert tells(script) == []
