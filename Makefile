# The README's two commands: `make demo` and `make test`. Both work on a fresh machine with only
# python3 + pip: they create .venv and install exactly the versions in requirements.lock (hashes
# checked), the versions the suite last passed with. New versions come in on purpose: `make upgrade`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
LOCK ?= requirements.lock
STAMP := $(VENV)/.installed-stamp
DEMO_HOME ?= tracewh-home
# Python caches compiled modules (__pycache__, ignored by git) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE set): the suite starts hundreds of `tracewh` processes, and each one would
# compile the package's modules again, and pytest would rewrite every test module again.
export PYTHONDONTWRITEBYTECODE :=
# What the lock covers: the install and every extra (the suite needs them all).
EXTRAS := --extra dev --extra plot --extra spark
# The lock is resolved for the interpreter CI and `make` use; other Pythons install from the ranges.
LOCK_PYTHON := 3.11
RESOLVE = $(BIN)/uv pip compile pyproject.toml $(EXTRAS) --generate-hashes --python-version $(LOCK_PYTHON) \
	--no-header --quiet

.PHONY: install lock demo test test-spark test-lowest upgrade lint format bench clean summary-screenshot

install: $(STAMP)

# --no-deps: the lock is the whole environment (a missing pin fails here, not by a silent resolve).
# The project itself is installed last without its dependencies or build isolation, from the
# locked setuptools; the mapped layout's editable install always adds setuptools' informational
# "Editable installation" note, and only that one message is filtered.
$(STAMP): pyproject.toml $(LOCK)
	@echo "installing tracewh and the locked dependencies ($(LOCK)) into $(VENV) (once)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r $(LOCK)
	@PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet \
		--disable-pip-version-check --no-deps --no-build-isolation -e .
	@$(BIN)/python -m pip check --disable-pip-version-check > /dev/null
	@touch $(STAMP)

demo: install
	@$(BIN)/tracewh --home $(DEMO_HOME) demo

# mypy reads the package `tracewh` from a tree of links made afresh each time (see pyproject.toml):
# folders are linked whole, so files added since still count.
TYPECHECK := build/typecheck
lint: install
	$(BIN)/ruff check warehouse cli tests bench tools
	$(BIN)/ruff format --check warehouse cli tests bench tools
	@rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)/tracewh
	@ln -s $(CURDIR)/warehouse/* $(TYPECHECK)/tracewh/ && ln -s $(CURDIR)/cli $(TYPECHECK)/tracewh/cli
	$(BIN)/mypy

format: install
	$(BIN)/ruff format warehouse cli tests bench tools
	$(BIN)/ruff check --fix warehouse cli tests bench tools

# Spark (tests/test_spark.py, one xdist group: one JVM): `make test` runs the override layer, the
# fanned-out ingest, the registration of every view of the sample and the parity of its reports but
# the heaviest on Spark; the parity of the views and of those reports (marker `spark`: the
# life-cycle stack computed from the events and the reports of the widest Spark plans, ~290 CPU s
# on the sample) and of a small synthetic home is beyond the suite's 5-minute budget on
# 2 cores (README). `make test-spark` runs the whole file.
test: install lint
	TRACEWH_LOCK=$(LOCK) $(BIN)/pytest -n 2 --dist loadgroup -q -m "not spark" --durations=10

test-spark: install
	$(BIN)/pytest -q tests/test_spark.py tests/test_spark_cluster.py $(ARGS)

# After a change of the ranges in pyproject.toml: re-resolve the lock, keeping every pin the new
# ranges still allow (then `make test`, and commit both files together).
lock: install
	$(RESOLVE) -o $(LOCK)

# Take the newest versions the ranges in pyproject.toml allow, on purpose: resolve a candidate lock,
# run the whole of `make test` on it in a venv of its own, and only when that passes replace
# requirements.lock (review and commit the diff). A failure leaves requirements.lock as it was.
upgrade: install
	@mkdir -p build && rm -rf .venv-upgrade
	$(RESOLVE) --upgrade -o build/upgrade.lock
	$(MAKE) test VENV=.venv-upgrade LOCK=build/upgrade.lock
	cp build/upgrade.lock $(LOCK) && rm -rf .venv-upgrade
	@echo "$(LOCK) now holds the newest versions the suite passed with: review git diff $(LOCK), commit it"

# The declared minimums are real: the suite against the lowest version of every direct dependency
# the ranges allow (their own dependencies as new as those allow). The linters are held to one
# minor release and judged by `make test`, so this runs the tests alone.
test-lowest: install
	@mkdir -p build && rm -rf .venv-lowest
	$(RESOLVE) --resolution lowest-direct -o build/lowest.lock
	$(MAKE) install VENV=.venv-lowest LOCK=build/lowest.lock
	TRACEWH_LOCK=build/lowest.lock .venv-lowest/bin/pytest -n 2 --dist loadgroup -q -m "not spark" $(ARGS)

bench: install
	$(BIN)/python -m bench.bench_ingest

# The HTML summary of the bundled samples, rendered by Debian's headless Chromium (installed
# here when missing, not by `make test`); the screenshot is committed and shown in the README.
# Chromium's complaints about the absent D-Bus go to build/summary-shot/chromium.log.
SHOT := build/summary-shot
summary-screenshot: install
	command -v chromium > /dev/null || (apt-get update && apt-get install -y chromium)
	rm -rf $(SHOT) && mkdir -p $(SHOT) docs
	$(BIN)/tracewh --home $(SHOT)/tracewh-home demo > /dev/null
	$(BIN)/tracewh --home $(SHOT)/tracewh-home summary --html $(SHOT)/summary.html
	chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir=$(CURDIR)/$(SHOT)/profile \
		--hide-scrollbars --window-size=1440,1500 --screenshot=$(CURDIR)/docs/summary.png \
		file://$(CURDIR)/$(SHOT)/summary.html 2> $(SHOT)/chromium.log \
		|| (cat $(SHOT)/chromium.log; exit 1)
	@echo "docs/summary.png: $$(stat -c %s docs/summary.png) bytes"

clean:
	rm -rf $(VENV) .venv-upgrade .venv-lowest build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
