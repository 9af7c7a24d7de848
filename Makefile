# Two entry points (see README): `make demo` and `make test`. Both set everything up first.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: setup system python sarif-validator demo test test-fast test-js lint bench clean generate editor-bundle

setup: system python sarif-validator

# Debian packages: the three engines of docs/ENGINES.md, Xvfb for WebKitGTK, Node for the JS tests.
# Each is installed only when the command it provides is missing.
SYSTEM_NEEDS := python3:python3 /usr/bin/chromium:chromium /usr/bin/firefox-esr:firefox-esr \
	/usr/bin/WebKitWebDriver:webkit2gtk-driver /usr/bin/Xvfb:xvfb node:nodejs \
	/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:fonts-dejavu-core
system:
	@missing=""; \
	for need in $(SYSTEM_NEEDS); do \
	  what=$${need%%:*}; pkg=$${need##*:}; \
	  if [ "$${what#/}" != "$$what" ]; then [ -e "$$what" ] || missing="$$missing $$pkg"; \
	  else command -v "$$what" >/dev/null || missing="$$missing $$pkg"; fi; \
	done; \
	python3 -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "missing Debian packages:$$missing (run make setup as root, or see README for Playwright's own browsers)"; exit 1; fi; \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing ca-certificates >/dev/null; \
	fi

# The SARIF SDK's official validator (a self-contained .NET program on npm), for the review's SARIF test.
SARIF_VALIDATOR := build/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
sarif-validator: $(SARIF_VALIDATOR)
$(SARIF_VALIDATOR):
	npm install --silent --no-audit --no-fund --prefix build/sarif-multitool @microsoft/sarif-multitool-linux@5.7.0

python: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	@command -v python3 >/dev/null || { echo "python3 is missing"; exit 1; }
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $@

demo: setup
	$(VENV)/bin/flowui-sandbox engines
	$(VENV)/bin/flowui-sandbox paths examples/starter.html
	$(VENV)/bin/flowui-sandbox build examples/starter.html --state examples/starter.state.json \
	  --fields order.items,draft.email,draft.agree --block-id starter --page -o out/starter.html
	@echo "wrote out/starter.html (open it in a browser)"
	$(VENV)/bin/flowui-sandbox review examples/starter.html --fields order.items,draft.email,draft.agree \
	  --format html -o out/review.html
	@echo "wrote out/review.html"
	$(VENV)/bin/flowui-sandbox verify --html out/verify.html --json out/verify.json
	@echo "next, edit the block live: $(VENV)/bin/flowui-sandbox edit examples/starter.html"

# The tiers in order of cost (tests/conftest.py): a broken unit fails in seconds, before a browser starts.
# The unit tier on two workers per core too: a third of its time is waiting (forked commands, sockets,
# timers), which a second worker per core fills (README, "Tests").
# The browser tiers in two runs: the files other than the two heavy modules on two workers per core
# (a file stays on one worker, the longest files first: tests/conftest.py SLOWEST_FIRST; they wait on
# pages and timers more than they compute: one worker per core kept 2 cores half busy), then the two
# heavy modules alone (each keeps both cores busy: every engine at once, pages in parallel).
# docs/SCALE.md has the profile.
HEAVY := tests/browser/test_review_browser.py tests/browser/test_probes.py
WORKERS ?= $(shell echo $$(( 2 * $$(nproc) )))
test: setup
	$(MAKE) --no-print-directory lint
	$(PY) -m pytest -m unit -q -n $(WORKERS)
	node --test tests/js/
	$(PY) -m pytest -m "browser or e2e" $(HEAVY:%=--ignore=%) -n $(WORKERS) --dist loadfile --no-loadscope-reorder --durations=25
	$(PY) -m pytest -m "browser or e2e" $(HEAVY) --durations=10

# ruff (rules and why: pyproject.toml [tool.ruff]) and mypy over flowui_sandbox (sandbox, bridge, theme).
# mypy reads flowui_sandbox through a link tree (pyproject.toml [tool.mypy] says why).
lint: python
	$(VENV)/bin/ruff check .
	@rm -rf build/typecheck && mkdir -p build/typecheck/flowui_sandbox && cd build/typecheck/flowui_sandbox && \
	  ln -s ../../../sandbox/api/__init__.py ../../../sandbox/api/__main__.py . && ln -s ../../../sandbox ../../../bridge ../../../theme .
	$(VENV)/bin/mypy

# Every derived file (contract.js, the runtime's constants, JSON Schemas, golden documents) from its source.
generate: python
	$(VENV)/bin/flowui-sandbox generate

test-fast: python
	$(PY) -m pytest -m unit -n $(WORKERS)

bench: setup
	$(PY) bench/extraction.py
	$(PY) bench/bridge.py
	$(PY) bench/verify.py
	$(PY) bench/review.py
	$(PY) bench/clock_leaps.py
	$(PY) bench/document.py

# The editor's CodeMirror 6 bundle (committed; CI does not rebuild it): pinned npm packages, esbuild.
editor-bundle:
	cd sandbox/editor/bundle && npm ci --no-audit --no-fund && npm run build
	@raw=$$(wc -c < sandbox/editor/static/codemirror.js); gz=$$(gzip -9c sandbox/editor/static/codemirror.js | wc -c); \
	echo "sandbox/editor/static/codemirror.js: $$raw bytes, $$gz gzipped (record them in docs/EDITOR.md)"

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis .ruff_cache .mypy_cache
