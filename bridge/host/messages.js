// What the block sends over its port: validated against the generated message table
// (MESSAGES in contract.js, from the models of bridge/protocol.py), rate-limited, and dispatched
// to one handler per message type. Everything here is untrusted input: nothing in this module
// throws on a message, however malformed.

import { LIMITS, MESSAGES, core } from '../contract.js';

const { describe, pathProblem, actionProblem, jsonProblem } = core;
const hasOwn = Object.prototype.hasOwnProperty;

// ---- the table

// The block's messages over the port, by type.
const FROM_BLOCK = Object.fromEntries(Object.entries(MESSAGES).filter(([, e]) => e.channel === 'port' && e.from === 'block'));
const typesWhere = (test) => Object.keys(MESSAGES).filter((type) => test(MESSAGES[type]));
// The handshake's two types (PROTOCOL.md, "Handshake").
export const [HELLO] = typesWhere((e) => e.channel === 'window' && e.from === 'block');
export const [CONNECT] = typesWhere((e) => e.channel === 'window' && e.from === 'host');
const REPORT_TYPES = typesWhere((e) => e.from === 'block' && e.budget === 'reports');

// The table entry of a message from the block, or null (not an object, or a type of no block message).
function entryOf(data) {
  if (data === null || typeof data !== 'object' || typeof data.type !== 'string') return null;
  return hasOwn.call(FROM_BLOCK, data.type) ? FROM_BLOCK[data.type] : null;
}

export function isRequestId(id) { return Number.isSafeInteger(id) && id >= 1; }

// ---- the checks of one key

const IS = {
  string: (v) => typeof v === 'string',
  integer: (v) => Number.isSafeInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  json: () => true, // the message as a whole is checked to be JSON first
};
const NAMED = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', object: 'an object', array: 'an array' };
const PATTERNS = new Map();

// Why `value` is not what a key `accepts` (its constraints in the table), or null.
function acceptProblem(value, accepts) {
  if (accepts.anyOf) return accepts.anyOf.some((a) => acceptProblem(value, a) === null) ? null : `is ${describe(value)}, none of the accepted values`;
  if (hasOwn.call(accepts, 'const')) return value === accepts.const ? null : `must be ${JSON.stringify(accepts.const)}, not ${describe(value)}`;
  if (accepts.enum) return accepts.enum.includes(value) ? null : `must be one of ${accepts.enum.map((v) => JSON.stringify(v)).join(', ')}, not ${describe(value)}`;
  if (!IS[accepts.type](value)) return `must be ${NAMED[accepts.type]}, not ${describe(value)}`;
  if (accepts.minimum !== undefined && value < accepts.minimum) return `must be at least ${accepts.minimum}`;
  if (accepts.maximum !== undefined && value > accepts.maximum) return `must be at most ${accepts.maximum}`;
  if (accepts.minLength !== undefined && value.length < accepts.minLength) return `must have at least ${accepts.minLength} characters`;
  if (accepts.maxLength !== undefined && value.length > accepts.maxLength) return `has ${value.length} characters; at most ${accepts.maxLength} are allowed`;
  if (accepts.pattern !== undefined) {
    if (!PATTERNS.has(accepts.pattern)) PATTERNS.set(accepts.pattern, new RegExp(accepts.pattern));
    if (!PATTERNS.get(accepts.pattern).test(value)) return `${JSON.stringify(value.slice(0, 40))} does not match ${accepts.pattern}`;
  }
  return null;
}

// The host's checks beyond a key's type and limits, by the name the table gives (a key's
// `check`, from its KeyRule in bridge/protocol.py). Each returns null, a text (refused with the
// key's reason) or [reason, text].
export const CHECKS = {
  action: (value) => actionProblem(value),
  field: (value, { fields }) => (pathProblem(value) || !fields.includes(value)
    ? `${describe(value)} is not one of the block's fields (${fields.join(', ') || 'none'})` : null),
  url: (value, { site, allow }) => {
    let url;
    try { url = new URL(value); } catch (e) { return `${JSON.stringify(value.slice(0, 100))} is not an absolute URL`; }
    if (url.protocol !== 'https:' || !url.hostname) return ['not-https', `only https: URLs can be opened, not ${JSON.stringify(url.protocol)}`];
    return openUrlProblem(url, { site, allow });
  },
  gesture: (value) => (value === true ? null : 'openUrl needs a user gesture (a click or key press) in the block'),
};

