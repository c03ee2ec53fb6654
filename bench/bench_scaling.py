"""Time per request as each attack shape doubles, bare and guarded, on real servers.

Issue 11 asks for linear time: growth per doubling of the input about 2, never
above 2.5, and 2 MiB of the worst body shape within 10x of 2 MiB of text/plain.
Shapes (``bench/_shapes.py``): ``%FF`` escapes in the path and the query,
``%EF%BC%8F`` look-alikes, header value bytes (2 KiB .. 32 KiB by default), and
urlencoded ``=``/``&``/``a=``, JSON ``\\u`` escapes and backslashes and tiny
multipart parts (256 KiB .. 2 MiB). Servers: uvicorn (httptools) with a minimal
Starlette app and Gunicorn (sync worker) with a plain WSGI app, each bare and behind
the guard with default options, on 127.0.0.1 over raw sockets, one connection per
request. The bare server shows what the stack itself costs, so the guard's own
growth shows in the difference.

Each cell is the best of ``--repeats`` requests (fewer once a cell has taken 2 s),
by the wall clock or (``--clock cpu``) by the server's own CPU time. A request
slower than ``--timeout`` seconds counts as a timeout: the server is restarted
(stopped by PID) and the shape's larger sizes are skipped.

``python -m bench.bench_scaling`` prints the Markdown tables; ``--write
bench/README.md`` replaces the block between the markers in that file.
``--max-parts`` sets the guarded servers' ``max_multipart_parts``: at the default
(1000) the multipart shapes are refused at their 1001st part; raised, they time the
parser on every part (issue 28).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from typing import TYPE_CHECKING, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench._load import Server, one_request
from bench._shapes import BASELINE, BODY_SHAPES, HEAD_SHAPES, Shape, request
from utf8guard.middleware import (
    GuardConfig,
    Utf8GuardMiddleware,
    Utf8GuardWSGIMiddleware,
)
from utf8guard.middleware.engine._config import MAX_MULTIPART_PARTS

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

    from utf8guard.middleware.asgi import ASGIApp

VARIANTS: Final = ("bare", "guarded")
BEGIN: Final = (
    "<!-- scaling-table:begin (python -m bench.bench_scaling --write bench/README.md)"
    " -->"
)
END: Final = "<!-- scaling-table:end -->"
KIB: Final = 1024
# uvicorn with httptools answers 400 to a head of about 64 KiB and more (measured with
# uvicorn 0.54), so the head shapes stop at 32 KiB.
HEAD_SIZES_BYTES: Final = tuple(KIB << i for i in range(1, 6))  # 2 KiB .. 32 KiB
BODY_SIZES_BYTES: Final = tuple(256 * KIB << i for i in range(4))  # 256 KiB .. 2 MiB
#: Issue 11's targets.
MAX_GROWTH: Final = 2.5
MAX_BODY_RATIO: Final = 10.0
#: Stop repeating a cell once it has taken this long.
CELL_BUDGET_SECONDS: Final = 2.0
#: Growth is judged from cells at least this slow: below, fixed costs, noise and the
#: CPU clock's 10 ms ticks rule.
MIN_JUDGED_SECONDS: Final = 0.05
#: The CPU clock's resolution (Linux counts CPU time in ticks of 1/SC_CLK_TCK s).
TICK_SECONDS: Final = 1 / os.sysconf("SC_CLK_TCK")
#: Gunicorn's header field limit for the run (0 means its default, 8190, since 23.0).
GUNICORN_FIELD_BYTES: Final = 128 * KIB
#: The servers' environment variable that carries ``--max-parts`` to the guard.
MAX_PARTS_VARIABLE: Final = "BENCH_SCALING_MAX_PARTS"
#: (status, seconds) of the fastest of a few tries of one raw request; None: timeout
Timer = Callable[[bytes], "tuple[int, float] | None"]


# The apps read the whole body and answer 200, nothing else, so the guard's cost shows.
async def _endpoint(request: Request) -> Response:
    await request.body()
    return Response(b"ok", media_type="text/plain")


def _starlette() -> ASGIApp:
    methods = ["GET", "POST"]
    return Starlette(routes=[Route("/{rest:path}", _endpoint, methods=methods)])


def _config() -> GuardConfig:
    """Default options, but ``max_multipart_parts`` from ``--max-parts``."""
    parts = os.environ.get(MAX_PARTS_VARIABLE, str(MAX_MULTIPART_PARTS))
    return GuardConfig(max_multipart_parts=int(parts))


def asgi_bare() -> ASGIApp:
    """uvicorn factory: the Starlette app alone."""
    return _starlette()


def asgi_guarded() -> ASGIApp:
    """uvicorn factory: the Starlette app behind the guard (default options but
    ``--max-parts``)."""
    return Utf8GuardMiddleware(_starlette(), config=_config())


def _wsgi_app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
    stream = environ["wsgi.input"]
    while stream.read(65536):
        pass
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


wsgi_bare = _wsgi_app
wsgi_guarded = Utf8GuardWSGIMiddleware(_wsgi_app, config=_config())


def _uvicorn(variant: str, timeout: float, port: int) -> list[str]:
    return [
        *(sys.executable, "-m", "uvicorn", "--factory", "--http", "httptools"),
        f"bench.bench_scaling:asgi_{variant}",
        *("--host", "127.0.0.1", "--port", str(port)),
        *("--no-access-log", "--log-level", "critical"),
    ]


def _gunicorn(variant: str, timeout: float, port: int) -> list[str]:
    # Lift Gunicorn's request-line and header-field limits (4094 and 8190 bytes; a
    # request line limit of 0 is none), so the large heads reach the app; its worker
    # timeout outlasts the client's.
    return [
        *(sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"),
        *("--worker-class", "sync", "--workers", "1"),
        *("--limit-request-line", "0"),
        *("--limit-request-field_size", str(GUNICORN_FIELD_BYTES)),
        *("--timeout", str(int(timeout) + 10), "--graceful-timeout", "1"),
        *("--log-level", "critical", f"bench.bench_scaling:wsgi_{variant}"),
    ]


SERVERS: Final = {"ASGI uvicorn-httptools": _uvicorn, "WSGI gunicorn-sync": _gunicorn}


@dataclass(frozen=True, slots=True)
class Cell:
    """One shape at one size on one server: seconds bare and guarded (None: timeout)
    and the status codes each answered (0: timeout)."""

    server: str
    shape: str
    size: int
    bare: float | None
    guarded: float | None
    statuses: tuple[int, int]


def measure_shape(
    server: str, shape: Shape, sizes: Sequence[int], bare: Timer, guarded: Timer
) -> list[Cell]:
    """Cells for ``shape`` at each size, until the guarded side times out."""
    cells = []
    for size in sizes:
        raw = request(shape, size)
        plain, guard = bare(raw), guarded(raw)
        cell = Cell(
            server,
            shape.name,
            size,
            None if plain is None else plain[1],
            None if guard is None else guard[1],
            (0 if plain is None else plain[0], 0 if guard is None else guard[0]),
        )
        cells.append(cell)
        if cell.guarded is None:
            break
    return cells


def _best_of(server: Server, repeats: int, timeout: float, clock: str) -> Timer:
    """A Timer: the fastest of up to ``repeats`` requests to ``server``, by the wall
    clock or by the server's CPU time; None when one times out (or the connection
    fails), and the server is restarted."""

    def timer(raw: bytes) -> tuple[int, float] | None:
        best, spent, status = float("inf"), 0.0, 0
        for _ in range(repeats):
            try:
                cpu = server.cpu_seconds() if clock == "cpu" else 0.0
                status, seconds = one_request(server.port, raw, timeout)
                if clock == "cpu":
                    seconds = server.cpu_seconds() - cpu
            except (TimeoutError, OSError):
                server.restart()
                return None
            best, spent = min(best, seconds), spent + seconds
            if spent > CELL_BUDGET_SECONDS:
                break
        return status, best

    return timer


def measure(
    shapes: Sequence[tuple[Shape, Sequence[int]]],
    repeats: int,
    timeout: float,
    clock: str = "wall",
) -> list[Cell]:
    """Every shape on every server, bare and guarded (both servers run at once)."""
    cells: list[Cell] = []
    for name, command in SERVERS.items():
        servers = {v: Server(partial(command, v, timeout)) for v in VARIANTS}
        try:
            for server in servers.values():
                server.start()
            bare, guarded = (
                _best_of(servers[v], repeats, timeout, clock) for v in VARIANTS
            )
            for shape, sizes in shapes:
                print(f"{name}: {shape.name}", file=sys.stderr, flush=True)
                cells += measure_shape(name, shape, sizes, bare, guarded)
        finally:
            for server in servers.values():
                server.stop()
    return cells


def _ms(seconds: float | None, timeout: float) -> str:
    return f"> {timeout * 1000:,.0f}" if seconds is None else f"{seconds * 1000:,.1f}"


def _size(size: int) -> str:
    return f"{size // (KIB * KIB)} MiB" if size >= KIB * KIB else f"{size // KIB} KiB"


def growth(cells: Sequence[Cell]) -> list[float | None]:
    """Guarded time over the previous size's, per doubling (None for the first or
    after a timeout)."""
    factors: list[float | None] = [None]
    for before, after in pairwise(cells):
        if before.guarded and after.guarded:
            factors.append(after.guarded / before.guarded)
        else:
            factors.append(None)
    return factors


def table(cells: Sequence[Cell], timeout: float, clock: str = "wall") -> str:
    """The Markdown block, markers included: one row per cell, then the verdicts."""
    what = {"wall": "wall-clock", "cpu": "server CPU"}[clock]
    lines = [
        BEGIN,
        f"Times are {what} milliseconds per request, best of the repeats.",
        "",
        "| server | shape | size | bare ms | guarded ms | guard ms | growth | status "
        "bare/guarded |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    verdicts = []
    for key, group in _groups(cells).items():
        factors = growth(group)
        for cell, factor in zip(group, factors, strict=True):
            own = (
                _ms(cell.guarded - cell.bare, timeout)
                if cell.guarded is not None and cell.bare is not None
                else "-"
            )
            grown = "" if factor is None else f"x{factor:.2f}"
            if cell.guarded is None:
                grown = "timeout"
            lines.append(
                f"| {cell.server} | {cell.shape} | {_size(cell.size)} | "
                f"{_ms(cell.bare, timeout)} | {_ms(cell.guarded, timeout)} | {own} | "
                f"{grown} | {'/'.join(str(s or '-') for s in cell.statuses)} |"
            )
        verdicts.append((key, _verdict(group, factors)))
    lines += ["", "| server | shape | worst growth per doubling | verdict |"]
    lines.append("| --- | --- | ---: | --- |")
    lines += [f"| {server} | {shape} | {text} |" for (server, shape), text in verdicts]
    lines += ["", *_ratios(cells, timeout), END]
    return "\n".join(lines) + "\n"


def _groups(cells: Iterable[Cell]) -> dict[tuple[str, str], list[Cell]]:
    groups: dict[tuple[str, str], list[Cell]] = {}
    for cell in cells:
        groups.setdefault((cell.server, cell.shape), []).append(cell)
    return groups


def _verdict(group: Sequence[Cell], factors: Sequence[float | None]) -> str:
    if group[-1].guarded is None:
        return f"timeout at {_size(group[-1].size)} | MISS"
    judged = [
        factor
        for before, factor in zip(group, factors[1:], strict=False)
        if factor is not None and (before.guarded or 0) >= MIN_JUDGED_SECONDS
    ]
    worst = max(judged, default=None)
    if worst is None:
        return "- | -"
    return f"x{worst:.2f} | {'ok' if worst <= MAX_GROWTH else 'MISS'}"


def _ratios(cells: Sequence[Cell], timeout: float) -> list[str]:
    """Per server: the slowest body shape over text/plain, at text/plain's largest
    size. A baseline under the clock's resolution counts as one CPU tick, and the
    ratio reads "at least"."""
    attacks = {shape.name for shape in BODY_SHAPES} - {BASELINE.name}
    lines = []
    for server in dict.fromkeys(cell.server for cell in cells):
        ours = [cell for cell in cells if cell.server == server]
        base = [cell for cell in ours if cell.shape == BASELINE.name]
        at = [
            c for c in ours if base and c.size == base[-1].size and c.shape in attacks
        ]
        if not at or base[-1].guarded is None:
            continue
        worst = max(at, key=lambda c: float("inf") if c.guarded is None else c.guarded)
        floor = base[-1].guarded or TICK_SECONDS
        ratio = (worst.guarded or timeout) / floor
        bound = "" if base[-1].guarded and worst.guarded else "at least "
        mark = "ok" if worst.guarded and ratio <= MAX_BODY_RATIO else "MISS"
        size = _size(base[-1].size)
        lines.append(
            f"{server}: {size} of {worst.shape} (the slowest body shape) took "
            f"{bound}{ratio:,.0f}x the time of {size} of text/plain, guarded "
            f"(target <= {MAX_BODY_RATIO:.0f}x: {mark})."
        )
    return lines


def replace_block(text: str, block: str) -> str:
    """``text`` with the block between the markers (both included) replaced."""
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    return text[:start] + block + text[end:]


def _sizes(text: str) -> tuple[int, ...]:
    units = {"K": KIB, "M": KIB * KIB}
    return tuple(
        int(part[:-1]) * units[part[-1]] if part[-1] in units else int(part)
        for part in text.split(",")
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--head-sizes", type=_sizes, default=HEAD_SIZES_BYTES)
    parser.add_argument("--body-sizes", type=_sizes, default=BODY_SIZES_BYTES)
    parser.add_argument("--repeats", type=int, default=3, help="best of, per cell")
    parser.add_argument("--timeout", type=float, default=30.0, help="per request, s")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall: request sent to response read; cpu: the server's CPU time (Linux)",
    )
    parser.add_argument(
        "--max-parts",
        type=int,
        default=MAX_MULTIPART_PARTS,
        help="the guard's max_multipart_parts (raise it to time every part)",
    )
    parser.add_argument("--write", metavar="README", help="replace the marked block")
    args = parser.parse_args(argv)
    # The servers inherit the environment (bench._load.Server).
    os.environ[MAX_PARTS_VARIABLE] = str(args.max_parts)
    shapes = [(shape, args.head_sizes) for shape in HEAD_SHAPES]
    shapes += [(shape, args.body_sizes) for shape in BODY_SHAPES]
    cells = measure(shapes, args.repeats, args.timeout, args.clock)
    block = table(cells, args.timeout, args.clock)
    sys.stdout.write(block)
    if args.write:
        with open(args.write, encoding="utf-8") as readme:
            text = readme.read()
        with open(args.write, "w", encoding="utf-8") as readme:
            readme.write(replace_block(text, block))
    return 0


if __name__ == "__main__":
    sys.exit(main())
