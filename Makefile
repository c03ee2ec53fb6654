# Two entry points (see README): `make demo` runs the main job, `make test` the whole suite.
# Each creates its own virtual environment in .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORPUS ?= $(or $(UTF8GUARD_CORPUS),../shared/corpus/UTF-8-test.txt)

.PHONY: demo test lint typecheck unit bench clean

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

test: lint typecheck unit

bench: $(VENV)/.installed
	$(BIN)/python -m bench.bench_core

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .coverage
