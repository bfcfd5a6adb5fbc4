# Two commands do everything: `make demo` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test lint spec chromium bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

chromium: $(STAMP)
	@scripts/ensure-chromium $(PY)

demo: $(STAMP) chromium
	$(PY) -m steadyhand.demo

test: $(STAMP) chromium
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check src tests bench
	$(PY) -m ruff format --check src tests bench
	$(PY) -m mypy

spec: $(STAMP)
	$(PY) -m steadyhand.fronts.cli_spec

bench: $(STAMP) chromium
	$(PY) bench/cli_latency.py

clean:
	rm -rf $(VENV) .demo-state build src/*.egg-info
