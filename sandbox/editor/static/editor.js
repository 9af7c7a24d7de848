// The editor page (see sandbox/editor/server.py for the server and its security). It runs in the
// editor's origin under a strict CSP; the author's code never runs here: the preview frame
// (static/preview.js) mounts the block with the bridge's host module in a sandboxed srcdoc frame.
import {
  basicSetup, EditorView, keymap, EditorState, EditorSelection, Compartment, ensureSyntaxTree, html, json, setDiagnostics, lintGutter,
  oneDark,
} from './codemirror.js';
import { THEME, LIMITS } from '../bridge/contract.js';
import { parseTheme } from '../bridge/flow-ui-host.js';

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const SOURCE_DEBOUNCE_MS = 40; // typing pauses this long before the preview is rebuilt
const JSON_DEBOUNCE_MS = 150;
const DISK_POLL_MS = 1000;
// The preview's liveness: a ping every PING_MS; no answer for PREVIEW_TIMEOUT_MS (of this page's
// own running time) and the preview frame is dropped, with the reason in the log.
const PING_MS = 250;
const PREVIEW_TIMEOUT_MS = 5000;
// An answer this late (a preview page kept busy, still answering) or a tick of this page this late
// (the preview held this page's thread too: an engine that runs both in one thread): the frame is
// dropped as well. Larger than the timeout: a whole browser that stalls under load delays both
// pages alike, and is not the preview's doing.
const PREVIEW_LATE_MS = 10000;
// The bridge log keeps the newest LOG_LIMIT entries and counts the ones it dropped.
const LOG_LIMIT = 200;

const cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample, source: e.sourceFile, line: e.lineNumber, column: e.columnNumber }));

// ------------------------------------------------------------------------ server calls

// Every POST carries the editor's header (the server refuses a state-changing request without it,
// or from another Origin); the request's referrer policy lets the browser send this page's Origin
// (under the page's no-referrer policy a POST's Origin would be "null").
async function api(path, body) {
  const init = body === undefined ? { cache: 'no-store' }
    : { method: 'POST', cache: 'no-store', referrerPolicy: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-Flowui-Editor': '1' }, body: JSON.stringify(body) };
  const response = await fetch(`api/${path}`, init);
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  return { status: response.status, data };
}

// ------------------------------------------------------------------------ state of the page

const session = await (await fetch('api/session', { cache: 'no-store' })).json();
let base = session.sha;                               // sha256 of the file as last loaded or saved (null: no file)
let savedText = session.exists ? session.source : null; // ('' for a file the server could not show: session.problem)

// Drafts: unsaved text kept in this origin's localStorage, so that it survives a restart of the
// editor on the same --port. Any page served on 127.0.0.1:PORT shares that storage (another
// server, run on this port before or after this one, by anyone): a draft is sealed with AES-GCM
// under a key only this user's editor hands out (api/session, behind the token: the server
// derives it from a secret in a file only the user reads), under a name that does not tell the
// file. A draft that does not open with the key (planted, or of another key) is never shown.
const draftName = session.draft ? `flowui-draft:${session.draft.id}` : null;
const draftKey = await (async () => {
  if (!session.draft) return null;
  try {
    return await crypto.subtle.importKey('raw', fromBase64(session.draft.key), 'AES-GCM', false, ['encrypt', 'decrypt']);
  } catch { return null; } // no WebCrypto: the text stays in this tab only
})();
const utf8 = new TextEncoder();

let state = session.state || {};
let fields = session.fields || [];
let paths = [];
let overrides = {};
let scheme = 'light';
if (session.theme && typeof session.theme === 'object') {
  for (const [k, v] of Object.entries(session.theme)) {
    if (k === 'color-scheme') scheme = v; else overrides[k] = v;
  }
}
let lastDiskNotice = null;
const generations = new Map(); // preview generation -> where the author source starts in its srcdoc

// ------------------------------------------------------------------------ editors

const editorTheme = new Compartment();
const themeFor = (s) => (s === 'dark' ? oneDark : []);
const styleNonce = document.querySelector('meta[name="flowui-style-nonce"]').content;
// Chromium's contenteditable turns a space typed after a highlighted token into U+00A0; an author
// who types a space means a space (a real no-break space is written &nbsp;).
const plainSpaces = EditorView.inputHandler.of((view, from, to, text) => {
  if (!text.includes('\u00a0')) return false;
  view.dispatch({ changes: { from, to, insert: text.replace(/\u00a0/g, ' ') }, selection: { anchor: from + text.length }, userEvent: 'input.type' });
  return true;
});

// Closing tags as they are typed: '>' ending an open tag adds its closing tag after the cursor, '/'
// after '<' completes the closing tag of the element still open. The HTML mode's own handler does
// this from the syntax tree CodeMirror keeps, which is parsed in slices of 20 ms of wall time: on a
// busy machine a slice runs out before the parse reaches the cursor, and that handler then closes
// nothing (CI saw it once in WebKitGTK). This one asks for the whole tree for
// CLOSE_TAG_PARSE_MS more, and when the clock runs out again parses the whole block at once, up to
// FULL_PARSE_MAX characters (about 0.8 ms per 1,000 in Node on the 2-core machine; blocks may
// have 4 MiB).
const CLOSE_TAG_PARSE_MS = 50;
const FULL_PARSE_MAX = 200_000;
const VOID_ELEMENTS = new Set('area base br col embed hr img input link meta source track wbr'.split(' '));
const htmlSupport = html({ autoCloseTags: false });

function openTagName(doc, element, max = Infinity) {
  const name = element?.firstChild?.getChild('TagName');
  return name ? doc.sliceString(name.from, Math.min(name.to, max)) : '';
}

// Whether `element` already has its closing tag: its own, and no element of the same name around
// it left without one (which would have taken that closing tag instead).
function alreadyClosed(doc, element, name) {
  for (let at = element; at.lastChild?.name === 'CloseTag'; at = at.parent) {
    if (at.parent?.name !== 'Element' || openTagName(doc, at.parent) !== name) return true;
  }
  return false;
}

const closeTagsAsTyped = EditorView.inputHandler.of((view, from, to, text, typed) => {
  if (view.composing || view.state.readOnly || from !== to || (text !== '>' && text !== '/')
      || !htmlSupport.language.isActiveAt(view.state, from, -1)) return false;
  const base = typed();
  const { state } = base;
  // The whole text's tree: whether an element is closed already is told by what follows the cursor.
  // A text too long to parse at once gets the tree up to the cursor at least, as CodeMirror's
  // handler reads it.
  const tree = ensureSyntaxTree(state, state.doc.length, CLOSE_TAG_PARSE_MS)
    ?? (state.doc.length <= FULL_PARSE_MAX ? htmlSupport.language.parser.parse(state.doc.toString())
      : ensureSyntaxTree(state, state.selection.main.head, CLOSE_TAG_PARSE_MS));
  if (!tree) return false;
  const closing = state.changeByRange((range) => {
    const { head } = range;
    if (state.doc.sliceString(head - 1, head) !== text) return { range };
    const node = tree.resolveInner(head, -1);
    const overGt = state.doc.sliceString(head, head + 1) === '>' ? 1 : 0;
    if (text === '>' && node.name === 'EndTag' && node.parent?.parent?.name === 'Element') {
      const element = node.parent.parent;
      const name = openTagName(state.doc, element, head);
      if (name && !VOID_ELEMENTS.has(name.toLowerCase()) && !alreadyClosed(state.doc, element, name)) {
        return { range, changes: { from: head, to: head + overGt, insert: `</${name}>` } };
      }
    } else if (text === '/' && node.name === 'IncompleteCloseTag' && node.from === head - 2) {
      const element = node.parent;
      const name = openTagName(state.doc, element, head);
      if (name && element.lastChild?.name !== 'CloseTag' && !VOID_ELEMENTS.has(name.toLowerCase())) {
        const insert = `${name}>`;
        return { range: EditorSelection.cursor(head + insert.length, -1), changes: { from: head, to: head + overGt, insert } };
      }
    }
    return { range };
  });
  if (closing.changes.empty) return false;
  view.dispatch([base, state.update(closing, { userEvent: 'input.complete', scrollIntoView: true })]);
  return true;
});

const saveKey = keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => { save(false); return true; } }]);

