"""The author's editor (`flowui-sandbox edit`): a live sandboxed preview beside the source.

* :mod:`flowui_sandbox.sandbox.editor.server`: the aiohttp app (token, Host check, CSP, JSON API, atomic save);
* :mod:`flowui_sandbox.sandbox.editor.command`: what the ``edit`` command does (the session of its options, serving);
* ``static/``: the editor page, the preview host page and the committed CodeMirror 6 bundle
  (built from ``bundle/`` by ``make editor-bundle``).
"""
