# Meeple: everything runs from a local .venv that this Makefile creates and
# keeps in step with pyproject.toml. A fresh machine needs only Python 3.11.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help venv run test lint typecheck pytest openapi bench clean distclean

help:
	@echo "make run        start the API, a worker and (if MEEPLE_REDIS_URL is unset) a private redis"
	@echo "make test       ruff, mypy and the whole pytest suite"
	@echo "make venv       create .venv and install the project (automatic for the others)"
	@echo "make lint       ruff only"
	@echo "make openapi    write openapi.yaml from the running code"
	@echo "make bench      bench/moves.py, bench/memory.py and bench/verify.py (a few minutes)"
	@echo "make clean      remove caches (keeps .venv and var/, where the embedded redis keeps games)"
	@echo "make distclean  clean, and remove .venv"

# The stamp is newer than pyproject.toml once the install succeeded; any
# change to pyproject.toml reinstalls. A missing venv is created first.
# `editable_mode=compat` puts the checkout on sys.path with a .pth line: setuptools' default
# import hook cost every Python process here ~30 ms of start-up (pathlib, urllib, ...). The
# bytecode is written once, as `pip install` does for a package, since this environment sets
# PYTHONDONTWRITEBYTECODE: `meeple verify` then starts from it (bench/verify.py).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	$(BIN)/python -m compileall -q cli events games service workers
	@touch $@

venv: $(STAMP)

# e.g. make run ARGS="--port 9000 --workers 4"
run: $(STAMP)
	$(BIN)/meeple run $(ARGS)

# All three run even when one fails, so one report shows every problem;
# the exit status is non-zero if any of them failed.
test: $(STAMP)
	@tests/install-system-packages.sh
	@status=0; \
	echo "== ruff"; $(BIN)/ruff check . || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	echo "== pytest"; $(BIN)/pytest || status=1; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

openapi: $(STAMP)
	$(BIN)/meeple openapi > openapi.yaml.tmp && mv openapi.yaml.tmp openapi.yaml

bench: $(STAMP)
	$(BIN)/python -m bench.moves
	$(BIN)/python -m bench.memory
	$(BIN)/python -m bench.verify

clean:
	rm -rf .pytest_cache .mypy_cache .ruff_cache .hypothesis *.egg-info openapi.yaml.tmp
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
