// flow-ui host module: mounts an html block into a page and is the only authority over it.
// See bridge/PROTOCOL.md. Everything the block sends is untrusted: it is validated here, and no
// message, however malformed, makes this module throw. The constants come from the generated
// contract.js (never retyped here).

import {
  CSP, SANDBOX, REFERRER_POLICY, PATHS, GENERATOR, THEME, LIMITS, RUNTIME_SOURCE, core,
} from './contract.js';

export { CSP, SANDBOX, REFERRER_POLICY, LIMITS };

const { describe, pathProblem, actionProblem, lookup, jsonProblem, deepEqual, setIn } = core;
const hasOwn = Object.prototype.hasOwnProperty;
const BLOCK_ID = new RegExp(`^(?:${GENERATOR.blockIdPattern})$`);
const COLOR = new RegExp(`^(?:${THEME.colorPattern})$`);
const LENGTH = new RegExp(`^(?:${THEME.lengthPattern})$`);
const NAMED_COLORS = new Set(THEME.namedColors);
const NOT_TEXT = /[\u0000\ud800-\udfff]/u; // NUL or a lone surrogate
const RUNTIME_UNSAFE = /<\/script|<script|<!--/i;

// ------------------------------------------------------------------ building the document

// JSON.stringify, then the characters that could end or confuse a script element as \u escapes.
export function scriptJson(value) {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// An attribute value as the HTML standard serialises it, plus CR as &#13; (as the Python generator).
export function escapeAttribute(value) {
  return value.replace(/[&"<>\u00a0\r]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;', '\r': '&#13;' })[c]);
}

function codePoints(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

function checkBlockId(blockId) {
  if (typeof blockId !== 'string' || !BLOCK_ID.test(blockId)) {
    throw new TypeError(`flow-ui: block id ${describe(blockId)} must be a letter followed by at most 63 letters, digits, '_' or '-'`);
  }
  return blockId;
}

function checkText(text, what) {
  if (typeof text !== 'string') throw new TypeError(`flow-ui: ${what} must be a string, not ${describe(text)}`);
  const bad = NOT_TEXT.exec(text);
  if (bad) {
    const before = text.slice(0, bad.index);
    const line = before.split('\n').length;
    const column = bad.index - before.lastIndexOf('\n');
    throw new TypeError(`flow-ui: ${what} line ${line} column ${column}: ${bad[0] === '\u0000' ? 'a NUL character' : 'a lone surrogate'} cannot be carried in a block document`);
  }
  return text;
}

// The valid paths of `paths`, in order, without duplicates; every problem reported at once.
function checkPaths(paths, what, frozen = []) {
  if (!Array.isArray(paths)) throw new TypeError(`flow-ui: ${what} must be an array of paths, not ${describe(paths)}`);
  const problems = [];
  const seen = [];
  paths.forEach((path, i) => {
    let why = pathProblem(path);
    if (!why && frozen.includes(path.split('.')[0])) why = `${JSON.stringify(path.split('.')[0])} is a frozen system field and cannot be used in a block`;
    if (why) problems.push(`${what}[${i}] ${describe(path)}: ${why}`);
    else if (!seen.includes(path)) seen.push(path);
  });
  if (problems.length) throw new TypeError(`flow-ui: ${problems.join('; ')}`);
  return seen;
}

function checkState(state) {
  if (state === null || state === undefined) return {};
  if (typeof state !== 'object' || Array.isArray(state)) throw new TypeError(`flow-ui: the state must be a JSON object, not ${describe(state)}`);
  const problem = jsonProblem(state, 'state', 0, GENERATOR.stateMaxDepth, Infinity);
  if (problem) throw new TypeError(`flow-ui: ${problem.message}`);
  return state;
}

// The projection of `state` on `paths` (SPEC §2; the same rules as sandbox/projection.py):
// a path to an object carries all of it, missing paths add nothing, arrays reached through
// indexes keep their projected elements at their indexes with null before them.
export function project(state, paths) {
  return projectBy(state, paths, (value, node) => Object.keys(value).filter((key) => node.has(key)));
}

// The projection as `project` makes it, but found by walking the block's paths only, never the
// keys of the state around them: what a push costs depends on the block's own paths, not on the
// size of the state outside them (a block that times the host must learn nothing from it). Keys
// of an object reached through several paths come in path order (`project` keeps state order;
// the values are the same, only JSON.stringify of such an object can differ).
export function projectPaths(state, paths) {
  return projectBy(state, paths, (value, node) => [...node.keys()].filter((key) => hasOwn.call(value, key)));
}

// The shared walk: `keysOf(object, node)` says which keys of an object to visit, and in what order.
function projectBy(state, paths, keysOf) {
  const WHOLE = Symbol('whole');
  const trie = new Map();
  for (const path of paths) {
    let node = trie;
    let whole = false;
    for (const segment of path.split('.')) {
      if (node.has(WHOLE)) { whole = true; break; }
      if (!node.has(segment)) node.set(segment, new Map());
      node = node.get(segment);
    }
    if (!whole) { node.clear(); node.set(WHOLE, true); }
  }
  function pick(value, node) {
    if (node.has(WHOLE)) return structuredCloneJson(value);
    if (value === null || typeof value !== 'object') return MISSING;
    if (Array.isArray(value)) {
      const found = new Map();
      for (const [segment, sub] of node) {
        if (/^(?:0|[1-9][0-9]*)$/.test(segment) && +segment < value.length) {
          const v = pick(value[+segment], sub);
          if (v !== MISSING) found.set(+segment, v);
        }
      }
      if (!found.size) return MISSING;
      const out = [];
      for (let i = 0; i <= Math.max(...found.keys()); i++) out.push(found.has(i) ? found.get(i) : null);
      return out;
    }
    const out = {};
    let any = false;
    for (const key of keysOf(value, node)) {
      const v = pick(value[key], node.get(key));
      if (v !== MISSING) { out[key] = v; any = true; }
    }
    return any ? out : MISSING;
  }
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return {};
  const picked = pick(state, trie);
  return picked === MISSING ? {} : picked;
}
const MISSING = Symbol('missing');

// ---- openUrl: which URLs a block may open

function isIpOrSingleLabel(hostname) {
  return hostname.startsWith('[') || /^[0-9.]+$/.test(hostname) || !hostname.includes('.');
}

// The host's site, the rule PROTOCOL.md states ("openUrl"): without a public-suffix list the
// site of a name is its last two labels (errs towards refusing more: a host under co.uk counts
// all of co.uk as its own unless it names its site); an IP address or a single label is a site of its own.
export function siteOf(hostname) {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (!name || isIpOrSingleLabel(name)) return name;
  return name.split('.').slice(-2).join('.');
}

function sameSite(hostname, site) {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return site !== '' && (name === site || name.endsWith(`.${site}`));
}

function checkAllowList(list) {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new TypeError(`mountHtmlBlock: allowOwnSiteUrls must be an array of https URLs, not ${describe(list)}`);
  return list.map((entry, i) => {
    let url = null;
    try { url = typeof entry === 'string' ? new URL(entry) : null; } catch (e) { url = null; }
    if (!url || url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
      throw new TypeError(`mountHtmlBlock: allowOwnSiteUrls[${i}] ${describe(entry)} must be an absolute https URL without user name, query or fragment`);
    }
    return url.href;
  });
}

// Why a block may not open `url` (a URL object), as [reason, text], or null. `site` is the host's
// site ('' when the page has no host name), `allow` the normalised allowOwnSiteUrls.
export function openUrlProblem(url, { site = '', allow = [] } = {}) {
  if (url.username || url.password) return ['user-info', `${JSON.stringify(url.href.slice(0, 100))} carries a user name or password; such URLs are refused`];
  if (sameSite(url.hostname, site) && !allow.some((a) => url.href === a || (a.endsWith('/') && url.href.startsWith(a)))) {
    return ['same-site', `${url.origin} is on the host's own site (${site}); a block opens it only where allowOwnSiteUrls lists it`];
  }
  return null;
}

// ---- the rate budgets: the author's requests, and everything else (PROTOCOL.md, "Limits")

export function tokenBucket(burst, perSecond, now = () => performance.now()) {
  let tokens = burst;
  let at = now();
  let dropped = 0;
  return {
    // true when the message may pass; `onFlood` runs once per flood (until the bucket is full again).
    take(onFlood) {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - at) / 1000) * perSecond);
      at = t;
      if (tokens >= burst) dropped = 0;
      if (tokens >= 1) { tokens -= 1; return true; }
      dropped += 1;
      if (dropped === 1 && onFlood) onFlood();
      return false;
    },
  };
}

const REQUESTS = ['send', 'setValue', 'openUrl'];

// A deep copy of a JSON value (already checked to be JSON).
function structuredCloneJson(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(structuredCloneJson);
  const out = {};
  for (const key of Object.keys(value)) out[key] = structuredCloneJson(value[key]);
  return out;
}

// ---- theme

export class ThemeError extends TypeError {
  constructor(message) { super(message); this.name = 'ThemeError'; }
}

function shown(value) {
  const text = typeof value === 'string' ? JSON.stringify(value) : describe(value);
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

function tokenProblem(token, value) {
  const kind = hasOwn.call(THEME.tokens, token) ? THEME.tokens[token] : null;
  if (kind === null) return `theme: unknown token ${shown(token)} (known tokens: ${Object.keys(THEME.tokens).join(', ')}, and color-scheme)`;
  if (typeof value !== 'string') return `theme token '${token}': value ${shown(value)} must be a string`;
  if (value.length > THEME.maxValueLength) return `theme token '${token}': value ${shown(value)} is longer than ${THEME.maxValueLength} characters`;
  if (kind === 'color') {
    return NAMED_COLORS.has(value.toLowerCase()) || COLOR.test(value) ? null
      : `theme token '${token}': value ${shown(value)} is not a color (#hex, rgb(), rgba(), hsl(), hsla() or a CSS color name)`;
  }
  return LENGTH.test(value) ? null : `theme token '${token}': value ${shown(value)} is not a length (0, or a number with px, rem, em or %)`;
}

// A complete, validated theme from its flat form (missing tokens from the scheme's default):
// {json, css}, or ThemeError naming every bad token and value. Same rules as theme/__init__.py.
export function parseTheme(data) {
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new ThemeError(`theme: expected a JSON object, got ${describe(data)}`);
  const scheme = hasOwn.call(data, 'color-scheme') ? data['color-scheme'] : 'light';
  if (!THEME.colorSchemes.includes(scheme)) throw new ThemeError(`theme: color-scheme ${shown(scheme)} must be 'light' or 'dark'`);
  const problems = Object.keys(data).filter((k) => k !== 'color-scheme').map((k) => tokenProblem(k, data[k])).filter(Boolean);
  if (problems.length) throw new ThemeError(problems.join('; '));
  const json = { 'color-scheme': scheme };
  let css = `:root{color-scheme:${scheme};`;
  for (const token of Object.keys(THEME.tokens)) {
    json[token] = hasOwn.call(data, token) ? data[token] : THEME.defaults[scheme][token];
    css += `${THEME.prefix}${token}:${json[token]};`;
  }
  return { json, css: `${css}}` };
}

// ---- paths from markup, as a browser's parser sees them

// The markup paths of `source`, parsed by this browser as the block document's body is.
// DOMParser parses with scripting disabled, where <noscript> content becomes elements; in the
// block it is text, so elements inside <noscript> are skipped. The server's extraction
// (sandbox.extract_paths) is the reference: pass `paths` when you have them.
export function extractPaths(source, frozen = []) {
  const doc = new DOMParser().parseFromString(GENERATOR.extractionPrefix + source, 'text/html');
  const found = [];
  for (const el of doc.querySelectorAll('[data-bind],[data-show]')) {
    if (el.closest('noscript')) continue;
    for (const attr of el.attributes) {
      if (attr.name === 'data-bind' || attr.name === 'data-show') found.push(attr.value);
    }
  }
  return checkPaths(found, 'markup paths', frozen);
}

// The block document, byte for byte what sandbox.generator.build_srcdoc writes for the same inputs.
export function buildSrcdoc(source, { blockId, fields = [], state = null, theme = null, paths = null, frozen = [] } = {}) {
  checkBlockId(blockId);
  checkText(source, 'source');
  // UTF-8 bytes: at least one per UTF-16 unit, so the encoder only runs near the limit.
  if (source.length * 3 > GENERATOR.maxSourceBytes) {
    const size = new TextEncoder().encode(source).length;
    if (size > GENERATOR.maxSourceBytes) throw new TypeError(`flow-ui: source: ${size} bytes of UTF-8; at most ${GENERATOR.maxSourceBytes} are accepted`);
  }
  fields = checkPaths(fields, 'fields', frozen);
  paths = paths === null || paths === undefined ? extractPaths(source, frozen) : checkPaths(paths, 'paths', frozen);
  state = checkState(state);
  const parsed = parseTheme(theme);
  const init = { blockId, paths, fields, state: project(state, [...fields, ...paths]), theme: parsed.json };
  const initJson = scriptJson(init);
  if (initJson.length > GENERATOR.maxInitChars && codePoints(initJson) > GENERATOR.maxInitChars) {
    throw new TypeError(`flow-ui: state: the block's projection makes ${codePoints(initJson)} characters of JSON; at most ${GENERATOR.maxInitChars} are allowed`);
  }
  if (RUNTIME_UNSAFE.test(RUNTIME_SOURCE)) throw new Error('flow-ui: the runtime would end its inline script');
  return '<!DOCTYPE html><html><head>' +
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(CSP)}">` +
    `<meta name="referrer" content="${escapeAttribute(REFERRER_POLICY)}">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<style id="flow-ui-theme">${parsed.css}</style>` +
    `<style id="flow-ui-base">${GENERATOR.baseCss}</style>` +
    `<script type="application/json" id="flow-ui-init">${initJson}</script>` +
    `<script id="flow-ui-runtime">${RUNTIME_SOURCE}</script>` +
    `</head><body>${source}`;
}

// The init object a srcdoc carries (a DOMParser document runs no script).
function readInit(srcdoc) {
  const doc = new DOMParser().parseFromString(srcdoc, 'text/html');
  const runtime = doc.head && doc.head.querySelector('script#flow-ui-runtime');
  const el = runtime && runtime.previousElementSibling;
  if (!el || el.id !== 'flow-ui-init') throw new TypeError('flow-ui: the srcdoc has no flow-ui-init JSON before its runtime; build it with the generator');
  const init = JSON.parse(el.textContent);
  checkBlockId(init.blockId);
  return init;
}

// ---- JSON Patch (RFC 6902): add, replace, remove; pointers with ~0 and ~1

export class PatchError extends TypeError {
  constructor(message) { super(message); this.name = 'PatchError'; }
}

function parsePointer(pointer, where) {
  if (typeof pointer !== 'string') throw new PatchError(`${where}: path must be a JSON Pointer string, not ${describe(pointer)}`);
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new PatchError(`${where}: JSON Pointer ${JSON.stringify(pointer)} must start with "/"`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

// A new state with `ops` applied (the input is not modified); all or nothing.
export function applyPatch(state, ops) {
  if (!Array.isArray(ops)) throw new PatchError(`JSON Patch: expected an array of operations, not ${describe(ops)}`);
  let doc = state;
  ops.forEach((op, i) => {
    const where = `JSON Patch operation ${i}`;
    if (op === null || typeof op !== 'object') throw new PatchError(`${where}: expected an object, not ${describe(op)}`);
    if (!['add', 'replace', 'remove'].includes(op.op)) throw new PatchError(`${where}: op ${describe(op.op)} is not supported (add, replace, remove)`);
    const tokens = parsePointer(op.path, where);
    if (op.op !== 'remove') {
      if (!hasOwn.call(op, 'value')) throw new PatchError(`${where}: ${op.op} needs a value`);
      const problem = jsonProblem(op.value, 'value', 0, GENERATOR.stateMaxDepth, Infinity);
      if (problem) throw new PatchError(`${where}: ${problem.message}`);
    }
    if (!tokens.length) {
      if (op.op === 'remove' || op.value === null || typeof op.value !== 'object' || Array.isArray(op.value)) {
        throw new PatchError(`${where}: the state itself can only be replaced by an object`);
      }
      doc = structuredCloneJson(op.value);
      return;
    }
    doc = patchAt(doc, tokens, 0, op, where);
  });
  return doc;
}

function patchAt(node, tokens, i, op, where) {
  const token = tokens[i];
  const last = i === tokens.length - 1;
  const at = `/${tokens.slice(0, i + 1).join('/')}`;
  if (node === null || typeof node !== 'object') throw new PatchError(`${where}: ${at}: the parent is not an object or array`);
  if (Array.isArray(node)) {
    const copy = node.slice();
    const append = token === '-' && last && op.op === 'add';
    if (!append && !/^(?:0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`${where}: ${at}: ${JSON.stringify(token)} is not an array index`);
    const index = append ? copy.length : +token;
    const limit = last && op.op === 'add' ? copy.length : copy.length - 1;
    if (index > limit) throw new PatchError(`${where}: ${at}: index ${index} is out of range (length ${copy.length})`);
    if (!last) copy[index] = patchAt(copy[index], tokens, i + 1, op, where);
    else if (op.op === 'add') copy.splice(index, 0, structuredCloneJson(op.value));
    else if (op.op === 'replace') copy[index] = structuredCloneJson(op.value);
    else copy.splice(index, 1);
    return copy;
  }
  const copy = Object.assign({}, node);
  const present = hasOwn.call(copy, token);
  if (!last) {
    if (!present) throw new PatchError(`${where}: ${at} does not exist`);
    copy[token] = patchAt(copy[token], tokens, i + 1, op, where);
  } else if (op.op === 'add') copy[token] = structuredCloneJson(op.value);
  else if (!present) throw new PatchError(`${where}: ${at} does not exist (${op.op} needs an existing value)`);
  else if (op.op === 'replace') copy[token] = structuredCloneJson(op.value);
  else delete copy[token];
  return copy;
}

// ---- what a projection change means for the block

// The projection paths whose values differ, and the top-level keys to send: {changed, set, unset}.
export function diffProjection(held, next, paths) {
  const changed = paths.filter((p) => !deepEqual(lookup(held, p), lookup(next, p)));
  const set = {};
  const unset = [];
  if (changed.length) {
    const keys = new Set([...Object.keys(held), ...Object.keys(next)]);
    for (const key of keys) {
      if (!hasOwn.call(next, key)) unset.push(key);
      else if (!hasOwn.call(held, key) || !deepEqual(held[key], next[key])) set[key] = next[key];
    }
  }
  return { changed, set, unset };
}

// ---- validating what the block sends

const SHAPES = {
  send: { required: ['type', 'id', 'action'], optional: ['payload'] },
  setValue: { required: ['type', 'id', 'path', 'value'], optional: [] },
  openUrl: { required: ['type', 'id', 'url', 'gesture'], optional: [] },
  height: { required: ['type', 'height'], optional: ['viewport'] },
  error: { required: ['type', 'message'], optional: ['kind', 'source', 'line', 'column'] },
  csp: { required: ['type', 'directive'], optional: ['blockedUri', 'sample'] },
  pong: { required: ['type', 'n'], optional: [] },
};

function isRequestId(id) { return Number.isSafeInteger(id) && id >= 1; }

// Checks one message from the block's port. Returns {ok: true, message} or
// {ok: false, reason, message, id}: `id` is set when the block can be answered.
export function validateBlockMessage(data, { fields = [], site = '', allow = [] } = {}) {
  const refuse = (reason, text) => ({
    ok: false, reason, message: text,
    id: data !== null && typeof data === 'object' && isRequestId(data.id) && ['send', 'setValue', 'openUrl'].includes(data.type) ? data.id : null,
  });
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return refuse('bad-message', `a message must be an object, not ${describe(data)}`);
  const problem = jsonProblem(data, 'message', 0);
  if (problem) return refuse(problem.reason, problem.message);
  const size = JSON.stringify(data).length;
  if (size > LIMITS.maxMessageChars) return refuse('too-large', `the message is ${size} characters of JSON; at most ${LIMITS.maxMessageChars}`);
  const shape = hasOwn.call(SHAPES, data.type) ? SHAPES[data.type] : null;
  if (!shape) return refuse('bad-message', `unknown message type ${describe(data.type)}`);
  const missing = shape.required.filter((k) => !hasOwn.call(data, k));
  const extra = Object.keys(data).filter((k) => !shape.required.includes(k) && !shape.optional.includes(k));
  if (missing.length || extra.length) {
    return refuse('bad-message', `${data.type}: ${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `unknown keys ${extra.join(', ')}` : ''}`);
  }
  if (hasOwn.call(data, 'id') && !isRequestId(data.id)) return refuse('bad-message', `${data.type}: id must be a positive integer`);
  switch (data.type) {
    case 'send': {
      const why = actionProblem(data.action);
      return why ? refuse('bad-action', why) : { ok: true, message: data };
    }
    case 'setValue': {
      if (typeof data.path !== 'string' || pathProblem(data.path) || !fields.includes(data.path)) {
        return refuse('not-a-field', `${describe(data.path)} is not one of the block's fields (${fields.join(', ') || 'none'})`);
      }
      return { ok: true, message: data };
    }
    case 'openUrl': {
      if (typeof data.url !== 'string' || data.url.length > LIMITS.urlMaxLength) return refuse('bad-url', `the URL must be a string of at most ${LIMITS.urlMaxLength} characters`);
      let url;
      try { url = new URL(data.url); } catch (e) { return refuse('bad-url', `${JSON.stringify(data.url.slice(0, 100))} is not an absolute URL`); }
      if (url.protocol !== 'https:' || !url.hostname) return refuse('not-https', `only https: URLs can be opened, not ${JSON.stringify(url.protocol)}`);
      const why = openUrlProblem(url, { site, allow });
      if (why) return refuse(why[0], why[1]);
      if (data.gesture !== true) return refuse('no-gesture', 'openUrl needs a user gesture (a click or key press) in the block');
      return { ok: true, message: data, url: url.href };
    }
    case 'height': {
      const ok = typeof data.height === 'number' && data.height >= 0 &&
        (data.viewport === undefined || (typeof data.viewport === 'number' && data.viewport >= 0));
      return ok ? { ok: true, message: data } : refuse('bad-message', 'height: height and viewport must be numbers of at least 0');
    }
    case 'error': {
      const ok = typeof data.message === 'string' && ['string', 'undefined'].includes(typeof data.source) &&
        (data.kind === undefined || data.kind === 'error' || data.kind === 'rejection') &&
        ['line', 'column'].every((k) => data[k] === undefined || (Number.isSafeInteger(data[k]) && data[k] >= 0));
      return ok ? { ok: true, message: data } : refuse('bad-message', 'error: message and source must be strings, line and column numbers');
    }
    case 'pong':
      return isRequestId(data.n) ? { ok: true, message: data } : refuse('bad-message', 'pong: n must be a positive integer');
    case 'csp': {
      const ok = ['directive', 'blockedUri', 'sample'].every((k) => data[k] === undefined || typeof data[k] === 'string');
      return ok ? { ok: true, message: data } : refuse('bad-message', 'csp: directive, blockedUri and sample must be strings');
    }
    default:
      return refuse('bad-message', 'unknown message type');
  }
}

// ---- auto-height

// Decides the frame's height from the block's reports; never oscillates (see PROTOCOL.md):
// * bounds: [min, max];
// * shrinking by at most `jitter` px is ignored (1 px jitter settles);
// * content that grows exactly as its frame grows (height: 100vh and the like) is detected
//   after `loopLimit` such steps and the height is frozen;
// * three changes of direction within a second (content that is tall in a short frame and
//   short in a tall one) freeze the height at the larger value. A user toggling an accordion
//   changes direction far more slowly, and keeps working.
export function heightController({
  min = LIMITS.heightMin, max = LIMITS.heightMax, jitter = LIMITS.heightJitter, loopLimit = LIMITS.heightLoopLimit,
  now = () => performance.now(),
} = {}) {
  let applied = null;
  let last = null;
  let follows = 0;
  let frozen = null;
  let direction = 0;
  let reversals = [];
  return {
    get frozen() { return frozen; },
    get height() { return applied; },
    // Returns the new height to apply, or null to leave it; `frozen` tells why it stopped.
    report(height, viewport) {
      if (frozen) return null;
      const target = Math.min(max, Math.max(min, Math.ceil(height)));
      const prev = last;
      last = { height, viewport };
      if (prev && viewport !== undefined && prev.viewport !== undefined && viewport !== prev.viewport &&
        height - prev.height === viewport - prev.viewport && height > viewport) {
        follows += 1;
        if (follows >= loopLimit) { frozen = 'grows-with-frame'; return null; }
      } else if (prev) {
        follows = 0;
      }
      if (applied === null) { applied = target; return target; }
      if (target === applied) return null;
      if (target < applied && applied - target <= jitter) return null;
      const dir = Math.sign(target - applied);
      if (direction && dir !== direction) {
        const t = now();
        reversals = reversals.filter((r) => t - r < 1000);
        reversals.push(t);
        if (reversals.length >= 3) {
          frozen = 'oscillates';
          if (target <= applied) return null;
          applied = target;
          return target;
        }
      }
      direction = dir;
      applied = target;
      return target;
    },
  };
}

// ------------------------------------------------------------------------------ mounting

const NAVIGATED_NOTICE = 'This block left its content and was closed.';
// A focus move into a block counts as the user's when it follows a Tab within this long, or a
// pointer on the frame with no typing in the host within this long (PROTOCOL.md, "Focus").
const FOCUS_INTENT_MS = 1000;
// How far (CSS px) outside the frame the host's last pointer event may lie and still count as
// the pointer having entered the frame (Chromium routes no pointer event over a frame to the host).
const FOCUS_POINTER_MARGIN = 48;

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
  const requests = tokenBucket(LIMITS.rateBurst, LIMITS.ratePerSecond);
  const reports = tokenBucket(LIMITS.reportBurst, LIMITS.reportPerSecond);
  let alive = null; // the pending liveness check: {n, due, timer}
  let aliveLoads = 0; // the load count the last answered ping covered
  let noticeElement = null;

  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', SANDBOX);
  iframe.setAttribute('referrerpolicy', REFERRER_POLICY);
  iframe.setAttribute('title', typeof options.title === 'string' ? options.title : `html block ${blockId}`);
  iframe.setAttribute('data-block-id', blockId);
  iframe.style.width = '100%';
  iframe.style.border = '0';
  iframe.style.display = 'block';
  iframe.srcdoc = srcdoc;

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

  async function handleSetValue(m) {
    // The rule of PROTOCOL.md, "Writing a path", checked before the host's callback hears of it.
    const depth = jsonProblem(m.value, 'value', m.path.split('.').length, GENERATOR.stateMaxDepth, Infinity);
    const written = depth ? { problem: depth.message } : setIn(hostState, m.path, m.value);
    if (written.problem) {
      refuse(m.id, depth ? depth.reason : 'bad-path', `${m.path}: ${written.problem}`, { path: m.path });
      undoInBlock(m);
      return;
    }
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

  function hostActivation() {
    // User activation propagates from a clicked frame to its ancestors (HTML's user-activation
    // model); the host opens a window only while it holds that activation itself.
    return navigator.userActivation ? navigator.userActivation.isActive : true;
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

  function handleOpenUrl(m, href) {
    if (!hostActivation()) {
      refuse(m.id, 'no-gesture', 'openUrl needs a user gesture: the host page holds no user activation now', { url: href });
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
    const h = height.report(m.height, m.viewport);
    if (h !== null) iframe.style.height = `${h}px`;
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

  function onPortMessage(event) {
    try {
      if (status !== 'connected') return;
      const data = event.data;
      const isObject = data !== null && typeof data === 'object';
      // Liveness answers cost no token: a flood of reports must not make a live block look gone.
      if (isObject && data.type === 'pong') { handlePong(data); return; }
      const request = isObject && REQUESTS.includes(data.type);
      const budget = request ? requests : reports;
      const passed = budget.take(() => log('warn', 'rate-limited', request
        ? `the block sends more than ${LIMITS.rateBurst} requests at once or ${LIMITS.ratePerSecond} per second; the excess is refused`
        : `the block sends more than ${LIMITS.reportBurst} reports (height, error, csp) at once or ${LIMITS.reportPerSecond} per second; the excess is dropped`,
      { budget: request ? 'requests' : 'reports' }));
      if (!passed) {
        if (request && isRequestId(data.id)) reply(data.id, false, 'rate-limited', LIMITS.reasons['rate-limited']);
        return;
      }
      const verdict = validateBlockMessage(data, { fields, site, allow });
      if (!verdict.ok) { refuse(verdict.id, verdict.reason, verdict.message); return; }
      const m = verdict.message;
      switch (m.type) {
        case 'send': handleSend(m).catch((e) => log('error', 'failed', String(e))); break;
        case 'setValue': handleSetValue(m).catch((e) => log('error', 'failed', String(e))); break;
        case 'openUrl': handleOpenUrl(m, verdict.url); break;
        case 'height': handleHeight(m); break;
        case 'error':
          log('error', 'block-error', m.message, { kind: m.kind || 'error', source: m.source || '', line: m.line || 0, column: m.column || 0 });
          break;
        case 'csp':
          log('warn', 'csp-violation', `blocked by the block's policy: ${m.directive} ${m.blockedUri || ''}`.trim(),
            { directive: m.directive, blockedUri: m.blockedUri || '', sample: m.sample || '' });
          break;
        default: break;
      }
    } catch (error) {
      log('error', 'host-error', `flow-ui host: ${error}`);
    }
  }

  // ---- the block's document: connected once, and gone at any navigation (PROTOCOL.md, "Handshake")

  function navigated(why) {
    if (status !== 'connected' && status !== 'loading') return;
    status = 'navigated';
    if (alive) { clearTimeout(alive.timer); alive = null; }
    if (port) { port.onmessage = null; port.close(); port = null; }
    log('error', 'navigated', `the block navigated away from its document (${why}); the bridge is closed and the frame removed`, { loads });
    // The frame now shows somebody else's page inside the host's UI: it goes, a notice takes its place.
    iframe.removeEventListener('load', onLoad);
    if (notice) {
      noticeElement = document.createElement('p');
      noticeElement.className = 'flow-ui-navigated';
      noticeElement.setAttribute('role', 'status');
      noticeElement.setAttribute('data-block-id', blockId);
      noticeElement.textContent = notice;
      iframe.replaceWith(noticeElement);
    } else {
      iframe.remove();
    }
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
      const data = event.data;
      if (data === null || typeof data !== 'object' || data.type !== 'flow-ui:hello') return;
      if (status !== 'loading' || loads > 1) {
        log('warn', 'hello-refused', 'a second hello from the block\'s frame was ignored');
        // A new document in the frame (a reload before the first load) or the block itself: ask.
        if (status === 'connected') checkAlive(true);
        return;
      }
      const channel = new MessageChannel();
      port = channel.port1;
      port.onmessage = onPortMessage;
      status = 'connected';
      iframe.contentWindow.postMessage({ type: 'flow-ui:connect', v: LIMITS.protocolVersion }, '*', [channel.port2]);
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

  function onLoad() {
    loads += 1;
    // A second load: the block navigated away from its document. Its new document gets nothing.
    if (loads > 1) { navigated(`its frame loaded ${loads} documents`); return; }
    checkAlive();
  }

  // ---- focus: a block takes the keyboard only when the user aims at it (PROTOCOL.md, "Focus")

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
  const onFocusOut = (e) => { if (e.target && e.target !== iframe && e.target.tagName !== 'IFRAME') lastHostFocus = e.target; };
  const onBlur = () => { setTimeout(judgeFocus, 0); };

  function pointerAimsAtFrame() {
    if (pointerOnFrame) return true;
    try { if (iframe.matches(':hover')) return true; } catch (e) { /* not in a document */ }
    if (!lastPointer) return false;
    const r = iframe.getBoundingClientRect();
    const m = FOCUS_POINTER_MARGIN;
    return lastPointer.x >= r.left - m && lastPointer.x <= r.right + m && lastPointer.y >= r.top - m && lastPointer.y <= r.bottom + m;
  }

  function judgeFocus() {
    if (status === 'destroyed' || document.activeElement !== iframe) return;
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
    if (document.activeElement === iframe) iframe.blur();
    if (now - lastFocusLog > 1000) {
      lastFocusLog = now;
      log('warn', 'focus-refused', `the block took the keyboard focus without the user aiming at it; it went back to ${back ? `the host's ${back.tagName.toLowerCase()}` : 'the page'}`,
        { refusals: focusRefusals, typing: Boolean(typing) });
    }
  }

  function startFocusGuard() {
    if (!focusGuard) return;
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('pointermove', onPointer, true);
    window.addEventListener('pointerdown', onPointer, true);
    window.addEventListener('blur', onBlur);
    document.addEventListener('focusout', onFocusOut, true);
    iframe.addEventListener('pointerover', onFrameOver);
    iframe.addEventListener('pointerout', onFrameOut);
  }

  function stopFocusGuard() {
    if (!focusGuard) return;
    window.removeEventListener('keydown', onKey, true);
    window.removeEventListener('pointermove', onPointer, true);
    window.removeEventListener('pointerdown', onPointer, true);
    window.removeEventListener('blur', onBlur);
    document.removeEventListener('focusout', onFocusOut, true);
  }

  window.addEventListener('message', onWindowMessage);
  iframe.addEventListener('load', onLoad);
  startFocusGuard();
  container.appendChild(iframe);

  const handle = {
    blockId,
    iframe,
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
      window.removeEventListener('message', onWindowMessage);
      iframe.removeEventListener('load', onLoad);
      stopFocusGuard();
      if (alive) { clearTimeout(alive.timer); alive = null; }
      if (port) { port.onmessage = null; port.close(); port = null; }
      iframe.remove();
      if (noticeElement) noticeElement.remove();
    },
  };
  return handle;
}
