"""Requests per second on uvicorn and Gunicorn, bare and guarded: per-round ratios.

Issue 13 asks for at least 95% of the unguarded requests per second on real servers,
for the two requests of ``bench_request`` (a GET with a non-ASCII percent-encoded
path and query and 6 headers; a POST of 4 KiB JSON with non-ASCII text). Servers,
one worker each, on free 127.0.0.1 ports:

* uvicorn, ``--http httptools --loop asyncio``, with a minimal Starlette app;
* Gunicorn, sync worker, with a minimal Flask app;

each bare and with the guard installed as the README says (``app.add_middleware``;
``app.wsgi_app = Utf8GuardWSGIMiddleware(app.wsgi_app)``), default options. The apps
read the body and answer ``ok``. Load comes from wrk (``bench/_wrk.py``) over
keep-alive connections, so the server's work per request is the cost, not connection
set-up; Gunicorn's sync worker closes every connection anyway (its design), so there
wrk reconnects per request.

All four servers run at once and take turns: in each round every (server, request)
cell runs bare then guarded, or guarded then bare in odd rounds, so load from
elsewhere on a shared machine hits both alike. Per cell: median req/s of each
variant, the median of the per-round ratios guarded/bare with a 95% confidence
interval for it (distribution-free: the sign test's order statistics), their IQR and
range (the noise), and the verdict against 95% (on the median, as the issue asks;
an interval that straddles 95% says one run cannot tell). Next to it, the same ratio
(median and confidence interval) by the server's CPU time (requests per CPU second
of its process group, from /proc), which other jobs on a shared machine disturb far
less than req/s: a server that has to share its core serves fewer requests per
second, not fewer per CPU second. A response above 399 (wrk's status errors) spoils
the verdict: a guard that refuses must not count as fast.

``--baseline DIR`` adds a third variant to every round: the guarded servers again,
with the ``utf8guard`` package of DIR (an older tree with its C extension built in
place) instead of this one, so that two commits are compared in one interleaved run
(issue 24: no more than 5% slower than before the restructuring); the rounds then
rotate the three variants' order, and more tables give guarded/baseline and
baseline/bare. Run:
``python -m bench.bench_server [--rounds 20 --seconds 2 --connections 8]
[--baseline DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Final

from flask import Flask, request
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from bench import _wrk
from bench._load import one_request, serving
from bench.bench_request import HEADERS, JSON_BODY, QUERY, RAW_PATH
from utf8guard import IMPLEMENTATION
from utf8guard.middleware import Utf8GuardMiddleware, Utf8GuardWSGIMiddleware

if TYPE_CHECKING:
    from utf8guard.middleware.asgi import ASGIApp

VARIANTS: Final = ("bare", "guarded")
#: With ``--baseline``: the guarded app served with another tree's ``utf8guard``.
BASELINE: Final = "baseline"
REQUESTS: Final = ("GET", "POST")
#: Issue 13: guarded req/s at least this share of bare req/s. Issue 24 asks the same
#: of guarded against the baseline ("no more than 5% slower").
TARGET_RATIO: Final = 0.95
#: The confidence of the interval shown for each median ratio.
CONFIDENCE: Final = 0.95
WARM_UP_SECONDS: Final = 1
PROBE_TIMEOUT_SECONDS: Final = 10.0


@dataclass(frozen=True, slots=True)
class Sample:
    """One wrk run against one server, and the CPU seconds the server used meanwhile
    (its process group, from /proc, in ticks of 10 ms)."""

    run: _wrk.Run
    cpu_seconds: float

    @property
    def cpu_rate(self) -> float:
        """Requests per second of server CPU: the req/s it would reach with a core of
        its own, which other jobs on a shared machine disturb far less."""
        return self.run.requests / self.cpu_seconds


#: (server, request) -> per round, one sample per variant in ``VARIANTS`` order (and
#: the baseline's last).
Results = dict[tuple[str, str], list[tuple[Sample, ...]]]
#: Runs one cell: (server, variant, request) -> its sample.
Runner = Callable[[str, str, str], Sample]


# The apps: read the body, answer 200 "ok".
async def _endpoint(request: Request) -> Response:
    await request.body()
    return PlainTextResponse("ok")


def asgi_bare() -> ASGIApp:
    """uvicorn factory: a one-route Starlette app."""
    return Starlette(routes=[Route("/{rest:path}", _endpoint, methods=["GET", "POST"])])


def asgi_guarded() -> ASGIApp:
    """uvicorn factory: the same app with the guard, default options."""
    app = Starlette(routes=[Route("/{rest:path}", _endpoint, methods=["GET", "POST"])])
    app.add_middleware(Utf8GuardMiddleware)
    return app


def wsgi_bare() -> Flask:
    """Gunicorn factory: a one-route Flask app."""
    app = Flask(__name__)

    @app.route("/<path:rest>", methods=["GET", "POST"])
    def endpoint(rest: str) -> str:
        request.get_data()
        return "ok"

    return app


def wsgi_guarded() -> Flask:
    """Gunicorn factory: the same app with the guard on ``app.wsgi_app``."""
    app = wsgi_bare()
    # Flask documents replacing wsgi_app this way; mypy sees a method.
    app.wsgi_app = Utf8GuardWSGIMiddleware(app.wsgi_app)  # type: ignore[method-assign]
    return app


def _uvicorn(variant: str, port: int, package_dir: str = ".") -> list[str]:
    # --host/--port, not --fd: with --fd uvicorn leaves Nagle's algorithm on. uvloop
    # is not a test dependency; naming the loop keeps runs comparable. --app-dir goes
    # first on sys.path (this tree, the working directory, comes next).
    return [
        *(
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            f"bench.bench_server:asgi_{variant}",
        ),
        *("--http", "httptools", "--loop", "asyncio", "--app-dir", package_dir),
        *("--host", "127.0.0.1", "--port", str(port)),
        *("--no-access-log", "--log-level", "warning"),
    ]


def _gunicorn(variant: str, port: int, package_dir: str = ".") -> list[str]:
    # --pythonpath goes first on sys.path, ahead of the working directory.
    return [
        *(sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"),
        *("--worker-class", "sync", "--workers", "1", "--graceful-timeout", "1"),
        *("--pythonpath", package_dir, "--log-level", "warning"),
        f"bench.bench_server:wsgi_{variant}()",
    ]


SERVERS: Final = {"uvicorn": _uvicorn, "gunicorn": _gunicorn}


def request_parts(method: str) -> tuple[bytes, list[tuple[bytes, bytes]], bytes]:
    """bench_request's request: target, headers (no Content-Length) and body."""
    target = RAW_PATH + b"?" + QUERY
    if method == "GET":
        return target, list(HEADERS), b""
    return target, [*HEADERS, (b"content-type", b"application/json")], JSON_BODY


