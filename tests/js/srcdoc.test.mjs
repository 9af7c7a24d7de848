// The host module builds the block document byte for byte as the Python generator does:
// the golden documents of fixtures/srcdoc/ are written by sandbox.block.srcdoc (`flowui-sandbox generate`),
// with the inlined runtime replaced by GOLDEN_RUNTIME_MARKER.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildSrcdoc } from '../../bridge/flow-ui-host.js';
import { GOLDEN_RUNTIME_MARKER, RUNTIME_SOURCE } from '../../bridge/contract.js';

const dir = new URL('../../fixtures/srcdoc/', import.meta.url);
const cases = JSON.parse(readFileSync(new URL('cases.json', dir), 'utf8'));

test('the goldens exist', () => assert.ok(cases.length >= 5));

for (const c of cases) {
  test(`golden srcdoc: ${c.name}`, () => {
    const golden = readFileSync(new URL(c.golden, dir), 'utf8').replace(GOLDEN_RUNTIME_MARKER, () => RUNTIME_SOURCE);
    const built = buildSrcdoc(c.source, { blockId: c.block_id, fields: c.fields, paths: c.paths, state: c.state, theme: c.theme });
    if (built !== golden) {
      let i = 0;
      while (i < built.length && built[i] === golden[i]) i++;
      assert.fail(`${c.golden} differs at character ${i}: built ${JSON.stringify(built.slice(i, i + 60))}, golden ${JSON.stringify(golden.slice(i, i + 60))}`);
    }
  });
}

test('contract.js carries the runtime file as it is', () => {
  const file = readFileSync(new URL('../../bridge/flow-ui-runtime.js', import.meta.url), 'utf8');
  assert.equal(RUNTIME_SOURCE, file, 'bridge/contract.js is stale: run flowui-sandbox generate');
});

test('bad inputs are refused with the reason, before any document is built', () => {
  assert.throws(() => buildSrcdoc('', { blockId: '1bad' }), /block id/);
  assert.throws(() => buildSrcdoc('a\u0000b', { blockId: 'b', paths: [] }), /line 1 column 2: a NUL/);
  assert.throws(() => buildSrcdoc('', { blockId: 'b', paths: ['Bad', 'a..b'] }), /paths\[0\].*paths\[1\]/);
  assert.throws(() => buildSrcdoc('', { blockId: 'b', paths: ['sys.x'], frozen: ['sys'] }), /frozen/);
  assert.throws(() => buildSrcdoc('', { blockId: 'b', paths: [], state: { a: NaN } }), /state.a is NaN/);
  assert.throws(() => buildSrcdoc('', { blockId: 'b', paths: [], theme: { accent: 'red}' } }), /accent/);
});
