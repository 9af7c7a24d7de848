// The preview host page. The editor frames it from another site (http://localhost:PORT/preview/,
// the editor being http://127.0.0.1:PORT/TOKEN/): its URL carries no secret, so a block that reads
// its base URL learns nothing, and the engines that isolate sites run it (and the block) outside
// the editor's process. It holds no secret and calls no API: it mounts the block with the bridge's
// host module, exactly as a real host does, and talks to the editor by postMessage only, to and
// from the editor's origin (named by the server in a meta element) and only with its parent.
import { mountHtmlBlock, parseTheme } from '../bridge/flow-ui-host.js';

const EDITOR_ORIGIN = document.querySelector('meta[name="flowui-editor-origin"]').content;
const blocks = document.getElementById('blocks');
let current = null; // { handle, wrap, generation }
let latest = 0;     // the newest generation asked for
let settings = { openUrls: false, refuseValues: false };

function post(message) {
  if (window.parent !== window) window.parent.postMessage(message, EDITOR_ORIGIN);
}

// The page around the block takes the theme's page background and color scheme, as a host page would.
function paintPage(theme) {
  const flat = parseTheme(theme).json;
  document.documentElement.style.colorScheme = flat['color-scheme'];
  document.documentElement.style.background = flat['page-background'];
}

function projection() {
  if (!current) return null;
  const h = current.handle;
  return JSON.stringify({ blockId: h.blockId, paths: h.paths, fields: h.fields, state: h.projection, theme: h.theme });
}

function status() {
  return current ? { status: current.handle.status, loads: current.handle.loads, generation: current.generation } : null;
}

function report() { post({ type: 'projection', projection: projection(), status: status() }); }

// Mounts a new block document; the one shown stays until the new one is connected, so the
// preview never blanks while typing. Answers `mounted` with null, or the error text (the old block stays).
function mount(gen, o) {
  latest = gen;
  const wrap = document.createElement('div');
  wrap.className = 'block pending';
  let handle;
  try {
    handle = mountHtmlBlock(wrap, {
      source: o.source, blockId: o.blockId, fields: o.fields, paths: o.paths, state: o.state, theme: o.theme,
      title: `html block ${o.blockId}`,
      onAction: () => null,
      onValue: () => { setTimeout(report, 0); return !settings.refuseValues; },
      onOpenUrl: () => settings.openUrls,
      onLog: (entry) => post({ type: 'log', generation: gen, entry: JSON.stringify(entry) }),
    });
  } catch (error) {
    post({ type: 'mounted', generation: gen, error: String(error && error.message ? error.message : error) });
    return;
  }
  blocks.append(wrap);
  paintPage(o.theme);
  post({ type: 'mounted', generation: gen, error: null });
  handle.ready.then(() => {
    if (gen !== latest) { handle.destroy(); wrap.remove(); return; }
    if (current) { current.handle.destroy(); current.wrap.remove(); }
    wrap.classList.remove('pending');
    current = { handle, wrap, generation: gen };
    document.body.dataset.generation = String(gen);
    post({ type: 'ready', generation: gen, srcdoc: handle.iframe.getAttribute('srcdoc'), projection: projection(), status: status() });
  });
}

const handlers = {
  // The editor's liveness check: answered at once, with the time it was sent (see editor.js).
  ping: (m) => post({ type: 'pong', n: m.n, sent: m.sent }),
  mount: (m) => mount(m.generation, JSON.parse(m.json)),
  settings: (m) => { settings = { openUrls: Boolean(m.openUrls), refuseValues: Boolean(m.refuseValues) }; },
  // The state pushed to the connected block (no reload).
  state: (m) => { if (current) current.handle.setState(JSON.parse(m.json)); report(); },
  // A theme pushed to the connected block (no reload).
  theme: (m) => {
    const theme = JSON.parse(m.json);
    paintPage(theme);
    if (current) current.handle.setTheme(theme);
    report();
  },
};

window.addEventListener('message', (event) => {
  // Only the editor that frames this page: its origin, its window. Everything else (the block's
  // handshake is the host module's business) is ignored here.
  if (event.origin !== EDITOR_ORIGIN || event.source !== window.parent || window.parent === window) return;
  const m = event.data;
  if (!m || typeof m !== 'object' || !Object.hasOwn(handlers, m.type)) return;
  try {
    handlers[m.type](m);
  } catch (error) {
    post({ type: 'failed', what: m.type, error: String(error && error.message ? error.message : error) });
  }
});
post({ type: 'hello' });
