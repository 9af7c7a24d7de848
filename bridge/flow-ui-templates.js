// Flow UI text templates (SPEC §5) in JavaScript: the twin of sandbox/block/templates.py.
// `{path}` inserts the value's text (objects and arrays as JSON) and keeps the whole template
// from rendering while it is absent (missing or null); `{?path}` inserts "" when absent;
// `{path|fallback}` inserts the fallback (itself a template) when absent or ""; `\{`, `\}` and
// `\\` are literal. fixtures/templates.json holds both languages to the same paths, texts and
// errors (columns count code points, as Python does).

import { core } from './contract.js';

const { pathProblem, lookup, formatValue } = core;

// Fallbacks nested deeper than this are refused (sandbox/block/templates.py MAX_NESTING; the fixture
// `fallbacks_nest_too_deep` holds both sides to it).
const MAX_NESTING = 32;

export class TemplateError extends TypeError {
  constructor(text, offset, reason) {
    const column = Array.from(text.slice(0, offset)).length + 1;
    super(`column ${column}: ${reason}`);
    this.name = 'TemplateError';
    this.column = column;
    this.reason = reason;
  }
}

// [parts, end]: parts are strings and {path, optional, fallback}; in a fallback, stop at its `}`.
function parse(text, start, nested, depth) {
  const parts = [];
  let literal = '';
  let i = start;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && '{}\\'.includes(text[i + 1])) {
      literal += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === '}' && nested) break;
    if (ch !== '{') {
      literal += ch;
      i += 1;
      continue;
    }
    if (literal) { parts.push(literal); literal = ''; }
    let j = i + 1;
    const optional = text[j] === '?';
    if (optional) j += 1;
    let end = j;
    while (end < text.length && text[end] !== '|' && text[end] !== '}') end += 1;
    if (end >= text.length) throw new TemplateError(text, i, "'{' is never closed (write \\{ for a literal brace)");
    const path = text.slice(j, end);
    const why = pathProblem(path);
    if (why) throw new TemplateError(text, j, `bad path ${JSON.stringify(path)}: ${why}`);
    let fallback = null;
    if (text[end] === '|') {
      if (depth >= MAX_NESTING) throw new TemplateError(text, i, `fallbacks nest deeper than ${MAX_NESTING} levels`);
      [fallback, end] = parse(text, end + 1, true, depth + 1);
      if (end >= text.length) throw new TemplateError(text, i, "'{' is never closed (write \\{ for a literal brace)");
    }
    parts.push({ path, optional, fallback });
    i = end + 1;
  }
  if (literal) parts.push(literal);
  return [parts, i];
}

export function parseTemplate(template) {
  if (typeof template !== 'string') throw new TypeError(`a template is a string, not ${core.describe(template)}`);
  return parse(template, 0, false, 0)[0];
}

// Every path the template reads, fallbacks included, in order, each once.
export function templatePaths(template) {
  const seen = new Set();
  const walk = (parts) => {
    for (const part of parts) {
      if (typeof part === 'string') continue;
      seen.add(part.path);
      if (part.fallback) walk(part.fallback);
    }
  };
  walk(parseTemplate(template));
  return [...seen];
}

// The rendered text, or null while a required {path} is absent.
export function renderTemplate(template, state) {
  const render = (parts) => {
    let out = '';
    for (const part of parts) {
      if (typeof part === 'string') { out += part; continue; }
      const value = lookup(state, part.path);
      const absent = value === undefined || value === null;
      if (part.fallback) {
        if (absent || value === '') {
          const text = render(part.fallback);
          if (text === null) return null;
          out += text;
        } else out += formatValue(value);
      } else if (absent) {
        if (!part.optional) return null;
      } else out += formatValue(value);
    }
    return out;
  };
  return render(parseTemplate(template));
}