function makeEditor(parent, doc, language, onChange, extra = []) {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        saveKey, basicSetup, language, plainSpaces, EditorView.cspNonce.of(styleNonce), lintGutter(), editorTheme.of(themeFor(scheme)), ...extra,
        EditorView.updateListener.of((u) => { if (u.docChanged) onChange(u); }),
      ],
    }),
  });
}

const sourceView = makeEditor($('source'), session.source, htmlSupport, () => { scheduleSource(); noteDirty(); }, [EditorView.lineWrapping, closeTagsAsTyped]);
const stateView = makeEditor($('state'), JSON.stringify(state, null, 2), json(), () => scheduleState());
const themeView = makeEditor($('theme'), JSON.stringify(overrides, null, 2), json(), () => scheduleTheme());
const sourceText = () => sourceView.state.doc.toString();

function setDoc(view, text) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

// line/column (1-based) -> document offset, clamped into the document
function offsetOf(view, line, column) {
  const doc = view.state.doc;
  const l = doc.line(Math.min(Math.max(1, line || 1), doc.lines));
  return Math.min(l.from + Math.max(0, (column || 1) - 1), l.to);
}

function diagnostic(view, line, column, severity, message, source) {
  const from = offsetOf(view, line, column);
  const to = Math.min(view.state.doc.lineAt(from).to, from + 1);
  return { from, to, severity, message, source };
}

function jump(line, column) {
  const at = offsetOf(sourceView, line, column);
  sourceView.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  sourceView.focus();
}

// ------------------------------------------------------------------------ the preview

// The preview page is on another site (http://localhost:PORT/preview/): nothing in its URL, its
// referrer or its base URL is this page's token. It is driven by postMessage to its origin only;
// its messages are taken from that origin and the current frame's window only.
const PREVIEW_URL = document.querySelector('meta[name="flowui-preview-url"]').content;
const PREVIEW_ORIGIN = new URL(PREVIEW_URL).origin;
const previewEl = $('preview');
let frame = null;           // the preview frame now (null: dropped)
let frameReady = null;      // resolves once the frame's page said hello
let previewStatus = null;   // what the preview last said of its block (status, loads, generation)
let previewProjection = null;
let pingN = 0;
let lastPong = 0;           // this page's clock when the preview last answered
let aliveFor = 0;           // how long this page has waited for an answer, counting only time it ran
let lastTick = 0;
const lastMounted = new Map(); // generation -> source length

