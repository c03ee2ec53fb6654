"""Cost of Utf8GuardMiddleware: in-process µs per request, and uvicorn throughput.

Two measurements, each for GET and for POST of a 4 KiB JSON body: (1) the
middleware driven in process with hand-written receive/send around an app that only
reads the body, as µs added per request; (2) requests per second of a minimal
Starlette app under uvicorn on 127.0.0.1, bare and guarded, driven by a keep-alive
load generator on loopback for a fixed time. Run:
``python -m bench.bench_asgi [--seconds 2 --rounds 3]``. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from functools import partial

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench._load import load, serving
from utf8guard.middleware import Utf8GuardMiddleware
from utf8guard.middleware.asgi import ASGIApp, Message, Receive, Scope, Send


def _json_body(size: int) -> bytes:
    """About ``size`` bytes of JSON with raw non-ASCII text, as browsers send it
    (JSON.stringify escapes nothing above U+001F)."""
    items: list[dict[str, object]] = []
    while len(json.dumps({"items": items}, ensure_ascii=False).encode()) < size - 40:
        items.append({"name": "café €", "id": len(items)})
    return json.dumps({"items": items}, ensure_ascii=False).encode()


JSON_BODY = _json_body(4 * 1024)
HEADERS = [
    (b"host", b"127.0.0.1"),
    (b"user-agent", b"bench/1.0"),
    (b"accept", b"application/json"),
    (b"accept-language", b"de-CH,de;q=0.9"),
    (b"cookie", b"session=abc123; theme=dark"),
]


async def endpoint(request: Request) -> Response:
    await request.body()
    return Response(b"ok", media_type="text/plain")


def plain() -> ASGIApp:
    """The bare app (uvicorn factory)."""
    return Starlette(routes=[Route("/{rest:path}", endpoint, methods=["GET", "POST"])])


def guarded() -> ASGIApp:
    """The same app behind Utf8GuardMiddleware with default options."""
    app = Starlette(routes=[Route("/{rest:path}", endpoint, methods=["GET", "POST"])])
    app.add_middleware(Utf8GuardMiddleware)
    return app


def scope_for(method: str) -> tuple[Scope, bytes]:
    headers = list(HEADERS)
    body = b""
    if method == "POST":
        body = JSON_BODY
        headers += [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": "/api/caf\u00e9/items",
        "raw_path": b"/api/caf%C3%A9/items",
        "query_string": b"page=2&q=caf%C3%A9&sort=name",
        "root_path": "",
        "headers": headers,
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }
    return scope, body


async def _drive(app: ASGIApp, method: str, count: int) -> float:
    scope, body = scope_for(method)

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        return None

    start = time.perf_counter()
    for _ in range(count):
        await app(dict(scope), receive, send)
    return (time.perf_counter() - start) / count * 1e6


async def _reader(scope: Scope, receive: Receive, send: Send) -> None:
    """The least an app does: read the body, answer. Isolates the middleware's cost."""
    more = True
    while more:
        more = bool((await receive()).get("more_body", False))
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def in_process(count: int) -> dict[str, tuple[float, float]]:
    """µs per request around a minimal app, bare and guarded (best of 5 runs).

    A minimal app rather than Starlette: on a shared machine, Starlette's own 15 µs
    vary more between runs than the middleware costs.
    """
    results = {}
    for method in ("GET", "POST"):
        bare = min(asyncio.run(_drive(_reader, method, count)) for _ in range(5))
        app = Utf8GuardMiddleware(_reader)
        guard = min(asyncio.run(_drive(app, method, count)) for _ in range(5))
        results[method] = (bare, guard)
    return results


def _raw_request(method: str) -> bytes:
    scope, body = scope_for(method)
    target = scope["raw_path"] + b"?" + scope["query_string"]  # type: ignore[operator]
    lines = [f"{method} ".encode() + target + b" HTTP/1.1"]
    lines += [name + b": " + value for name, value in scope["headers"]]  # type: ignore[attr-defined]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _uvicorn(factory: str, port: int) -> list[str]:
    """uvicorn serving ``factory`` on 127.0.0.1:``port``."""
    # --host/--port rather than --fd: with --fd, uvicorn takes the socket for an
    # AF_UNIX one and leaves Nagle's algorithm on, which costs 40 ms per response.
    return [
        *(sys.executable, "-m", "uvicorn", "--factory", f"bench.bench_asgi:{factory}"),
        *("--host", "127.0.0.1", "--port", str(port)),
        *("--no-access-log", "--log-level", "warning"),
    ]


def throughput(
    seconds: float, connections: int, rounds: int
) -> dict[tuple[str, str], float]:
    """Best req/s per (factory, method) over ``rounds`` interleaved rounds.

    Both servers run at once and take turns, so a burst of load from elsewhere on a
    shared machine hits both alike instead of one whole column.
    """
    best: dict[tuple[str, str], float] = {}
    with contextlib.ExitStack() as stack:
        ports = {
            factory: stack.enter_context(serving(partial(_uvicorn, factory))).port
            for factory in ("plain", "guarded")
        }
        for port in ports.values():
            load(port, _raw_request("GET"), 0.5, 2, keep_alive=True)  # warm up
        for _ in range(rounds):
            for method in ("GET", "POST"):
                for factory, port in ports.items():
                    raw = _raw_request(method)
                    rate = load(port, raw, seconds, connections, keep_alive=True)
                    key = (factory, method)
                    best[key] = max(best.get(key, 0.0), rate)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--count", type=int, default=3000, help="in-process runs")
    args = parser.parse_args(argv)
    cost = in_process(args.count)
    rates = throughput(args.seconds, args.connections, args.rounds)
    print(
        "| request | bare µs | guarded µs | +µs | bare req/s | guarded req/s | ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for method, label in (
        ("GET", "GET, 5 headers, query"),
        ("POST", "POST 4 KiB JSON"),
    ):
        bare, guard = cost[method]
        bare_rps, guard_rps = rates["plain", method], rates["guarded", method]
        print(
            f"| {label} | {bare:.1f} | {guard:.1f} | {guard - bare:.1f} | "
            f"{bare_rps:.0f} | {guard_rps:.0f} | {guard_rps / bare_rps:.0%} |"
        )


if __name__ == "__main__":
    main()
