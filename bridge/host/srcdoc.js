// The srcdoc twin: the block document, byte for byte what sandbox.block.srcdoc.build_srcdoc writes,
// and the checks of its inputs (block id, text, paths, state). The generator is the reference;
// tests/js/srcdoc.test.mjs holds this twin to its golden documents.

import { CSP, REFERRER_POLICY, GENERATOR, RUNTIME_SOURCE, core } from '../contract.js';
import { project } from './projection.js';
import { parseTheme } from './theme.js';

const { describe, pathProblem, jsonProblem } = core;
const BLOCK_ID = new RegExp(`^(?:${GENERATOR.blockIdPattern})$`);
const NOT_TEXT = /[\u0000\ud800-\udfff]/u; // NUL or a lone surrogate
const RUNTIME_UNSAFE = /<\/script|<script|<!--/i;

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

export function checkBlockId(blockId) {
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

export function checkState(state) {
  if (state === null || state === undefined) return {};
  if (typeof state !== 'object' || Array.isArray(state)) throw new TypeError(`flow-ui: the state must be a JSON object, not ${describe(state)}`);
  const problem = jsonProblem(state, 'state', 0, GENERATOR.stateMaxDepth, Infinity);
  if (problem) throw new TypeError(`flow-ui: ${problem.message}`);
  return state;
}

// Paths from markup, as a browser's parser sees them.
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

// What is wrong with a srcdoc's init JSON (`scriptJson` of its init object), or null: the
// generator's limit on its length, which the host also keeps a block's writes within (mount.js).
export function initProblem(initJson) {
  if (initJson.length <= GENERATOR.maxInitChars) return null;
  const n = codePoints(initJson);
  return n > GENERATOR.maxInitChars ? `the block's projection makes ${n} characters of JSON; at most ${GENERATOR.maxInitChars} are allowed` : null;
}

// The block document, byte for byte what sandbox.block.srcdoc.build_srcdoc writes for the same inputs.
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
  const problem = initProblem(initJson);
  if (problem) throw new TypeError(`flow-ui: state: ${problem}`);
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
export function readInit(srcdoc) {
  const doc = new DOMParser().parseFromString(srcdoc, 'text/html');
  const runtime = doc.head && doc.head.querySelector('script#flow-ui-runtime');
  const el = runtime && runtime.previousElementSibling;
  if (!el || el.id !== 'flow-ui-init') throw new TypeError('flow-ui: the srcdoc has no flow-ui-init JSON before its runtime; build it with the generator');
  const init = JSON.parse(el.textContent);
  checkBlockId(init.blockId);
  return init;
}
