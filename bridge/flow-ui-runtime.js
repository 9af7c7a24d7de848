// flow-ui runtime: defines window.flowUi inside an html block (see bridge/PROTOCOL.md).
// A classic script the generator inlines into every block document, right after the
// flow-ui-init JSON. It must never contain the character sequences that would end or
// confuse its inline script element (the generator refuses them).
(function () {
  'use strict';

  // @generated-constants-begin: written by `flowui-sandbox generate` from
  var C = {"segmentPattern":"[a-z][a-z0-9_]*|0|[1-9][0-9]*","maxPathLength":256,"maxPathSegments":32,"protocolVersion":1,"maxMessageChars":65536,"maxMessageDepth":32,"actionPattern":"[a-z][a-z0-9_]*","actionMaxLength":64,"urlMaxLength":2048,"queueLimit":32,"heightReportMs":50,"heightResizeWaitMs":500,"wrappedFrameName":"flow-ui:block","reasons":{"bad-message":"the message does not have the protocol's shape","too-large":"the message is longer than 65536 characters of JSON","too-deep":"the message nests deeper than 32 levels","not-json":"a value is not JSON (objects, arrays, strings, finite numbers, booleans, null)","rate-limited":"more than 60 messages at once or 30 per second","bad-action":"the action name must match [a-z][a-z0-9_]* (at most 64 characters)","not-a-field":"setValue is allowed only on the block's fields","bad-url":"the URL does not parse","not-https":"only https: URLs can be opened","user-info":"URLs with a user name or password (https://name@host/) are refused","same-site":"the URL is on the host's own site; the host opens only the own-site URLs it allows","popup-blocked":"the browser's popup blocker refused to open the window","bad-path":"the path cannot be written in the host's state (an index past the end of an array, or a value that is not an object or array on the way)","no-gesture":"openUrl needs a user gesture (a click or key press) in the block","refused":"the host refused the request","failed":"the host's handler failed","navigated":"the block navigated away from its document; the bridge is closed","destroyed":"the block was destroyed","queue-full":"more than 32 requests before the host connected","state-too-large":"the value would make the block's state longer than its frame can be built with (the generator's limit)"},"hello":"flow-ui:hello","connect":"flow-ui:connect","textLimits":{"send":{"action":64},"openUrl":{"url":2048},"error":{"message":2000,"source":2000},"csp":{"directive":200,"blockedUri":2000,"sample":200}}};
  // @generated-constants-end

  // @core-begin: pure functions, shared with the host module (contract.py copies this
  // section into bridge/contract.js), checked by tests/js against fixtures/.
  var hasOwn = Object.prototype.hasOwnProperty;
  var SEGMENT = new RegExp('^(?:' + C.segmentPattern + ')$');
  var INDEX = /^(?:0|[1-9][0-9]*)$/;
  var ACTION = new RegExp('^(?:' + C.actionPattern + ')$');

  function quote(text) {
    var shown = text.length <= 40 ? text : text.slice(0, 37) + '...';
    return JSON.stringify(shown);
  }

  // What a value is, for error messages: "a function", "NaN", "an array", "a Date".
  function describe(value) {
    if (value === null) return 'null';
    if (value === undefined) return 'undefined';
    var t = typeof value;
    if (t === 'number') return isFinite(value) ? 'the number ' + value : String(value);
    if (t === 'string') return 'the string ' + quote(value);
    if (t === 'boolean') return String(value);
    if (t === 'function') return 'a function';
    if (t === 'symbol' || t === 'bigint') return 'a ' + t;
    if (Array.isArray(value)) return 'an array';
    var kind = Object.prototype.toString.call(value).slice(8, -1);
    return kind === 'Object' ? 'an object' : 'a ' + kind;
  }

  // Why `path` is not a valid path (SPEC §2), or null.
  function pathProblem(path) {
    if (typeof path !== 'string') return 'a path must be a string such as "customer.name", not ' + describe(path);
    if (path === '') return 'the path is empty';
    if (path.length > C.maxPathLength) return 'the path has ' + path.length + ' characters; at most ' + C.maxPathLength + ' are allowed';
    var segments = path.split('.');
    if (segments.length > C.maxPathSegments) return 'the path has ' + segments.length + ' segments; at most ' + C.maxPathSegments + ' are allowed';
    for (var i = 0; i < segments.length; i++) {
      if (segments[i] === '') return 'segment ' + (i + 1) + ' is empty (a leading, trailing or doubled dot)';
      if (!SEGMENT.test(segments[i])) {
        return 'segment ' + (i + 1) + ' ' + quote(segments[i]) +
          ' must be snake_case ([a-z][a-z0-9_]*) or an array index (0 or a number without leading zeros)';
      }
    }
    return null;
  }

  // Why `action` is not a valid action name, or null.
  function actionProblem(action) {
    if (typeof action !== 'string') return 'the action must be a string such as "submit", not ' + describe(action);
    if (action.length > C.actionMaxLength) return 'the action name has ' + action.length + ' characters; at most ' + C.actionMaxLength + ' are allowed';
    if (!ACTION.test(action)) return 'the action name ' + quote(action) + ' must be snake_case (' + C.actionPattern + '), like "submit" or "add_to_cart"';
    return null;
  }

  // One step of a lookup: own keys of objects, indexes below an array's length; else undefined.
  function child(value, segment) {
    if (value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) return INDEX.test(segment) && +segment < value.length ? value[+segment] : undefined;
    return hasOwn.call(value, segment) ? value[segment] : undefined;
  }

  // The value at a valid path, undefined when absent.
  function lookup(state, path) {
    var segments = path.split('.');
    var value = state;
    for (var i = 0; i < segments.length && value !== undefined; i++) value = child(value, segments[i]);
    return value;
  }

  // The text data-bind shows.
  function formatValue(value) {
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return JSON.stringify(value);
  }

  // Whether data-show hides the element: missing, null, "", false, 0 or [] ({} is not empty).
  function isEmpty(value) {
    return value === undefined || value === null || value === '' || value === false ||
      value === 0 || (Array.isArray(value) && value.length === 0);
  }

  function isPlainObject(value) {
    var proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  }

  // Checks that `value` is plain JSON within the message limits, cheaply: the walk stops as soon
  // as the depth or a lower bound of the JSON text's length passes the limit. Returns null or
  // {reason, where, message}; `where` names the offending part like payload.items[2].
  // `depth0` is the depth `value` sits at; `maxDepth` and `maxChars` default to the message limits.
  function jsonProblem(value, where, depth0, maxDepth, maxChars) {
    if (maxDepth === undefined) maxDepth = C.maxMessageDepth;
    if (maxChars === undefined) maxChars = C.maxMessageChars;
    var budget = maxChars;
    var stack = [[value, where, depth0 || 0]];
    while (stack.length) {
      var top = stack.pop();
      var v = top[0], at = top[1], depth = top[2];
      budget -= 1;
      if (v === null || typeof v === 'boolean') continue;
      if (typeof v === 'string') { budget -= v.length; if (budget < 0) break; continue; }
      if (typeof v === 'number') {
        if (!isFinite(v)) return { reason: 'not-json', where: at, message: at + ' is ' + describe(v) + ', which JSON cannot carry' };
        continue;
      }
      if (typeof v !== 'object') return { reason: 'not-json', where: at, message: at + ' is ' + describe(v) + '; only JSON values (objects, arrays, strings, finite numbers, booleans, null) can be sent' };
      if (depth + 1 > maxDepth) return { reason: 'too-deep', where: at, message: at + ' nests deeper than ' + maxDepth + ' levels' };
      if (Array.isArray(v)) {
        budget -= v.length; // at least a comma or a bracket per element
        if (budget < 0) break;
        for (var i = v.length - 1; i >= 0; i--) stack.push([v[i], at + '[' + i + ']', depth + 1]);
      } else if (isPlainObject(v)) {
        var keys = Object.keys(v);
        budget -= 3 * keys.length; // quotes and a colon per key
        if (budget < 0) break;
        for (var k = keys.length - 1; k >= 0; k--) {
          budget -= keys[k].length;
          stack.push([v[keys[k]], /^[A-Za-z_$][\w$]*$/.test(keys[k]) ? at + '.' + keys[k] : at + '[' + JSON.stringify(keys[k]) + ']', depth + 1]);
        }
      } else {
        return { reason: 'not-json', where: at, message: at + ' is ' + describe(v) + '; only plain objects, arrays, strings, finite numbers, booleans and null can be sent' };
      }
      if (budget < 0) break;
    }
    if (budget < 0) return { reason: 'too-large', where: where, message: where + ' is longer than ' + maxChars + ' characters of JSON' };
    return null;
  }

  function deepEqual(a, b) {
    if (a === b) return true;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    var ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (var i = 0; i < ka.length; i++) {
      if (!hasOwn.call(b, ka[i]) || !deepEqual(a[ka[i]], b[ka[i]])) return false;
    }
    return true;
  }

  function copyContainer(value) {
    return Array.isArray(value) ? value.slice() : Object.assign({}, value);
  }

  function kindOf(value) {
    return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : 'a ' + typeof value;
  }

  // Writes `value` at `path` (PROTOCOL.md, "Writing a path"): {state} with a copy of `state`
  // (untouched branches shared), or {problem} when the path cannot be written. Missing (or null)
  // containers on the way are created as objects; on an array a segment must be an index of an
  // element or the one right after the last (it appends); an index past that, a word on an
  // array, or a string, number or boolean on the way is refused. So no write makes a sparse
  // array or replaces a value the path only passes through.
  function setIn(state, path, value) {
    var segments = path.split('.');
    var root = state !== null && typeof state === 'object' && !Array.isArray(state) ? copyContainer(state) : {};
    var node = root;
    for (var i = 0; i < segments.length; i++) {
      var segment = segments[i];
      var last = i === segments.length - 1;
      var at = segments.slice(0, i).join('.') || 'the state';
      var key = segment;
      if (Array.isArray(node)) {
        if (!INDEX.test(segment)) return { problem: JSON.stringify(segment) + ' is not an index, but ' + at + ' is an array' };
        key = +segment;
        if (key > node.length) return { problem: 'index ' + segment + ' is past the end of ' + at + ' (an array of ' + node.length + ')' };
      }
      if (last) { node[key] = value; break; }
      var next = child(node, segment);
      if (next === undefined || next === null) next = {};
      else if (typeof next === 'object') next = copyContainer(next);
      else return { problem: segments.slice(0, i + 1).join('.') + ' is ' + kindOf(next) + ', not an object or array' };
      node[key] = next;
      node = next;
    }
    return { state: root };
  }

  function deepFreeze(value) {
    if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
      Object.freeze(value);
      var keys = Object.keys(value);
      for (var i = 0; i < keys.length; i++) deepFreeze(value[keys[i]]);
    }
    return value;
  }

  var core = {
    describe: describe, pathProblem: pathProblem, actionProblem: actionProblem, child: child, lookup: lookup,
    formatValue: formatValue, isEmpty: isEmpty, jsonProblem: jsonProblem, deepEqual: deepEqual,
    setIn: setIn, deepFreeze: deepFreeze
  };
  // @core-end

  // ---------------------------------------------------------------- in the block

  var script = document.currentScript;
  // The init JSON is the element right before this script, written by the generator in <head>:
  // looked up by position, not by id, so author markup cannot stand in for it.
  var initEl = script && script.previousElementSibling;
  if (!initEl || initEl.id !== 'flow-ui-init' || initEl.type !== 'application/json') {
    throw new Error('flow-ui runtime: the flow-ui-init JSON must come right before the runtime script');
  }
  var init = JSON.parse(initEl.textContent);
  var themeStyle = initEl.previousElementSibling;
  while (themeStyle && themeStyle.id !== 'flow-ui-theme') themeStyle = themeStyle.previousElementSibling;

  var fields = init.fields.slice();
  var projectionPaths = fields.concat(init.paths.filter(function (p) { return fields.indexOf(p) < 0; }));
  var state = deepFreeze(init.state);
  var theme = deepFreeze(init.theme);
  var changeListeners = [];
  var themeListeners = [];
  var port = null;
  var queue = [];
  var queueOverflow = 0;
  var pending = {};
  var writes = []; // setValue calls the host has not answered: {id, path, value}
  var nextId = 1;

  function FlowUiError(reason, message) {
    var error = new Error(message);
    error.name = 'FlowUiError';
    error.reason = reason;
    return error;
  }

  // Runs author callbacks so that one failing callback neither stops the others nor the runtime.
  // Its error goes to the console and the host's log from here: an error event would not do,
  // WebKit reports every error of an opaque-origin document as "Script error.".
  function safely(fn, args) {
    try {
      fn.apply(null, args);
    } catch (error) {
      if (typeof console !== 'undefined') console.error(error);
      post({ type: 'error', kind: 'error', message: clip('Uncaught in a flowUi callback: ' + errorText(error), C.textLimits.error.message), source: '', line: 0, column: 0 });
    }
  }

  function errorText(error) {
    return error instanceof Error ? error.name + ': ' + error.message : formatValue(error);
  }

  // ---- bindings: data-bind as text, data-show through data-flow-ui-shown

  function renderElement(el) {
    var bind = el.getAttribute('data-bind');
    if (bind !== null) {
      var text = pathProblem(bind) ? '' : formatValue(lookup(state, bind));
      if (el.textContent !== text) el.textContent = text;
    }
    var show = el.getAttribute('data-show');
    if (show !== null) {
      var shown = !pathProblem(show) && !isEmpty(lookup(state, show));
      if (shown !== el.hasAttribute('data-flow-ui-shown')) {
        if (shown) el.setAttribute('data-flow-ui-shown', '');
        else el.removeAttribute('data-flow-ui-shown');
      }
    }
  }

  function renderTree(root) {
    if (root.nodeType !== 1) return;
    if (root.hasAttribute('data-bind') || root.hasAttribute('data-show')) renderElement(root);
    var els = root.querySelectorAll('[data-bind],[data-show]');
    for (var i = 0; i < els.length; i++) renderElement(els[i]);
  }

  // Elements are bound as the parser (or the author's script) adds them, so the first paint
  // already shows the projection; our own text changes are taken back out of the queue.
  var observer = new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      if (r.type === 'attributes') renderElement(r.target);
      else for (var j = 0; j < r.addedNodes.length; j++) renderTree(r.addedNodes[j]);
    }
    observer.takeRecords();
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-bind', 'data-show'] });

  function renderAll() {
    if (document.documentElement) renderTree(document.documentElement);
    observer.takeRecords();
  }

  // ---- state changes

  // Makes `next` the state; the listeners hear which projection paths really changed.
  function commit(next) {
    var changed = [];
    for (var i = 0; i < projectionPaths.length; i++) {
      if (!deepEqual(lookup(state, projectionPaths[i]), lookup(next, projectionPaths[i]))) changed.push(projectionPaths[i]);
    }
    if (!changed.length) return;
    state = deepFreeze(next);
    renderAll();
    var listeners = changeListeners.slice();
    for (i = 0; i < listeners.length; i++) safely(listeners[i], [state, changed.slice()]);
  }

  // The host's change of top-level keys, with our writes it has not answered yet put back on top
  // (the port keeps order: a state sent before the host saw a write comes before that write's reply).
  function applyState(message) {
    var next = Object.assign({}, state);
    var unset = Array.isArray(message.unset) ? message.unset : [];
    for (var i = 0; i < unset.length; i++) delete next[unset[i]];
    var set = message.set && typeof message.set === 'object' ? message.set : {};
    var keys = Object.keys(set);
    for (i = 0; i < keys.length; i++) next[keys[i]] = set[keys[i]];
    for (i = 0; i < writes.length; i++) {
      var written = setIn(next, writes[i].path, writes[i].value);
      if (written.state) next = written.state;
    }
    commit(next);
  }

  function applyTheme(message) {
    theme = deepFreeze(message.theme);
    if (themeStyle) themeStyle.textContent = message.css;
    var listeners = themeListeners.slice();
    for (var i = 0; i < listeners.length; i++) safely(listeners[i], [theme]);
  }

  // ---- the channel

  function post(message) {
    if (port) { port.postMessage(message); return true; }
    if (queue.length >= C.queueLimit) { queueOverflow++; return false; }
    queue.push(message);
    return true;
  }

  function request(message) {
    var id = nextId++;
    message.id = id;
    var size = JSON.stringify(message).length;
    if (size > C.maxMessageChars) {
      throw new TypeError('flowUi.' + message.type + ': the message would be ' + size +
        ' characters of JSON; at most ' + C.maxMessageChars + ' are allowed');
    }
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      if (!post(message)) {
        delete pending[id];
        reject(FlowUiError('queue-full', C.reasons['queue-full']));
      }
    });
  }

  // What the host sends over the port, by message type (the host messages of the message table).
  var onHostMessage = {
    ping: function (m) { port.postMessage({ type: 'pong', n: m.n }); },
    state: applyState,
    theme: applyTheme,
    reply: function (m) {
      if (!hasOwn.call(pending, m.id)) return;
      var p = pending[m.id];
      delete pending[m.id];
      writes = writes.filter(function (w) { return w.id !== m.id; });
      if (m.ok) p.resolve(m.value === undefined ? null : m.value);
      else p.reject(FlowUiError(m.reason, m.message));
    }
  };

  function onPortMessage(event) {
    var m = event.data;
    if (!m || typeof m !== 'object' || typeof m.type !== 'string' || !hasOwn.call(onHostMessage, m.type)) return;
    onHostMessage[m.type](m);
  }

  window.addEventListener('message', function (event) {
    // The connect comes from the host page: the block's parent, or, when the host module holds the
    // block's frame in its own neutral frame (the frame it names C.wrappedFrameName), that frame's parent.
    var host = window.parent;
    if (window.name === C.wrappedFrameName) { try { host = window.parent.parent; } catch (e) { return; } }
    if (port || event.source !== host) return;
    var m = event.data;
    if (!m || m.type !== C.connect || !event.ports || event.ports.length !== 1) return;
    port = event.ports[0];
    port.onmessage = onPortMessage;
    var waiting = queue;
    queue = [];
    for (var i = 0; i < waiting.length; i++) port.postMessage(waiting[i]);
    if (queueOverflow) {
      port.postMessage({ type: 'error', kind: 'error', message: 'flow-ui runtime: ' + queueOverflow + ' messages dropped before the host connected', source: '', line: 0, column: 0 });
    }
  });

  // ---- what the host's log hears about: uncaught errors and CSP violations

  function clip(text, n) { text = String(text); return text.length > n ? text.slice(0, n) : text; }

  // Only what the browser reports (isTrusted): an event the block dispatches itself is not relayed as
  // the browser's word (what the block posts on the port past its runtime stays its own word: PROTOCOL.md, "Trust").
  window.addEventListener('error', function (event) {
    if (!event.isTrusted) return;
    var most = C.textLimits.error;
    post({ type: 'error', kind: 'error', message: clip(event.message || 'error', most.message), source: clip(event.filename || '', most.source),
      line: event.lineno >>> 0, column: event.colno >>> 0 });
  });
  // Not isTrusted here: WebKitGTK dispatches its own unhandledrejection untrusted (measured).
  window.addEventListener('unhandledrejection', function (event) {
    post({ type: 'error', kind: 'rejection', message: clip('Unhandled rejection: ' + errorText(event.reason), C.textLimits.error.message), source: '', line: 0, column: 0 });
  });
  document.addEventListener('securitypolicyviolation', function (event) {
    if (!event.isTrusted) return;
    var most = C.textLimits.csp;
    post({ type: 'csp', directive: clip(event.effectiveDirective || event.violatedDirective || '', most.directive),
      blockedUri: clip(event.blockedURI || '', most.blockedUri), sample: clip(event.sample || '', most.sample) });
  });

  // ---- auto-height: the content's height, at most once per heightReportMs (last value wins)

  var sentHeight = -1;
  var lastReport = 0;
  var heightTimer = 0;
  // The viewport as of the last resize event. A timer can run after the host resized the frame
  // but before its resize event, where author code refits: the report waits for that event (at
  // most heightResizeWaitMs, the event may never come for a frame that is not rendered).
  var resizedViewport = window.innerHeight;
  var resizeWaitSince = 0;
  function reportHeight() {
    heightTimer = 0;
    var now = Date.now();
    var viewport = window.innerHeight;
    if (viewport !== resizedViewport) {
      if (!resizeWaitSince) resizeWaitSince = now;
      if (now - resizeWaitSince < C.heightResizeWaitMs) { heightTimer = setTimeout(reportHeight, C.heightReportMs); return; }
      resizedViewport = viewport;
    }
    resizeWaitSince = 0;
    lastReport = now;
    // A frame with no viewport (hidden by the host page, or not sized yet) has no height to
    // report, and may get no resize event when it is shown (frames off screen get no rendering
    // steps): look again later rather than trust an event.
    if (!viewport) { heightTimer = setTimeout(reportHeight, C.heightResizeWaitMs); return; }
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h !== sentHeight) { sentHeight = h; post({ type: 'height', height: h, viewport: viewport }); }
  }
  function scheduleHeight() {
    if (heightTimer) return;
    heightTimer = setTimeout(reportHeight, Math.max(0, lastReport + C.heightReportMs - Date.now()));
  }
  // Engines skip rendering work (ResizeObserver included) for cross-origin frames outside the
  // viewport; the load events still come, so a block below the fold reports its height too.
  if (typeof ResizeObserver === 'function') new ResizeObserver(scheduleHeight).observe(document.documentElement);
  window.addEventListener('resize', function () { resizedViewport = window.innerHeight; scheduleHeight(); });
  document.addEventListener('DOMContentLoaded', scheduleHeight);
  window.addEventListener('load', scheduleHeight);

  // ---- user activation, where navigator.userActivation is missing: a trusted click or key recently

  var lastGesture = -Infinity;
  function noteGesture(event) { if (event.isTrusted) lastGesture = Date.now(); }
  ['click', 'keydown', 'pointerup', 'touchend'].forEach(function (type) { window.addEventListener(type, noteGesture, true); });
  function hasGesture() {
    if (navigator.userActivation) return navigator.userActivation.isActive;
    return Date.now() - lastGesture < 1000;
  }

  // ---- the API

  function fail(where, problem) { throw new TypeError('flowUi.' + where + ': ' + problem); }

  function checkPath(where, path) {
    var problem = pathProblem(path);
    if (problem) fail(where, problem);
  }

  function checkJson(where, value, name) {
    var problem = jsonProblem(value, name, 1);
    if (problem) fail(where, problem.message);
  }

  function subscribe(list, cb, where, args) {
    if (typeof cb !== 'function') fail(where, 'the callback must be a function, not ' + describe(cb));
    var entry = function () { cb.apply(null, arguments); };
    list.push(entry);
    safely(entry, args);
    return function unsubscribe() {
      var i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  var api = {
    blockId: init.blockId,
    get state() { return state; },
    get theme() { return theme; },
    get: function (path) {
      checkPath('get(path)', path);
      return lookup(state, path);
    },
    onChange: function (cb) {
      return subscribe(changeListeners, cb, 'onChange(callback)', [state, projectionPaths.slice()]);
    },
    onTheme: function (cb) {
      return subscribe(themeListeners, cb, 'onTheme(callback)', [theme]);
    },
    send: function (action, payload) {
      var problem = actionProblem(action);
      if (problem) fail('send(action, payload)', problem);
      if (payload === undefined) payload = null;
      checkJson('send(action, payload)', payload, 'payload');
      return request({ type: 'send', action: action, payload: payload });
    },
    setValue: function (path, value) {
      var where = 'setValue(path, value)';
      checkPath(where, path);
      if (fields.indexOf(path) < 0) {
        fail(where, quote(path) + ' is not one of this block\'s fields (' +
          (fields.length ? fields.join(', ') : 'it has none') + '); a block may only write the paths listed in its fields');
      }
      if (value === undefined) fail(where, 'the value is missing (undefined); use null to clear a field');
      checkJson(where, value, 'value');
      var message = { type: 'setValue', path: path, value: value };
      var promise = request(message);
      var copy = JSON.parse(JSON.stringify(value)); // our own copy: the state is frozen, the author's object is not
      writes.push({ id: message.id, path: path, value: copy });
      // Where the projection cannot hold the write, it waits for the host's answer (and its state).
      var written = setIn(state, path, copy);
      if (written.state) commit(written.state);
      return promise;
    },
    openUrl: function (url) {
      var where = 'openUrl(url)';
      if (typeof url !== 'string') fail(where, 'the URL must be a string such as "https://example.com/", not ' + describe(url));
      if (url.length > C.urlMaxLength) fail(where, 'the URL has ' + url.length + ' characters; at most ' + C.urlMaxLength + ' are allowed');
      var parsed;
      try { parsed = new URL(url); } catch (e) { fail(where, quote(url) + ' is not an absolute URL'); }
      if (parsed.protocol !== 'https:') fail(where, 'only https: URLs can be opened, not ' + quote(parsed.protocol));
      if (parsed.username || parsed.password) fail(where, quote(url) + ' carries a user name or password; such URLs are refused (they disguise where they lead)');
      return request({ type: 'openUrl', url: url, gesture: hasGesture() });
    }
  };
  Object.freeze(api);
  Object.defineProperty(window, 'flowUi', { value: api, enumerable: true, configurable: false, writable: false });

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', renderAll);
  else renderAll();

  window.parent.postMessage({ type: C.hello, v: C.protocolVersion }, '*');
})();
