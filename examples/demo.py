"""The guard at work: the same raw requests to an app without it and with it.

Starts two uvicorn servers on free loopback ports in threads, one serving a small
Starlette app as it is and one serving it behind ``Utf8GuardMiddleware``, and sends
each request below to both over a raw socket (so no client tidies the bytes). Then
it prints one refusal's problem+json body in full, a summary of ``utf8guard check``
over Markus Kuhn's UTF-8 stress test, and last the table: what the unguarded app
received, and what the guard answered. Run with ``make demo`` or
``python -m examples.demo [--corpus PATH]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from utf8guard.middleware import Utf8GuardMiddleware

#: What a row of the table shows of the unguarded app's view, at most.
SHOWN_CHARS = 34
#: Markus Kuhn's stress test, vendored with the tests (tests/data/README.md).
DEFAULT_CORPUS = Path(__file__).resolve().parent.parent / "tests/data/UTF-8-test.txt"


async def echo(request: Request) -> JSONResponse:
    """Report, as ``repr``, what a handler gets from each part of the request."""
    seen: dict[str, object] = {"path": request.url.path}
    if request.query_params:
        seen["query"] = dict(request.query_params)
    if "x-user" in request.headers:
        seen["header"] = request.headers["x-user"]
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        async with request.form() as form:  # closes the spooled upload
            files = [f for f in form.values() if isinstance(f, UploadFile)]
            seen["filename"] = files[0].filename
    elif content_type == "application/json":
        seen["json"] = await request.json()
    elif request.method == "POST":
        seen["body"] = (await request.body()).decode()  # what most handlers do
    return JSONResponse({key: repr(value) for key, value in seen.items()})


def build_app(*, guarded: bool) -> Starlette:
    app = Starlette(routes=[Route("/{rest:path}", echo, methods=["GET", "POST"])])
    if guarded:
        app.add_middleware(Utf8GuardMiddleware)  # the one line
    return app


JSON = "application/json"


def post(content_type: str, body: bytes) -> bytes:
    head = f"POST /api HTTP/1.1\r\nContent-Type: {content_type}\r\n"
    return head.encode() + b"Content-Length: %d\r\n\r\n" % len(body) + body


def upload(filename: str) -> bytes:
    """A multipart/form-data upload (RFC 7578) of one small file named ``filename``."""
    body = (
        b'--b\r\nContent-Disposition: form-data; name=file; filename="'
        + filename.encode()
        + b'"\r\nContent-Type: application/octet-stream\r\n\r\nMZ\r\n--b--\r\n'
    )
    return post("multipart/form-data; boundary=b", body)


@dataclass(frozen=True)
class Row:
    label: str
    raw: bytes  # the request, without Host and Connection
    shows: str  # which part of the unguarded app's view the table shows
    unguarded_body: bytes = b""  # sent only to the app without the guard


def get(target: str, header: bytes = b"") -> bytes:
    return f"GET {target} HTTP/1.1\r\n".encode() + header + b"\r\n"


#: Request targets whose path the table shows: one valid, then path attacks.
PATHS = [
    "/caf%C3%A9/%E2%82%AC",
    "/etc%C0%AFpasswd",
    "/%252e%252e/secret",
    "/a%2Fb",
    "/%2e%2e/etc/passwd",
    "/files/..%EF%BC%8Fetc",
]
FIVE_MB = 5 * 1024 * 1024
ROWS = [
    *(Row(f"GET {target}", get(target), "path") for target in PATHS),
    Row("GET /search?q=caf%E9", get("/search?q=caf%E9"), "query"),
    Row("GET / (X-User: C0 AF)", get("/", b"X-User: \xc0\xaf\r\n"), "header"),
    Row('POST JSON {"ok": "€𝄞"}', post(JSON, '{"ok": "€𝄞"}'.encode()), "json"),
    Row('POST JSON {"a": "\\ud800"}', post(JSON, b'{"a": "\\ud800"}'), "json"),
    Row("POST JSON raw ED A0 80", post(JSON, b'{"a": "\xed\xa0\x80"}'), "json"),
    Row(
        "POST text charset=utf-7",
        post("text/plain; charset=utf-7", b"+ADw-script+AD4-"),
        "body",
    ),
    Row("upload invoice<RLO>fdp.exe", upload("invoice\u202efdp.exe"), "filename"),
    # Refused from the declared length alone: the guard never reads the body.
    Row(
        "POST 5 MB text (limit 4 MiB)",
        b"POST /api HTTP/1.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n" % FIVE_MB,
        "body",
        unguarded_body=b"x" * FIVE_MB,
    ),
]
#: The row whose refusal is printed in full: the raw surrogate in JSON.
PROBLEM_ROW = 10


def send(port: int, raw: bytes) -> tuple[int, bytes]:
    """Send one raw request; return the status and the response body."""
    raw = raw.replace(b"\r\n", b"\r\nHost: demo\r\nConnection: close\r\n", 1)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def unguarded_view(status: int, body: bytes, shows: str) -> str:
    """What the app received (its ``repr``), or how it failed."""
    if status != 200:
        return f"{status} {body.decode('ascii', 'replace')[: SHOWN_CHARS - 4]}"
    value = str(json.loads(body)[shows])  # the echo's repr() of what it got
    if len(value) > SHOWN_CHARS:
        value = value[: SHOWN_CHARS - 4] + "...'"
    return value


def guarded_reason(status: int, body: bytes) -> str:
    if status == 200:
        return "passed to the app"
    document = json.loads(body)
    found = document.get("violations", [])
    if not found:
        return str(document["title"])
    first = found[0]
    where = first["location"] + (f" {first['name']}" if "name" in first else "")
    return f"{first['kind']} in {where} at byte {first['offset']}"


@contextmanager
def serving(app: ASGIApp) -> Iterator[int]:
    """Serve ``app`` on a free 127.0.0.1 port for the ``with`` block; yield the port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="critical", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]})
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not server.started:
            raise RuntimeError("the demo server did not start within 30 s")
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join()
        listener.close()


