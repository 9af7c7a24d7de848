// The review's host page script (sandbox/review/browser/hostpage.py puts it in the page as a module
// script, then calls start(mountHtmlBlock, config) with its parameters as JSON). A page slot loads
// the page once and mounts block after block in it (mount), each with a fresh record,
// window.__review; the harness calls the functions of window.__reviewHost from outside the block's
// frame (docs/REVIEW-BROWSER.md, "The host page").

// What a record keeps: at most config.maxItems items per list (a flood is counted by the host's own
// rate limit), each a JSON copy of what the host was given, cut to config.maxChars characters.
export const recorder = ({ maxItems, maxChars }) => ({
  keep: (list, item) => { if (list.length < maxItems) list.push(item); },
  copy: (v) => { try { const t = JSON.stringify(v); return t.length > maxChars ? t.slice(0, maxChars) : JSON.parse(t); } catch (e) { return String(v); } },
});

// config: {maxItems, maxChars, frame}; frame: the selector of the block's frame (the host module's holder frame).
export const start = (mountHtmlBlock, config) => {
  const { keep, copy } = recorder(config);
  // openUrl is recorded and answered as a host that opens URLs answers ("opened"), but the window
  // is a stand-in: an inert document, so the host module's link click in it goes nowhere.
  window.open = () => ({ opener: null, closed: false, close() {}, document: document.implementation.createHTMLDocument('') });
  let r = null, sizes = null, last = performance.now();
  setInterval(() => { const now = performance.now(); if (r) r.maxGap = Math.max(r.maxGap, now - last); last = now; }, 50);
  // The heartbeat (block.beat, where the harness cannot ask the page while a call is running):
  // every 0.5 s while the page's thread runs; a block that spins stops it in every engine that runs
  // the block's frame on its host's thread.
  let beating = '', beats = 0;
  const beat = (url) => {
    if (!url || url === beating) return;
    beating = url;
    const send = () => { fetch(url, { mode: 'no-cors', cache: 'no-store' }).catch(() => {}); };
    send();
    clearInterval(beats);
    beats = setInterval(send, 500);
  };

  // One page, many blocks: each mount starts a fresh record and destroys the last block first.
  // block: {srcdoc, background, beat}.
  const mount = (block) => {
    beat(block.beat);
    if (r && r.handle) r.handle.destroy();
    if (sizes) sizes.disconnect();
    const box = document.getElementById('block');
    box.replaceChildren();
    document.body.style.background = block.background;
    scrollTo(0, 0);
    const own = r = window.__review = { ready: false, connected: '', actions: [], values: [], urls: [], log: [], errors: [],
      heights: [], maxGap: 0 };
    last = performance.now();
    try {
      own.handle = mountHtmlBlock(box, {
        srcdoc: block.srcdoc,
        // With the holder frame, as a host page mounts a block: the block's base URL is about:blank
        // and its parent is the holder, as in production (docs/REVIEW-BROWSER.md, "The host page").
        onAction: (a) => { keep(own.actions, copy(a)); return { ok: true }; },
        onValue: (v) => { keep(own.values, copy(v)); return true; },
        onOpenUrl: (u) => { keep(own.urls, copy(u)); return true; },
        onLog: (e) => keep(own.log, copy(e)),
      });
      sizes = new ResizeObserver(() => keep(own.heights, Math.round(own.handle.frame.getBoundingClientRect().height)));
      sizes.observe(own.handle.frame);
      Promise.race([
        own.handle.ready.then(() => 'connected'),
        new Promise((resolve) => setTimeout(() => resolve('not connected within 5 s'), 5000)),
      ]).then((how) => { own.connected = how; own.ready = true; });
    } catch (e) { own.errors.push('mount: ' + e); own.ready = true; }
    return true;
  };

  // Resolves once the block is mounted and heard from (or not within 5 s): one call the page answers
  // when it is up, not a round trip per poll.
  const ready = () => new Promise((resolve) => { const poll = () => window.__review && window.__review.ready ? resolve(true)
    : setTimeout(poll, 10); poll(); });

  // What the harness reads back (one call: a busy page answers once).
  const read = () => {
    const r = window.__review; if (!r) return null;
    const h = r.handle;
    return { ready: r.ready, connected: r.connected, actions: r.actions, values: r.values, urls: r.urls,
      log: r.log, errors: r.errors, heights: r.heights, maxGap: Math.round(r.maxGap), status: h ? h.status : 'unmounted',
      loads: h ? h.loads : 0, height: h ? Math.round(h.iframe.getBoundingClientRect().height) : 0 };
  };

  // Destroy the block's frame (its pending loads stop), as a host does.
  const unmount = () => {
    const r = window.__review; if (r && r.handle) r.handle.destroy();
    const b = document.getElementById('block'); if (b) b.replaceChildren(); return true;
  };

  // Whether the block's frame is still there, and how many loads it had.
  const frameState = () => ({ frame: !!document.querySelector(config.frame),
    loads: window.__review && window.__review.handle ? window.__review.handle.loads : 0 });

  // The block's box, as a screenshot's clip.
  const clip = () => {
    const r = document.getElementById('block').getBoundingClientRect();
    return { x: 0, y: 0, width: Math.ceil(r.right + 8), height: Math.ceil(Math.min(r.bottom + 8, 2000)) };
  };

  // Scroll to the end of the block's frame (as a reader does); resolves, once painted, with whether
  // the page scrolls at all. The harness then waits for the block's frame to render and for a
  // reader's dwell (Lane._scroll_end), and scrolls back.
  const scrollEnd = () => new Promise((r) => {
    const scrolls = document.documentElement.scrollHeight > innerHeight;
    scrollTo(0, document.body.scrollHeight);
    requestAnimationFrame(() => r(scrolls));
  });
  const scrollBack = () => { scrollTo(0, 0); return true; };

  // Resolves after an animation frame and a little more (a theme painted).
  const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)));
  // Resolves after two animation frames and a little more (a resize delivered).
  const resized = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));

  // Frame point [x, y] of the block's frame (inside the host module's holder frame) as a viewport
  // point, the host page scrolled first when the point is outside the viewport (the frame can be
  // taller than it); with it, where a pointer coming from the host page enters the frame: the host
  // module judges whose click it was by the last pointer event it saw (docs/THREATS.md).
  const toViewport = ([x, y]) => {
    const f = document.querySelector(config.frame); if (!f) return null;
    const inner = f.contentDocument && f.contentDocument.querySelector('iframe'); if (!inner) return null;
    const box = (e) => { const r = e.getBoundingClientRect(), s = e.ownerDocument.defaultView.getComputedStyle(e);
      return [r.left + e.clientLeft + parseFloat(s.paddingLeft), r.top + e.clientTop + parseFloat(s.paddingTop)]; };
    const at = () => { const [hx, hy] = box(f), [bx, by] = box(inner); return [hx + bx + x, hy + by + y]; };
    let [px, py] = at();
    if (py < 0 || py >= innerHeight || px < 0 || px >= innerWidth) { scrollBy(px - innerWidth / 2, py - innerHeight / 2); [px, py] = at(); }
    const r = f.getBoundingClientRect();
    const entry = r.left >= 4 ? [r.left - 3, py] : r.top >= 4 ? [px, r.top - 3] : [Math.min(innerWidth - 1, r.right + 3), py];
    return [px, py, entry[0], entry[1]];
  };

  window.__reviewHost = {
    mount, ready, read, unmount, frameState, clip, scrollEnd, scrollBack, painted, resized, toViewport,
    // The state update and the theme switch, as a host sends them to the mounted block.
    setState: (s) => window.__review.handle.setState(s),
    setTheme: (t) => window.__review.handle.setTheme(t),
  };
};
