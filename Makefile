# Two commands for a new user: `make serve` and `make test`. Each creates .venv when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# `make serve` keeps its database and generated keys in ./var; the installed `aftersales` command
# defaults to the user's data directory instead (docs/hosts.md, "Where the data lives").
AFTERSALES_DATA_DIR ?= var

.PHONY: serve test warm lint bench bench-worlds bench-eval clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs everything here (editable installs included): the same versions pip would choose, from the package
# index, in about 4 s where pip took 37 for the dev install (20 of them reading the index's pages). The pip that venv
# brings installs uv first (4 s). Neither compiles bytecode ahead: Python compiles the modules the suite imports as
# it imports them, and most of them never are.
$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install --quiet "uv>=0.13,<1"

# Reinstall only when the project's metadata changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev]"
	touch $@ $(VENV)/.installed

serve: $(VENV)/.installed
	AFTERSALES_DATA_DIR=$(AFTERSALES_DATA_DIR) $(BIN)/aftersales serve

# The suite runs on every core (pytest-xdist), one test file per worker at a time so module fixtures are built once,
# handed out in the order tests/conftest.py sorts them (longest first; xdist would reorder them by test count, which
# left a long one-test file for last on one worker while the other had finished).
# Python keeps the bytecode it compiles (in __pycache__, which git ignores) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE): the suite starts hundreds of Python processes (servers, commands, agents, workers) that
# import the same modules, and pytest rewrites the test modules' asserts again in each worker. Compiling afresh cost
# a fifth of the CPU time of the files that start servers and commands, and 5 s of each worker's collection.
# mypy checks aftersales/ strictly (pyproject.toml, [tool.mypy]) beside the suite, at the lowest priority: a first
# check is about 30 s of one core, which it takes from the time the workers leave idle while they wait on servers,
# not from them. Its report follows the suite's; either failing fails make test. Its cache makes a re-run quick.
test: warm $(VENV)/.installed-dev
	$(BIN)/ruff check aftersales tests migrations seed bench examples
	@nice -n 19 $(BIN)/mypy > $(VENV)/mypy.out 2>&1 & typing=$$!; trap 'kill $$typing 2>/dev/null' EXIT; \
	echo "$(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder"; \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder; suite=$$?; \
	wait $$typing; typed=$$?; echo "$(BIN)/mypy"; cat $(VENV)/mypy.out; \
	[ $$suite -eq 0 ] && exit $$typed; exit $$suite

# Debian's packages and the pinned npm ones the suite needs, installed in the background while pip installs (only
# when missing; the tests wait for them under the same locks, and report any failure themselves).
warm:
	@$(PYTHON) -m tests.support.warm > /dev/null 2>&1 &

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev,bench]"
	touch $@ $(VENV)/.installed $(VENV)/.installed-dev

# Every figure of issue #16 beside the SDK floor, medians of 3 rounds, SQLite and a throwaway PostgreSQL, workers,
# wrk, memory, worlds, scale, the 40 x 4 eval: about 10 minutes. BENCH_ARGS=--quick: one short round, about 3.
# Writes bench/results/latest.json and prints the markdown tables of docs/performance.md.
bench: $(VENV)/.installed-bench
	$(BIN)/python -m bench.run $(BENCH_ARGS)

# 40 tasks x 4 trials of the scripted agent with --parallel 8, pass^4 = 1: in brief mode under 2 minutes
# (bench/results/eval.json), in conversation mode under 3 (eval-conversation.json). BENCH_ARGS="--mode brief" for one.
bench-eval: $(VENV)/.installed-dev
	$(BIN)/python -m bench.eval $(BENCH_ARGS)

# Fork, reset and large-world creation times on SQLite and PostgreSQL (a 100,000-ticket source cached in var/bench).
bench-worlds: $(VENV)/.installed-dev
	$(BIN)/python -m bench.worlds $(BENCH_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check aftersales tests migrations seed bench examples
	$(BIN)/ruff format --check aftersales tests migrations seed examples
	$(BIN)/mypy

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache
