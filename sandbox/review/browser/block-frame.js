// What the review harness runs inside the block's frame, one function per call: the harness reads
// each function's text from this file (sandbox/review/browser/hostpage.py, frame_function) and
// evaluates it in the frame, so nothing of it stays in the block's window. They run in the block's
// own JS world: a block that redefines DOM methods can steer the clicks (docs/REVIEW-BROWSER.md
// says so; the static layer's findings stand either way). sel: the selector of the elements a user
// acts on (ACTIONABLE in hostpage.py); i: an element's index among its matches.

// The first 60 elements a user acts on, as the harness plans its actions on them.
export const listActions = (sel) => [...document.querySelectorAll(sel)].slice(0, 60).map((e, i) => ({
  i, tag: e.tagName.toLowerCase(), type: (e.getAttribute('type') || '').toLowerCase(),
  link: e.matches('a[href]'), name: e.id || e.getAttribute('name') || e.getAttribute('aria-label') || e.getAttribute('placeholder') || '',
  min: e.getAttribute('min') || '', max: e.getAttribute('max') || '', step: e.getAttribute('step') || '',
  inputmode: (e.getAttribute('inputmode') || '').toLowerCase(), autocomplete: (e.getAttribute('autocomplete') || '').toLowerCase(),
  maxlength: e.maxLength > 0 ? e.maxLength : 0,
  visible: e.getClientRects().length > 0 && !e.disabled }));

// Bring element i into view and say where a user would click it (frame coordinates), or null when
// it is gone or has no box. clear: empty a text field first (the typing that follows replaces its
// value, as a user's select-all would).
export const locate = ([sel, i, clear]) => {
  const e = document.querySelectorAll(sel)[i]; if (!e || !e.isConnected) return null;
  e.scrollIntoView({ block: 'center', inline: 'center' });
  const r = e.getClientRects()[0]; if (!r || r.width <= 0 || r.height <= 0) return null;
  if (clear && 'value' in e) e.value = '';
  return [r.left + r.width / 2, r.top + r.height / 2];
};

// After the click that should have focused element i: focus it if the click did not (a covering
// element took it), so the typing that follows reaches it.
export const focusElement = ([sel, i]) => {
  const e = document.querySelectorAll(sel)[i];
  if (e && document.activeElement !== e) e.focus(); return !!e && document.activeElement === e;
};

// Choose the last option of select i and fire input and change, as Playwright's selectOption does
// (its events are not trusted either).
export const selectLast = ([sel, i]) => {
  const e = document.querySelectorAll(sel)[i]; if (!e || !e.options || !e.options.length) return false;
  e.selectedIndex = e.options.length - 1; e.dispatchEvent(new Event('input', { bubbles: true }));
  e.dispatchEvent(new Event('change', { bubbles: true })); return true;
};

// Whether the block's root has the colour scheme s (the dark theme arrived over the bridge).
export const hasColorScheme = (s) => getComputedStyle(document.documentElement).colorScheme === s;

// Resolves once the frame is as tall as its document (the host has applied the block's height
// report) in two animation frames running, or after `ms`: whether it is. Before that, scrolling the
// host page to the block's end does not bring the end into view (it is inside the frame, below it).
export const sized = (ms) => new Promise((r) => {
  const end = performance.now() + ms;
  let fits = 0;
  const check = () => {
    fits = document.documentElement.scrollHeight <= innerHeight + 1 ? fits + 1 : 0;
    if (fits >= 2 || performance.now() > end) r(fits >= 2); else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
});

// Resolves once the frame sees its end in the top-level viewport (an IntersectionObserver of the
// frame's root, whose callbacks come in the same task as, and after, those of the block's own
// observers), or after `ms`: what a scroll of the host page brought into view has been delivered.
// A frame in a process of its own (Chromium) learns of the host's scroll only when its process
// gets the CPU, long after the host page on a loaded machine.
export const endSeen = (ms) => new Promise((r) => {
  const root = document.documentElement;
  const done = (seen) => { clearTimeout(timer); io.disconnect(); r(seen); };
  const io = new IntersectionObserver((entries) => {
    const e = entries[entries.length - 1];
    if (e.isIntersecting && e.intersectionRect.bottom >= e.boundingClientRect.bottom - 1) done(true);
  }, { threshold: [0, 0.25, 0.5, 0.75, 1] });
  const timer = setTimeout(() => done(false), ms);
  io.observe(root);
});