function newFrame() {
  frame = document.createElement('iframe');
  frame.className = 'preview-frame';
  frame.title = 'preview host';
  frame.src = PREVIEW_URL;
  let hello;
  frameReady = new Promise((resolve) => { hello = resolve; });
  frame.flowuiHello = hello;
  previewEl.replaceChildren(frame);
  previewEl.dataset.dropped = '0';
  return frameReady;
}

function toPreview(message) {
  if (frame && frame.contentWindow) frame.contentWindow.postMessage(message, PREVIEW_ORIGIN);
}

function sendSettings() {
  toPreview({ type: 'settings', openUrls: $('open-urls').checked, refuseValues: $('refuse-values').checked });
}

// The frame stops answering (a block that spins holds its process, in the engines that give the
// preview one of its own, or this page's too where they do not): drop it, say why. The next
// change of the source mounts the block in a new frame.
function dropPreview(reason) {
  if (!frame) return;
  frame.remove();
  frame = null;
  frameReady = null;
  previewStatus = null;
  previewEl.dataset.dropped = '1';
  $('preview-status').textContent = 'preview dropped: it stopped answering; edit the source to mount it again';
  addLog({ time: Date.now(), level: 'error', code: 'preview-dropped', message: reason }, 0);
}

// One tick per PING_MS: a ping, and the wait for an answer counted in this page's own running
// time (a tick that comes late means this page did not run either: its lateness is not counted,
// so a pause of the whole browser is not taken for the preview's). performance.now() does not
// advance while the machine sleeps, so a sleep is no pause.
function watch() {
  const now = performance.now();
  const gap = lastTick ? now - lastTick : 0;
  const ran = Math.min(gap, 2 * PING_MS);
  lastTick = now;
  if (!frame || !frame.flowuiAnswering) return; // watched from its hello on
  // This page itself did not run for that long: where an engine runs the preview in the editor's
  // own thread (WebKitGTK), a block that spins holds both, and this is the first moment the page
  // can act.
  if (gap > PREVIEW_LATE_MS) {
    dropPreview(heldWithThisPage(gap));
    return;
  }
  aliveFor = now - lastPong > PING_MS ? aliveFor + ran : 0;
  if (aliveFor > PREVIEW_TIMEOUT_MS) {
    dropPreview(`the preview did not answer for ${(aliveFor / 1000).toFixed(1)} s while this page ran (a block that spins?): its frame is dropped`);
    return;
  }
  pingN += 1;
  toPreview({ type: 'ping', n: pingN, sent: performance.now() });
}
setInterval(watch, PING_MS);

// The reason of a drop when this page could not run either, for `ms`: the preview shares its thread.
function heldWithThisPage(ms) {
  return `this page could not run for ${(ms / 1000).toFixed(1)} s: the preview shares its thread in this engine, and a block held it (a block that spins?): its frame is dropped`;
}

const fromPreview = {
  hello: () => {
    frame.flowuiAnswering = true;
    lastPong = performance.now();
    aliveFor = 0;
    frame.flowuiHello();
  },
  // An answer to a ping sent long ago (more than the limit): the preview's page was held that long
  // (a block that spins, or floods its bridge with messages the preview's page handles one by one,
  // answering the pings queued behind them late but answering). Whether this page was held with it
  // is told by its own ticks: none for that long, and the engine runs both on one thread.
  pong: (m) => {
    const now = performance.now();
    lastPong = now;
    aliveFor = 0;
    const late = now - m.sent;
    if (late <= PREVIEW_LATE_MS) return;
    const held = now - lastTick;
    dropPreview(held > PREVIEW_LATE_MS ? heldWithThisPage(held)
      : `the preview answered ${(late / 1000).toFixed(1)} s late while this page ran: a block kept its page busy (one that spins, or floods the bridge?): its frame is dropped`);
  },
  mounted: (m) => { if (m.error) $('preview-status').textContent = `not rebuilt: ${m.error}`; },
  ready: (m) => {
    const gen = m.generation;
    const start = m.srcdoc.length - lastMounted.get(gen);
    const prefix = m.srcdoc.slice(0, start);
    const lines = prefix.split('\n');
    generations.set(gen, { line: lines.length, column: lines[lines.length - 1].length });
    previewStatus = m.status;
    previewProjection = m.projection;
    previewSrcdoc = m.srcdoc;
    previewEl.dataset.ready = String(gen);
    $('preview-status').textContent = `connected (build ${gen})`;
    showProjection();
  },
  projection: (m) => { previewProjection = m.projection; previewStatus = m.status; showProjection(); },
  log: (m) => addLog(JSON.parse(m.entry), m.generation),
  failed: (m) => { $('preview-status').textContent = `the preview refused ${m.what}: ${m.error}`; },
};
let previewSrcdoc = null;

