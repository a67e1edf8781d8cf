# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Debian packages needed to build the Python dependencies (python-ldap compiles).
BUILD_DEBS := gcc libldap2-dev libsasl2-dev

# `make test` runs the whole suite once per backend: the scaled setup (PostgreSQL + Redis)
# and the embedded default of `make run` (SQLite, file cache, filesystem broker). The two
# runs go side by side (each starts its own servers on free ports in temporary
# directories; a run waits on its subprocesses much of the time, so two fill 2 cores
# better than one: ~16 minutes for both); each writes var/test-logs/<backend>.log,
# printed when both are done.
# One backend only: `make test TEST_BACKENDS=sqlite`.
TEST_BACKENDS ?= postgres sqlite
PYTEST_ARGS ?=

.PHONY: run test lint format bench clean-data

# What the server needs (`make run`); the dev extras (test clients, Schemathesis,
# playwright, ruff) only for `make test`, `make lint` and `make bench`.
$(BIN)/.installed-runtime: pyproject.toml
	@missing=""; for p in $(BUILD_DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	$(PYTHON) -c 'import ensurepip' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "Missing Debian packages; install them with: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(BIN)/.installed-dev: $(BIN)/.installed-runtime
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

run: $(BIN)/.installed-runtime
	$(BIN)/python manage.py serve

# The import contracts (pyproject.toml, [tool.importlinter]) first: a broken boundary fails
# `make test` before any backend runs.
test: $(BIN)/.installed-dev
	$(BIN)/lint-imports
	@mkdir -p var/test-logs; pids=""; \
	for backend in $(TEST_BACKENDS); do \
	  ( start=$$(date +%s); \
	    TEST_BACKEND=$$backend $(BIN)/python -m pytest $(PYTEST_ARGS) >var/test-logs/$$backend.log 2>&1; \
	    rc=$$?; echo "=== TEST_BACKEND=$$backend took $$(( $$(date +%s) - start )) s, exit $$rc" >>var/test-logs/$$backend.log; \
	    exit $$rc ) & pids="$$pids $$backend:$$!"; \
	done; \
	failed=""; for entry in $$pids; do \
	  wait $${entry#*:} || failed="$$failed $${entry%%:*}"; \
	done; \
	for backend in $(TEST_BACKENDS); do echo "=== TEST_BACKEND=$$backend"; cat var/test-logs/$$backend.log; done; \
	if [ -n "$$failed" ]; then echo "=== failed on:$$failed"; exit 1; fi

lint: $(BIN)/.installed-dev
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(BIN)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(BIN)/.installed-dev
	$(BIN)/python -m benchmarks

clean-data:
	rm -rf var