// ---- validating one message

// Checks one message from the block's port. Returns {ok: true, message} or
// {ok: false, reason, message, id}: `id` is set when the block can be answered (a request).
// `fields` are the block's fields; `site` and `allow` what openUrlProblem takes.
export function validateBlockMessage(data, { fields = [], site = '', allow = [] } = {}) {
  const entry = entryOf(data);
  const refuse = (reason, text) => ({ ok: false, reason, message: text, id: entry && entry.request && isRequestId(data.id) ? data.id : null });
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return refuse('bad-message', `a message must be an object, not ${describe(data)}`);
  const problem = jsonProblem(data, 'message', 0);
  if (problem) return refuse(problem.reason, problem.message);
  const size = JSON.stringify(data).length;
  if (size > LIMITS.maxMessageChars) return refuse('too-large', `the message is ${size} characters of JSON; at most ${LIMITS.maxMessageChars}`);
  if (!entry) return refuse('bad-message', `unknown message type ${describe(data.type)}`);
  const names = Object.keys(entry.keys);
  const missing = names.filter((k) => entry.keys[k].required && !hasOwn.call(data, k));
  const extra = Object.keys(data).filter((k) => !hasOwn.call(entry.keys, k));
  if (missing.length || extra.length) {
    return refuse('bad-message', `${data.type}: ${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `unknown keys ${extra.join(', ')}` : ''}`);
  }
  const context = { fields, site, allow };
  for (const name of names) {
    if (!hasOwn.call(data, name)) continue;
    const key = entry.keys[name];
    const reason = key.reason || 'bad-message';
    const wrong = acceptProblem(data[name], key.accepts);
    if (wrong) return refuse(reason, `${data.type}: ${name} ${wrong}`);
    const why = key.check ? CHECKS[key.check](data[name], context) : null;
    if (why) return Array.isArray(why) ? refuse(why[0], why[1]) : refuse(reason, why);
  }
  return { ok: true, message: data };
}

// ---- dispatching

// The port's listener for one block: the message's rate budget, its validation, then the
// handler of its type. `handlers` has one function per type of block message in the table (a
// missing or unknown one throws here, at mount); `budgets` holds the token buckets `requests`
// and `reports`; `log`, `reply` and `refuse` are the block's. Messages of budget null (pong)
// cost nothing and are dropped unanswered and unlogged when malformed.
// Refusals of what the runtime checks before it posts (a message it could not have sent): the
// block posted on the port past its runtime. `onForged(verdict)` hears of each.
const FORGED = new Set(LIMITS.runtimeRefusals);

export function portDispatcher({ handlers, context, budgets, log, reply, refuse, onForged = null }) {
  const missing = Object.keys(FROM_BLOCK).filter((type) => typeof handlers[type] !== 'function');
  const unknown = Object.keys(handlers).filter((type) => !hasOwn.call(FROM_BLOCK, type));
  if (missing.length || unknown.length) {
    throw new Error(`flow-ui host: the handlers must match the message table (missing: ${missing.join(', ') || 'none'}; unknown: ${unknown.join(', ') || 'none'})`);
  }
  return function dispatch(data) {
    const entry = entryOf(data);
    const budget = entry ? entry.budget : 'reports';
    if (budget !== null) {
      const request = budget === 'requests';
      const passed = budgets[budget].take(() => log('warn', 'rate-limited', request
        ? `the block sends more than ${LIMITS.rateBurst} requests at once or ${LIMITS.ratePerSecond} per second; the excess is refused`
        : `the block sends more than ${LIMITS.reportBurst} reports (${REPORT_TYPES.join(', ')}) at once or ${LIMITS.reportPerSecond} per second; the excess is dropped`,
      { budget }));
      if (!passed) {
        if (request && isRequestId(data.id)) reply(data.id, false, 'rate-limited', LIMITS.reasons['rate-limited']);
        return;
      }
    }
    const verdict = validateBlockMessage(data, context);
    if (!verdict.ok) {
      if (budget !== null) refuse(verdict.id, verdict.reason, verdict.message);
      if (onForged && FORGED.has(verdict.reason)) onForged(verdict);
      return;
    }
    handlers[data.type](verdict.message);
  };
}

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

export function sameSite(hostname, site) {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return site !== '' && (name === site || name.endsWith(`.${site}`));
}

export function checkAllowList(list) {
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