window.addEventListener('message', (event) => {
  if (event.origin !== PREVIEW_ORIGIN || !frame || event.source !== frame.contentWindow) return;
  const m = event.data;
  if (!m || typeof m !== 'object' || !Object.hasOwn(fromPreview, m.type)) return;
  fromPreview[m.type](m);
});

for (const id of ['open-urls', 'refuse-values']) $(id).addEventListener('change', sendSettings);

function currentTheme() { return { 'color-scheme': scheme, ...overrides }; }

async function mountPreview(source) {
  if (!frame) newFrame();
  await frameReady;
  sendSettings();
  const gen = Number(previewEl.dataset.generation) + 1;
  lastMounted.set(gen, source.length);
  previewEl.dataset.generation = String(gen);
  toPreview({ type: 'mount', generation: gen, json: JSON.stringify({ source, blockId: session.blockId, fields, paths, state, theme: currentTheme() }) });
}

await newFrame();

let sourceTimer = 0;
let analyzing = null;
let analyzeAgain = false;
function scheduleSource() {
  clearTimeout(sourceTimer);
  sourceTimer = setTimeout(rebuild, SOURCE_DEBOUNCE_MS);
}

// Analyse the source on the server (the generator's own path extraction, so the preview's srcdoc is
// build_srcdoc's bytes), then mount it. One analysis at a time; the review's findings are asked for
// beside it, so the preview never waits for the review.
async function rebuild() {
  if (analyzing) { analyzeAgain = true; return; }
  const source = sourceText();
  refreshFindings(source);
  analyzing = api('analyze', { source, fields });
  let result;
  try { result = (await analyzing).data; } catch (error) { result = null; $('preview-status').textContent = `server unreachable: ${error}`; }
  analyzing = null;
  if (result && source === sourceText()) {
    lastProblems = result.problems;
    paintDiagnostics();
    $('source-problems').textContent = result.problems.length ? `${result.problems.length} path problem(s): the preview shows the last good build` : '';
    const fe = $('fields-error');
    fe.hidden = !result.fieldProblems.length;
    fe.textContent = result.fieldProblems.join('\n');
  }
  if (result && result.paths && !result.fieldProblems.length) { paths = result.paths; mountPreview(source); }
  if (analyzeAgain) { analyzeAgain = false; rebuild(); }
}

let lastProblems = [];
let lastFindings = [];
let findingsBusy = false;
let findingsAgain = false;

// The static review's findings for the text on the page (one request at a time, the newest text wins).
async function refreshFindings(source) {
  if (findingsBusy) { findingsAgain = true; return; }
  findingsBusy = true;
  try {
    const { data } = await api('findings', { source, fields });
    if (data && source === sourceText()) {
      lastFindings = data.findings || [];
      $('findings').dataset.error = data.error || '';
      paintDiagnostics();
    }
  } catch { /* the server is down: the markers stay as they were */ }
  findingsBusy = false;
  if (findingsAgain) { findingsAgain = false; refreshFindings(sourceText()); }
}

// Markers in the source: the path problems and the review's findings, at their line:column.
function paintDiagnostics() {
  const diags = [];
  for (const p of lastProblems) {
    diags.push(diagnostic(sourceView, p.line, p.column, 'error', p.element ? `<${p.element} ${p.attribute}="${p.value}">: ${p.reason}` : p.reason, 'paths'));
  }
  for (const f of lastFindings) diags.push(diagnostic(sourceView, f.line, f.column, markerSeverity(f.severity), `${f.rule} (${f.severity}): ${f.message}`, 'review'));
  sourceView.dispatch(setDiagnostics(sourceView.state, diags));
  renderFindings(lastFindings, lastProblems);
}

// The review's severities (high, medium, low, info) as the editor's marker kinds.
function markerSeverity(severity) {
  return { high: 'error', medium: 'warning', low: 'info', info: 'hint' }[severity] || 'warning';
}

let browserReview = null; // the last in-browser review: {at, engines, findings, source}

function findingItem(f) {
  const li = document.createElement('li');
  li.className = `finding ${markerSeverity(f.severity)}`;
  li.dataset.rule = f.rule;
  const where = document.createElement('a');
  where.href = '#';
  where.textContent = f.line ? `${f.line}:${f.column}` : '?:?';
  where.addEventListener('click', (e) => { e.preventDefault(); if (f.line) jump(f.line, f.column); });
  const seen = f.engines && f.engines.length ? ` [${f.engines.join(', ')}]` : '';
  li.append(where, ` ${f.severity} ${f.rule}: ${f.message}${seen}`);
  return li;
}

function renderFindings(findings, problems) {
  const list = $('findings');
  const current = [
    ...problems.map((p) => ({ severity: 'high', rule: 'paths', line: p.line, column: p.column, message: p.reason })),
    ...findings,
  ];
  list.replaceChildren(...current.map(findingItem));
  let count = current.length;
  if (browserReview) {
    const stale = browserReview.source !== sourceText() ? ' (the text changed since: review again)' : '';
    const head = document.createElement('li');
    head.className = 'finding-head';
    head.textContent = `In-browser review at ${browserReview.at} in ${browserReview.engines.join(', ') || 'no engine'}${stale}:`;
    list.append(head, ...browserReview.findings.map(findingItem));
    count += browserReview.findings.length;
  }
  $('findings-count').textContent = String(count);
}

