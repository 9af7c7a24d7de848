// Mounting: the iframe, its handshake, the one handler map of the block's messages, the state
// and theme pushed to it, its liveness and its focus. The host is the only authority over the
// block (PROTOCOL.md).

import { SANDBOX, REFERRER_POLICY, GENERATOR, LIMITS, core } from '../contract.js';
import { buildSrcdoc, checkState, initProblem, readInit, scriptJson } from './srcdoc.js';
import { projectPaths, diffProjection } from './projection.js';
import { parseTheme } from './theme.js';
import { applyPatch } from './patch.js';
import { heightController } from './height.js';
import { CONNECT, HELLO, checkAllowList, portDispatcher, sameSite, siteOf, tokenBucket } from './messages.js';

const { describe, lookup, jsonProblem, setIn } = core;

const NAVIGATED_NOTICE = 'This block left its content and was closed.';
// A focus move into a block counts as the user's when it follows a Tab within this long, or a
// pointer on the frame with no typing in the host within this long (PROTOCOL.md, "Focus").
const FOCUS_INTENT_MS = 1000;
// How long (ms) the host waits for the focus to reach a block's frame before refusing its openUrl.
const OPEN_URL_FOCUS_WAIT_MS = 300;
// How far (CSS px) outside the frame the host's last pointer event may lie and still count as
// the pointer having entered the frame (Chromium routes no pointer event over a frame to the host).
const FOCUS_POINTER_MARGIN = 48;

// The base URL of the frame that holds a block: about:blank, nothing of the host page's URL (not
// even its origin; relative URLs in the block resolve to nothing). A host page whose CSP base-uri
// refuses about:blank ('self') gets its origin's root instead; one that refuses that too ('none')
// leaves the holder on the host page's URL, which the log says (docs/THREATS.md).
function neutralBases() {
  const origin = typeof location !== 'undefined' ? location.origin : 'null';
  return origin && origin !== 'null' ? ['about:blank', `${origin}/`] : ['about:blank'];
}

// The frames of the blocks mounted in this page, each with whether the pointer is on it: a user
// activation belongs to the block the user aimed at, not to every block (openUrl).
const MOUNTED = new Set();

// The distance (CSS px) from a point to an element's box (0 inside it).
function distanceTo(point, element) {
  const r = element.getBoundingClientRect();
  const dx = Math.max(r.left - point.x, 0, point.x - r.right);
  const dy = Math.max(r.top - point.y, 0, point.y - r.bottom);
  return Math.hypot(dx, dy);
}

function randomId() {
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  return (words[0] & 0x1fffff) * 2 ** 32 + words[1] + 1; // a safe integer >= 1
}

