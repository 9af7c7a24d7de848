// Themes: a flat theme validated and made into its :root rule, the same rules as theme/__init__.py.

import { THEME, core } from '../contract.js';

const { describe } = core;
const hasOwn = Object.prototype.hasOwnProperty;
const COLOR = new RegExp(`^(?:${THEME.colorPattern})$`);
const LENGTH = new RegExp(`^(?:${THEME.lengthPattern})$`);
const NAMED_COLORS = new Set(THEME.namedColors);

export class ThemeError extends TypeError {
  constructor(message) { super(message); this.name = 'ThemeError'; }
}

function shown(value) {
  const text = typeof value === 'string' ? JSON.stringify(value) : describe(value);
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

function tokenProblem(token, value) {
  const kind = hasOwn.call(THEME.tokens, token) ? THEME.tokens[token] : null;
  if (kind === null) return `theme: unknown token ${shown(token)} (known tokens: ${Object.keys(THEME.tokens).join(', ')}, and color-scheme)`;
  if (typeof value !== 'string') return `theme token '${token}': value ${shown(value)} must be a string`;
  if (value.length > THEME.maxValueLength) return `theme token '${token}': value ${shown(value)} is longer than ${THEME.maxValueLength} characters`;
  if (kind === 'color') {
    return NAMED_COLORS.has(value.toLowerCase()) || COLOR.test(value) ? null
      : `theme token '${token}': value ${shown(value)} is not a color (#hex, rgb(), rgba(), hsl(), hsla() or a CSS color name)`;
  }
  return LENGTH.test(value) ? null : `theme token '${token}': value ${shown(value)} is not a length (0, or a number with px, rem, em or %)`;
}

// A complete, validated theme from its flat form (missing tokens from the scheme's default):
// {json, css}, or ThemeError naming every bad token and value. Same rules as theme/__init__.py.
export function parseTheme(data) {
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new ThemeError(`theme: expected a JSON object, got ${describe(data)}`);
  const scheme = hasOwn.call(data, 'color-scheme') ? data['color-scheme'] : 'light';
  if (!THEME.colorSchemes.includes(scheme)) throw new ThemeError(`theme: color-scheme ${shown(scheme)} must be 'light' or 'dark'`);
  const problems = Object.keys(data).filter((k) => k !== 'color-scheme').map((k) => tokenProblem(k, data[k])).filter(Boolean);
  if (problems.length) throw new ThemeError(problems.join('; '));
  const json = { 'color-scheme': scheme };
  let css = `:root{color-scheme:${scheme};`;
  for (const token of Object.keys(THEME.tokens)) {
    json[token] = hasOwn.call(data, token) ? data[token] : THEME.defaults[scheme][token];
    css += `${THEME.prefix}${token}:${json[token]};`;
  }
  return { json, css: `${css}}` };
}