// The whole review (static and in-browser layers) of the text on the page, on demand: it mounts the
// block in every engine installed, so it takes seconds.
async function reviewInBrowsers() {
  const button = $('review-button');
  button.disabled = true;
  const source = sourceText();
  $('preview-status').textContent = 'reviewing in the browsers…';
  try {
    const { status, data } = await api('review', { source, fields, state, theme: currentTheme() });
    if (status !== 200 || data.error) {
      $('preview-status').textContent = `review failed: ${(data && data.error) || `HTTP ${status}`}`;
      return;
    }
    browserReview = { at: new Date().toLocaleTimeString(), engines: data.engines, findings: data.findings, source };
    renderFindings(lastFindings, lastProblems);
    $('preview-status').textContent = `reviewed in ${data.engines.join(', ')}: ${data.findings.length} finding(s)`;
    document.querySelector('[role=tab][data-tab="findings"]').click();
  } catch (error) {
    $('preview-status').textContent = `review failed: ${error}`;
  } finally {
    button.disabled = false;
  }
}
$('review-button').addEventListener('click', reviewInBrowsers);

// ------------------------------------------------------------------------ state, fields, theme

let stateTimer = 0;
function scheduleState() { clearTimeout(stateTimer); stateTimer = setTimeout(applyState, JSON_DEBOUNCE_MS); }

async function applyState() {
  const text = stateView.state.doc.toString();
  const { data } = await api('json', { text });
  if (text !== stateView.state.doc.toString() || !data) return;
  const box = $('state-error');
  if (!data.ok) {
    box.hidden = false;
    box.textContent = `state line ${data.line} column ${data.column}: ${data.message} (the preview keeps the last good state)`;
    stateView.dispatch(setDiagnostics(stateView.state, [diagnostic(stateView, data.line, data.column, 'error', data.message, 'json')]));
    return;
  }
  box.hidden = true;
  stateView.dispatch(setDiagnostics(stateView.state, []));
  state = data.value;
  toPreview({ type: 'state', json: JSON.stringify(state) }); // a state push: the block is not reloaded
}

let themeTimer = 0;
function scheduleTheme() { clearTimeout(themeTimer); themeTimer = setTimeout(applyTheme, JSON_DEBOUNCE_MS); }

function applyTheme() {
  const box = $('theme-error');
  let next;
  try {
    next = JSON.parse(themeView.state.doc.toString());
    if (next === null || typeof next !== 'object' || Array.isArray(next)) throw new Error('the overrides must be a JSON object of tokens');
  } catch (error) {
    box.hidden = false; box.textContent = `theme: ${error.message}`; return;
  }
  const { 'color-scheme': ignored, ...tokens } = next;
  let problem = null;
  try { parseTheme({ 'color-scheme': scheme, ...tokens }); } catch (error) { problem = error.message; }
  if (problem) { box.hidden = false; box.textContent = problem; return; }
  box.hidden = true;
  overrides = tokens;
  pushTheme();
}

function pushTheme() {
  document.documentElement.dataset.scheme = scheme;
  for (const view of [sourceView, stateView, themeView]) view.dispatch({ effects: editorTheme.reconfigure(themeFor(scheme)) });
  toPreview({ type: 'theme', json: JSON.stringify(currentTheme()) }); // a theme push: the block is not reloaded
}

$('scheme').value = scheme;
$('scheme').addEventListener('change', (e) => { scheme = e.target.value; pushTheme(); });
document.documentElement.dataset.scheme = scheme;

const fieldsInput = $('fields');
fieldsInput.value = fields.join(', ');
let fieldsTimer = 0;
fieldsInput.addEventListener('input', () => {
  clearTimeout(fieldsTimer);
  fieldsTimer = setTimeout(() => {
    const text = fieldsInput.value.trim();
    fields = text === '' ? [] : text.split(',').map((f) => f.trim());
    rebuild();
  }, JSON_DEBOUNCE_MS);
});

function showProjection() {
  const text = previewProjection;
  $('projection').textContent = text ? JSON.stringify(JSON.parse(text), null, 2) : '(no block connected)';
}

// ------------------------------------------------------------------------ the bridge log

// Entries are queued and drawn once per frame: a block that floods its bridge sends hundreds a
// second, and drawing (with a scroll, which forces a layout) per entry kept Firefox's editor page
// from answering for seconds (measured: bench/editor_log_flood.py). Of a frame's queue only the
// newest LOG_LIMIT are drawn; the others count as dropped at once.
let logCount = 0;   // entries in the list now (at most LOG_LIMIT)
let logDropped = 0; // the oldest entries removed to keep it there
let logQueue = [];  // [entry, generation] not drawn yet (at most LOG_LIMIT)
let logFlush = null; // the scheduled draw, or null
function addLog(entry, gen) {
  logQueue.push([entry, gen]);
  if (logQueue.length > LOG_LIMIT) {
    logQueue.shift();
    logDropped += 1;
  }
  if (logFlush !== null) return;
  // The next frame, or a timer where frames do not come (a hidden tab), whichever is first.
  const draw = () => { cancelAnimationFrame(logFlush.frame); clearTimeout(logFlush.timer); logFlush = null; drawLog(); };
  logFlush = { frame: requestAnimationFrame(draw), timer: setTimeout(draw, 250) };
}

