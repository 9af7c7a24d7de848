// The editor component the editor page imports (sandbox/editor/static/editor.js), bundled once into
// ../static/codemirror.js by `make editor-bundle`: CodeMirror 6 with HTML (CSS and JS inside it),
// JSON for the state and theme panes, lint markers for the review findings, and a dark theme.
export { basicSetup } from 'codemirror';
export { EditorView, keymap } from '@codemirror/view';
export { EditorState, EditorSelection, Compartment } from '@codemirror/state';
export { ensureSyntaxTree } from '@codemirror/language';
export { html } from '@codemirror/lang-html';
export { json } from '@codemirror/lang-json';
export { linter, lintGutter, setDiagnostics, forEachDiagnostic } from '@codemirror/lint';
export { oneDark } from '@codemirror/theme-one-dark';