// Mounts a block into `container` and returns its handle (see PROTOCOL.md for every option).
export function mountHtmlBlock(container, options = {}) {
  if (!container || typeof container.appendChild !== 'function') throw new TypeError('mountHtmlBlock: container must be a DOM element');
  if (options === null || typeof options !== 'object') throw new TypeError('mountHtmlBlock: options must be an object');
  for (const name of ['onAction', 'onValue', 'onOpenUrl', 'onLog']) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw new TypeError(`mountHtmlBlock: ${name} must be a function`);
  }
  const frozenFields = options.frozen || [];
  const ownHost = (typeof location !== 'undefined' && location.hostname) || '';
  let site = siteOf(ownHost);
  if (options.site !== undefined) {
    const named = typeof options.site === 'string' ? options.site.toLowerCase().replace(/\.$/, '') : '';
    if (!named || !sameSite(ownHost, named)) throw new TypeError(`mountHtmlBlock: site ${describe(options.site)} must be this page's host name (${ownHost}) or a domain it is under`);
    site = named;
  }
  const allow = checkAllowList(options.allowOwnSiteUrls);
  const notice = options.navigatedNotice === undefined ? NAVIGATED_NOTICE : options.navigatedNotice;
  if (notice !== null && typeof notice !== 'string') throw new TypeError('mountHtmlBlock: navigatedNotice must be a string or null');
  let init;
  let hostState;
  let srcdoc;
  if (typeof options.srcdoc === 'string') {
    srcdoc = options.srcdoc;
    init = readInit(srcdoc);
    if (options.blockId !== undefined && options.blockId !== init.blockId) throw new TypeError(`mountHtmlBlock: blockId ${describe(options.blockId)} differs from the srcdoc's ${JSON.stringify(init.blockId)}`);
    hostState = options.state === undefined ? init.state : checkState(options.state);
  } else if (typeof options.source === 'string') {
    hostState = checkState(options.state);
    srcdoc = buildSrcdoc(options.source, {
      blockId: options.blockId, fields: options.fields || [], state: hostState, theme: options.theme,
      paths: options.paths === undefined ? null : options.paths, frozen: frozenFields,
    });
    init = readInit(srcdoc);
  } else {
    throw new TypeError('mountHtmlBlock: give either options.source (the block\'s source) or options.srcdoc (a document the generator built)');
  }

  const blockId = init.blockId;
  const fields = init.fields;
  const projectionPaths = [...fields, ...init.paths.filter((p) => !fields.includes(p))];
  let held = init.state; // what the block holds
  let next = null; // the projection of the latest state, not yet sent
  let theme = parseTheme(init.theme).json;
  let pendingTheme = null;
  let status = 'loading';
  let loads = 0;
  let port = null;
  let flushQueued = false;
  let resolveReady;
  const ready = new Promise((resolve) => { resolveReady = resolve; });
  const onLog = options.onLog;
  const autoHeight = options.autoHeight !== false;
  const height = heightController({ min: options.minHeight, max: options.maxHeight });
  let heightLoopReported = false;
  const windowBudget = tokenBucket(LIMITS.reportBurst, LIMITS.reportPerSecond); // messages to the parent window after the hello
  // The host's own sight of its frame's width when the window is resized (a drag), for the height's
  // settle window: a window `resize` listener, not a ResizeObserver on the frame (WebKitGTK reported
  // "ResizeObserver loop completed with undelivered notifications" on the host page as the frame's
  // height followed its block, measured in CI).
  const onWindowResize = () => height.resized(frame.clientWidth);
  if (autoHeight) window.addEventListener('resize', onWindowResize);
  let alive = null; // the pending liveness check: {n, due, timer}
  let aliveLoads = 0; // the load count the last answered ping covered
  let noticeElement = null;

  // The block's frame sits in a frame of the host's own (same origin, no author content) whose
  // document's base URL is about:blank: a srcdoc document's fallback base URL is its
  // container document's, so the block never learns the host page's path, query or fragment,
  // whatever it does to its own <base> (PROTOCOL.md, "The block's frame"; docs/THREATS.md).
  // `holder: false` (harnesses that model a generator's iframe placed straight in a page, e.g.
  // review's browser layer): no holder, the block's frame is the element, and it reads the page's URL.
  const useHolder = options.holder !== false;
  const title = typeof options.title === 'string' ? options.title : `html block ${blockId}`;
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', SANDBOX);
  iframe.setAttribute('referrerpolicy', REFERRER_POLICY);
  iframe.setAttribute('title', title);
  iframe.setAttribute('data-block-id', blockId);
  if (useHolder) iframe.name = LIMITS.wrappedFrameName;
  iframe.style.width = '100%';
  if (useHolder) iframe.style.height = '100%';
  iframe.style.border = '0';
  iframe.style.display = 'block';
  iframe.srcdoc = srcdoc;
  const frame = useHolder ? document.createElement('iframe') : iframe;
  if (useHolder) {
    frame.setAttribute('title', title);
    frame.setAttribute('data-block-id', blockId);
    frame.setAttribute('data-flow-ui-frame', 'holder');
    frame.setAttribute('referrerpolicy', REFERRER_POLICY);
    frame.style.width = '100%';
    frame.style.border = '0';
    frame.style.display = 'block';
  }

  function log(level, code, message, detail) {
    if (!onLog) return;
    try {
      onLog({ time: Date.now(), blockId, level, code, message, ...(detail === undefined ? {} : { detail }) });
    } catch (error) {
      console.error('flow-ui: onLog failed', error);
    }
  }

  function postToBlock(message) {
    if (!port) return;
    try { port.postMessage(message); } catch (error) { log('error', 'post-failed', `could not post ${message.type} to the block: ${error}`); }
  }

  function reply(id, ok, valueOrReason, text) {
    if (ok) postToBlock({ type: 'reply', id, ok: true, value: valueOrReason === undefined ? null : valueOrReason });
    else postToBlock({ type: 'reply', id, ok: false, reason: valueOrReason, message: text });
  }

  function refuse(id, reason, text, detail) {
    log('warn', reason, text, detail);
    if (id !== null && id !== undefined) reply(id, false, reason, text);
  }

  // ---- host -> block

  // The projection of `state`, checked to be JSON the block can take (only the projection: what
  // lies outside it never leaves the host, and is never walked).
  function projectionOf(state) {
    const projected = projectPaths(state, projectionPaths);
    const problem = jsonProblem(projected, 'the block\'s projection', 0, GENERATOR.stateMaxDepth, Infinity);
    if (problem) throw new TypeError(`flow-ui: ${problem.message}`);
    return projected;
  }

  function flush() {
    flushQueued = false;
    if (status !== 'connected') return;
    const target = next || projectPaths(hostState, projectionPaths);
    next = null;
    const diff = diffProjection(held, target, projectionPaths);
    held = target;
    if (diff.changed.length) postToBlock({ type: 'state', set: diff.set, unset: diff.unset });
  }

  function scheduleFlush() {
    if (flushQueued) return;
    flushQueued = true;
    queueMicrotask(flush);
  }

  // ---- block -> host

  function fieldValues() {
    const out = {};
    for (const f of fields) {
      const v = lookup(hostState, f);
      if (v !== undefined) out[f] = v;
    }
    return out;
  }

  async function handleSend(m) {
    const uiAction = { action: m.action, source: blockId, fields: fieldValues(), payload: m.payload === undefined ? null : m.payload };
    if (!options.onAction) { refuse(m.id, 'refused', 'the host handles no actions', { action: m.action }); return; }
    log('info', 'action', `action ${m.action}`, uiAction);
    let value;
    try {
      value = await options.onAction(uiAction);
    } catch (error) {
      log('error', 'failed', `onAction failed for ${m.action}: ${error}`);
      reply(m.id, false, 'failed', 'the host could not handle the action');
      return;
    }
    if (value !== undefined && jsonProblem(value, 'value', 1)) {
      log('warn', 'not-json', `onAction returned a value that is not JSON; the block gets null`);
      value = null;
    }
    reply(m.id, true, value);
  }

  // The block changed its projection already (where it could): the host's own value goes back to
  // it. `held` is made what the block holds now, so the next flush sends the difference.
  function undoInBlock(m) {
    const mirrored = setIn(held, m.path, m.value);
    if (mirrored.state) held = mirrored.state;
    scheduleFlush();
  }

  // A write that would make the block's init JSON longer than the generator builds is refused:
  // the host could not mount the block again with it (a feed remounts after scrolling), and each
  // message's limit counts a '<' once where the srcdoc's JSON writes it as six characters.
  function tooLarge(m, state) {
    const problem = initProblem(scriptJson({ blockId, paths: init.paths, fields, state: projectPaths(state, projectionPaths), theme }));
    if (!problem) return false;
    refuse(m.id, 'state-too-large', `${m.path}: ${problem}`, { path: m.path });
    undoInBlock(m);
    return true;
  }

  async function handleSetValue(m) {
    // The rule of PROTOCOL.md, "Writing a path", checked before the host's callback hears of it.
    const depth = jsonProblem(m.value, 'value', m.path.split('.').length, GENERATOR.stateMaxDepth, Infinity);
    const base = hostState;
    const written = depth ? { problem: depth.message } : setIn(base, m.path, m.value);
    if (written.problem) {
      refuse(m.id, depth ? depth.reason : 'bad-path', `${m.path}: ${written.problem}`, { path: m.path });
      undoInBlock(m);
      return;
    }
    if (tooLarge(m, written.state)) return;
    if (options.onValue) {
      let verdict;
      try {
        verdict = await options.onValue({ blockId, path: m.path, value: m.value });
      } catch (error) {
        log('error', 'failed', `onValue failed for ${m.path}: ${error}`);
        verdict = false;
      }
      if (verdict === false) {
        refuse(m.id, 'refused', `the host refused the value of ${m.path}`, { path: m.path });
        undoInBlock(m);
        return;
      }
    }
    // The state may have changed while onValue ran: write into the current one.
    const current = setIn(hostState, m.path, m.value);
    if (current.problem) {
      refuse(m.id, 'bad-path', `${m.path}: ${current.problem}`, { path: m.path });
      undoInBlock(m);
      return;
    }
    if (hostState !== base && tooLarge(m, current.state)) return; // measured once unless the state changed meanwhile
    hostState = current.state;
    log('info', 'value', `${m.path} set`, { path: m.path, value: m.value });
    // The block holds its value already (it puts its unanswered writes back on top of any state
    // we sent meanwhile), so only other changes still travel.
    const mirrored = setIn(held, m.path, m.value);
    if (mirrored.state) held = mirrored.state;
    next = null;
    scheduleFlush();
    reply(m.id, true, null);
  }

  // Opens `href` in a new window so that the host knows whether it opened: window.open with
  // noopener returns null even on success, so the host opens about:blank (its return value says
  // whether the popup blocker let it), cuts the opener, and navigates it through a
  // rel=noreferrer link inside it (no Referer, no window.opener). Returns 'opened' or 'blocked'.
  function openWindow(href) {
    const win = window.open('about:blank', '_blank');
    if (!win) return 'blocked';
    try {
      win.opener = null;
      const doc = win.document;
      const a = doc.createElement('a');
      a.href = href;
      a.rel = 'noreferrer noopener';
      (doc.body || doc.documentElement).appendChild(a);
      a.click();
    } catch (error) {
      // Never fall back to a navigation that would carry the host's URL as Referer.
      try { win.close(); } catch (e) { /* gone already */ }
      throw error;
    }
    return 'opened';
  }

  // User activation propagates from a clicked frame to its ancestors (HTML's user-activation
  // model): the host opens a window only while it holds one, and only when it is this block's.
  // The host may hear of the focus moving into the frame after the block's request (Chromium
  // tells the host page through another process): it looks again for a short while first.
  function handleOpenUrl(m, waited = 0) {
    if (status !== 'connected') return;
    const href = new URL(m.url).href; // validated: an absolute https URL
    const foreign = foreignActivation();
    if (foreign && waited < OPEN_URL_FOCUS_WAIT_MS) {
      setTimeout(() => handleOpenUrl(m, waited + 50), 50);
      return;
    }
    if (foreign) {
      refuse(m.id, 'no-gesture', `openUrl needs a user gesture in this block: ${foreign}`, { url: href });
      return;
    }
    if (options.onOpenUrl) {
      let verdict;
      try { verdict = options.onOpenUrl({ blockId, url: href }); } catch (error) { verdict = false; log('error', 'failed', `onOpenUrl failed: ${error}`); }
      if (verdict === false) { refuse(m.id, 'refused', 'the host refused to open the URL', { url: href }); return; }
    }
    let outcome;
    try {
      outcome = openWindow(href);
    } catch (error) {
      log('error', 'failed', `openUrl could not navigate the new window: ${error}`, { url: href });
      reply(m.id, false, 'failed', 'the host could not open the URL');
      return;
    }
    if (outcome === 'blocked') {
      refuse(m.id, 'popup-blocked', 'the browser\'s popup blocker refused to open the window', { url: href });
      return;
    }
    log('info', 'open-url', `opened ${href}`, { url: href });
    reply(m.id, true, outcome);
  }

  function handleHeight(m) {
    if (!autoHeight) return;
    const h = height.report(m.height, m.viewport, frame.clientWidth);
    if (h !== null) {
      frame.style.height = `${h}px`;
      height.laidOut(frame.clientWidth); // read after the change: the page's layout answering it
    }
    if (height.frozen && !heightLoopReported) {
      heightLoopReported = true;
      log('warn', 'height-loop', height.frozen === 'grows-with-frame'
        ? `the block's content grows with its frame (e.g. height: 100vh); its height stays at ${height.height}px`
        : `the block's height oscillates; it stays at ${height.height}px`);
    }
  }

  function handlePong(data) {
    if (!alive || data.n !== alive.n) return;
    clearTimeout(alive.timer);
    alive = null;
    aliveLoads = loads;
  }

  // ---- the one handler map: what the host does with each message of the table (PROTOCOL.md)

  const onLogged = (promise) => promise.catch((e) => log('error', 'failed', String(e)));
  const dispatch = portDispatcher({
    handlers: {
      send: (m) => onLogged(handleSend(m)),
      setValue: (m) => onLogged(handleSetValue(m)),
      openUrl: (m) => handleOpenUrl(m),
      height: handleHeight,
      error: (m) => log('error', 'block-error', m.message, { kind: m.kind || 'error', source: m.source || '', line: m.line || 0, column: m.column || 0 }),
      csp: (m) => log('warn', 'csp-violation', `blocked by the block's policy: ${m.directive} ${m.blockedUri || ''}`.trim(),
        { directive: m.directive, blockedUri: m.blockedUri || '', sample: m.sample || '' }),
      pong: handlePong,
    },
    context: { fields, site, allow },
    budgets: { requests: tokenBucket(LIMITS.rateBurst, LIMITS.ratePerSecond), reports: tokenBucket(LIMITS.reportBurst, LIMITS.reportPerSecond) },
    log, reply, refuse,
    // Only code that went past the runtime posts such a message (the runtime refuses it in the
    // block): the port closes, so the next such message is never decoded on the host's main
    // thread (one of 1.5 million objects held Chromium's host page for a second, measured).
    onForged: (verdict) => removeBlock('closed', 'bridge-closed',
      `the block posted a message its runtime never sends (${verdict.reason}) on the bridge's port; the bridge is closed and the frame removed`),
  });

  function onPortMessage(event) {
    try {
      if (status !== 'connected') return;
      dispatch(event.data);
    } catch (error) {
      log('error', 'host-error', `flow-ui host: ${error}`);
    }
  }

  // ---- the block's document: connected once, and gone at any navigation (PROTOCOL.md, "Handshake")

  function navigated(why) {
    removeBlock('navigated', 'navigated', `the block navigated away from its document (${why}); the bridge is closed and the frame removed`, { loads });
  }

  // The bridge closes and the frame goes, a notice in its place: after a navigation the frame
  // shows somebody else's page inside the host's UI; a block that posts past its runtime could
  // show one next.
  function removeBlock(nextStatus, code, message, detail) {
    if (status !== 'connected' && status !== 'loading') return;
    status = nextStatus;
    if (alive) { clearTimeout(alive.timer); alive = null; }
    if (port) { port.onmessage = null; port.close(); port = null; }
    log('error', code, message, detail);
    iframe.removeEventListener('load', onLoad);
    frame.removeEventListener('load', onHolderLoad);
    try { if (holderWindow) holderWindow.removeEventListener('message', onWindowMessage); } catch (e) { /* gone */ }
    window.removeEventListener('resize', onWindowResize);
    if (notice) {
      noticeElement = document.createElement('p');
      noticeElement.className = 'flow-ui-navigated';
      noticeElement.setAttribute('role', 'status');
      noticeElement.setAttribute('data-block-id', blockId);
      noticeElement.textContent = notice;
      frame.replaceWith(noticeElement);
    } else {
      frame.remove();
    }
    iframe.remove();
    stopFocusGuard();
  }

  // Each load of the frame must be the connected document's: ping it over its port. A document
  // that navigated away, even before its own first load, has nobody left to answer.
  function checkAlive(force = false) {
    if (alive || status !== 'connected' || (!force && (loads === 0 || aliveLoads === loads))) return;
    const n = randomId();
    alive = { n, due: performance.now() + LIMITS.aliveCheckMs, timer: 0 };
    const expire = () => {
      if (!alive || alive.n !== n) return;
      // A timer that ran late means the host's own event loop stalled (Firefox and WebKit share it
      // with the block): the wait only counts time the loop actually ran.
      const late = performance.now() - alive.due;
      if (late > 250) {
        alive.due = performance.now() + 1000;
        alive.timer = setTimeout(expire, 1000);
        return;
      }
      navigated(`its frame loaded a document that does not answer (no pong within ${LIMITS.aliveCheckMs} ms)`);
    };
    alive.timer = setTimeout(expire, LIMITS.aliveCheckMs);
    postToBlock({ type: 'ping', n });
  }

  function onWindowMessage(event) {
    try {
      if (event.source !== iframe.contentWindow || event.source === null) return;
      // After the first hello the window channel carries nothing for the host: what the block's
      // frame posts there is never read (reading decodes it on the host's main thread, and a block
      // can post messages that take seconds to decode: Chromium, measured), and it counts against
      // a reports budget of its own, one log entry per flood (PROTOCOL.md, "Limits").
      if (status !== 'loading' || loads > 1) {
        if (!windowBudget.take(() => log('warn', 'rate-limited', `the block's frame posts more than ${LIMITS.reportBurst} messages at once or ${LIMITS.reportPerSecond} per second to its parent window; the excess is dropped unread`, { budget: 'window' }))) return;
        log('warn', 'hello-refused', 'a message from the block\'s frame to its parent window was ignored unread (a second hello, or the block itself)');
        // A new document in the frame (a reload before the first load) or the block itself: ask.
        if (status === 'connected') checkAlive(true);
        return;
      }
      const data = event.data;
      if (data === null || typeof data !== 'object' || data.type !== HELLO) return;
      const channel = new MessageChannel();
      port = channel.port1;
      port.onmessage = onPortMessage;
      status = 'connected';
      iframe.contentWindow.postMessage({ type: CONNECT, v: LIMITS.protocolVersion }, '*', [channel.port2]);
      if (data.v !== LIMITS.protocolVersion) log('warn', 'version', `the block speaks protocol ${describe(data.v)}; the host ${LIMITS.protocolVersion}`);
      log('info', 'connected', 'the block is connected');
      if (pendingTheme) { postToBlock(pendingTheme); pendingTheme = null; }
      flush();
      checkAlive(); // the frame may have fired its load before the hello arrived
      resolveReady();
    } catch (error) {
      log('error', 'host-error', `flow-ui host: ${error}`);
    }
  }

  // The holder's document is the one made above for as long as the frame stays where it is; a
  // moved or reloaded holder is a new, empty document, and the block in it is gone.
  function onHolderLoad() {
    if (!holder) { buildHolder(); return; }
    if (frame.contentDocument === holder && iframe.isConnected) return;
    navigated('its frame was moved or reloaded by the host page');
  }

  function onLoad() {
    loads += 1;
    // A second load: the block navigated away from its document. Its new document gets nothing.
    if (loads > 1) { navigated(`its frame loaded ${loads} documents`); return; }
    checkAlive();
  }

  // ---- focus: a block takes the keyboard only when the user aims at it (PROTOCOL.md, "Focus");
  // the same evidence says whether a user activation belongs to this block (openUrl).

  const focusGuard = options.focusGuard !== false;
  let lastKey = null;
  let lastPointer = null;
  let pointerOnFrame = false;
  let lastHostFocus = null;
  let focusRefusals = 0;
  let lastFocusLog = -Infinity;
  const onKey = (e) => { if (e.isTrusted) lastKey = { key: e.key, at: performance.now() }; };
  const onPointer = (e) => { if (e.isTrusted) lastPointer = { x: e.clientX, y: e.clientY, at: performance.now() }; };
  const onFrameOver = () => { pointerOnFrame = true; };
  const onFrameOut = () => { pointerOnFrame = false; };
  const onFocusOut = (e) => { if (e.target && e.target !== frame && e.target.tagName !== 'IFRAME') lastHostFocus = e.target; };
  const onBlur = () => { setTimeout(judgeFocus, 0); };
  const mine = {
    frame,
    hovered() {
      if (pointerOnFrame) return true;
      try { return frame.matches(':hover'); } catch (e) { return false; }
    },
  };

  function pointerAimsAtFrame() {
    if (mine.hovered()) return true;
    if (!lastPointer) return false;
    const r = frame.getBoundingClientRect();
    const m = FOCUS_POINTER_MARGIN;
    return lastPointer.x >= r.left - m && lastPointer.x <= r.right + m && lastPointer.y >= r.top - m && lastPointer.y <= r.bottom + m;
  }

  // Whether the host knows the pointer to be somewhere else than on this block: another block's
  // frame is hovered (Firefox fires pointerover on frames), or the host's last pointer event lies
  // outside this frame's margin or nearer another block's frame (Chromium routes no pointer event
  // over a frame to the host: the last one it saw is where the pointer entered a frame).
  function pointerElsewhere() {
    for (const other of MOUNTED) if (other !== mine && other.hovered()) return true;
    if (mine.hovered() || !lastPointer) return false;
    if (!pointerAimsAtFrame()) return true;
    const mineDistance = distanceTo(lastPointer, frame);
    for (const other of MOUNTED) if (other !== mine && distanceTo(lastPointer, other.frame) < mineDistance) return true;
    return false;
  }

  // Why the user activation the host page holds now is not this block's (null: it is). The
  // block's own `gesture` flag is its word; the host's activation propagates from any click in
  // the page. The activation belongs to the block when the user's last click or key press went
  // into it: its frame has the focus (a click on the host page or in another block takes it
  // there), and the pointer is not known to be elsewhere (PROTOCOL.md, "User gestures and openUrl").
  function foreignActivation() {
    if (navigator.userActivation && !navigator.userActivation.isActive) return 'the host page holds no user activation now';
    if (document.activeElement !== frame) return 'the last click or key press was not in this block (its frame does not have the focus)';
    if (pointerElsewhere()) return 'the pointer is on another part of the page, not on this block';
    return null;
  }

  function judgeFocus() {
    if (!focusGuard || status === 'destroyed' || document.activeElement !== frame) return;
    const now = performance.now();
    const recentKey = lastKey && now - lastKey.at < FOCUS_INTENT_MS;
    const tab = recentKey && lastKey.key === 'Tab';
    const typing = recentKey && lastKey.key !== 'Tab';
    const activated = navigator.userActivation ? navigator.userActivation.isActive : true;
    // Where the host saw the pointer last: far from the frame means the user points elsewhere.
    // (Chromium routes no pointer event over a frame to the host; no pointer seen, e.g. touch, says nothing.)
    const elsewhere = lastPointer !== null && !pointerAimsAtFrame();
    if (tab || (activated && !typing && !elsewhere)) return;
    focusRefusals += 1;
    const back = lastHostFocus && lastHostFocus.isConnected ? lastHostFocus : null;
    if (back) back.focus({ preventScroll: true });
    if (document.activeElement === frame) frame.blur();
    if (now - lastFocusLog > 1000) {
      lastFocusLog = now;
      log('warn', 'focus-refused', `the block took the keyboard focus without the user aiming at it; it went back to ${back ? `the host's ${back.tagName.toLowerCase()}` : 'the page'}`,
        { refusals: focusRefusals, typing: Boolean(typing) });
    }
  }

  // The pointer and key listeners serve openUrl too, so they run with focusGuard: false as well.
  function startFocusGuard() {
    MOUNTED.add(mine);
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('pointermove', onPointer, true);
    window.addEventListener('pointerdown', onPointer, true);
    window.addEventListener('blur', onBlur);
    document.addEventListener('focusout', onFocusOut, true);
    frame.addEventListener('pointerover', onFrameOver);
    frame.addEventListener('pointerout', onFrameOut);
  }

  function stopFocusGuard() {
    MOUNTED.delete(mine);
    window.removeEventListener('keydown', onKey, true);
    window.removeEventListener('pointermove', onPointer, true);
    window.removeEventListener('pointerdown', onPointer, true);
    window.removeEventListener('blur', onBlur);
    document.removeEventListener('focusout', onFocusOut, true);
  }

  // The holder's document exists once the frame is in a document: now, or when the host inserts
  // a container it filled while detached (the frame's load event then).
  let holder = null;
  let holderWindow = null;
  function buildHolder() {
    const doc = frame.contentDocument;
    if (holder || !doc || !doc.head || !doc.body) return;
    holder = doc;
    for (const el of [holder.documentElement, holder.body]) {
      el.style.margin = '0';
      el.style.height = '100%';
      el.style.overflow = 'hidden';
    }
    const bases = neutralBases();
    for (const href of bases) {
      const base = holder.createElement('base');
      base.setAttribute('href', href);
      holder.head.replaceChildren(base);
      if (holder.baseURI === href) break;
    }
    if (!bases.includes(holder.baseURI)) {
      log('error', 'host-url-exposed', `the host page's policy (its CSP base-uri) refused <base href="${bases.join('" and "')}"> in the frame that holds the block: the block can read this page's URL through document.baseURI`);
    }
    holderWindow = frame.contentWindow;
    holderWindow.addEventListener('message', onWindowMessage);
    holder.body.appendChild(iframe);
  }

  iframe.addEventListener('load', onLoad);
  if (useHolder) {
    frame.addEventListener('load', onHolderLoad);
  } else {
    holderWindow = window;
    window.addEventListener('message', onWindowMessage);
  }
  startFocusGuard();
  container.appendChild(frame);
  if (useHolder) buildHolder();

  const handle = {
    blockId,
    iframe, // the block's sandboxed frame (inside `frame`)
    frame, // the element in the host's document: the frame that holds the block's
    ready,
    get status() { return status; },
    get loads() { return loads; },
    get state() { return hostState; },
    get projection() { return held; },
    get theme() { return theme; },
    get fields() { return fields.slice(); },
    get paths() { return projectionPaths.slice(); },
    get notice() { return noticeElement; },
    // A new state (the whole state; the block gets its projection, and only what changed).
    // Only the block's projection is walked and checked (it must be JSON): what a push costs
    // does not depend on the state outside it.
    setState(state) {
      if (state === null || state === undefined) state = {};
      if (typeof state !== 'object' || Array.isArray(state)) throw new TypeError(`flow-ui: the state must be a JSON object, not ${describe(state)}`);
      const projected = projectionOf(state);
      hostState = state;
      next = projected;
      scheduleFlush();
    },
    // A JSON Patch (add/replace/remove) on the state; all operations or none.
    patch(ops) {
      let patched;
      let projected;
      try {
        patched = applyPatch(hostState, ops);
        projected = projectionOf(patched);
      } catch (error) {
        log('error', 'bad-patch', error.message);
        throw error;
      }
      hostState = patched;
      next = projected;
      scheduleFlush();
    },
    // A new theme; refused (ThemeError) before anything reaches the block.
    setTheme(nextTheme) {
      let parsed;
      try {
        parsed = parseTheme(nextTheme);
      } catch (error) {
        log('error', 'bad-theme', error.message);
        throw error;
      }
      theme = parsed.json;
      const message = { type: 'theme', theme: parsed.json, css: parsed.css };
      if (status === 'connected') postToBlock(message);
      else pendingTheme = message;
    },
    destroy() {
      if (status === 'destroyed') return;
      status = 'destroyed';
      try { if (holderWindow) holderWindow.removeEventListener('message', onWindowMessage); } catch (e) { /* gone */ }
      iframe.removeEventListener('load', onLoad);
      frame.removeEventListener('load', onHolderLoad);
      stopFocusGuard();
      window.removeEventListener('resize', onWindowResize);
      if (alive) { clearTimeout(alive.timer); alive = null; }
      if (port) { port.onmessage = null; port.close(); port = null; }
      iframe.remove();
      frame.remove();
      if (noticeElement) noticeElement.remove();
    },
  };
  return handle;
}

