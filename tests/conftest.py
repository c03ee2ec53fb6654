"""Shared fixtures: the stress corpus and every policy combination."""

from __future__ import annotations

import inspect
import itertools
import os
from pathlib import Path

import pytest
from hypothesis import settings

from utf8guard import Policy

# CI machines are small and shared: judge properties by their results, not their timing.
settings.register_profile("ci", deadline=None)
settings.load_profile("ci")

#: The differential suite's summary lines in a pytest-xdist worker's ``workeroutput``.
MATRIX_KEY = "differential_matrix"
#: Those lines, as the workers sent them back (the suite's servers run in one).
_WORKER_LINES: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """pytest-xdist: keep the summary lines a worker sent."""
    del error
    output: dict[str, list[str]] = getattr(node, "workeroutput", {})
    _WORKER_LINES.extend(output.get(MATRIX_KEY, []))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Under pytest-xdist, print the differential suite's matrix its worker sent."""
    for line in _WORKER_LINES:
        terminalreporter.write_line(line)


#: RFC 1952 §2.3.1: a gzip member starts with these bytes, then its MTIME.
_GZIP_MAGIC = b"\x1f\x8b"


def pytest_make_parametrize_id(
    config: pytest.Config, val: object, argname: str
) -> str | None:
    """A gzip member's id without its MTIME (``gzip.compress`` writes the time): each
    pytest-xdist worker must collect the same test ids."""
    del config, argname
    if isinstance(val, bytes) and val.startswith(_GZIP_MAGIC):
        return f"gzip-{len(val)}-bytes"
    return None


#: Policy's keyword arguments, in order (its signature, not _policy.FLAGS).
FLAGS = list(inspect.signature(Policy).parameters)
#: All 64 policies.
ALL_POLICIES = [
    Policy(**dict(zip(FLAGS, values, strict=True)))
    for values in itertools.product((False, True), repeat=len(FLAGS))
]


def cpython_span(data: bytes) -> tuple[int, int] | None:
    """The span of CPython's first UnicodeDecodeError for ``data``, or None."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start, exc.end
    return None


#: Markus Kuhn's UTF-8 decoder stress test, vendored byte-exact (tests/data/README.md).
KUHN_CORPUS = Path(__file__).parent / "data" / "UTF-8-test.txt"


@pytest.fixture(scope="session")
def kuhn_corpus() -> bytes:
    """The stress test: ``UTF8GUARD_CORPUS`` if set, else the vendored copy. A missing
    file fails, never skips: the corpus ships with the tests."""
    path = Path(os.environ.get("UTF8GUARD_CORPUS", KUHN_CORPUS))
    if not path.is_file():
        pytest.fail(f"stress corpus not found at {path} (UTF8GUARD_CORPUS)")
    return path.read_bytes()
