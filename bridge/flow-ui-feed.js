// A long feed of html blocks, mounted only near the viewport (see docs/SCALE.md, "Many blocks on one page").
//
// Each block gets a placeholder <div>; a block is mounted with mountHtmlBlock when its
// placeholder comes within `mountMargin` of the viewport and unmounted (its frame and
// process freed) when it is further than `unmountMargin`. What the host holds survives:
// the state (with every value the block set through setValue), the theme, and the height
// the block last had, which the placeholder keeps so the page does not jump. What lives
// only inside the block's document (a scroll position, text typed but not yet set with
// setValue, timers) starts again on the next mount, as after a reload.
import { mountHtmlBlock, parseTheme } from './flow-ui-host.js';

const DEFAULTS = { mountMargin: '100% 0px', unmountMargin: '300% 0px', estimatedHeight: 160 };
const FAILED_NOTICE = 'This block could not be shown.';

// items: [{source | srcdoc, blockId, fields, state, theme, ...any mountHtmlBlock option}]
// options: {mountMargin, unmountMargin, estimatedHeight, root, onMount(i, handle), onUnmount(i),
//   onError(i, error): item i could not be mounted (mountHtmlBlock threw; its slot shows a notice)}
export function mountFeed(container, items, options = {}) {
  if (!container || typeof container.appendChild !== 'function') throw new TypeError('mountFeed: container must be a DOM element');
  if (!Array.isArray(items)) throw new TypeError('mountFeed: items must be an array');
  const opts = { ...DEFAULTS, ...options };
  const entries = items.map((item, i) => {
    if (item === null || typeof item !== 'object') throw new TypeError(`mountFeed: item ${i} must be an object`);
    const slot = document.createElement('div');
    slot.className = 'flow-ui-feed-slot';
    slot.dataset.index = String(i);
    slot.style.minHeight = `${opts.estimatedHeight}px`;
    container.appendChild(slot);
    return { item: { ...item }, slot, handle: null, mounts: 0, height: 0, theme: undefined };
  });

  function mount(i) {
    const entry = entries[i];
    if (entry.handle) return;
    let handle;
    try {
      handle = mountHtmlBlock(entry.slot, entry.item);
    } catch (error) {
      // One item that cannot be mounted (a bad item, a state past the generator's limit) stops
      // neither the others of its batch nor throws out of the observer's callback: its slot says so.
      if (entry.failed === undefined) {
        entry.failed = String(error && error.message ? error.message : error);
        const notice = document.createElement('p');
        notice.className = 'flow-ui-feed-failed';
        notice.setAttribute('role', 'status');
        notice.textContent = FAILED_NOTICE;
        entry.slot.appendChild(notice);
        if (opts.onError) opts.onError(i, error);
      }
      return;
    }
    if (entry.failed !== undefined) {
      entry.failed = undefined;
      for (const n of entry.slot.querySelectorAll(':scope > .flow-ui-feed-failed')) n.remove();
    }
    entry.handle = handle;
    entry.mounts += 1;
    if (entry.height) {
      // Mounted again: the frame starts at the height the block had, so nothing moves.
      handle.frame.style.height = `${entry.height}px`;
      entry.slot.style.minHeight = '';
    } else {
      // The placeholder's height holds until the block is connected.
      handle.ready.then(() => { if (entry.handle === handle) entry.slot.style.minHeight = ''; });
    }
    // A srcdoc carries its own theme: a theme set while unmounted is sent after the mount.
    if (entry.item.srcdoc !== undefined && entry.theme !== undefined) handle.setTheme(entry.theme);
    if (opts.onMount) opts.onMount(i, handle);
  }

  function unmount(i) {
    const entry = entries[i];
    const handle = entry.handle;
    if (!handle) return;
    // Keep what the host holds: the state the block changed, the theme, and the height it had.
    entry.item = { ...entry.item, state: handle.state };
    if (entry.item.srcdoc === undefined) entry.item.theme = handle.theme;
    else entry.theme = handle.theme;
    const height = handle.frame.getBoundingClientRect().height;
    if (height > 0) {
      entry.height = height;
      entry.slot.style.minHeight = `${height}px`;
    }
    handle.destroy();
    entry.handle = null;
    if (opts.onUnmount) opts.onUnmount(i);
  }

  let resolveSettled;
  const settled = new Promise((resolve) => { resolveSettled = resolve; });
  const index = (target) => Number(target.dataset.index);
  const near = new IntersectionObserver((records) => {
    for (const r of records) if (r.isIntersecting) mount(index(r.target));
    resolveSettled();
  }, { root: opts.root || null, rootMargin: opts.mountMargin });
  const far = new IntersectionObserver((records) => {
    for (const r of records) if (!r.isIntersecting) unmount(index(r.target));
  }, { root: opts.root || null, rootMargin: opts.unmountMargin });
  for (const e of entries) { near.observe(e.slot); far.observe(e.slot); }

  return {
    settled,
    get length() { return entries.length; },
    // Indexes of the blocks mounted now.
    get mounted() { return entries.flatMap((e, i) => (e.handle ? [i] : [])); },
    handle(i) { return entries[i].handle; },
    mounts(i) { return entries[i].mounts; },
    // Why item i could not be mounted (mountHtmlBlock's error message), or undefined.
    failed(i) { return entries[i].failed; },
    state(i) { return entries[i].handle ? entries[i].handle.state : entries[i].item.state; },
    // A new state for block i, mounted or not (an unmounted block gets it when mounted again).
    setState(i, state) {
      const e = entries[i];
      if (e.handle) e.handle.setState(state);
      else e.item = { ...e.item, state };
    },
    setTheme(i, theme) {
      const e = entries[i];
      parseTheme(theme); // a bad theme is refused now (ThemeError), mounted or not
      if (e.handle) e.handle.setTheme(theme);
      else if (e.item.srcdoc !== undefined) e.theme = theme;
      else e.item = { ...e.item, theme };
    },
    destroy() {
      near.disconnect();
      far.disconnect();
      entries.forEach((e, i) => { if (e.handle) { e.handle.destroy(); e.handle = null; } e.slot.remove(); });
    },
  };
}
