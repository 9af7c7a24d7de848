// JSON Patch (RFC 6902) on the host's state: add, replace, remove; pointers with ~0 and ~1.
// The Python twin is sandbox/document/patch.py (fixtures/bridge/patch.json holds both to it).

import { GENERATOR, core } from '../contract.js';
import { copyObject, setOwn, structuredCloneJson } from './projection.js';

const { describe, jsonProblem } = core;
const hasOwn = Object.prototype.hasOwnProperty;

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
  // "__proto__" is an ordinary key of JSON: copyObject and setOwn keep it an own property
  const copy = copyObject(node);
  const present = hasOwn.call(copy, token);
  if (!last) {
    if (!present) throw new PatchError(`${where}: ${at} does not exist`);
    setOwn(copy, token, patchAt(copy[token], tokens, i + 1, op, where));
  } else if (op.op === 'add') setOwn(copy, token, structuredCloneJson(op.value));
  else if (!present) throw new PatchError(`${where}: ${at} does not exist (${op.op} needs an existing value)`);
  else if (op.op === 'replace') setOwn(copy, token, structuredCloneJson(op.value));
  else delete copy[token];
  return copy;
}
