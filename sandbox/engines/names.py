"""The engines this project drives, by name: a module of its own so that reading the names
(the command line's options, a probe's per-engine expectations) loads no driver."""

ENGINE_NAMES = ("chromium", "firefox", "webkit")
