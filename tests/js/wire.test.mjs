// The client's check of the downlink (bridge/flow-ui-wire.js) against the same cases as
// sandbox/document/wire.py's check_down (fixtures/document/wire.json): the same events pass,
// the same events fail, at the same places.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkDownEvent, uiActionMessage, WireError } from '../../bridge/flow-ui-wire.js';

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/document/wire.json', import.meta.url), 'utf8'));

test('downlink events (fixtures/document/wire.json)', () => {
  let bad = 0;
  for (const c of fixture.down) {
    if (!c.problems.length) {
      const parts = checkDownEvent(c.event);
      assert.equal(parts.length, c.event.artifact.parts.length, c.name);
      continue;
    }
    bad += 1;
    assert.throws(() => checkDownEvent(c.event), (e) => {
      assert.ok(e instanceof WireError, c.name);
      assert.deepEqual([...new Set(e.problems.map(([where]) => where))].sort(), [...new Set(c.problems)].sort(), c.name);
      return true;
    }, c.name);
  }
  assert.ok(bad >= 15);
});

test('the ui-action Message the client sends is one the server accepts', () => {
  const seed = fixture.up.find((c) => c.name === "the seed's ui-action, continuing a task");
  assert.deepEqual(seed.problems, []);
  const message = uiActionMessage(seed.message.parts[0].data, { contextId: seed.message.contextId, taskId: seed.message.taskId });
  assert.deepEqual(message, seed.message);
  assert.throws(() => uiActionMessage({}, {}), TypeError);
});
