# Two entry points (see README): `make demo` runs the main job, `make test` the whole suite.
# Each creates its own virtual environment in .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORPUS ?= $(or $(UTF8GUARD_CORPUS),../shared/corpus/UTF-8-test.txt)

.PHONY: demo test lint typecheck unit fuzz-smoke fuzz bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(VENV)/.installed
	@$(BIN)/python -m examples.demo
	@echo
	@echo "utf8guard check --all $(CORPUS)"
	@$(BIN)/utf8guard check --all $(CORPUS); status=$$?; \
	  echo "exit status $$status (0 valid, 1 violations found, 2 usage or I/O error)"; \
	  test $$status -le 1

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed
	$(BIN)/mypy

unit: $(VENV)/.installed
	$(BIN)/pytest --cov --cov-report=term-missing:skip-covered

# atheris has wheels for CPython on x86_64 Linux only: where it cannot install, say so
# and let `python -m fuzz run --allow-missing` skip the fuzzing (the replay tests ran).
$(VENV)/.fuzz-installed: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[fuzz]' && touch $@ || \
	  echo "fuzz: atheris could not be installed here; the fuzz smoke run will be skipped"

# Every target briefly (about 2 minutes in all): part of `make test`, so CI fuzzes each
# submission. Findings go to fuzz/artifacts/ and fail the run.
FUZZ_SMOKE_SECONDS ?= 30
fuzz-smoke: $(VENV)/.fuzz-installed
	$(BIN)/python -m fuzz run --allow-missing --time $(FUZZ_SMOKE_SECONDS)

# A longer local run: `make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS=validate`.
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?=
fuzz: $(VENV)/.fuzz-installed
	$(BIN)/python -m fuzz run --time $(FUZZ_SECONDS) $(FUZZ_TARGETS)

test: lint typecheck unit fuzz-smoke

bench: $(VENV)/.installed
	$(BIN)/python -m bench.bench_core

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .coverage \
	  fuzz/artifacts
