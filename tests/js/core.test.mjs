// The runtime's pure functions (bridge/contract.js `core`, copied from flow-ui-runtime.js) and the
// host's (projection, patching, validation, theme) against the same fixtures/ JSON as pytest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { core, LIMITS, THEME } from '../../bridge/contract.js';
import {
  project, projectPaths, scriptJson, applyPatch, validateBlockMessage, parseTheme, diffProjection, heightController, tokenBucket, openUrlProblem, siteOf,
} from '../../bridge/flow-ui-host.js';

const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'));

test('format: data-bind text (fixtures/format.json)', () => {
  for (const c of fixture('format.json')) {
    const value = core.lookup(c.state, c.path);
    assert.equal(value !== undefined, c.found, `${c.name}: found`);
    assert.equal(core.formatValue(value), c.text, c.name);
  }
});

test('emptiness: data-show (fixtures/emptiness.json)', () => {
  for (const c of fixture('emptiness.json')) {
    assert.equal(core.isEmpty(core.lookup(c.state, c.path)), c.empty, c.name);
  }
});

test('projection and its script JSON (fixtures/projection.json)', () => {
  for (const c of fixture('projection.json')) {
    const p = project(c.state, c.paths);
    assert.deepEqual(p, c.projection, c.name);
    assert.equal(JSON.stringify(p), c.json, `${c.name}: json`);
    assert.equal(scriptJson(p), c.script_json, `${c.name}: script_json`);
    for (const path of c.paths) {
      assert.deepEqual(core.lookup(p, path), core.lookup(c.state, path), `${c.name}: ${path} reads the same in the projection`);
    }
  }
});

test('lookup uses own properties only', () => {
  const state = JSON.parse('{"a": {"__proto__": {"x": 1}}, "l": [1, 2]}');
  assert.equal(core.lookup(state, 'a.constructor'), undefined);
  assert.equal(core.lookup(state, 'l.length'), undefined);
  assert.equal(core.lookup({}, 'to_string'), undefined);
  assert.equal(core.lookup(state, 'l.1'), 2);
});

test('JSON Patch (fixtures/bridge/patch.json)', () => {
  for (const c of fixture('bridge/patch.json')) {
    const before = JSON.stringify(c.state);
    if (c.error) {
      assert.throws(() => applyPatch(c.state, c.patch), (e) => e.name === 'PatchError' && e.message.includes(c.error), c.name);
    } else {
      assert.deepEqual(applyPatch(c.state, c.patch), c.result, c.name);
    }
    assert.equal(JSON.stringify(c.state), before, `${c.name}: the input is not modified`);
  }
});

test('block message validation (fixtures/bridge/messages.json)', () => {
  for (const c of fixture('bridge/messages.json')) {
    const v = validateBlockMessage(c.message, { fields: c.fields });
    assert.equal(v.ok ? null : v.reason, c.reason, `${c.name}: ${v.message}`);
  }
});

test('validation: size, depth, non-JSON values, and never a throw', () => {
  let deep = 1;
  for (let i = 0; i < LIMITS.maxMessageDepth; i++) deep = [deep];
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: deep }).reason, 'too-deep');
  const big = 'x'.repeat(LIMITS.maxMessageChars);
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: big }).reason, 'too-large');
  const justFits = 'x'.repeat(LIMITS.maxMessageChars - JSON.stringify({ type: 'send', id: 1, action: 'a', payload: '' }).length);
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: justFits }).ok, true);
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: [1, NaN] }).reason, 'not-json');
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: new Date() }).reason, 'not-json');
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: new Map() }).reason, 'not-json');
  const cyclic = { type: 'send', id: 1, action: 'a', payload: {} };
  cyclic.payload.self = cyclic.payload;
  assert.equal(validateBlockMessage(cyclic).reason, 'too-deep');
  const wide = new Array(1_000_000).fill(0);
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: wide }).reason, 'too-large');
  for (const junk of [undefined, 0, '', true, Symbol('s'), () => 1, new ArrayBuffer(8), Object.create(null)]) {
    assert.equal(validateBlockMessage(junk).ok, false);
  }
  assert.equal(validateBlockMessage({ type: 'send', id: 1, action: 'a', payload: 1 }, { fields: ['x'] }).id, undefined);
  assert.equal(validateBlockMessage({ type: 'send', id: 7, action: 'Bad' }).id, 7, 'a refusal names the request to answer');
});