def raw_request(method: str) -> bytes:
    """The request as bytes on a connection that closes after it (the probe)."""
    target, headers, body = request_parts(method)
    headers += [(b"content-length", str(len(body)).encode())] if body else []
    lines = [method.encode() + b" " + target + b" HTTP/1.1"]
    lines += [name + b": " + value for name, value in headers]
    return b"\r\n".join([*lines, b"connection: close", b"", body])


def measure(run: Runner, rounds: int, variants: Sequence[str] = VARIANTS) -> Results:
    """``rounds`` interleaved rounds; each round starts one variant later than the
    one before (two variants: odd rounds run guarded first)."""
    results: Results = {}
    for index in range(rounds):
        shift = index % len(variants)
        order = [*variants[shift:], *variants[:shift]]
        for server in SERVERS:
            for method in REQUESTS:
                runs = {variant: run(server, variant, method) for variant in order}
                samples = tuple(runs[variant] for variant in variants)
                results.setdefault((server, method), []).append(samples)
    return results


@dataclass(frozen=True, slots=True)
class Summary:
    """One cell over all rounds: one variant (``top``) against another (``base``)."""

    base_rate: float
    top_rate: float
    #: top/base req/s per round
    ratios: list[float]
    #: top/base requests per server CPU second per round
    cpu_ratios: list[float]
    refused: int
    socket_errors: int

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    def verdict(self) -> str:
        if self.refused:
            return f"INVALID: {self.refused} refused"
        return "ok" if self.ratio >= TARGET_RATIO else "MISS"


#: Which two variants a table compares: (top, base), as indices into a round.
GUARDED_OVER_BARE: Final = (1, 0)
GUARDED_OVER_BASELINE: Final = (1, 2)
BASELINE_OVER_BARE: Final = (2, 0)