// New entries are scrolled into view while the reader is at the log's end (or has not scrolled
// it), not while they read an older one.
let logFollow = true;
let logSeenTop = 0; // the panel's scrollTop as of the last scroll event
const tabPanels = document.querySelector('.tab-panels');
const logShown = () => !$('log').closest('.tab-panel').hidden;
const showLogEnd = () => { if (logFollow && logShown() && $('log').lastElementChild) $('log').lastElementChild.scrollIntoView({ block: 'nearest' }); };
const noteLogScroll = () => {
  logSeenTop = tabPanels.scrollTop;
  if (logShown()) logFollow = tabPanels.scrollHeight - tabPanels.scrollTop - tabPanels.clientHeight < 24;
};
tabPanels.addEventListener('scroll', noteLogScroll, { passive: true });

function drawLog() {
  const list = $('log');
  // A scroll whose event has not come yet (it comes with the next frame; a draw from the timer can
  // come first, and pulled a reader who had just scrolled up back to the end: WebKitGTK in CI).
  if (tabPanels.scrollTop !== logSeenTop) noteLogScroll();
  const items = document.createDocumentFragment();
  for (const [entry, gen] of logQueue) items.append(logItem(entry, gen));
  logQueue = [];
  list.append(items);
  logCount = list.childElementCount;
  while (logCount > LOG_LIMIT) {
    list.firstElementChild.remove();
    logCount -= 1;
    logDropped += 1;
  }
  showLogEnd();
  $('log-count').textContent = String(logCount);
  const dropped = $('log-dropped');
  dropped.hidden = logDropped === 0;
  dropped.dataset.dropped = String(logDropped);
  dropped.textContent = `${logDropped} older ${logDropped === 1 ? 'entry' : 'entries'} dropped (the log keeps the newest ${LOG_LIMIT})`;
}

// One entry's list item: its head line and, when it has data, the data as the host saw it.
function logItem(entry, gen) {
  const li = document.createElement('li');
  li.className = `log-entry ${entry.level}`;
  li.dataset.code = entry.code;
  const head = document.createElement('div');
  head.className = 'log-head';
  const time = new Date(entry.time).toISOString().slice(11, 23);
  head.textContent = `${time} ${entry.level} ${entry.code}: ${entry.message}`;
  li.append(head);
  const d = entry.detail;
  let body = null;
  if (entry.code === 'action' && d) {
    body = `POST ui-action  Content-Type: ${LIMITS.uiActionMediaType}\n${JSON.stringify(d, null, 2)}`;
  } else if (entry.code === 'value' && d) {
    body = `setValue ${d.path} = ${JSON.stringify(d.value)}\nverdict: accepted`;
  } else if (d && d.url !== undefined) {
    const verdicts = {
      'open-url': 'opened in a new tab',
      'no-gesture': 'refused: no user gesture',
      'popup-blocked': "refused by the browser's popup blocker",
      refused: 'refused (the editor opens URLs only with "open URLs for real" checked)',
    };
    const verdict = verdicts[entry.code] || `${entry.code}: ${entry.message}`;
    body = `openUrl ${d.url}\nverdict: ${verdict}`;
  } else if (entry.code === 'refused' && d && d.path !== undefined) {
    body = `setValue ${d.path}\nverdict: refused (the editor refuses values with "refuse setValue" checked)`;
  } else if (entry.code === 'block-error' && d) {
    const at = authorPosition(gen, d.line, d.column);
    const link = document.createElement('a');
    link.href = '#';
    link.className = 'where';
    link.textContent = at ? `source ${at.line}:${at.column}` : (d.line ? `srcdoc ${d.line}:${d.column} (the runtime's)` : 'no position (the engine gave none)');
    if (at) link.addEventListener('click', (e) => { e.preventDefault(); jump(at.line, at.column); });
    head.append(' ', link);
    li.dataset.line = at ? String(at.line) : '';
    li.dataset.column = at ? String(at.column) : '';
    body = JSON.stringify(d, null, 2);
  } else if (d !== undefined) {
    body = JSON.stringify(d, null, 2);
  }
  if (body !== null) {
    const pre = document.createElement('pre');
    pre.textContent = body;
    li.append(pre);
  }
  return li;
}

// An error's line:column in the srcdoc, as a line:column of the author's source (or null: the runtime's).
function authorPosition(gen, line, column) {
  const start = generations.get(gen);
  if (!start || !line) return null;
  if (line < start.line) return null;
  if (line === start.line) return { line: 1, column: Math.max(1, column - start.column) };
  return { line: line - start.line + 1, column };
}

$('clear-log').addEventListener('click', () => {
  logQueue = [];
  logFollow = true;
  $('log').replaceChildren();
  logCount = 0;
  logDropped = 0;
  $('log-count').textContent = '0';
  $('log-dropped').hidden = true;
  $('log-dropped').dataset.dropped = '0';
});

// ------------------------------------------------------------------------ cheat sheet (from the contract)

