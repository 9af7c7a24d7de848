// The review's host page script (sandbox/review/browser/host-page.js): its record's pure part,
// what it keeps of what the host is given. The page itself runs in the browsers (tests/browser/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recorder } from '../../sandbox/review/browser/host-page.js';

test('a list keeps at most maxItems items', () => {
  const { keep } = recorder({ maxItems: 3, maxChars: 100 });
  const list = [];
  for (let i = 0; i < 10; i++) keep(list, i);
  assert.deepEqual(list, [0, 1, 2]);
});

test('a value is kept as a JSON copy, not the object the host was given', () => {
  const { copy } = recorder({ maxItems: 3, maxChars: 100 });
  const given = { kind: 'submit', payload: { n: [1, 2] } };
  const kept = copy(given);
  assert.deepEqual(kept, given);
  given.payload.n.push(3);
  assert.deepEqual(kept.payload.n, [1, 2]);
});

test('a value whose JSON is longer than maxChars is kept as its JSON text, cut', () => {
  const { copy } = recorder({ maxItems: 3, maxChars: 10 });
  assert.equal(copy({ text: 'x'.repeat(50) }), '{"text":"x');
  assert.deepEqual(copy({ a: 1 }), { a: 1 });
});

test('a value JSON cannot hold is kept as its string', () => {
  const { copy } = recorder({ maxItems: 3, maxChars: 100 });
  const loop = {};
  loop.self = loop;
  assert.equal(copy(loop), '[object Object]');
  assert.equal(copy(10n), '10');
  assert.equal(copy(undefined), 'undefined');
});
