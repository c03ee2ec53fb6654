"""Cost of Utf8GuardWSGIMiddleware: in-process µs per request, and Gunicorn throughput.

The same requests as ``bench_asgi`` (GET with five headers and a query; POST of a
4 KiB JSON body) against a minimal Flask app, bare and with the guard on
``app.wsgi_app``: (1) the WSGI callable driven in process with a hand-made environ,
as µs per request; (2) requests per second under Gunicorn (sync worker, which closes
each connection) on 127.0.0.1, from a load generator on loopback for a fixed time,
best of ``--rounds`` alternating rounds. Run: ``python -m bench.bench_wsgi [--seconds
3]``. Loopback only.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from flask import Flask, request

from bench._load import load, serving
from bench.bench_asgi import HEADERS, JSON_BODY, _raw_request
from utf8guard.middleware import Utf8GuardWSGIMiddleware

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication, WSGIEnvironment


def _app() -> Flask:
    app = Flask(__name__)

    @app.route("/<path:rest>", methods=["GET", "POST"])
    def endpoint(rest: str) -> str:
        request.get_data()
        return "ok"

    return app


def plain() -> Flask:
    """The bare app (Gunicorn factory)."""
    return _app()


def guarded() -> Flask:
    """The same app with the guard on ``app.wsgi_app``, default options."""
    app = _app()
    # Flask declares wsgi_app a method, and documents replacing it this way.
    app.wsgi_app = Utf8GuardWSGIMiddleware(app.wsgi_app)  # type: ignore[method-assign]
    return app


def environ_for(method: str) -> Callable[[], WSGIEnvironment]:
    """A fresh environ per call, as Gunicorn would build it for the request."""
    base: WSGIEnvironment = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": "/api/caf\u00e9/items".encode().decode("latin-1"),
        "RAW_URI": "/api/caf%C3%A9/items?page=2&q=caf%C3%A9&sort=name",
        "QUERY_STRING": "page=2&q=caf%C3%A9&sort=name",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.input_terminated": True,
    }
    for name, value in HEADERS:
        key = "HTTP_" + name.decode().upper().replace("-", "_")
        base[key] = value.decode("latin-1")
    body = b""
    if method == "POST":
        body = JSON_BODY
        base["CONTENT_TYPE"] = "application/json"
        base["CONTENT_LENGTH"] = str(len(body))

    def fresh() -> WSGIEnvironment:
        return base | {"wsgi.input": io.BytesIO(body)}

    return fresh


def _drive(app: WSGIApplication, method: str, count: int) -> float:
    make = environ_for(method)

    def start_response(*_: object) -> Callable[[bytes], object]:
        return len

    start = time.perf_counter()
    for _ in range(count):
        result = app(make(), start_response)
        for _chunk in result:
            pass
        getattr(result, "close", lambda: None)()
    return (time.perf_counter() - start) / count * 1e6


def in_process(count: int) -> dict[str, tuple[float, float]]:
    """µs per request, bare and guarded, for GET and POST (best of 3 runs)."""
    results = {}
    for method in ("GET", "POST"):
        bare_app, guard_app = plain(), guarded()
        bare = min(_drive(bare_app, method, count) for _ in range(3))
        guard = min(_drive(guard_app, method, count) for _ in range(3))
        results[method] = (bare, guard)
    return results


def throughput(
    factory: str, seconds: float, connections: int, workers: int
) -> dict[str, float]:
    """Requests per second for GET and POST against Gunicorn serving ``factory``."""

    def command(port: int) -> list[str]:
        return [
            *(sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"),
            *("--worker-class", "sync", "--workers", str(workers)),
            *("--log-level", "warning", f"bench.bench_wsgi:{factory}()"),
        ]

    with serving(command) as server:
        port = server.port
        load(port, _raw_request("GET"), 0.5, 2, keep_alive=False)  # warm up
        return {
            method: load(
                port, _raw_request(method), seconds, connections, keep_alive=False
            )
            for method in ("GET", "POST")
        }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="Gunicorn workers")
    parser.add_argument("--count", type=int, default=3000, help="in-process runs")
    parser.add_argument("--rounds", type=int, default=3, help="servers per variant")
    args = parser.parse_args(argv)
    cost = in_process(args.count)
    # Alternate bare and guarded servers and keep each cell's best round: on a shared
    # machine the load of other jobs moves req/s far more than the guard does.
    bare_rps = {"GET": 0.0, "POST": 0.0}
    guard_rps = dict(bare_rps)
    for _ in range(args.rounds):
        for factory, best in (("plain", bare_rps), ("guarded", guard_rps)):
            rps = throughput(factory, args.seconds, args.connections, args.workers)
            for method, value in rps.items():
                best[method] = max(best[method], value)
    print(
        "| request | bare µs | guarded µs | +µs | bare req/s | guarded req/s | ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for method, label in (
        ("GET", "GET, 5 headers, query"),
        ("POST", "POST 4 KiB JSON"),
    ):
        bare, guard = cost[method]
        ratio = guard_rps[method] / bare_rps[method]
        print(
            f"| {label} | {bare:.1f} | {guard:.1f} | {guard - bare:.1f} | "
            f"{bare_rps[method]:.0f} | {guard_rps[method]:.0f} | {ratio:.0%} |"
        )


if __name__ == "__main__":
    main()
