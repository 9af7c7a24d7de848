// The client's side of the wire around a Flow UI document (docs/DOCUMENT.md, "The wire"): the check
// of each downlink event, the twin of sandbox/document/wire.py's check_down (both read
// fixtures/document/wire.json), and the upward ui-action Message.
//
// A downlink event is A2A's TaskArtifactUpdateEvent; its artifact `state` carries state snapshots
// (application/json) and patches (application/json-patch+json), `ui` carries ui events
// (application/vnd.platform.ui+json, kind render or navigate), every other artifact text. Any other
// kind or mediaType is a protocol error: WireError, whose `problems` are [where, message] pairs.

import { LIMITS } from './contract.js';

export const SNAPSHOT_MEDIA_TYPE = 'application/json';
export const PATCH_MEDIA_TYPE = 'application/json-patch+json';
export const UI_MEDIA_TYPE = 'application/vnd.platform.ui+json';
const DOWN_MEDIA_TYPES = [SNAPSHOT_MEDIA_TYPE, PATCH_MEDIA_TYPE, UI_MEDIA_TYPE];
const UI_KINDS = ['render', 'navigate'];

export class WireError extends Error {
  constructor(problems) {
    super(problems.map(([where, message]) => (where ? `${where}: ${message}` : message)).join('\n'));
    this.name = 'WireError';
    this.problems = problems;
  }
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const kindOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function keys(value, allowed, where, problems) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.push([where ? `${where}.${key}` : key, 'unknown property']);
  }
}

function string(value, key, where, problems, { required = true, nonEmpty = false } = {}) {
  const at = where ? `${where}.${key}` : key;
  if (!own(value, key)) {
    if (required) problems.push([at, 'Field required']);
    return;
  }
  if (typeof value[key] !== 'string') problems.push([at, `a string, not ${kindOf(value[key])}`]);
  else if (nonEmpty && !value[key]) problems.push([at, 'a non-empty string']);
}

function optional(value, key, test, what, where, problems) {
  if (own(value, key) && value[key] !== null && !test(value[key])) problems.push([`${where}.${key}`, `${what}, not ${kindOf(value[key])}`]);
}

function uiEvent(data, at, problems) {
  if (!isObject(data)) { problems.push([`${at}.data`, `a ui event is an object, not ${kindOf(data)}`]); return; }
  if (!own(data, 'kind')) { problems.push([`${at}.data.kind`, `a ui event has a kind (${UI_KINDS.join(', ')})`]); return; }
  if (data.kind === 'render') {
    keys(data, ['kind', 'slot_id', 'blocks'], `${at}.data`, problems);
    string(data, 'slot_id', `${at}.data`, problems);
    if (!own(data, 'blocks')) problems.push([`${at}.data.blocks`, 'Field required']);
    else if (!Array.isArray(data.blocks)) problems.push([`${at}.data.blocks`, `an array, not ${kindOf(data.blocks)}`]);
    else data.blocks.forEach((b, i) => { if (!isObject(b)) problems.push([`${at}.data.blocks[${i}]`, `a block is an object, not ${kindOf(b)}`]); });
  } else if (data.kind === 'navigate') {
    keys(data, ['kind', 'page_id'], `${at}.data`, problems);
    string(data, 'page_id', `${at}.data`, problems);
  } else {
    problems.push([`${at}.data.kind`, `kind must be one of ${UI_KINDS.join(', ')}, not ${JSON.stringify(data.kind)}`]);
  }
}

