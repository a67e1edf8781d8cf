# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Debian packages needed to build the Python dependencies (python-ldap compiles).
BUILD_DEBS := gcc libldap2-dev libsasl2-dev

.PHONY: run test lint format bench clean-data

$(BIN)/.installed: pyproject.toml
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
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/python manage.py serve

test: $(BIN)/.installed
	$(BIN)/python -m pytest

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(BIN)/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

clean-data:
	rm -rf var