async function renderCheatsheet() {
  const { data } = await api('contract');
  const root = $('cheatsheet');
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  const table = (heads, rows) => {
    const t = el('table');
    const tr = el('tr');
    for (const h of heads) tr.append(el('th', h));
    t.append(tr);
    for (const row of rows) { const r = el('tr'); for (const c of row) r.append(c instanceof Node ? (() => { const td = el('td'); td.append(c); return td; })() : el('td', c)); t.append(r); }
    return t;
  };
  root.replaceChildren(
    el('h3', 'window.flowUi'),
    table(['member', 'does'], data.api.map((a) => [el('code', a.member), a.does.replace(/`/g, '')])),
    el('h3', 'Theme tokens'),
    el('p', `CSS custom properties on the block's :root, e.g. color: var(${THEME.prefix}text). Colors: #hex, rgb(), hsl() or a CSS name; lengths: 0 or px, rem, em, %.`, 'muted'),
    table(['property', 'for', 'light', 'dark'], data.tokens.map((t) => {
      const sw = (v) => { const s = el('span'); s.append(el('span', '', 'swatch'), ` ${v}`); if (t.kind === 'color') s.firstChild.style.background = v; return s; };
      return [el('code', t.property), `${t.purpose} (${t.kind})`, sw(t.light), sw(t.dark)];
    })),
    el('h3', 'Markup'),
    table(['attribute', 'does'], [
      [el('code', 'data-bind="path"'), 'shows the value at path as text'],
      [el('code', 'data-show="path"'), 'shows the element only when the value is not empty'],
    ]),
    el('h3', 'Limits'),
    table(['limit', 'value'], [
      ['message size', `${data.limits.maxMessageChars} characters of JSON`],
      ['nesting depth', String(data.limits.maxMessageDepth)],
      ['rate', `burst ${data.limits.rateBurst}, ${data.limits.ratePerSecond} per second`],
      ['action names', data.limits.actionPattern],
      ['URLs', `https: only, at most ${data.limits.urlMaxLength} characters, after a user gesture`],
    ]),
    el('h3', 'Reason codes'),
    table(['code', 'means'], Object.entries(data.limits.reasons).map(([k, v]) => [el('code', k), v])),
    el('h3', 'The block\'s CSP'),
    el('pre', data.csp),
  );
}

// ------------------------------------------------------------------------ saving and the file on disk

function dirty() { return sourceText() !== savedText; }

function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
function fromBase64(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function sealDraft(draft) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: utf8.encode(draftName) }, draftKey,
    utf8.encode(JSON.stringify(draft)));
  return JSON.stringify({ iv: toBase64(iv), sealed: toBase64(new Uint8Array(sealed)) });
}

// The draft kept for this file, or null (none, or one that does not open: removed).
async function openDraft() {
  if (!draftKey) return null;
  let item = null;
  try { item = localStorage.getItem(draftName); } catch { return null; }
  if (!item) return null;
  try {
    const { iv, sealed } = JSON.parse(item);
    const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64(iv), additionalData: utf8.encode(draftName) }, draftKey,
      fromBase64(sealed));
    const draft = JSON.parse(new TextDecoder().decode(plain));
    return draft && typeof draft.text === 'string' ? draft : null;
  } catch {
    try { localStorage.removeItem(draftName); } catch { /* storage off */ }
    return null;
  }
}

let draftTimer = 0;
let draftWrites = 0; // the newest write wins: sealing is asynchronous
async function keepDraft() {
  clearTimeout(draftTimer);
  if (!draftKey) return;
  const n = ++draftWrites;
  try {
    if (!dirty()) { localStorage.removeItem(draftName); return; }
    const sealed = await sealDraft({ text: sourceText(), base });
    if (n === draftWrites) localStorage.setItem(draftName, sealed);
  } catch { /* storage full or off: the text stays in this tab */ }
}
function dropDraft() {
  draftWrites += 1;
  try { if (draftName) localStorage.removeItem(draftName); } catch { /* storage off */ }
}
function noteDirty() {
  showSaveStatus();
  clearTimeout(draftTimer);
  draftTimer = setTimeout(keepDraft, 200);
}
// The draft is sealed and written when the page goes away, whatever the timer (sealing is
// asynchronous: the 200 ms after each change are what is sure to be kept).
window.addEventListener('pagehide', keepDraft);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') keepDraft(); });

function showSaveStatus(text) {
  const s = $('save-status');
  s.textContent = text || (dirty() ? (savedText === null ? 'new file, not saved' : 'unsaved changes') : 'saved');
  s.dataset.dirty = dirty() ? '1' : '0';
  document.title = `${dirty() ? '● ' : ''}${session.name} — flowui-sandbox edit`;
}

let saving = false;
async function save(force) {
  if (saving) return;
  saving = true;
  const text = sourceText();
  try {
    const { status, data } = await api('save', { source: text, base, force });
    if (status === 200) {
      base = data.sha;
      savedText = text;
      hideNotice();
      showSaveStatus(dirty() ? undefined : `saved ${new Date().toLocaleTimeString()}`);
      if (!dirty()) dropDraft();
    } else if (status === 409) {
      showConflict(data, data.problem ? `The file on disk ${data.problem}; nothing was written.`
        : 'The file changed on disk since you loaded it; nothing was written.');
    } else {
      showSaveStatus(`not saved: ${(data && data.error) || `HTTP ${status}`}`);
    }
  } catch (error) {
    keepDraft();
    showSaveStatus(`not saved: the editor server is not reachable; your text stays in this tab${draftKey ? ' (and, sealed, in this browser\'s storage)' : ''} until it is saved`);
  } finally {
    saving = false;
  }
}