def summarize(
    rounds: Sequence[tuple[Sample, ...]], pair: tuple[int, int] = GUARDED_OVER_BARE
) -> Summary:
    """``pair``'s top variant against its base over the rounds; refusals and socket
    errors of every variant in them."""
    top, base = pair
    runs = [sample.run for samples in rounds for sample in samples]
    return Summary(
        base_rate=statistics.median(samples[base].run.rate for samples in rounds),
        top_rate=statistics.median(samples[top].run.rate for samples in rounds),
        ratios=[s[top].run.rate / s[base].run.rate for s in rounds],
        cpu_ratios=[s[top].cpu_rate / s[base].cpu_rate for s in rounds],
        refused=sum(run.refused for run in runs),
        socket_errors=sum(run.socket_errors for run in runs),
    )


def median_interval(
    values: Sequence[float], confidence: float = CONFIDENCE
) -> tuple[float, float, float]:
    """A distribution-free confidence interval for the median of ``values``.

    The sign test's interval: sorted, values ``x(k)`` and ``x(n+1-k)`` (1-based)
    cover the median unless at least ``n+1-k`` of the ``n`` values fall on one side
    of it, each side with chance 1/2, so with probability ``1 - 2 P(B <= k-1)`` for
    ``B`` ~ Binomial(n, 1/2); the narrowest such interval that reaches
    ``confidence`` is chosen (n = 20: the 6th and 15th values, 95.9%). Returns
    ``(low, high, coverage)``; with too few values for ``confidence``, the whole
    range and what it covers.
    """
    ordered = sorted(values)
    n = len(ordered)

    def coverage(k: int) -> float:
        below = sum(math.comb(n, i) for i in range(k))  # B <= k-1
        return 1.0 - 2.0 * below / float(2**n)

    k = 1
    while 2 * (k + 1) <= n + 1 and coverage(k + 1) >= confidence:
        k += 1
    return ordered[k - 1], ordered[n - k], coverage(k)


def _interval(ratios: Sequence[float]) -> str:
    low, high, covered = median_interval(ratios)
    short = f" ({covered:.1%})" if covered < CONFIDENCE else ""
    return f"{low:.1%}-{high:.1%}{short}"


def _names(pair: tuple[int, int]) -> tuple[str, str]:
    names = (*VARIANTS, BASELINE)
    return names[pair[0]], names[pair[1]]


def table(results: Results, pair: tuple[int, int] = GUARDED_OVER_BARE) -> list[str]:
    """The Markdown summary of ``pair`` (top over base): median req/s, the median
    ratio with its confidence interval, IQR and range, the ratio by server CPU
    (median and confidence interval), socket errors and the verdict."""
    top, base = _names(pair)
    lines = [
        f"| server | request | {base} req/s | {top} req/s | ratio | 95% CI | IQR "
        "| range | by CPU | CPU 95% CI | errors | verdict |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| --- |",
    ]
    for (server, method), rounds in results.items():
        cell = summarize(rounds, pair)
        lines.append(
            f"| {server} | {method} | {cell.base_rate:.0f} | {cell.top_rate:.0f} "
            f"| **{cell.ratio:.1%}** | {_interval(cell.ratios)} | {_iqr(cell.ratios)} "
            f"| {min(cell.ratios):.1%}-{max(cell.ratios):.1%} "
            f"| {statistics.median(cell.cpu_ratios):.1%} "
            f"| {_interval(cell.cpu_ratios)} "
            f"| {cell.socket_errors} | {cell.verdict()} |"
        )
    return lines


def _iqr(ratios: Sequence[float]) -> str:
    q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return f"{q1:.1%}-{q3:.1%}"


def rounds_table(
    results: Results, pair: tuple[int, int] = GUARDED_OVER_BARE
) -> list[str]:
    """Markdown: ``pair``'s ratio (top/base) per round (rows) and cell (columns)."""
    top, base = pair
    cells = list(results)
    names = " | ".join(f"{server} {method}" for server, method in cells)
    lines = [f"| round | {names} |", "| ---: |" + " ---: |" * len(cells)]
    for index, rounds in enumerate(zip(*results.values(), strict=True)):
        ratios = " | ".join(f"{s[top].run.rate / s[base].run.rate:.1%}" for s in rounds)
        lines.append(f"| {index + 1} | {ratios} |")
    return lines


def _probe(port: int, label: str) -> None:
    """Exit with a message unless every request gets a 200."""
    for method in REQUESTS:
        try:
            status, _ = one_request(port, raw_request(method), PROBE_TIMEOUT_SECONDS)
        except OSError as exc:  # TimeoutError and ConnectionError among them
            sys.exit(f"{label} gave no answer to the {method} ({exc}): no benchmark")
        if status != 200:
            sys.exit(
                f"{label} answered {status} to the {method}, not 200: no benchmark"
            )