test('path and action problems are author-readable', () => {
  assert.equal(core.pathProblem('customer.name'), null);
  assert.match(core.pathProblem('Customer'), /segment 1 "Customer" must be snake_case/);
  assert.match(core.pathProblem('a..b'), /segment 2 is empty/);
  assert.match(core.pathProblem(5), /must be a string .* not the number 5/);
  assert.match(core.pathProblem('a.'.repeat(40) + 'a'), /at most 32/);
  assert.match(core.actionProblem('Go'), /snake_case/);
  assert.equal(core.actionProblem('add_to_cart'), null);
});

test('setIn: the rule for writing a path (fixtures/bridge/set_value.json)', () => {
  const deepFreeze = (v) => { if (v && typeof v === 'object') { Object.values(v).forEach(deepFreeze); Object.freeze(v); } return v; };
  for (const c of fixture('bridge/set_value.json')) {
    const state = deepFreeze(JSON.parse(JSON.stringify(c.state)));
    const out = core.setIn(state, c.path, c.value);
    if (c.problem) assert.equal(out.problem, c.problem, c.name);
    else {
      assert.deepEqual(out, { state: c.result }, c.name);
      assert.equal(JSON.stringify(JSON.parse(JSON.stringify(out.state))), JSON.stringify(out.state), `${c.name}: no holes`);
    }
  }
  const state = Object.freeze({ a: Object.freeze({ b: 1 }), c: Object.freeze([1, 2]) });
  assert.equal(core.setIn(state, 'x.y', 1).state.c, state.c, 'untouched branches are shared');
});

// A deterministic PRNG, so a failure names its seed.
function prng(seed) {
  let x = seed >>> 0 || 1;
  return () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x / 2 ** 32; };
}
const pick = (rnd, list) => list[Math.floor(rnd() * list.length)];

function hostileValue(rnd, depth = 0) {
  const leaves = [null, true, 0, -1.5, '', 'x', '__proto__', [], {}, 'constructor'];
  if (depth > 3 || rnd() < 0.4) return pick(rnd, leaves);
  if (rnd() < 0.5) return Array.from({ length: Math.floor(rnd() * 4) }, () => hostileValue(rnd, depth + 1));
  const out = {};
  for (let i = 0; i < Math.floor(rnd() * 4); i++) out[pick(rnd, ['a', 'b', 'items', '0', '3', 'constructor', 'to_string'])] = hostileValue(rnd, depth + 1);
  return out;
}

function hostilePath(rnd) {
  const segments = ['a', 'b', 'items', 'constructor', 'to_string', '0', '1', '2', '3', '10', '99999'];
  return Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(rnd, segments)).join('.');
}

test('fuzz: no write makes a state that is not JSON, and validation never throws', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rnd = prng(seed);
    let state = { items: ['a'], a: { b: [1, { c: 2 }] }, n: 5 };
    for (let i = 0; i < 40; i++) {
      const path = hostilePath(rnd);
      const out = core.setIn(state, path, hostileValue(rnd));
      if (out.state) state = out.state;
      else assert.equal(typeof out.problem, 'string', `seed ${seed}: ${path}`);
      const problem = core.jsonProblem(state, 'state', 0, 64, Infinity);
      assert.equal(problem, null, `seed ${seed}: after ${path}: ${problem && problem.message}`);
      assert.equal(JSON.stringify(JSON.parse(JSON.stringify(state))), JSON.stringify(state), `seed ${seed}: ${path} left a hole`);
    }
    for (let i = 0; i < 40; i++) {
      const message = rnd() < 0.5 ? hostileValue(rnd) : { type: pick(rnd, ['send', 'setValue', 'openUrl', 'height', 'error', 'csp', 'pong', 'ping', 'x']),
        id: pick(rnd, [1, 0, -1, 2 ** 60, '1', null]), path: hostilePath(rnd), value: hostileValue(rnd), url: pick(rnd, ['https://a.example/', 'https://u:p@a.example/', 'javascript:x', 5, 'https://127.0.0.1/x']),
        gesture: pick(rnd, [true, false, 'yes']), n: pick(rnd, [1, 0, 'x']), action: pick(rnd, ['a', 'A', 5]), height: pick(rnd, [1, -1, 'x', NaN]) };
      assert.doesNotThrow(() => validateBlockMessage(message, { fields: ['items.3', 'a.b', 'n'], site: '127.0.0.1' }), `seed ${seed}`);
    }
  }
});

