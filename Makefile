# The README's two commands: `make demo` and `make test`. Both work on a fresh
# machine with only python3 + pip: they create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO_HOME ?= tracewh-home

.PHONY: install demo test lint format bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,plot,spark]'
	touch $(STAMP)

demo: install
	$(BIN)/tracewh --home $(DEMO_HOME) demo

lint: install
	$(BIN)/ruff check warehouse cli tests bench
	$(BIN)/ruff format --check warehouse cli tests bench
	$(BIN)/mypy

format: install
	$(BIN)/ruff format warehouse cli tests bench
	$(BIN)/ruff check --fix warehouse cli tests bench

test: install lint
	$(BIN)/pytest -n 2 --dist loadgroup -q

bench: install
	$(BIN)/python bench/bench_ingest.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
