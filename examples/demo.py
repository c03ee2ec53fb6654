"""The guard at work: a guarded Starlette app on 127.0.0.1, sent good and bad requests.

Starts uvicorn on a free loopback port in a thread, sends each request below over a
raw socket (so no client tidies the bytes), prints request -> status -> reason, and
shuts the server down. Run with ``make demo`` or ``python -m examples.demo``.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from utf8guard.middleware import Utf8GuardMiddleware


async def echo(request: Request) -> JSONResponse:
    body = await request.body()
    return JSONResponse({"path": request.url.path, "body": body.decode()})


app = Starlette(routes=[Route("/{rest:path}", echo, methods=["GET", "POST"])])
app.add_middleware(Utf8GuardMiddleware)  # the one line


def post(content_type: str, body: bytes) -> bytes:
    head = f"POST /api HTTP/1.1\r\nContent-Type: {content_type}\r\n"
    return head.encode() + b"Content-Length: %d\r\n\r\n" % len(body) + body


#: (what the request is, its raw bytes after the request line's method)
REQUESTS = [
    ("GET /caf%C3%A9/%E2%82%AC (valid)", b"GET /caf%C3%A9/%E2%82%AC HTTP/1.1\r\n\r\n"),
    ("GET /etc%C0%AFpasswd", b"GET /etc%C0%AFpasswd HTTP/1.1\r\n\r\n"),
    ("GET /%252e%252e/secret", b"GET /%252e%252e/secret HTTP/1.1\r\n\r\n"),
    ("GET /a%2Fb", b"GET /a%2Fb HTTP/1.1\r\n\r\n"),
    ("GET /%2e%2e/etc/passwd", b"GET /%2e%2e/etc/passwd HTTP/1.1\r\n\r\n"),
    ("GET /files/..%EF%BC%8Fetc", b"GET /files/..%EF%BC%8Fetc HTTP/1.1\r\n\r\n"),
    ("GET /search?q=caf%E9", b"GET /search?q=caf%E9 HTTP/1.1\r\n\r\n"),
    ("GET / (X-User: caf\\xe9)", b"GET / HTTP/1.1\r\nX-User: caf\xe9\r\n\r\n"),
    ('POST JSON {"ok": "€𝄞"}', post("application/json", '{"ok": "€𝄞"}'.encode())),
    ('POST JSON {"a": "\\ud800"}', post("application/json", b'{"a": "\\ud800"}')),
    ("POST JSON raw ED A0 80", post("application/json", b'{"a": "\xed\xa0\x80"}')),
    ("POST text charset=utf-7", post("text/plain; charset=utf-7", b"+ADw-script+AD4-")),
    # Refused from the declared length alone: the body is never sent or read.
    (
        "POST 5 MB text (limit 4 MiB)",
        b"POST /api HTTP/1.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: 5242880\r\n\r\n",
    ),
]


def send(port: int, raw: bytes) -> tuple[int, str]:
    """Send one raw request; return the status and a one-line reason."""
    raw = raw.replace(b"\r\n", b"\r\nHost: demo\r\nConnection: close\r\n", 1)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        response = b""
        while chunk := sock.recv(65536):
            response += chunk
    head, _, body = response.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    document = json.loads(body)
    if status == 200:
        return status, f"passed to the app (path {document['path']})"
    found = document.get("violations", [])
    if not found:
        return status, document["title"]
    first = found[0]
    where = first["location"] + (f" {first['name']}" if "name" in first else "")
    return status, f"{first['kind']} in {where} at byte {first['offset']}"


class _Collect(logging.Handler):
    """Keeps the guard's log lines to show after the table, not inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def main() -> None:
    log = logging.getLogger("utf8guard")
    collected = _Collect()
    log.addHandler(collected)
    log.propagate = False
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(app, log_level="critical", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]})
    thread.start()
    try:
        while not server.started:
            time.sleep(0.05)
        print(f"guarded Starlette app on http://127.0.0.1:{port}\n")
        print(f"{'request':<34} {'status':>6}  reason")
        for label, raw in REQUESTS:
            status, reason = send(port, raw)
            print(f"{label:<34} {status:>6}  {reason}")
    finally:
        server.should_exit = True
        thread.join()
        listener.close()
    print(f"\nserver stopped; the utf8guard logger got {len(collected.lines)} lines")
    print("(location, kind and offset only, never request bytes), such as:")
    for line in collected.lines[:3]:
        print(f"  {line}")


if __name__ == "__main__":
    main()