// The choice between the text here and the file on disk. A file the server could not show
// (disk.problem: not UTF-8, too large, not a regular file, unreadable) has no text to load: the
// choice is to save over it, or not.
let conflictDisk = null;
function showConflict(disk, text) {
  conflictDisk = disk;
  lastDiskNotice = disk.sha;
  const box = $('notice');
  box.hidden = false;
  $('take-disk').hidden = Boolean(disk.problem);
  box.querySelector('.notice-text').textContent = disk.problem
    ? `${text} Your text stays here; save it over the file, or leave the file as it is.`
    : `${text} Keep yours (save it over the file) or load the file on disk (your text is kept in this browser's storage as a draft until you choose).`;
  $('disk-text').textContent = disk.problem ? `(not shown: the file ${disk.problem})` : disk.source === null ? '(the file was deleted)' : disk.source;
  showSaveStatus(disk.problem ? `conflict: the file on disk ${disk.problem}` : 'conflict: the file changed on disk');
}
function hideNotice() { $('notice').hidden = true; conflictDisk = null; }

$('keep-mine').addEventListener('click', () => save(true));
$('take-disk').addEventListener('click', () => {
  if (!conflictDisk || conflictDisk.problem) return;
  const text = conflictDisk.source === null ? '' : conflictDisk.source;
  base = conflictDisk.sha;
  savedText = conflictDisk.source;
  setDoc(sourceView, text);
  hideNotice();
  showSaveStatus();
});
$('dismiss').addEventListener('click', () => { $('notice').hidden = true; });
$('save').addEventListener('click', () => save(false));
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') { e.preventDefault(); save(false); }
});
window.addEventListener('beforeunload', (e) => { if (dirty()) { e.preventDefault(); e.returnValue = ''; } });

async function pollDisk() {
  try {
    const { data } = await api('disk');
    if (data && data.sha !== base && !saving) {
      const disk = (await api('disk/text')).data;
      if (disk.sha === base) return;
      if (disk.problem) {
        // No text to load: the author's stays, and a save over the file will ask first.
        if (lastDiskNotice !== disk.sha) showConflict(disk, `The file on disk ${disk.problem}.`);
      } else if (!dirty() && disk.source === null) {
        // Deleted: the text stays, as the unsaved text of a new file.
        base = null;
        savedText = null;
        showSaveStatus('the file was deleted on disk: your text is kept, not saved');
      } else if (!dirty()) {
        base = disk.sha;
        savedText = disk.source;
        setDoc(sourceView, disk.source);
        showSaveStatus('reloaded: the file changed on disk');
      } else if (lastDiskNotice !== disk.sha) {
        showConflict(disk, 'The file changed on disk while you have unsaved edits.');
      }
    }
  } catch { /* the server is down: keep the text, try again */ }
}
setInterval(pollDisk, DISK_POLL_MS);

// ------------------------------------------------------------------------ tabs, start

for (const tab of document.querySelectorAll('[role=tab]')) {
  tab.addEventListener('click', () => {
    for (const t of document.querySelectorAll('[role=tab]')) t.setAttribute('aria-selected', String(t === tab));
    for (const p of document.querySelectorAll('.tab-panel')) p.hidden = p.dataset.panel !== tab.dataset.tab;
    showLogEnd();
  });
}

$('file').textContent = session.name;
$('file').title = session.file;

// A draft kept from before a restart (same origin: the same --port) comes back as unsaved text.
// (A draft kept in the clear under the file's path is readable by any page of this origin: removed.)
try { localStorage.removeItem(`flowui-edit:${session.file}`); } catch { /* no storage */ }
const draft = await openDraft();
let restored = false;
if (draft && draft.text !== session.source) {
  setDoc(sourceView, draft.text);
  restored = true;
  if (!session.problem && draft.base !== base) {
    showConflict({ sha: base, source: savedText }, 'Restored your unsaved text from before; the file on disk changed since.');
  }
}
if (session.problem) {
  showConflict({ sha: session.sha, source: null, problem: session.problem }, `The file on disk ${session.problem}.`);
} else if (restored && draft.base === base) {
  showSaveStatus('restored your unsaved text from before the restart');
} else {
  showSaveStatus();
}
renderCheatsheet();
rebuild();

// For the tests and the benchmark (the block cannot reach this window: its frame is sandboxed).
window.flowuiEditor = {
  source: sourceText,
  cspViolations,
  dirty,
  stateText: () => stateView.state.doc.toString(),
  themeText: () => themeView.state.doc.toString(),
  // What the preview last reported: its block's status and load count, and the srcdoc it mounted.
  previewStatus: () => previewStatus,
  previewSrcdoc: () => previewSrcdoc,
  projection: () => previewProjection,
  logLimit: LOG_LIMIT,
  // Draws the queued entries now, as a draw whose timer comes before the next frame does.
  drawLog,
};
