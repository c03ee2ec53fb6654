"""Import time of ``utf8guard`` and ``utf8guard.middleware`` in fresh interpreters.

Issue 28's measure: the median over fresh processes of the time ``import <module>``
takes, for both builds (the C accelerator and ``UTF8GUARD_PURE_PYTHON=1``). Targets
on the reference machine: ``utf8guard`` at most 15 ms, ``utf8guard.middleware`` at
most 40 ms.

Each process is ``python -S`` with the repository put first on ``sys.path`` after
``import os, sys`` (what ``site`` itself imports): an installed package gets no
head start, where the editable install's ``site`` hook would already have imported
``re``, ``enum``, ``pathlib`` and ``urllib.parse`` for it. Bytecode caches are
written first and used, as an installed package has them (containers often set
``PYTHONDONTWRITEBYTECODE``, which would time the compiler). Per round and build,
each module is imported twice, in a new process each time:

* ``importtime``: under ``-X importtime``, the module's cumulative microseconds
  (the interpreter's start-up is not counted); the median run also names the
  modules with the largest self time;
* ``wall``: ``time.perf_counter()`` around the import statement, without
  ``-X importtime`` and its printing.

A cold start also builds the middleware, so a second table times (wall, median and
fastest) the import together with ``Utf8GuardMiddleware(app)`` and with
``Utf8GuardWSGIMiddleware(app)`` (:data:`CONSTRUCTED`), and the same with the first
clean GET through each (:data:`FIRST_REQUEST`): what a guard builds at construction
or at its first request rather than at import shows there.

Wall times move with the machine's load, so the report states the load average
before and after. ``--instructions`` adds the load-independent figure: instructions
(callgrind, one run each) of each import and of each with its first use
(:data:`COUNTED`), over the same process with ``pass``.

Run ``python -m bench.bench_import`` (``--help`` lists the options; ``--root`` measures
another checkout; ``--base DIR`` measures a second one in the same rounds, such as
an export of the main branch with its built extension, for a before and after in
one run). Not a test: the only test runs it with the smallest settings so that it
cannot rot.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
MODULES: Final = ("utf8guard", "utf8guard.middleware")
#: Issue 28 targets: module -> median milliseconds.
TARGET_MS: Final = {"utf8guard": 15.0, "utf8guard.middleware": 40.0}
#: Build name -> the value of ``UTF8GUARD_PURE_PYTHON`` that selects it.
BUILDS: Final = {"C": "0", "pure": "1"}
TOP_IMPORTS: Final = 5
#: The counted statements: each import, and each with its first use (a cold start
#: pays both; the C extension compares a code-point set with ``_policy.py``'s when a
#: policy first refuses it, and ``GuardConfig()`` uses several policies).
#: A cold start also constructs the middleware: these import it and wrap an app.
CONSTRUCTED: Final = {
    "ASGI Utf8GuardMiddleware(app)": (
        "from utf8guard.middleware import Utf8GuardMiddleware\n"
        "async def app(scope, receive, send): pass\n"
        "Utf8GuardMiddleware(app)"
    ),
    "WSGI Utf8GuardWSGIMiddleware(app)": (
        "from utf8guard.middleware import Utf8GuardWSGIMiddleware\n"
        "Utf8GuardWSGIMiddleware(lambda environ, start_response: [])"
    ),
}
#: A cold start's first request too (issue 28: what moves from import to first use
#: shows here): import, construction and one clean GET, in process. The ASGI
#: coroutine is stepped by hand (its receive and send never wait), so no event loop
#: is imported that a server would have loaded anyway; each prints "app reached"
#: once the wrapped app ran, or the process fails.
FIRST_REQUEST: Final = {
    "ASGI import + construct + first GET": (
        "from utf8guard.middleware import Utf8GuardMiddleware\n"
        "reached = []\n"
        "async def app(scope, receive, send): reached.append(scope['path'])\n"
        "async def receive(): return {'type': 'http.request', 'body': b''}\n"
        "async def send(message): pass\n"
        "scope = {'type': 'http', 'asgi': {'version': '3.0'}, 'http_version': '1.1',"
        " 'method': 'GET', 'scheme': 'http', 'path': '/api/items',"
        " 'raw_path': b'/api/items', 'query_string': b'page=2', 'root_path': '',"
        " 'headers': [(b'host', b'127.0.0.1:8000'), (b'accept', b'*/*')],"
        " 'client': ('127.0.0.1', 5000), 'server': ('127.0.0.1', 8000)}\n"
        "step = Utf8GuardMiddleware(app)(scope, receive, send)\n"
        "try:\n    step.send(None)\nexcept StopIteration:\n    pass\n"
        "if reached != ['/api/items']:\n    raise SystemExit('app not reached')\n"
        "print('app reached')"
    ),
    "WSGI import + construct + first GET": (
        "import io\n"
        "from utf8guard.middleware import Utf8GuardWSGIMiddleware\n"
        "def app(environ, start_response):\n"
        "    start_response('200 OK', [('Content-Type', 'text/plain')])\n"
        "    return [b'app reached']\n"
        # The raw target as Gunicorn passes it: without one the guard warns once
        # (logging), which a supported server never makes it do.
        "environ = {'RAW_URI': '/api/items?page=2',"
        " 'REQUEST_METHOD': 'GET', 'SCRIPT_NAME': '',"
        " 'PATH_INFO': '/api/items', 'QUERY_STRING': 'page=2',"
        " 'SERVER_NAME': '127.0.0.1', 'SERVER_PORT': '8000',"
        " 'SERVER_PROTOCOL': 'HTTP/1.1', 'HTTP_HOST': '127.0.0.1:8000',"
        " 'HTTP_ACCEPT': '*/*', 'wsgi.url_scheme': 'http',"
        " 'wsgi.input': io.BytesIO(), 'wsgi.errors': io.StringIO(),"
        " 'wsgi.version': (1, 0), 'wsgi.multithread': False,"
        " 'wsgi.multiprocess': False, 'wsgi.run_once': False}\n"
        "body = b''.join(Utf8GuardWSGIMiddleware(app)(environ, lambda s, h: None))\n"
        "print(body.decode())"
    ),
}
COUNTED: Final = {
    "import utf8guard": "import utf8guard",
    "import utf8guard.middleware": "import utf8guard.middleware",
    "... + is_valid(b'')": "import utf8guard; utf8guard.is_valid(b'')",
    "... + GuardConfig()": (
        "from utf8guard.middleware import GuardConfig; GuardConfig()"
    ),
    **CONSTRUCTED,
    **FIRST_REQUEST,
}


@dataclass(frozen=True, slots=True)
class Run:
    """One fresh interpreter: the module's cumulative import time and the self
    time of every module it imported, in microseconds."""

    total_us: int
    self_us: dict[str, int]


def parse_importtime(stderr: str, module: str) -> Run:
    """The ``-X importtime`` report (``import time: self | cumulative | name``)."""
    total = -1
    selves: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        fields = [part.strip() for part in line.split(":", 1)[1].split("|")]
        if not fields[0].isdigit():
            continue  # the header line
        name = fields[2].strip()
        selves[name] = int(fields[0])
        if name == module:
            total = int(fields[1])
    if total < 0:
        raise ValueError(f"{module} is not in the -X importtime report")
    return Run(total, selves)


def parse_callgrind(stderr: str) -> int:
    """The instruction count of valgrind's ``==pid== Collected : N`` line."""
    for line in stderr.splitlines():
        head, _, count = line.partition("Collected :")
        if head.startswith("==") and count.strip().isdigit():
            return int(count)
    raise ValueError("no 'Collected :' line in the callgrind output")


