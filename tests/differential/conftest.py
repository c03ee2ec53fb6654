"""The stacks for the differential suite: started once per session, all at once."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from ..conftest import MATRIX_KEY
from .cluster import Cluster
from .report import matrix_lines
from .stacks import STACKS

#: pytest's doctest collection imports every module: leave out the apps whose
#: framework is missing (their stacks skip, with the reason, in the tests).
_APP_NEEDS = {
    "asgi_echo.py": ("starlette", "fastapi", "pydantic"),
    "flask_echo.py": ("flask",),
    "django_echo.py": ("django",),
    "django_asgi_settings.py": ("django",),
    "h2c.py": ("h2",),
    "table_h2.py": ("hpack",),
    "bottle_echo.py": ("bottle",),
    "pyramid_echo.py": ("pyramid", "webob"),
    "falcon_echo.py": ("falcon", "starlette", "fastapi", "pydantic"),
    "litestar_echo.py": ("litestar", "starlette", "fastapi", "pydantic"),
    "quart_echo.py": ("quart", "starlette", "fastapi", "pydantic"),
    "sanic_echo.py": ("sanic", "starlette", "fastapi", "pydantic"),
}
collect_ignore = [
    module
    for module, needs in _APP_NEEDS.items()
    if any(importlib.util.find_spec(name) is None for name in needs)
]
# WebOb imports the deprecated cgi module (a DeprecationWarning, an error under
# filterwarnings=error); the app runs in its server process, never imported here.
collect_ignore.append("pyramid_echo.py")
#: The clusters this session ran, for the summary.
_RUNS: list[Cluster] = []


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Every installed stack, running; stopped by PID at the end of the session."""
    running = Cluster(STACKS, tmp_path_factory.mktemp("differential-servers"))
    _RUNS.append(running)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a pytest-xdist worker, hand the summary to the controller (tests/conftest.py
    prints it there: this conftest is loaded only where tests are collected)."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output[MATRIX_KEY] = [line for run in _RUNS for line in matrix_lines(run)]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the row x stack matrix of what failed, and what servers refused."""
    for run in _RUNS:
        for line in matrix_lines(run):
            terminalreporter.write_line(line)
