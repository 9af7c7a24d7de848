// The probe helper, like wpt's testharness.js: the loader (sandbox/verify/probes.py) puts this file,
// as an inline <script>, at the start of every probe's block (ID.html), so a probe's file holds only
// its attack. It is a template: {{canary}}, {{token}} and {{alive}} are filled in for each run.

// What the block saw; the harness records it as context, never as a verdict.
window.__probe = {};
// send(key, value): a request to the canary (only a block that got out can make one).
const send = (k, v) => { new Image().src = '{{canary}}/log/{{token}}/' + k + '?v=' + encodeURIComponent(String(v)); };
// The author's own listener sees the host's connect message too, and so holds the bridge's port (RAW);
// raw(message) posts on it as a hostile runtime would, once the port has come.
let RAW = null; const rawq = [];
addEventListener('message', (e) => { if (e.data && e.data.type === 'flow-ui:connect' && e.ports.length) { RAW = e.ports[0]; rawq.splice(0).forEach((f) => f()); } });
const raw = (m) => new Promise((resolve) => { const go = () => { RAW.postMessage(m); resolve(); }; if (RAW) go(); else rawq.push(go); });
// alive(): the beacon that proves the block ran (every probe's default requirement).
const alive = () => { {{alive}}; };
// probe(attack): run the attack, keep what it threw in window.__probe.error, then alive()
// (for an async attack, once it has settled).
const probe = (attack) => {
  let result;
  try { result = attack(); } catch (e) { window.__probe.error = String(e); }
  if (result && typeof result.then === 'function') result.then(alive, (e) => { window.__probe.error = String(e); alive(); });
  else alive();
};
