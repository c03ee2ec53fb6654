# Two entry points (see README): `make demo` runs the main job, `make test` the whole suite.
# Each creates its own virtual environment in .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORPUS ?= $(or $(UTF8GUARD_CORPUS),tests/data/UTF-8-test.txt)

.PHONY: demo test lint typecheck unit unit-pure coverage fuzz-smoke fuzz bench \
	bench-accel clean sanitize fuzz-accel-build fuzz-accel sdist-test dist-check docs \
	test-kernels

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $@

# The same requests to an app with and without the guard, one problem+json body, the
# stress test checked by the CLI as counts per kind, and the request table last.
demo: $(VENV)/.installed
	@$(BIN)/python -m examples.demo --corpus $(CORPUS)

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed
	$(BIN)/mypy

# Coverage is measured over both runs below (the C accelerator on, then off) and
# reported once, by `coverage`, against fail_under in pyproject.toml.
# Two pytest-xdist workers, each test file whole in one (--dist loadfile), so that a
# module's fixtures start once: the differential suite's servers run in one worker
# while the other runs the rest. PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2
XDIST = -n $(PYTEST_WORKERS) --dist loadfile
unit: $(VENV)/.installed
	$(BIN)/coverage erase
	$(BIN)/pytest $(XDIST) --cov --cov-report= --cov-fail-under=0

# The core's test files again with the C accelerator off (UTF8GUARD_PURE_PYTHON=1), so
# both implementations pass them; the rest of the suite runs once, on the default one.
CORE_TESTS = $(wildcard tests/test_scan.py tests/test_stream.py tests/test_repair.py \
	tests/test_corpus.py tests/test_properties.py tests/test_regressions.py \
	tests/test_fuzz_corpus.py tests/test_records.py)
unit-pure: $(VENV)/.installed unit-pure-middleware
	$(if $(CORE_TESTS),UTF8GUARD_PURE_PYTHON=1 $(BIN)/pytest -q -p no:cacheprovider \
	  --cov --cov-append --cov-report= --cov-fail-under=0 $(CORE_TESTS))

# The middleware's tests again in pure Python, so that both builds of the fast lane
# meet the rules where requests do (the servers of the end-to-end tests inherit it);
# run first by unit-pure, after unit has erased the coverage data.
.PHONY: unit-pure-middleware
unit-pure-middleware: $(VENV)/.installed
	UTF8GUARD_PURE_PYTHON=1 $(BIN)/pytest -q -p no:cacheprovider $(XDIST) \
	  --cov --cov-append --cov-report= --cov-fail-under=0 -m "not slow" tests/middleware

coverage: $(VENV)/.installed
	$(BIN)/coverage report --skip-covered

# atheris has wheels for CPython on x86_64 Linux only: where it cannot install, say so
# and let `python -m fuzz run --allow-missing` skip the fuzzing (the replay tests ran).
$(VENV)/.fuzz-installed: $(VENV)/.installed
	@$(BIN)/python -m pip install --quiet --group fuzz && touch $@ || \
	  echo "fuzz: atheris could not be installed here; the fuzz smoke run will be skipped"

# Every target briefly (about 2 minutes in all): part of `make test`, so CI fuzzes each
# submission. Findings go to fuzz/artifacts/ and fail the run.
FUZZ_SMOKE_SECONDS ?= 15
fuzz-smoke: $(VENV)/.fuzz-installed
	$(BIN)/python -m fuzz run --allow-missing --time $(FUZZ_SMOKE_SECONDS)

# A longer local run: `make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS=validate`.
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?=
fuzz: $(VENV)/.fuzz-installed
	$(BIN)/python -m fuzz run --time $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The release artifacts as PyPI would get them: the sdist, and a wheel built from it;
# strict metadata check, the wheel's contents (no C sources, a stripped extension), and
# the workflows (zizmor, offline: no medium or high finding).
DIST_DIR := build/dist
dist-check: $(VENV)/.installed
	rm -rf $(DIST_DIR) && mkdir -p $(DIST_DIR)
	$(BIN)/python -m build --outdir $(DIST_DIR) . > $(DIST_DIR)/build.log 2>&1 || \
	  { tail -n 30 $(DIST_DIR)/build.log; exit 1; }
	$(BIN)/twine check --strict $(DIST_DIR)/*.tar.gz $(DIST_DIR)/*.whl
	$(BIN)/check-wheel-contents $(DIST_DIR)/*.whl
	$(BIN)/python tools/check_wheel.py $(DIST_DIR)/*.whl
	$(BIN)/zizmor --offline --min-severity medium .github/workflows/

# The tests again from the unpacked sdist (pure Python, no build): every test module
# must import there, and the core's and the engine's tests must pass.
SDIST_DIR := build/sdist-test
sdist-test: dist-check
	rm -rf $(SDIST_DIR) && mkdir -p $(SDIST_DIR)
	tar -xzf $(DIST_DIR)/utf8guard-*.tar.gz -C $(SDIST_DIR)
	cd $(SDIST_DIR)/utf8guard-*/ && unset UTF8GUARD_CORPUS && UTF8GUARD_PURE_PYTHON=1 $(CURDIR)/$(BIN)/python -m pytest \
	  -q -p no:cacheprovider --collect-only tests > /dev/null && \
	  UTF8GUARD_PURE_PYTHON=1 $(CURDIR)/$(BIN)/python -m pytest -q -p no:cacheprovider \
	  tests/test_scan.py tests/test_stream.py tests/test_repair.py tests/test_paths.py \
	  tests/test_corpus.py tests/middleware/test_engine.py tests/middleware/test_request.py

test: lint typecheck docs unit unit-pure coverage checks

