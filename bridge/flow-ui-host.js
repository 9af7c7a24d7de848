// flow-ui host module: mounts an html block into a page and is the only authority over it.
// See bridge/PROTOCOL.md. Everything the block sends is untrusted: it is validated, and no
// message, however malformed, makes this module throw. The constants and the message table come
// from the generated contract.js (never retyped here).
//
// This file is the public entry: the modules of bridge/host/ hold the parts, split along their
// seams (the srcdoc twin, the projection, themes, JSON Patch, the messages, auto-height, mounting).

export { CSP, SANDBOX, REFERRER_POLICY, LIMITS, MESSAGES } from './contract.js';
export { scriptJson, escapeAttribute, extractPaths, buildSrcdoc } from './host/srcdoc.js';
export { project, projectPaths, diffProjection } from './host/projection.js';
export { ThemeError, parseTheme } from './host/theme.js';
export { PatchError, applyPatch } from './host/patch.js';
export { validateBlockMessage, siteOf, openUrlProblem, tokenBucket } from './host/messages.js';
export { heightController } from './host/height.js';
export { mountHtmlBlock } from './host/mount.js';
