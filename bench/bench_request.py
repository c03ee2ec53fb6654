"""Per-request cost of the guard, in process: bare app, no-op, stdlib sketch, utf8guard.

One table for a GET (non-ASCII percent-encoded path and query, 6 headers) and a
POST of 4 KiB JSON with non-ASCII text, through ASGI and WSGI, with the C
accelerator and in pure Python (``UTF8GUARD_PURE_PYTHON=1``, in a subprocess). Each
stack wraps the least an app does (read the body, answer 200):

* ``bare``: the app alone;
* ``no-op``: a pass-through middleware, the floor any middleware pays;
* ``sketch``: a stdlib middleware that strictly decodes ``raw_path``, the query,
  every header value and the body (``bytes.decode``; no security rule);
* ``utf8guard``: the guard with default options.

Each cell is the median over ``--rounds`` interleaved rounds (every stack once per
round, so a burst of load elsewhere hits all of them alike) of the mean µs per
request over ``--count`` requests (``--clock cpu``: CPU time of the process, steadier
on a shared machine). Columns after ``bare`` are µs added to it; the last column is
utf8guard's added cost over the sketch's. Run:
``python -m bench.bench_request [--count 2000 --rounds 15 --clock wall]``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote_to_bytes

from utf8guard import IMPLEMENTATION
from utf8guard.middleware import Utf8GuardMiddleware, Utf8GuardWSGIMiddleware
from utf8guard.middleware.asgi import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

ROOT = Path(__file__).resolve().parents[1]
STACKS = ("bare", "no-op", "sketch", "utf8guard")
REQUESTS = ("GET", "POST")
#: One cell: (implementation, interface, request) -> {stack: median µs}.
Results = dict[tuple[str, str, str], dict[str, float]]
#: "cpu" counts only this process's CPU time: on a shared machine, time spent
#: waiting for a core is not the guard's cost.
CLOCKS: dict[str, Callable[[], float]] = {
    "wall": time.perf_counter,
    "cpu": time.process_time,
}


def _json_body(size: int) -> bytes:
    """About ``size`` bytes of JSON with raw non-ASCII text (JSON.stringify's)."""
    items: list[dict[str, object]] = []
    while len(json.dumps({"items": items}, ensure_ascii=False).encode()) < size - 40:
        items.append({"name": "café €", "id": len(items)})
    return json.dumps({"items": items}, ensure_ascii=False).encode()


JSON_BODY = _json_body(4 * 1024)
RAW_PATH = b"/api/caf%C3%A9/items"
QUERY = b"page=2&q=caf%C3%A9&sort=name"
HEADERS = (
    (b"host", b"127.0.0.1"),
    (b"user-agent", b"bench/1.0"),
    (b"accept", b"application/json"),
    (b"accept-language", b"de-CH,de;q=0.9"),
    (b"accept-encoding", b"gzip, deflate"),
    (b"cookie", b"session=abc123; theme=dark"),
)


def _request(method: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    if method == "GET":
        return list(HEADERS), b""
    length = str(len(JSON_BODY)).encode()
    extra = [(b"content-type", b"application/json"), (b"content-length", length)]
    return [*HEADERS, *extra], JSON_BODY


# ASGI


async def asgi_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Read the body, answer 200."""
    more = True
    while more:
        more = bool((await receive()).get("more_body", False))
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def asgi_noop(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        await app(scope, receive, send)

    return middleware


def asgi_sketch(app: ASGIApp) -> ASGIApp:
    """Strict ``bytes.decode`` of raw_path, query, header values and the body."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        unquote_to_bytes(scope["raw_path"]).decode()  # type: ignore[arg-type]
        unquote_to_bytes(scope["query_string"]).decode()  # type: ignore[arg-type]
        for _, value in scope["headers"]:  # type: ignore[attr-defined]
            value.decode()
        chunks = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)  # type: ignore[arg-type]
        body.decode()

        async def replay() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return middleware


ASGI_STACKS: Mapping[str, Callable[[ASGIApp], ASGIApp]] = {
    "bare": lambda app: app,
    "no-op": asgi_noop,
    "sketch": asgi_sketch,
    "utf8guard": Utf8GuardMiddleware,
}


def asgi_scope(method: str) -> tuple[Scope, bytes]:
    """The request as an ASGI HTTP scope, and its body."""
    headers, body = _request(method)
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote_to_bytes(RAW_PATH).decode(),
        "raw_path": RAW_PATH,
        "query_string": QUERY,
        "root_path": "",
        "headers": headers,
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
    }
    return scope, body


async def _drive_asgi(
    app: ASGIApp, method: str, count: int, clock: Callable[[], float]
) -> float:
    scope, body = asgi_scope(method)

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        return None

    start = clock()
    for _ in range(count):
        await app(dict(scope), receive, send)
    return (clock() - start) / count * 1e6


# WSGI


def wsgi_app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
    """Read the body, answer 200."""
    length = environ.get("CONTENT_LENGTH")
    environ["wsgi.input"].read(int(length) if length else 0)
    start_response("200 OK", [])
    return [b"ok"]


