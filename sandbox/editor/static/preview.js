// The preview host page (framed by the editor, same origin, the block's CSP plus 'self'): it mounts
// the block with the bridge's host module, exactly as a real host does. The editor calls
// window.flowuiPreview; every value crosses as JSON text, so each object is of this realm (the
// host module's checks want plain objects of its own realm).
import { mountHtmlBlock, parseTheme } from '../bridge/flow-ui-host.js';

const blocks = document.getElementById('blocks');
let current = null; // { handle, wrap, generation }
let generation = 0;
let hooks = null;

function call(name, ...args) {
  try { return hooks && hooks[name] ? hooks[name](...args) : undefined; } catch (error) { console.error(error); return undefined; }
}

// Mounts a new block document; the one shown stays until the new one is connected, so the
// preview never blanks while typing. Returns null, or the error text (the old block stays).
// The page around the block takes the theme's page background and color scheme, as a host page would.
function paintPage(theme) {
  const flat = parseTheme(theme).json;
  document.documentElement.style.colorScheme = flat['color-scheme'];
  document.documentElement.style.background = flat['page-background'];
}

function mount(json) {
  const o = JSON.parse(json);
  const gen = ++generation;
  const wrap = document.createElement('div');
  wrap.className = 'block pending';
  let handle;
  try {
    handle = mountHtmlBlock(wrap, {
      source: o.source, blockId: o.blockId, fields: o.fields, paths: o.paths, state: o.state, theme: o.theme,
      title: `html block ${o.blockId}`,
      onAction: (uiAction) => call('action', JSON.stringify(uiAction), gen),
      onValue: (v) => call('value', JSON.stringify(v), gen),
      onOpenUrl: (v) => call('openUrl', JSON.stringify(v), gen),
      onLog: (entry) => call('log', JSON.stringify(entry), gen),
    });
  } catch (error) {
    return String(error && error.message ? error.message : error);
  }
  blocks.append(wrap);
  paintPage(o.theme);
  handle.ready.then(() => {
    if (gen !== generation) { handle.destroy(); wrap.remove(); return; }
    if (current) { current.handle.destroy(); current.wrap.remove(); }
    wrap.classList.remove('pending');
    current = { handle, wrap, generation: gen };
    document.body.dataset.generation = String(gen);
    call('ready', gen, handle.iframe.getAttribute('srcdoc'));
  });
  return null;
}

window.flowuiPreview = {
  setHooks(next) { hooks = next; },
  mount,
  get generation() { return current ? current.generation : 0; },
  // The state pushed to the connected block (no reload); the projection it now holds, as JSON.
  setState(json) { if (current) current.handle.setState(JSON.parse(json)); },
  // A theme pushed to the connected block (no reload); a bad one throws ThemeError with every problem.
  setTheme(json) {
    const theme = JSON.parse(json);
    paintPage(theme);
    if (current) current.handle.setTheme(theme);
  },
  checkTheme(json) { try { parseTheme(JSON.parse(json)); return null; } catch (error) { return error.message; } },
  projection() {
    if (!current) return null;
    const h = current.handle;
    return JSON.stringify({ blockId: h.blockId, paths: h.paths, fields: h.fields, state: h.projection, theme: h.theme });
  },
  status() { return current ? { status: current.handle.status, loads: current.handle.loads, generation: current.generation } : null; },
};
window.dispatchEvent(new Event('flowui-preview-ready'));