class _Collect(logging.Handler):
    """Keeps the guard's log records to count them, instead of printing them."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def collecting(log: logging.Logger) -> Iterator[_Collect]:
    """Collect ``log``'s records instead of printing them, for the ``with`` block."""
    collected, propagate = _Collect(), log.propagate
    log.addHandler(collected)
    log.propagate = False
    try:
        yield collected
    finally:
        log.removeHandler(collected)
        log.propagate = propagate


def corpus_summary(corpus: Path) -> list[str]:
    """``utf8guard check --all --json`` over the stress test, as counts per kind."""
    command = [
        sys.executable,
        "-m",
        "utf8guard",
        "check",
        "--all",
        "--json",
        str(corpus),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode not in (0, 1):
        return [
            f"  utf8guard check failed (exit {done.returncode}): {done.stderr.strip()}"
        ]
    records = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = Counter(record["kind"] for record in records)
    lines = {record["line"] for record in records}
    first = records[0] if records else None
    out = [
        f"  exit status {done.returncode}: {len(records)} violations on "
        f"{len(lines)} of the file's lines, by kind:"
    ]
    out += [f"    {kind:<24} {count:>4}" for kind, count in kinds.most_common()]
    if first is not None:
        out.append(
            f"  the first: line {first['line']}, column {first['column']}, "
            f"{first['kind']} (bytes {first['bytes']}); --all lists all of them"
        )
    return out


Result = tuple[tuple[int, bytes], tuple[int, bytes]]  # (unguarded, guarded)


def send_all() -> list[Result]:
    """Each row to both apps; prints where they listen."""
    with (
        serving(build_app(guarded=False)) as plain,
        serving(build_app(guarded=True)) as guarded,
    ):
        print(
            f"the same Starlette app on 127.0.0.1:{plain} (unguarded) and "
            f"127.0.0.1:{guarded} (behind Utf8GuardMiddleware)\n"
        )
        return [
            (send(plain, row.raw + row.unguarded_body), send(guarded, row.raw))
            for row in ROWS
        ]


def print_problem(results: list[Result], records: int) -> None:
    status, body = results[PROBLEM_ROW][1]
    print(f"the guard's answer to {ROWS[PROBLEM_ROW].label} (HTTP {status}, RFC 9457):")
    print(json.dumps(json.loads(body), indent=2, ensure_ascii=False))
    print(
        f"\nthe utf8guard logger got {records} records for these requests "
        "(location, kind and offset only, never request bytes)"
    )


def print_table(results: list[Result]) -> None:
    print(f"\n{'request':<32} {'unguarded: the app got':<{SHOWN_CHARS}}  guarded")
    for row, (plain, (status, body)) in zip(ROWS, results, strict=True):
        seen = unguarded_view(*plain, row.shows)
        reason = guarded_reason(status, body)
        print(f"{row.label:<32} {seen:<{SHOWN_CHARS}}  {status} {reason}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        default=Path(os.environ.get("UTF8GUARD_CORPUS", DEFAULT_CORPUS)),
        help="Kuhn's UTF-8-test.txt (default: $UTF8GUARD_CORPUS, else tests/data)",
    )
    args = parser.parse_args(argv)
    with collecting(logging.getLogger("utf8guard")) as collected:
        results = send_all()
    print_problem(results, len(collected.lines))
    print(f"\nutf8guard check --all --json {args.corpus}  (Kuhn's UTF-8 stress test)")
    if args.corpus.is_file():
        print("\n".join(corpus_summary(args.corpus)))
    else:
        print("  not found: set UTF8GUARD_CORPUS or pass --corpus")
    print_table(results)


if __name__ == "__main__":
    main()