def _environment(build: str) -> dict[str, str]:
    """This environment with bytecode caching on and ``build`` selected."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["UTF8GUARD_PURE_PYTHON"] = BUILDS[build]
    return env


def _python(
    build: str,
    statement: str,
    *,
    root: Path = ROOT,
    options: Sequence[str] = (),
    wrapper: str = "",
) -> subprocess.CompletedProcess[str]:
    # What every process runs first: site imports os; the checkout comes first.
    prelude = f"import os, sys, time; sys.path.insert(0, {str(root)!r})"
    argv = [sys.executable, "-S", *options, "-c", f"{prelude}\n{statement}"]
    return subprocess.run(  # noqa: S603 - our own interpreter, fixed arguments
        [*wrapper.split(), *argv] if wrapper else argv,
        capture_output=True,
        text=True,
        env=_environment(build),
        timeout=600,
        check=True,
    )


def measure(build: str, module: str, root: Path = ROOT) -> Run:
    """Import ``module`` once under ``-X importtime`` in a fresh interpreter."""
    done = _python(build, f"import {module}", root=root, options=("-X", "importtime"))
    return parse_importtime(done.stderr, module)


def wall_us(build: str, module: str, root: Path = ROOT) -> int:
    """Microseconds of ``import module`` by ``perf_counter`` in a fresh interpreter."""
    return statement_us(build, f"import {module}", root)


def statement_us(build: str, statement: str, root: Path = ROOT) -> int:
    """Microseconds of ``statement`` by ``perf_counter`` in a fresh interpreter."""
    timed = (
        f"start = time.perf_counter()\n{statement}\n"
        "print(round((time.perf_counter() - start) * 1e6))"
    )
    return int(_python(build, timed, root=root).stdout.splitlines()[-1])


def instructions(build: str, statement: str, root: Path = ROOT) -> int:
    """Instructions callgrind counts for a fresh interpreter that runs ``statement``."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("--instructions needs valgrind on PATH")
    done = _python(
        build,
        statement,
        root=root,
        wrapper=f"{valgrind} --tool=callgrind --callgrind-out-file=/dev/null",
    )
    return parse_callgrind(done.stderr)