test('rate budgets: exact burst and refill, one report per flood', () => {
  let clock = 0;
  let floods = 0;
  const bucket = tokenBucket(LIMITS.rateBurst, LIMITS.ratePerSecond, () => clock);
  let passed = 0;
  for (let i = 0; i < 500; i++) if (bucket.take(() => floods++)) passed++;
  assert.equal(passed, LIMITS.rateBurst, 'exactly the burst at once');
  assert.equal(floods, 1);
  clock += 1000;
  passed = 0;
  for (let i = 0; i < 500; i++) if (bucket.take(() => floods++)) passed++;
  assert.equal(passed, LIMITS.ratePerSecond, 'exactly the refill a second later');
  assert.equal(floods, 1, 'the same flood: the bucket was never full again');
  clock += 10_000;
  for (let i = 0; i < 500; i++) bucket.take(() => floods++);
  assert.equal(floods, 2, 'a new flood once the bucket was full');
});

test('openUrl: user-info and the host\'s own site are refused', () => {
  assert.equal(siteOf('app.example.com'), 'example.com');
  assert.equal(siteOf('127.0.0.1'), '127.0.0.1');
  assert.equal(siteOf('localhost'), 'localhost');
  assert.equal(siteOf('[::1]'), '[::1]');
  const why = (url, ctx) => { const p = openUrlProblem(new URL(url), ctx); return p && p[0]; };
  assert.equal(why('https://accounts.example.com@evil.example/login', {}), 'user-info');
  assert.equal(why('https://:pw@evil.example/', {}), 'user-info');
  const ctx = { site: 'example.com', allow: ['https://help.example.com/', 'https://example.com/terms'] };
  for (const url of ['https://example.com/api/x?action=delete', 'https://api.example.com/', 'https://EXAMPLE.com./', 'https://a.b.example.com:8443/']) {
    assert.equal(why(url, ctx), 'same-site', url);
  }
  for (const url of ['https://help.example.com/guide', 'https://example.com/terms', 'https://example.org/', 'https://notexample.com/']) {
    assert.equal(why(url, ctx), null, url);
  }
  assert.equal(why('https://example.com/terms/more', ctx), 'same-site', 'an entry without a trailing slash is one URL');
  assert.equal(validateBlockMessage({ type: 'openUrl', id: 1, url: 'https://127.0.0.1:9/api', gesture: false }, { site: '127.0.0.1' }).reason, 'same-site',
    'refused before the gesture is looked at');
});

test('projectPaths: the values of project, walking the paths only', () => {
  for (const c of fixture('projection.json')) {
    assert.deepEqual(projectPaths(c.state, c.paths), project(c.state, c.paths), c.name);
  }
});

test('diffProjection: nothing when no projection path changed, top-level keys otherwise', () => {
  const paths = ['order.total', 'customer'];
  const held = { order: { total: 1 }, customer: { name: 'A' } };
  assert.deepEqual(diffProjection(held, { order: { total: 1 }, customer: { name: 'A' } }, paths).changed, []);
  const d = diffProjection(held, { order: { total: 2 }, customer: { name: 'A' } }, paths);
  assert.deepEqual(d, { changed: ['order.total'], set: { order: { total: 2 } }, unset: [] });
  const gone = diffProjection(held, { order: { total: 1 } }, paths);
  assert.deepEqual(gone, { changed: ['customer'], set: {}, unset: ['customer'] });
});

