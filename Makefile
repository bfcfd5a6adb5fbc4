# Two commands do everything: `make demo` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LAUNCHER := $(VENV)/.launcher

.PHONY: demo test lint docs spec chromium postgresql compile bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

chromium: $(STAMP)
	@scripts/ensure-chromium $(PY)

# The store tests run against a PostgreSQL server they start themselves (tests/postgres.py).
postgresql:
	@scripts/ensure-postgresql

# The `steadyhand` command as a launcher that starts Python without `site` and relays the
# call to the daemon (fronts/cli/relay.py): a call then costs about a bare interpreter's
# start. It replaces pip's console script, so it follows every (re)install.
$(LAUNCHER): $(STAMP) src/steadyhand/fronts/cli/relay.py
	@$(PY) -m steadyhand.fronts.cli.relay $(VENV)/bin/steadyhand
	@touch $@

# Byte-compile our sources: with PYTHONDONTWRITEBYTECODE set (as on these machines) every
# CLI call would otherwise recompile them, which costs the hot path milliseconds.
compile: $(STAMP) $(LAUNCHER)
	@$(PY) -m compileall -q src >/dev/null

demo: $(STAMP) chromium compile
	$(PY) -m steadyhand.demo

# Two workers (pytest-xdist): tests mostly wait on Chromium, so two overlap well on two
# cores; a module's tests that share its daemon stay on one worker (tests/conftest.py).
test: $(STAMP) chromium postgresql compile
	@scripts/ensure-desktop
	$(PY) -m pytest -n 2 --dist loadgroup

# The layers contract (pyproject.toml, README "Architecture") counts lazy and type-only
# imports: a module importing from a layer above its own fails here.
lint: $(STAMP)
	$(PY) -m ruff check src tests bench
	$(PY) -m ruff format --check src tests bench
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# The documentation site (docs/, mkdocs.yml) in build/site: the reference pages written from
# the tables first; any warning (a broken link or anchor, a page out of the nav) fails it.
docs: $(STAMP)
	$(PY) -m steadyhand.fronts.docs_pages docs/reference
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

spec: $(STAMP)
	$(PY) -m steadyhand.fronts.cli.spec
	$(PY) -m steadyhand.client_stubs

bench: $(STAMP) chromium postgresql compile
	$(PY) bench/cli_latency.py
	$(PY) bench/snapshot.py
	$(PY) bench/act.py
	$(PY) bench/browser_binaries.py
	$(PY) bench/capture_paths.py
	$(PY) bench/sessions.py
	$(PY) bench/fronts_http.py
	$(PY) bench/fronts_mcp.py
	$(PY) bench/observe.py
	$(PY) bench/report.py
	$(PY) bench/live_view.py
	$(PY) bench/endpoints.py
	$(PY) bench/store.py
	$(PY) bench/extension_relay.py
	$(PY) bench/agent.py

clean:
	rm -rf $(VENV) .demo-state build src/*.egg-info
