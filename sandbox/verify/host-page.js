// What every verify host page runs first, whichever way its blocks arrive (sandbox/verify/host_page.py
// puts it in the page as a classic script, in its head: it runs before the blocks' frames load).
// A host page loaded for one run then calls __hostStart(init) with the run's secrets as JSON and waits
// for its load event (__hostLoaded); a kept host page (docs/SCALE.md) gets each run through
// __hostMount(run). The listeners record into the current run's record, window.__host, which a kept
// page replaces at each mount.
(() => {
  const copy = (v) => { try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); } };
  let last = performance.now();
  setInterval(() => { const h = window.__host, now = performance.now(); if (h) h.maxGap = Math.max(h.maxGap, now - last); last = now; }, 50);
  addEventListener('message', (e) => { const h = window.__host; if (h && h.messages.length < 50) h.messages.push({origin: e.origin, data: copy(e.data)}); });
  addEventListener('error', (e) => { const h = window.__host; if (h) h.errors.push(String(e.message)); });
  const settled = () => { const h = window.__host; h.historyLength = history.length; h.maxGap = 0; last = performance.now(); };
  // A run's record: its secrets (init) and what the host saw; storage holds this run's secrets.
  window.__hostStart = (init) => {
    const h = window.__host = Object.assign(init, {ready: false, maxGap: 0, messages: [], log: [], actions: [],
      values: [], urls: [], errors: [], handles: []});
    h.title = document.title;
    try { localStorage.setItem('flowui_secret', h.ls); sessionStorage.setItem('flowui_secret', h.ss); }
    catch (e) { h.errors.push('storage: ' + e); }
    return h;
  };
  // A loaded host page: ready at its load event (bridge blocks: once connected, __hostBridge).
  window.__hostLoaded = () => { settled(); if (!window.__host.bridge) window.__host.ready = true; };
  window.__hostBridge = (mountHtmlBlock) => {
    const h = window.__host;
    try {
      h.blocks.forEach((b, i) => {
        // b.srcdoc: the document an external generator built (verify --generator-protocol json).
        const doc = b.srcdoc ? {srcdoc: b.srcdoc} : {source: b.source, blockId: b.block_id, fields: b.fields};
        h.handles[i] = mountHtmlBlock(document.getElementById('block-' + i), {
          ...doc, state: b.state, theme: b.theme || undefined,
          onAction: (a) => { h.actions.push(copy(a)); return {ok: true}; },
          onValue: (v) => { h.values.push(copy(v)); },
          // Refused after recording: the harness sees what reached the host without opening windows.
          onOpenUrl: (u) => { h.urls.push(copy(u)); return false; },
          onLog: (entry) => { if (h.log.length < 200) h.log.push(copy(entry)); },
        });
      });
    } catch (e) { h.errors.push('mount: ' + e); }
    // Ready when every block is connected (its handle's promise), or after 5 s, recorded as not connected.
    Promise.race([
      Promise.all(h.handles.map((x) => x && x.ready)).then(() => 'connected'),
      new Promise((resolve) => setTimeout(() => resolve('not connected within 5 s'), 5000)),
    ]).then((how) => { h.connected = how; h.ready = true; });
  };
  // A kept host page (docs/SCALE.md): the last run's blocks go, this run's secrets and blocks come.
  // run: {url, title, cookies, init, iframes}: iframes are the static blocks' HTML, or null (bridge).
  window.__hostMount = async (run) => {
    const old = window.__host;
    for (const x of (old && old.handles) || []) { try { x && x.destroy(); } catch (e) {} }
    for (const d of document.querySelectorAll('.flowui-block')) d.remove();
    delete window.__pwned; delete document.body.dataset.pwned;
    history.replaceState(null, '', run.url);
    document.title = run.title;
    document.getElementById('secret').textContent = run.init.dom;
    const h = window.__hostStart(run.init);
    await fetch(run.cookies, {credentials: 'same-origin', cache: 'no-store'});  // this run's host cookies
    settled();
    let at = document.getElementById('secret');  // blocks follow it, as in a loaded host page
    (run.iframes || h.blocks).forEach((html, i) => {
      const d = document.createElement('div');
      d.className = 'flowui-block'; d.id = 'block-' + i;
      if (run.iframes) d.innerHTML = html;
      at.after(d); at = d;
    });
    if (h.bridge) {
      window.__hostBridge((await import('/bridge/flow-ui-host.js')).mountHtmlBlock);
    } else {
      const loads = [...document.querySelectorAll('.flowui-block iframe')]
        .map((f) => new Promise((resolve) => f.addEventListener('load', resolve, {once: true})));
      Promise.race([Promise.all(loads), new Promise((resolve) => setTimeout(resolve, 5000))]).then(() => { h.ready = true; });
    }
    return history.length;
  };
})();
