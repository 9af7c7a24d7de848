// Text input patterns (fixtures/document/patterns.json): the browser's verdict is
// new RegExp('^(?:' + pattern + ')$', 'v').test(value) (HTML's pattern attribute); the
// fixture's verdicts are checked here against it and by tests/test_document_pattern.py
// against the server's matcher, so both sides give the same verdict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/document/patterns.json', import.meta.url), 'utf8'));
const browser = (pattern) => new RegExp(`^(?:${pattern})$`, 'v');

test('every verdict is the browser\'s (v flag, whole value)', () => {
  let checked = 0;
  for (const { pattern, inputs } of fixture.verdicts) {
    const re = browser(pattern);
    for (const { input, match } of inputs) {
      assert.equal(re.test(input), match, `${JSON.stringify(pattern)} on ${JSON.stringify(input)}`);
      checked += 1;
    }
  }
  assert.ok(checked > 100);
});

test('patterns refused at save time: the browser throws on them, or compiles what the subset leaves out', () => {
  for (const { pattern, browser: expected } of fixture.refused) {
    let outcome = 'compiles';
    try { browser(pattern); } catch (e) { assert.ok(e instanceof SyntaxError, pattern); outcome = 'throws'; }
    assert.equal(outcome, expected, pattern);
  }
  assert.ok(fixture.refused.some((c) => c.browser === 'throws') && fixture.refused.some((c) => c.browser === 'compiles'));
});

test('text lengths are UTF-16 units, as minlength and maxlength count them', () => {
  for (const { input, length } of fixture.lengths) assert.equal(input.length, length, JSON.stringify(input));
  assert.ok(fixture.lengths.some((c) => c.length !== [...c.input].length));
});