test('theme: defaults, merge, and refusals that name the token and the value', () => {
  const light = parseTheme(null);
  assert.deepEqual(light.json, THEME.defaults.light);
  const dark = parseTheme({ 'color-scheme': 'dark', accent: 'rgb(1 2 3 / 50%)' });
  assert.equal(dark.json.accent, 'rgb(1 2 3 / 50%)');
  assert.equal(dark.json.text, THEME.defaults.dark.text);
  assert.ok(dark.css.startsWith(':root{color-scheme:dark;--flow-ui-text:'));
  for (const [token, value] of [['accent', 'red;}body{display:none'], ['accent', '</style>'], ['radius', '1px)'], ['accent', 'url(https://x/)'], ['radius', 'calc(1px)'], ['accent', 5]]) {
    assert.throws(() => parseTheme({ [token]: value }), (e) => e.name === 'ThemeError' && e.message.includes(token), `${token}=${value}`);
  }
  assert.throws(() => parseTheme({ nope: 'red' }), /unknown token "nope"/);
  assert.throws(() => parseTheme({ 'color-scheme': 'blue' }), /color-scheme/);
  assert.throws(() => parseTheme({ accent: 'rgb(\u0661,2,3)' }), /not a color/, 'ASCII digits only');
});

test('auto-height: a report from a frame with no viewport yet is not a height', () => {
  // Chromium lays a sandboxed frame out in its own process; until the frame's size arrives there,
  // the block measures {height: 0, viewport: 0} (seen in CI: a remounted feed block jumped to 24 px).
  const h = heightController({ min: 24, max: 1000, jitter: 1, loopLimit: 2 });
  assert.equal(h.report(0, 0), null);
  assert.equal(h.height, null);
  assert.equal(h.report(318, 150), 318);
  assert.equal(h.report(0, 0), null, 'nor later');
  assert.equal(h.height, 318);
  assert.equal(h.report(10, 318), 24, 'a real small height still applies');
});