# The kernels (a minute or two under qemu), the fuzz smoke run (a fixed time per
# target) and the release checks are independent: two at a time.
.PHONY: checks
checks:
	$(MAKE) -j2 --output-sync=target test-kernels fuzz-smoke sdist-test

# The documentation site (mkdocs.yml), built strictly: a broken link, a refusal kind
# without a page or a docstring reference that resolves nowhere fails it.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/docs

# Every scan kernel against the exact scan, outside CPython (tests/c/test_kernels.c):
# natively, then built for arm64 and run under qemu-user, so the NEON kernel is
# checked without arm64 hardware. Without the cross tools it says so loudly and
# checks the native kernels only. Debian: apt-get install gcc-aarch64-linux-gnu
# libc6-dev-arm64-cross qemu-user (about 1 minute each way under qemu).
KERNEL_ROUNDS ?= 100000
AARCH64_CC ?= aarch64-linux-gnu-gcc
KERNEL_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror
test-kernels:
	mkdir -p build
	$(CC) $(KERNEL_CFLAGS) tests/c/test_kernels.c -o build/test_kernels
	./build/test_kernels $(KERNEL_ROUNDS)
	@if command -v $(AARCH64_CC) > /dev/null && command -v qemu-aarch64 > /dev/null; then \
	  $(AARCH64_CC) -static $(KERNEL_CFLAGS) tests/c/test_kernels.c \
	    -o build/test_kernels-aarch64 && \
	  qemu-aarch64 build/test_kernels-aarch64 $(KERNEL_ROUNDS); \
	else \
	  echo "*** test-kernels: the arm64 NEON kernel was NOT checked: no $(AARCH64_CC)"; \
	  echo "*** or qemu-aarch64 here (apt-get install gcc-aarch64-linux-gnu"; \
	  echo "*** libc6-dev-arm64-cross qemu-user)"; \
	fi

bench: $(VENV)/.installed
	$(BIN)/python -m bench.bench_core

bench-accel: $(VENV)/.installed
	$(BIN)/python -m bench.bench_accel

# Separate from CI: rebuild the C accelerator with AddressSanitizer and
# UndefinedBehaviorSanitizer, run the suite and replay the fuzz corpora, then rebuild
# it plain. Needs gcc's libasan/libubsan (or CC=clang).
CC ?= cc
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -g -O1
SANITIZE_PRELOAD = $$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)
# The peak-RSS tests are left out: ASan keeps freed memory in quarantine (256 MiB
# by default) and shadows every allocation, so they would measure ASan, not the guard.
# So is the one test that runs valgrind: valgrind cannot run a process with ASan's
# runtime preloaded (it exits 1 before the program starts).
sanitize: $(VENV)/.installed
	CC=$(CC) CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="$(SANITIZE_FLAGS)" \
	  $(BIN)/pip install --quiet --no-deps --force-reinstall -e .
	export LD_PRELOAD="$(SANITIZE_PRELOAD)" ASAN_OPTIONS=detect_leaks=0; \
	  $(BIN)/python -c "import utf8guard; assert utf8guard.IMPLEMENTATION == 'c'" && \
	  $(BIN)/pytest -q -p no:cacheprovider tests \
	    -k "not keeps_server_memory_flat and not instructions_count_more"; \
	  status=$$?; unset LD_PRELOAD; \
	  $(BIN)/pip install --quiet --no-deps --force-reinstall -e .; exit $$status

# libFuzzer-instrumented build for atheris (clang from Debian: apt-get install clang;
# atheris from PyPI): coverage inside the C code, ASan and UBSan on. Installed into
# build/fuzz-accel/site, which goes first on PYTHONPATH, so .venv is untouched.
FUZZ_BUILD := build/fuzz-accel
FUZZ_FLAGS := -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all -g -O1
FUZZ_ACCEL_SECONDS ?= 1800
FUZZ_TARGET ?= accel
FUZZ_PRELOAD = $$($(BIN)/python -c 'import atheris; print(atheris.path())')/asan_with_fuzzer.so
# setuptools' own build/lib.* and build/temp.* are cleared before and after, so that
# neither this build nor a later `pip install .` reuses the other's objects.
SETUPTOOLS_BUILD = build/lib.* build/temp.* build/bdist.*
fuzz-accel-build: $(VENV)/.installed
	rm -rf $(FUZZ_BUILD)/site $(SETUPTOOLS_BUILD)
	CC=clang LDSHARED="clang -shared" CFLAGS="$(FUZZ_FLAGS)" LDFLAGS="$(FUZZ_FLAGS)" \
	  $(BIN)/pip install --quiet --no-deps --target $(FUZZ_BUILD)/site .
	rm -rf $(SETUPTOOLS_BUILD)
	PYTHONPATH=$(FUZZ_BUILD)/site LD_PRELOAD="$(FUZZ_PRELOAD)" ASAN_OPTIONS=detect_leaks=0 \
	  $(BIN)/python -P -c \
	  "import utf8guard._speedups as s; assert s.__file__.startswith('$(CURDIR)/$(FUZZ_BUILD)')"

fuzz-accel: fuzz-accel-build
	mkdir -p $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET) fuzz/artifacts
	PYTHONPATH=$(FUZZ_BUILD)/site:. ASAN_OPTIONS=detect_leaks=0 \
	  LD_PRELOAD="$(FUZZ_PRELOAD)" \
	  $(BIN)/python fuzz/fuzz_$(FUZZ_TARGET).py -max_total_time=$(FUZZ_ACCEL_SECONDS) \
	  -artifact_prefix=fuzz/artifacts/ $(FUZZ_BUILD)/corpus-$(FUZZ_TARGET) fuzz/corpus/$(FUZZ_TARGET)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .coverage \
	  fuzz/artifacts
