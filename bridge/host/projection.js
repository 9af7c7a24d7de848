// The block's projection of the host's state (SPEC §2), and what a change of it means for the
// block. The same rules as sandbox/block/projection.py (fixtures/projection.json holds both to them).

import { core } from '../contract.js';

const { lookup, deepEqual } = core;
const hasOwn = Object.prototype.hasOwnProperty;

// The projection of `state` on `paths` (SPEC §2; the same rules as sandbox/block/projection.py):
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
      if (v !== MISSING) { setOwn(out, key, v); any = true; }
    }
    return any ? out : MISSING;
  }
  if (state === null || typeof state !== 'object' || Array.isArray(state)) return {};
  const picked = pick(state, trie);
  return picked === MISSING ? {} : picked;
}
const MISSING = Symbol('missing');

// Sets an own data property, whatever the key: `object[key] = value` would set the prototype
// for "__proto__", an ordinary key of JSON (JSON.parse makes it an own property).
export function setOwn(object, key, value) {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
  return object;
}

// A shallow copy of an object, own keys only ("__proto__" included); Object.assign would drop it.
export function copyObject(object) {
  const out = {};
  for (const key of Object.keys(object)) setOwn(out, key, object[key]);
  return out;
}

// A deep copy of a JSON value (already checked to be JSON).
export function structuredCloneJson(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(structuredCloneJson);
  const out = {};
  for (const key of Object.keys(value)) setOwn(out, key, structuredCloneJson(value[key]));
  return out;
}

// The projection paths whose values differ, and the top-level keys to send: {changed, set, unset}.
export function diffProjection(held, next, paths) {
  const changed = paths.filter((p) => !deepEqual(lookup(held, p), lookup(next, p)));
  const set = {};
  const unset = [];
  if (changed.length) {
    const keys = new Set([...Object.keys(held), ...Object.keys(next)]);
    for (const key of keys) {
      if (!hasOwn.call(next, key)) unset.push(key);
      else if (!hasOwn.call(held, key) || !deepEqual(held[key], next[key])) setOwn(set, key, next[key]);
    }
  }
  return { changed, set, unset };
}