def baseline_folder(tree: Path, into: Path) -> Path:
    """A folder in ``into`` that holds only a link to ``tree``'s ``utf8guard`` (so that
    nothing else of that tree, its ``bench`` among them, shadows this one's), checked
    to import there with the same implementation as this tree's; exits with a
    message otherwise."""
    package = tree.resolve() / "utf8guard"
    if not (package / "__init__.py").is_file():
        sys.exit(f"--baseline {tree}: no utf8guard package there")
    folder = into / "baseline"
    folder.mkdir()
    (folder / "utf8guard").symlink_to(package, target_is_directory=True)
    probe = "import sys, utf8guard; print(utf8guard.IMPLEMENTATION, utf8guard.__file__)"
    found = subprocess.run(  # noqa: S603  # our own argv, no shell
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(folder)!r}); {probe}",
        ],
        capture_output=True,
        text=True,
        cwd=into,
    ).stdout.split()
    if found != [IMPLEMENTATION, str(folder / "utf8guard" / "__init__.py")]:
        sys.exit(
            f"--baseline {tree}: imports as {found or 'nothing'}, this tree as "
            f"{IMPLEMENTATION!r}; build its C extension there (python setup.py "
            "build_ext --inplace)"
        )
    return folder


@contextlib.contextmanager
def _servers(
    scripts: Mapping[str, Path],
    seconds: int,
    connections: int,
    baseline: Path | None = None,
) -> Iterator[Runner]:
    """All servers started, probed and warmed up; a runner over them. With
    ``baseline`` (a folder from :func:`baseline_folder`), each server's guarded
    variant also runs with that ``utf8guard``."""
    variants = {name: (name, ".") for name in VARIANTS}
    if baseline is not None:
        variants[BASELINE] = ("guarded", str(baseline))
    with contextlib.ExitStack() as stack:
        started = {}
        for server, command in SERVERS.items():
            for variant, (app, package_dir) in variants.items():
                started_command = partial(command, app, package_dir=package_dir)
                running = stack.enter_context(serving(started_command))
                _probe(running.port, f"{server} {variant}")
                for method in REQUESTS:
                    _wrk.run(
                        running.port, scripts[method], WARM_UP_SECONDS, connections
                    )
                started[server, variant] = running

        def run(server: str, variant: str, method: str) -> Sample:
            running = started[server, variant]
            before = running.cpu_seconds()
            counted = _wrk.run(running.port, scripts[method], seconds, connections)
            return Sample(counted, running.cpu_seconds() - before)

        yield run


def _machine() -> str:
    wrk = subprocess.run(  # noqa: S603  # wrk's version banner
        [shutil.which("wrk") or "wrk", "--version"], capture_output=True, text=True
    ).stdout.split(" [")[0]
    packages = ("uvicorn", "httptools", "starlette", "gunicorn", "flask")
    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {wrk}, "
        + ", ".join(f"{name} {version(name)}" for name in packages)
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds")
    parser.add_argument("--seconds", type=int, default=2, help="per run (whole s)")
    parser.add_argument("--connections", type=int, default=8, help="wrk connections")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another tree: its utf8guard's guarded servers run in every round too",
    )
    args = parser.parse_args(argv)
    if args.rounds < 2 or args.seconds < 1:
        parser.error("--rounds must be >= 2 and --seconds >= 1")
    if shutil.which("wrk") is None:
        sys.exit(_wrk.MISSING)
    print(f"{_machine()}; load average before: {os.getloadavg()[0]:.2f}")
    variants = [*VARIANTS, BASELINE] if args.baseline is not None else [*VARIANTS]
    with tempfile.TemporaryDirectory() as folder:
        baseline = None
        if args.baseline is not None:
            baseline = baseline_folder(args.baseline, Path(folder))
        scripts = {}
        for method in REQUESTS:
            scripts[method] = Path(folder, f"{method}.lua")
            scripts[method].write_text(_wrk.script(method, *request_parts(method)))
        with _servers(scripts, args.seconds, args.connections, baseline) as run:
            results = measure(run, args.rounds, variants)
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    lines = [*table(results), "", *rounds_table(results)]
    if args.baseline is not None:
        lines += ["", f"Against the baseline, {args.baseline}:", ""]
        lines += [*table(results, GUARDED_OVER_BASELINE), ""]
        lines += [*table(results, BASELINE_OVER_BARE), ""]
        lines += rounds_table(results, GUARDED_OVER_BASELINE)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
