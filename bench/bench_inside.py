"""What the guard adds to a request inside uvicorn: variants in turn in one process.

``bench_server`` compares a bare and a guarded server by requests per second; this
says where the difference comes from. One uvicorn process (``--http httptools``)
serves every request through a dispatcher that hands request *n* to variant *n* mod
3 and times it, from entering the variant to its return (``perf_counter_ns``):

* ``bare``: the minimal Starlette app of ``bench_server``;
* ``read-first``: the app behind a pass-through middleware that receives the first
  body message and hands it back (what the lane does besides checking: it moves
  the server's ``receive`` call, it does not add one);
* ``guarded``: the app behind ``Utf8GuardMiddleware``, default options.

All three share the process, so caches, the allocator and the garbage collector
treat them alike, and load from elsewhere hits them alike. Inside a server a request
runs some 50 us of other code between two passes through the guard, which leaves
the guard's code and data cold: a step that takes 0.2 us in a tight loop (as
``bench_request`` times it) can take 1 us here. Load comes from wrk; after each
run the dispatcher's medians are read from ``/__inside`` (answered before any
variant) and reset. Reported: per request, the median over runs of each variant's
median microseconds and the guard's excess over both baselines.

``--baseline DIR`` starts a second such server with the ``utf8guard`` package of DIR
(an older tree, its C extension built in place; see ``bench_server``), runs the two
servers' wrk runs in turn, and adds the difference of their excesses over bare, run
by run. Run: ``python -m bench.bench_inside [--runs 6 --seconds 3] [--baseline DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final

from starlette.applications import Starlette
from starlette.routing import Route

from bench import _wrk
from bench._load import Server, serving
from bench.bench_server import REQUESTS, _endpoint, baseline_folder, request_parts
from utf8guard.middleware import Utf8GuardMiddleware

if TYPE_CHECKING:
    from utf8guard.middleware.asgi import ASGIApp, Message, Receive, Scope, Send

VARIANTS: Final = ("bare", "read-first", "guarded")
STATS_PATH: Final = "/__inside"
CONNECTIONS: Final = 8
#: The servers' names in the tables: this tree's, and with ``--baseline`` the other.
THIS_TREE: Final = "this tree"
BASELINE: Final = "baseline"
#: Per request, one dict of per-variant medians (us) per wrk run.
Runs = dict[str, list[dict[str, float]]]


class ReadFirst:
    """Receives the first message before the app runs, then hands it back."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        first: list[Message] = [await receive()]

        async def replay() -> Message:
            return first.pop() if first else await receive()

        await self.app(scope, replay, send)


