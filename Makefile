# The README's two commands: `make demo` and `make test`. Both work on a fresh
# machine with only python3 + pip: they create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO_HOME ?= tracewh-home

.PHONY: install demo test test-spark lint format bench clean summary-screenshot

install: $(STAMP)

# Quiet: `make demo` starts with tracewh's own lines. The editable install of a mapped layout
# (warehouse/ -> tracewh) always adds setuptools' informational "Editable installation" note;
# only that one message is filtered, every other warning still shows.
$(STAMP): pyproject.toml
	@echo "installing tracewh and its dependencies into $(VENV) (once)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[dev,plot,spark]'
	@touch $(STAMP)

demo: install
	@$(BIN)/tracewh --home $(DEMO_HOME) demo

# mypy reads the package `tracewh` from a tree of links made afresh each time (see pyproject.toml):
# folders are linked whole, so files added since still count.
TYPECHECK := build/typecheck
lint: install
	$(BIN)/ruff check warehouse cli tests bench
	$(BIN)/ruff format --check warehouse cli tests bench
	@rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)/tracewh
	@ln -s $(CURDIR)/warehouse/* $(TYPECHECK)/tracewh/ && ln -s $(CURDIR)/cli $(TYPECHECK)/tracewh/cli
	$(BIN)/mypy

format: install
	$(BIN)/ruff format warehouse cli tests bench
	$(BIN)/ruff check --fix warehouse cli tests bench

# Spark (tests/test_spark.py, one xdist group: one JVM): `make test` runs the override layer and the
# fanned-out ingest (~45 s); the parity of every view and report (marker `spark`, the tests that use
# a registered home: the sample, then a small synthetic one) is not in it: Spark's planning makes
# that about 500 CPU s per home (README), beyond the suite's 5-minute budget on 2 cores.
# `make test-spark` runs the whole file.
test: install lint
	$(BIN)/pytest -n 2 --dist loadgroup -q -m "not spark"

test-spark: install
	$(BIN)/pytest -q tests/test_spark.py $(ARGS)

bench: install
	$(BIN)/python bench/bench_ingest.py

# The HTML summary of the bundled samples, rendered by Debian's headless Chromium (installed
# here, not by `make test`); the screenshot is committed and shown in the README.
SHOT := build/summary-shot
summary-screenshot: install
	apt-get update && apt-get install -y chromium
	rm -rf $(SHOT) && mkdir -p $(SHOT) docs
	$(BIN)/tracewh --home $(SHOT)/home demo > /dev/null
	$(BIN)/tracewh --home $(SHOT)/home summary --html $(SHOT)/summary.html
	chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir=$(CURDIR)/$(SHOT)/profile \
		--hide-scrollbars --window-size=1200,1500 --screenshot=$(CURDIR)/docs/summary.png \
		file://$(CURDIR)/$(SHOT)/summary.html
	@echo "docs/summary.png: $$(stat -c %s docs/summary.png) bytes"

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