test('auto-height: bounds, 1px jitter, content that follows its frame, fast oscillation', () => {
  const h = heightController({ min: 24, max: 1000, jitter: 1, loopLimit: 2 });
  assert.equal(h.report(10, 150), 24, 'min bound');
  assert.equal(h.report(5000, 24), 1000, 'max bound');
  const j = heightController({ min: 0, max: 1000, jitter: 1, loopLimit: 2 });
  assert.equal(j.report(100, 150), 100);
  assert.equal(j.report(101, 100), 101);
  assert.equal(j.report(100, 101), null, 'a 1px shrink is ignored');
  assert.equal(j.report(101, 101), null);
  const vh = heightController({ min: 0, max: 4000, jitter: 1, loopLimit: 2 });
  let frame = 150;
  const sizes = [];
  for (let i = 0; i < 20; i++) {
    const next = vh.report(frame + 16, frame); // height: 100vh plus body margins
    if (next === null) break;
    frame = next;
    sizes.push(next);
  }
  assert.ok(sizes.length <= 3, `stops growing (${sizes})`);
  assert.equal(vh.frozen, 'grows-with-frame');
  let clock = 0;
  const flip = heightController({ min: 0, max: 4000, jitter: 1, loopLimit: 2, now: () => clock });
  frame = 150;
  const seen = [];
  for (let i = 0; i < 20; i++) {
    clock += 60; // each report follows the resize by a frame or so
    const next = flip.report(frame > 200 ? 150 : 250, frame, 600); // small in a big frame, big in a small one, at one width
    if (next === null) break;
    frame = next;
    seen.push(next);
  }
  assert.ok(seen.length <= 5, `stops oscillating (${seen})`);
  assert.equal(flip.frozen, 'oscillates');
  assert.equal(frame, 250, 'settles on the larger height');
  // A user dragging the window's edge to and fro: the frame narrows and widens, the block's text
  // wraps onto more lines and fewer, its height goes up and down several times a second. The
  // host's doing, not the block's: it keeps following.
  const dragged = heightController({ min: 0, max: 4000, jitter: 1, loopLimit: 2, now: () => clock });
  for (let i = 0; i < 20; i++) {
    clock += 60;
    const narrow = i % 2 === 1;
    assert.equal(dragged.report(narrow ? 500 : 300, narrow ? 500 : 300, narrow ? 400 : 800), narrow ? 500 : 300, `report ${i}`);
  }
  assert.equal(dragged.frozen, null);
  // The same drag on a busy page: the host's observer saw the frame go to 400 px and back to 800,
  // and the block's reports queue up and reach the host in a burst after the drag, measured at 400
  // and 800 in turn. The host's doing still: nothing freezes (CI froze WebKitGTK's frame at its
  // narrow height once, before).
  const burst = heightController({ min: 0, max: 4000, jitter: 1, loopLimit: 2, now: () => clock });
  burst.report(300, 300, 800);
  clock += 1000;
  burst.resized(400);
  clock += 300;
  burst.resized(800);
  for (let i = 0; i < 8; i++) {
    clock += 20;
    burst.report(i % 2 === 0 ? 500 : 300, i % 2 === 0 ? 500 : 300, 800);
  }
  assert.equal(burst.frozen, null);
  assert.equal(burst.height, 300, 'follows the last report');
  // ... and a block that oscillates at one width after such a drag is still caught, once the
  // frame's width has held still for the settle time.
  frame = 300;
  const since = clock;
  for (let i = 0; i < 60 && !dragged.frozen; i++) {
    clock += 60;
    const next = dragged.report(frame > 200 ? 150 : 250, frame, 800);
    if (next !== null) frame = next;
  }
  assert.equal(dragged.frozen, 'oscillates');
  assert.ok(clock - since <= LIMITS.heightSettleMs + 600, `caught ${clock - since} ms after the drag`);
  // A block cannot keep the count at zero with its own word: the width a report names is not read
  // (a block posting "measured at 1 px" with each swing between 24 and 4096 px kept the page
  // swinging by 4,000 px forever, before).
  const liar = heightController({ min: 24, max: 4096, jitter: 1, loopLimit: 2, now: () => clock });
  frame = 300;
  let swings = 0;
  for (let i = 0; i < 200 && !liar.frozen; i++) {
    clock += 40;
    const next = liar.report(i % 2 ? 24 : 4096, frame, 800, 1);
    if (next !== null) { frame = next; swings += 1; }
  }
  assert.equal(liar.frozen, 'oscillates');
  assert.ok(swings <= 5, `swung ${swings} times`);
  // A block tall in a wide frame and short in a narrow one, on a page whose scrollbar comes with a
  // tall frame and takes 15 px of its width: the width changes in answer to the heights applied
  // here (laidOut), so the reversals count and the loop stops.
  const scrollbar = heightController({ min: 0, max: 4000, jitter: 1, loopLimit: 2, now: () => clock });
  let width = 715;
  const applied = [];
  for (let i = 0; i < 20 && !scrollbar.frozen; i++) {
    clock += 60;
    const next = scrollbar.report(width > 700 ? 2000 : 100, 150, width);
    if (next === null) continue;
    applied.push(next);
    width = next > 600 ? 700 : 715;
    scrollbar.laidOut(width);
  }
  assert.equal(scrollbar.frozen, 'oscillates');
  assert.ok(applied.length <= 5, `stops the scrollbar's coming and going (${applied})`);
  const accordion = heightController({ min: 0, max: 4000, jitter: 1, loopLimit: 2, now: () => clock });
  for (let i = 0; i < 10; i++) {
    clock += 1500; // a user opening and closing a section
    assert.equal(accordion.report(i % 2 ? 100 : 300, i % 2 ? 300 : 100), i % 2 ? 100 : 300);
  }
  assert.equal(accordion.frozen, null);
});