class Dispatcher:
    """Hands requests to the variants in turn and times each."""

    def __init__(self) -> None:
        inner = Starlette(
            routes=[Route("/{rest:path}", _endpoint, methods=["GET", "POST"])]
        )
        self.apps: tuple[ASGIApp, ...] = (
            inner,
            ReadFirst(inner),
            Utf8GuardMiddleware(inner),
        )
        self.times: dict[str, list[int]] = {name: [] for name in VARIANTS}
        self._turn = itertools.cycle(range(len(VARIANTS)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.apps[0](scope, receive, send)
            return
        if scope.get("path") == STATS_PATH:
            await self._stats(send)
            return
        index = next(self._turn)
        start = time.perf_counter_ns()
        await self.apps[index](scope, receive, send)
        self.times[VARIANTS[index]].append(time.perf_counter_ns() - start)

    async def _stats(self, send: Send) -> None:
        medians = {
            name: statistics.median(times) / 1000 if times else None
            for name, times in self.times.items()
        }
        for times in self.times.values():
            times.clear()
        body = json.dumps(medians).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def app() -> Dispatcher:
    """uvicorn factory."""
    return Dispatcher()


def _uvicorn(port: int, package_dir: str = ".") -> list[str]:
    # --app-dir goes first on sys.path, ahead of this tree (bench_server's note).
    return [
        *(sys.executable, "-m", "uvicorn", "--factory", "bench.bench_inside:app"),
        *("--http", "httptools", "--loop", "asyncio", "--app-dir", package_dir),
        *("--host", "127.0.0.1", "--port", str(port)),
        *("--no-access-log", "--log-level", "warning"),
    ]


def fetch_medians(port: int) -> dict[str, float]:
    """The dispatcher's medians since the last fetch, in microseconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", STATS_PATH)
        medians: dict[str, float] = json.loads(connection.getresponse().read())
    finally:
        connection.close()
    return medians


def summary_lines(runs: Runs) -> list[str]:
    """Markdown: per request, each variant's median of per-run medians (us), and the
    guard's excess over ``bare`` and over ``read-first`` (median and range)."""
    lines = [
        "| request | bare us | read-first us | guarded us | guarded - bare "
        "| guarded - read-first | runs |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for method, samples in runs.items():
        median = {
            name: statistics.median(sample[name] for sample in samples)
            for name in VARIANTS
        }
        excess = [sample["guarded"] - sample["bare"] for sample in samples]
        over_read = [sample["guarded"] - sample["read-first"] for sample in samples]
        lines.append(
            f"| {method} | {median['bare']:.2f} | {median['read-first']:.2f} "
            f"| {median['guarded']:.2f} | **+{statistics.median(excess):.2f}** "
            f"({min(excess):+.2f} to {max(excess):+.2f}) "
            f"| +{statistics.median(over_read):.2f} "
            f"({min(over_read):+.2f} to {max(over_read):+.2f}) | {len(samples)} |"
        )
    return lines


def difference_lines(this: Runs, baseline: Runs) -> list[str]:
    """Markdown: per request, the guard's excess over bare on each tree (median of
    runs) and this tree's minus the baseline's, run by run (median and range)."""
    lines = [
        f"| request | {THIS_TREE}: guarded - bare | {BASELINE}: guarded - bare "
        "| difference | runs |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for method, samples in this.items():
        ours = [sample["guarded"] - sample["bare"] for sample in samples]
        theirs = [sample["guarded"] - sample["bare"] for sample in baseline[method]]
        change = [a - b for a, b in zip(ours, theirs, strict=True)]
        lines.append(
            f"| {method} | +{statistics.median(ours):.2f} "
            f"| +{statistics.median(theirs):.2f} "
            f"| **{statistics.median(change):+.2f}** "
            f"({min(change):+.2f} to {max(change):+.2f}) | {len(change)} |"
        )
    return lines


def measure(
    servers: dict[str, Server], folder: Path, runs: int, seconds: int
) -> dict[str, Runs]:
    """Per server, per request, ``runs`` wrk runs' medians; the servers take turns,
    each run starting with the next server."""
    names = list(servers)
    results: dict[str, Runs] = {name: {} for name in names}
    for method in REQUESTS:
        script = folder / f"{method}.lua"
        script.write_text(_wrk.script(method, *request_parts(method)))
        for server in servers.values():
            _wrk.run(server.port, script, 1, CONNECTIONS)  # warm up
            fetch_medians(server.port)
        for index in range(runs):
            shift = index % len(names)
            for name in [*names[shift:], *names[:shift]]:
                port = servers[name].port
                counted = _wrk.run(port, script, seconds, CONNECTIONS)
                if counted.refused:
                    sys.exit(f"{counted.refused} {method} requests refused: no result")
                results[name].setdefault(method, []).append(fetch_medians(port))
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6, help="wrk runs per request")
    parser.add_argument("--seconds", type=int, default=3, help="per run (whole s)")
    parser.add_argument(
        "--baseline", type=Path, help="another tree: its utf8guard in a second server"
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.seconds < 1:
        parser.error("--runs and --seconds must be >= 1")
    if shutil.which("wrk") is None:
        sys.exit(_wrk.MISSING)
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        trees = {THIS_TREE: "."}
        if args.baseline is not None:
            trees[BASELINE] = str(baseline_folder(args.baseline, Path(folder)))
        servers = {
            name: stack.enter_context(serving(partial(_uvicorn, package_dir=tree)))
            for name, tree in trees.items()
        }
        results = measure(servers, Path(folder), args.runs, args.seconds)
    if args.baseline is None:
        print("\n".join(summary_lines(results[THIS_TREE])))
        return
    lines = []
    for name in trees:
        lines += [f"{name}:", "", *summary_lines(results[name]), ""]
    lines += difference_lines(results[THIS_TREE], results[BASELINE])
    print("\n".join(lines))


if __name__ == "__main__":
    main()