def wsgi_noop(app: WSGIApplication) -> WSGIApplication:
    def middleware(
        environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        return app(environ, start_response)

    return middleware


def wsgi_sketch(app: WSGIApplication) -> WSGIApplication:
    """Strict ``bytes.decode`` of the raw path, query, header values and body."""

    def middleware(
        environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        raw = environ["RAW_URI"].encode("latin-1").partition(b"?")[0]
        unquote_to_bytes(raw).decode()
        unquote_to_bytes(environ["QUERY_STRING"].encode("latin-1")).decode()
        for key, value in environ.items():
            if key.startswith("HTTP_") or key == "CONTENT_TYPE":
                value.encode("latin-1").decode()
        length = environ.get("CONTENT_LENGTH")
        body = environ["wsgi.input"].read(int(length) if length else 0)
        body.decode()
        environ["wsgi.input"] = io.BytesIO(body)
        return app(environ, start_response)

    return middleware


WSGI_STACKS: Mapping[str, Callable[[WSGIApplication], WSGIApplication]] = {
    "bare": lambda app: app,
    "no-op": wsgi_noop,
    "sketch": wsgi_sketch,
    "utf8guard": Utf8GuardWSGIMiddleware,
}


def wsgi_environ(method: str) -> tuple[WSGIEnvironment, bytes]:
    """The request as a WSGI environ (Gunicorn's keys) without input, and its body."""
    headers, body = _request(method)
    environ: WSGIEnvironment = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(RAW_PATH).decode("latin-1"),
        "RAW_URI": (RAW_PATH + b"?" + QUERY).decode(),
        "QUERY_STRING": QUERY.decode(),
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
    }
    for name, value in headers:
        key = name.decode().upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        environ[key] = value.decode("latin-1")
    return environ, body


def _drive_wsgi(
    app: WSGIApplication, method: str, count: int, clock: Callable[[], float]
) -> float:
    base, body = wsgi_environ(method)

    def start_response(*_: object) -> Callable[[bytes], object]:
        return len

    start = clock()
    for _ in range(count):
        result = app(base | {"wsgi.input": io.BytesIO(body)}, start_response)
        for _chunk in result:
            pass
        getattr(result, "close", lambda: None)()
    return (clock() - start) / count * 1e6


def measure(count: int, rounds: int, clock: Callable[[], float]) -> Results:
    """Median µs per request of every stack, for this process's implementation."""
    samples: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for _ in range(rounds):
        for method in REQUESTS:
            cell = samples.setdefault((IMPLEMENTATION, "ASGI", method), {})
            for stack, wrap in ASGI_STACKS.items():
                took = asyncio.run(_drive_asgi(wrap(asgi_app), method, count, clock))
                cell.setdefault(stack, []).append(took)
            cell = samples.setdefault((IMPLEMENTATION, "WSGI", method), {})
            for stack, wrap_wsgi in WSGI_STACKS.items():
                took = _drive_wsgi(wrap_wsgi(wsgi_app), method, count, clock)
                cell.setdefault(stack, []).append(took)
    return {
        key: {stack: statistics.median(values) for stack, values in cell.items()}
        for key, cell in samples.items()
    }


def table(results: Results) -> list[str]:
    """Markdown rows: bare µs, µs each stack adds, and utf8guard over the sketch."""
    lines = [
        "| impl | request | bare µs | + no-op | + sketch | + utf8guard | x sketch |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (impl, interface, method), cell in sorted(results.items()):
        bare = cell["bare"]
        added = {stack: cell[stack] - bare for stack in STACKS[1:]}
        sketch = added["sketch"]
        ratio = f"{added['utf8guard'] / sketch:.1f}x" if sketch > 0 else "-"
        lines.append(
            f"| {impl} | {interface} {method} | {bare:.2f} | {added['no-op']:+.2f} | "
            f"{sketch:+.2f} | **{added['utf8guard']:+.2f}** | {ratio} |"
        )
    return lines


def _encode(results: Results) -> str:
    return json.dumps([[list(key), cell] for key, cell in results.items()])


def _decode(text: str) -> Results:
    return {(k[0], k[1], k[2]): cell for k, cell in json.loads(text)}


def pure_python(count: int, rounds: int, clock: str) -> Results:
    """:func:`measure` in a subprocess with ``UTF8GUARD_PURE_PYTHON=1``."""
    env = dict(os.environ, UTF8GUARD_PURE_PYTHON="1")
    command = [sys.executable, "-m", "bench.bench_request", "--json"]
    command += ["--count", str(count), "--rounds", str(rounds), "--clock", clock]
    done = subprocess.run(  # noqa: S603  # a fixed argv, no shell
        command, cwd=ROOT, env=env, capture_output=True, check=True, text=True
    )
    return _decode(done.stdout)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="requests per cell")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--json", action="store_true", help="raw results, this impl")
    parser.add_argument("--no-pure", action="store_true", help="skip pure Python")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    args = parser.parse_args(argv)
    results = measure(args.count, args.rounds, CLOCKS[args.clock])
    if args.json:
        print(_encode(results))
        return
    if IMPLEMENTATION != "python" and not args.no_pure:
        results |= pure_python(args.count, args.rounds, args.clock)
    print("\n".join(table(results)))


if __name__ == "__main__":
    main()
