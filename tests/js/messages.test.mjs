// The host's dispatch (bridge/host/messages.js): one handler per block message type of the
// generated table, the rate budgets the table names, refusals answered only for requests.
import test from 'node:test';
import assert from 'node:assert/strict';
import { MESSAGES, LIMITS } from '../../bridge/contract.js';
import { portDispatcher, tokenBucket, HELLO, CONNECT, CHECKS } from '../../bridge/host/messages.js';

const BLOCK_TYPES = Object.keys(MESSAGES).filter((t) => MESSAGES[t].from === 'block' && MESSAGES[t].channel === 'port');

function harness({ burst = 60 } = {}) {
  const calls = [];
  const handled = [];
  const handlers = Object.fromEntries(BLOCK_TYPES.map((t) => [t, (m) => handled.push(m)]));
  const clock = () => 0; // a stopped clock: buckets never refill
  const dispatch = portDispatcher({
    handlers,
    context: { fields: ['email'], site: 'example.org', allow: [] },
    budgets: { requests: tokenBucket(burst, 1, clock), reports: tokenBucket(burst, 1, clock) },
    log: (level, code, text, detail) => calls.push(['log', code, detail]),
    reply: (id, ok, reason) => calls.push(['reply', id, ok, reason]),
    refuse: (id, reason) => calls.push(['refuse', id, reason]),
  });
  return { dispatch, calls, handled };
}

test('the table names the handshake, and each entry is keyed by its own type', () => {
  assert.equal(HELLO, 'flow-ui:hello');
  assert.equal(CONNECT, 'flow-ui:connect');
  for (const [type, entry] of Object.entries(MESSAGES)) assert.equal(entry.keys.type.accepts.const, type);
  assert.ok(BLOCK_TYPES.includes('send') && BLOCK_TYPES.includes('pong'));
});

test('every check the table names exists in the host, and every host check is named by the table', () => {
  const named = new Set(Object.values(MESSAGES).flatMap((e) => Object.values(e.keys)).map((k) => k.check).filter(Boolean));
  assert.deepEqual([...named].sort(), Object.keys(CHECKS).sort());
});

test('the handler map must match the table: a missing or an unknown type throws', () => {
  const base = Object.fromEntries(BLOCK_TYPES.map((t) => [t, () => {}]));
  const make = (handlers) => () => portDispatcher({ handlers, context: {}, budgets: {}, log() {}, reply() {}, refuse() {} });
  assert.doesNotThrow(make(base));
  const { pong, ...missing } = base;
  assert.throws(make(missing), /missing: pong/);
  assert.throws(make({ ...base, eval: () => {} }), /unknown: eval/);
});

test('a valid message reaches the handler of its type; a refused request is answered', () => {
  const { dispatch, calls, handled } = harness();
  dispatch({ type: 'send', id: 1, action: 'submit' });
  dispatch({ type: 'height', height: 10 });
  assert.deepEqual(handled.map((m) => m.type), ['send', 'height']);
  dispatch({ type: 'setValue', id: 2, path: 'secret', value: 1 });
  dispatch({ type: 'height', height: -1 });
  dispatch({ type: 'nonsense', id: 3 });
  assert.deepEqual(calls, [['refuse', 2, 'not-a-field'], ['refuse', null, 'bad-message'], ['refuse', null, 'bad-message']]);
});

test('a malformed pong costs nothing and is dropped silently', () => {
  const { dispatch, calls, handled } = harness({ burst: 1 });
  for (let i = 0; i < 5; i++) dispatch({ type: 'pong', n: 0 });
  dispatch({ type: 'pong', n: 7 });
  assert.deepEqual(calls, []);
  assert.deepEqual(handled, [{ type: 'pong', n: 7 }]);
});

test('requests and reports take from their own budgets; a refused request is answered rate-limited', () => {
  const { dispatch, calls, handled } = harness({ burst: 2 });
  for (let i = 1; i <= 3; i++) dispatch({ type: 'send', id: i, action: 'a' });
  for (let i = 0; i < 3; i++) dispatch({ type: 'height', height: i });
  assert.equal(handled.length, 4);
  assert.deepEqual(calls, [
    ['log', 'rate-limited', { budget: 'requests' }], ['reply', 3, false, 'rate-limited'],
    ['log', 'rate-limited', { budget: 'reports' }],
  ]);
  assert.ok(LIMITS.reasons['rate-limited']);
});