def timing_rows(runs: int, trees: dict[str, Path]) -> list[str]:
    """Markdown rows: per tree, build and module, the median and fastest
    ``-X importtime`` milliseconds, the median wall milliseconds, the target and the
    costliest imports (self ms) of the median ``importtime`` run. Each round
    measures every tree, so that the trees share the machine's load."""
    found: dict[tuple[str, str, str], list[Run]] = {}
    walls: dict[tuple[str, str, str], list[int]] = {}
    for root in trees.values():
        for build in BUILDS:
            for module in MODULES:
                measure(build, module, root)  # untimed: writes missing .pyc files
    for _ in range(runs):
        for tree, root in trees.items():
            for build in BUILDS:
                for module in MODULES:
                    key = (tree, build, module)
                    found.setdefault(key, []).append(measure(build, module, root))
                    walls.setdefault(key, []).append(wall_us(build, module, root))
    lines = [
        "| tree | build | module | importtime median ms | fastest ms | wall median ms"
        " | target | costliest imports (self ms) |",
        "| --- | --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for (tree, build, module), results in found.items():
        ordered = sorted(results, key=lambda run: run.total_us)
        median_run = ordered[len(ordered) // 2]
        median_ms = statistics.median(r.total_us for r in results) / 1000
        wall_ms = statistics.median(walls[tree, build, module]) / 1000
        target = TARGET_MS[module]
        verdict = "ok" if max(median_ms, wall_ms) <= target else "MISS"
        top = sorted(median_run.self_us.items(), key=lambda item: -item[1])
        costliest = ", ".join(f"{name} {us / 1000:.1f}" for name, us in top[:5])
        lines.append(
            f"| {tree} | {build} | {module} | {median_ms:.1f}"
            f" | {ordered[0].total_us / 1000:.1f} | {wall_ms:.1f}"
            f" | <= {target:g} ms {verdict} | {costliest} |"
        )
    return lines


def construction_rows(runs: int, trees: dict[str, Path]) -> list[str]:
    """Markdown rows: per tree and build, the median and fastest wall milliseconds
    of each :data:`CONSTRUCTED` statement (import and construction) and of each
    :data:`FIRST_REQUEST` one (and a first request), in fresh interpreters."""
    walls: dict[tuple[str, str, str], list[int]] = {}
    for _ in range(runs):
        for tree, root in trees.items():
            for build in BUILDS:
                for label, statement in {**CONSTRUCTED, **FIRST_REQUEST}.items():
                    walls.setdefault((tree, build, label), []).append(
                        statement_us(build, statement, root)
                    )
    lines = [
        "| tree | build | import and construct (and first request) | wall median ms"
        " | fastest ms |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for (tree, build, label), found in walls.items():
        lines.append(
            f"| {tree} | {build} | `{label}` | {statistics.median(found) / 1000:.1f}"
            f" | {min(found) / 1000:.1f} |"
        )
    return lines


def instruction_rows(trees: dict[str, Path]) -> list[str]:
    """Markdown rows: millions of instructions of each counted statement over
    ``pass``, a column per tree (and the change, for two)."""
    names = list(trees)
    change = " | change" if len(names) == 2 else ""
    lines = [
        f"| build | statement | {' | '.join(names)}{change} |",
        "| --- | --- |" + " ---: |" * len(names) + (" ---: |" if change else ""),
    ]
    for build in BUILDS:
        floors = {
            tree: instructions(build, "pass", root) for tree, root in trees.items()
        }
        for label, statement in COUNTED.items():
            counts = [
                instructions(build, statement, root) - floors[tree]
                for tree, root in trees.items()
            ]
            cells = " | ".join(f"{count / 1e6:.1f} M" for count in counts)
            if change:
                cells += f" | {(counts[1] - counts[0]) / counts[0]:+.0%}"
            lines.append(f"| {build} | `{label}` | {cells} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=21, help="rounds of fresh interpreters"
    )
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the checkout to import (default: this one)",
    )
    parser.add_argument(
        "--base",
        type=Path,
        help="a second checkout measured in the same rounds, e.g. main for a before",
    )
    args = parser.parse_args(argv)
    trees = {"this": args.root} if args.base is None else {"base": args.base}
    trees["this"] = args.root
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs,"
        f" Python {platform.python_version()}; load average before:"
        f" {os.getloadavg()[0]:.2f}"
    )
    print(", ".join(f"{tree}: {root}" for tree, root in trees.items()))
    print("\n".join(timing_rows(args.runs, trees)))
    print("\n".join(construction_rows(args.runs, trees)))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.instructions:
        print("\n".join(instruction_rows(trees)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
