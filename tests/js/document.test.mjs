// The server's side seen from JavaScript: templates render the same as sandbox/block/templates.py
// (fixtures/templates.json and every template of fixtures/document/documents.json), the host
// module's project() gives the same projections, and its applyPatch() applies the patches
// Python's diff/fan_out/validate_ui_action made (fixtures/document/*.json) to the same results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { project, applyPatch } from '../../bridge/flow-ui-host.js';
import { templatePaths, renderTemplate, TemplateError } from '../../bridge/flow-ui-templates.js';

const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'));

test('templates (fixtures/templates.json)', () => {
  for (const c of fixture('templates.json')) {
    if (c.error) {
      assert.throws(() => templatePaths(c.template), (e) => e instanceof TemplateError && e.message.includes(c.error), c.name);
      assert.throws(() => renderTemplate(c.template, {}), TemplateError, c.name);
      continue;
    }
    assert.deepEqual(templatePaths(c.template), c.paths, c.name);
    assert.equal(renderTemplate(c.template, c.state), c.text, c.name);
  }
});

test('document templates and projections (fixtures/document/documents.json)', () => {
  let templates = 0;
  for (const c of fixture('document/documents.json')) {
    if (!c.projection) continue;
    assert.deepEqual(project(c.state, c.paths), c.projection, c.name);
    for (const [blockId, paths] of Object.entries(c.blocks)) {
      assert.deepEqual(project(c.state, paths), c.block_projections[blockId], `${c.name}: ${blockId}`);
    }
    for (const t of c.templates) {
      assert.deepEqual(templatePaths(t.template), t.paths, `${c.name}: ${t.where}`);
      assert.equal(renderTemplate(t.template, c.state), t.text, `${c.name}: ${t.where}`);
      assert.equal(renderTemplate(t.template, c.projection), t.text, `${c.name}: ${t.where} from the projection`);
      templates += 1;
    }
  }
  assert.ok(templates > 20);
});

test('Python-made patches apply the same (fixtures/document/patches.json)', () => {
  for (const c of fixture('document/patches.json')) {
    const before = JSON.stringify(c.old);
    assert.deepEqual(applyPatch(c.old, c.patch), c.new, c.name);
    assert.equal(JSON.stringify(c.old), before, `${c.name}: the input is not modified`);
  }
});

test('fan-out: each block patch turns its old projection into its new one (fixtures/document/fan_out.json)', () => {
  for (const c of fixture('document/fan_out.json')) {
    assert.deepEqual(applyPatch(c.old, c.patch), c.new, c.name);
    for (const [blockId, paths] of Object.entries(c.blocks)) {
      const before = project(c.old, paths);
      const after = project(c.new, paths);
      if (c.patches[blockId]) {
        assert.notDeepEqual(before, after, `${c.name}: ${blockId} is sent only a change`);
        assert.deepEqual(applyPatch(before, c.patches[blockId]), after, `${c.name}: ${blockId}`);
      } else {
        assert.deepEqual(before, after, `${c.name}: ${blockId} gets nothing, so nothing of it changed`);
      }
    }
  }
});

test('ui-action writes apply to the state (fixtures/document/actions.json)', () => {
  let accepted = 0;
  for (const c of fixture('document/actions.json').cases) {
    if (!c.writes) continue;
    assert.deepEqual(applyPatch(c.state, c.writes), c.result, c.name);
    accepted += 1;
  }
  assert.ok(accepted >= 4);
});