// One downlink part: 'text', 'snapshot', 'patch' or 'ui' (null, with problems, when bad).
function downPart(part, at, problems) {
  if (!isObject(part)) { problems.push([at, 'a part is an object']); return null; }
  const before = problems.length;
  if (own(part, 'text')) {
    keys(part, ['text', 'mediaType', 'metadata'], at, problems);
    string(part, 'text', at, problems);
    return problems.length === before ? 'text' : null;
  }
  if (!own(part, 'data')) {
    problems.push([at, `a downlink part is text or data (state snapshot, state patch, ui event); keys: ${Object.keys(part).sort().join(', ') || 'none'}`]);
    return null;
  }
  const media = part.mediaType;
  if (!DOWN_MEDIA_TYPES.includes(media)) {
    problems.push([`${at}.mediaType`, `${JSON.stringify(media)} is not a downlink mediaType (${DOWN_MEDIA_TYPES.join(', ')})`]);
    return null;
  }
  keys(part, ['data', 'mediaType', 'metadata'], at, problems);
  optional(part, 'metadata', isObject, 'an object', at, problems);
  let kind;
  if (media === SNAPSHOT_MEDIA_TYPE) {
    kind = 'snapshot';
    if (!isObject(part.data)) problems.push([`${at}.data`, `a snapshot is an object, not ${kindOf(part.data)}`]);
  } else if (media === PATCH_MEDIA_TYPE) {
    kind = 'patch';
    if (!Array.isArray(part.data)) problems.push([`${at}.data`, `a patch is an array, not ${kindOf(part.data)}`]);
    else part.data.forEach((op, i) => {
      const where = `${at}.data[${i}]`;
      if (!isObject(op)) { problems.push([where, `an operation is an object, not ${kindOf(op)}`]); return; }
      keys(op, ['op', 'path', 'value'], where, problems);
      if (!['add', 'replace', 'remove'].includes(op.op)) problems.push([`${where}.op`, `op must be 'add', 'replace' or 'remove', not ${JSON.stringify(op.op)}`]);
      string(op, 'path', where, problems);
      if (typeof op.path === 'string' && op.path !== '' && op.path[0] !== '/') problems.push([`${where}.path`, `JSON Pointer ${JSON.stringify(op.path)} must start with "/"`]);
      if ((op.op === 'add' || op.op === 'replace') && !own(op, 'value')) problems.push([`${where}.value`, `${op.op} needs a value`]);
    });
  } else {
    kind = 'ui';
    uiEvent(part.data, at, problems);
  }
  return problems.length === before ? kind : null;
}

// Checks a downlink event; returns [{kind, part}] (kind: text, snapshot, patch, ui) or throws WireError.
export function checkDownEvent(event) {
  const problems = [];
  if (!isObject(event)) throw new WireError([['', 'a downlink event is a TaskArtifactUpdateEvent object']]);
  keys(event, ['taskId', 'contextId', 'artifact', 'append', 'lastChunk', 'metadata'], '', problems);
  string(event, 'taskId', '', problems, { nonEmpty: true });
  string(event, 'contextId', '', problems, { nonEmpty: true });
  optional(event, 'append', (v) => typeof v === 'boolean', 'a boolean', '', problems);
  optional(event, 'lastChunk', (v) => typeof v === 'boolean', 'a boolean', '', problems);
  const artifact = event.artifact;
  if (!own(event, 'artifact')) problems.push(['artifact', 'Field required']);
  else if (!isObject(artifact)) problems.push(['artifact', `an object, not ${kindOf(artifact)}`]);
  if (problems.length || !isObject(artifact)) throw new WireError(problems);
  keys(artifact, ['artifactId', 'name', 'description', 'parts', 'metadata'], 'artifact', problems);
  string(artifact, 'artifactId', 'artifact', problems, { nonEmpty: true });
  if (!Array.isArray(artifact.parts)) {
    problems.push(['artifact.parts', own(artifact, 'parts') ? `an array, not ${kindOf(artifact.parts)}` : 'Field required']);
    throw new WireError(problems);
  }
  if (problems.length) throw new WireError(problems);
  if (!artifact.parts.length) problems.push(['artifact.parts', 'an artifact has at least one part']);
  const id = artifact.artifactId;
  const [wanted, what] = id === 'state' ? [['snapshot', 'patch'], 'state snapshots and patches'] : id === 'ui' ? [['ui'], 'ui events'] : [['text'], 'text'];
  const parts = [];
  artifact.parts.forEach((part, i) => {
    const at = `artifact.parts[${i}]`;
    const kind = downPart(part, at, problems);
    if (kind === null) return;
    if (!wanted.includes(kind)) problems.push([at, `artifact ${JSON.stringify(id)} carries ${what} only`]);
    parts.push({ kind, part });
  });
  if (problems.length) throw new WireError(problems);
  return parts;
}

// The one upward Message for a ui-action (what the host's onAction got).
export function uiActionMessage(action, { contextId, taskId } = {}) {
  if (typeof contextId !== 'string' || !contextId) throw new TypeError('uiActionMessage: contextId must be a non-empty string');
  const message = { role: 'ROLE_USER', contextId };
  if (taskId !== undefined) message.taskId = taskId;
  message.parts = [{ data: action, mediaType: LIMITS.uiActionMediaType }];
  return message;
}
