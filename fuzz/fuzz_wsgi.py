"""WSGI middleware: fuzzed requests never crash the guard, never reach the app invalid,
and get the same verdict as under the ASGI adapter.

Invariant: ``Utf8GuardWSGIMiddleware`` (block and normalize modes, buffered and
streamed bodies, with ``CONTENT_LENGTH`` or a terminated input) never raises; when it
does not call the app it answers 400 or 413 with application/problem+json; when it
does, everything the app reads passes the same oracle as ``fuzz_middleware``
(``fuzz._common.check_seen``: ``SCRIPT_NAME + PATH_INFO`` under the path policy,
query, every ``HTTP_*`` value, the body of an inspected type, JSON escapes, and in
block mode cookies and multipart structure). Second oracle: the ASGI adapter, given
the same request, answers with the same status and, on a 400, the same first
violation.

Input layout: ``fuzz_middleware``'s (``fuzz._common.Request``), plus bit 5 of byte
0: no ``CONTENT_LENGTH``, the input is terminated (a chunked upload). Run:
``python -m fuzz run wsgi`` or ``python -m fuzz.fuzz_wsgi``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote_to_bytes

from fuzz._common import (
    Request,
    Seen,
    check_seen,
    fail,
    parse_request,
    run_asgi,
    run_middleware_atheris,
)
from utf8guard.middleware import Utf8GuardWSGIMiddleware
from utf8guard.middleware.asgi import Receive, Scope, Send

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

#: The same input layout as fuzz_middleware, so the same bound (libFuzzer -max_len).
MAX_LEN: Final = 1024
#: The app reads to EOF in pieces of this size (a raw input returns short reads).
READ_BYTES: Final = 4096
#: What ``check`` compares between the adapters: status and first violation.
Verdict = tuple[int, object]


class _Trickle(io.RawIOBase):
    """``wsgi.input`` that returns at most ``size`` bytes a read, as sockets may."""

    def __init__(self, data: bytes, size: int) -> None:
        super().__init__()
        self._data = data
        self._size = size

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        take = self._size if n < 0 else min(n, self._size)
        piece, self._data = self._data[:take], self._data[take:]
        return piece


class _App:
    """Records the environ and the whole body it reads, then answers 200."""

    def __init__(self) -> None:
        self.environ: WSGIEnvironment | None = None
        self.body = b""

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> list[bytes]:
        self.environ = environ
        stream = environ["wsgi.input"]
        self.body = b"".join(iter(lambda: stream.read(READ_BYTES), b""))
        start_response("200 OK", [])
        return []

    def seen(self) -> Seen:
        environ = self.environ or {}
        headers = [
            (key[5:].lower().replace("_", "-").encode(), value.encode("latin-1"))
            for key, value in environ.items()
            if key.startswith("HTTP_")
        ]
        return Seen(
            path=(environ["SCRIPT_NAME"] + environ["PATH_INFO"]).encode("latin-1"),
            query=environ["QUERY_STRING"].encode("latin-1"),
            headers=headers,
            body=self.body,
            complete=True,
        )


def _request(data: bytes) -> Request:
    """The shared layout; "?" and "#" escaped in the path, which a WSGI server could
    only have received as escapes (it splits the target on them)."""
    request = parse_request(data)
    escaped = request.raw_path.replace(b"?", b"%3F").replace(b"#", b"%23")
    return replace(request, raw_path=escaped)


def _first(body: bytes) -> object:
    document = json.loads(body)
    violations = document.get("violations") or [None]
    return violations[0]


def _environ(request: Request) -> WSGIEnvironment:
    """What Gunicorn builds: PATH_INFO is the raw path percent-decoded, as Latin-1."""
    header = "HTTP_" + request.header_name.decode().upper().replace("-", "_")
    environ: WSGIEnvironment = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(b"/" + request.raw_path).decode("latin-1"),
        "RAW_URI": (b"/" + request.raw_path).decode("latin-1"),
        "QUERY_STRING": request.query.decode("latin-1"),
        header: request.value.decode("latin-1"),
        "wsgi.input": _Trickle(request.body, request.chunk),
    }
    if request.content_type is not None:
        environ["CONTENT_TYPE"] = request.content_type.decode("latin-1")
    if request.flags & 0x20:
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(len(request.body))
    return environ


def _wsgi(data: bytes) -> Verdict:
    request = _request(data)
    app = _App()
    guard = Utf8GuardWSGIMiddleware(app, **request.options)
    started: list[str] = []

    def start_response(status: str, *_: object) -> Callable[[bytes], object]:
        started.append(status)
        return len  # a write() that discards; the app here never writes

    reply = b"".join(guard(_environ(request), start_response))
    status = int(started[-1].split()[0])
    if app.environ is not None and status == 200:
        check_seen(request, app.seen(), data)
        return 200, None
    if status not in (400, 413) or json.loads(reply).get("status") != status:
        raise fail(f"refused without a 400 or 413 problem (status {status})", data)
    return status, _first(reply)


async def _reader(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the whole body, as the WSGI app does, then answers 200."""
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def _asgi(data: bytes) -> Verdict:
    sent = run_asgi(_reader, _request(data))
    status, reply = sent[0]["status"], sent[1].get("body", b"")
    if not isinstance(status, int) or not isinstance(reply, bytes):
        raise fail("the ASGI adapter sent a malformed response", data)
    return status, None if status == 200 else _first(reply)


def check(data: bytes) -> None:
    """Run one fuzzed request through both adapters; AssertionError on a breach."""
    wsgi = _wsgi(data)
    asgi = _asgi(data)
    if wsgi != asgi:
        raise fail(f"WSGI answered {wsgi}, ASGI {asgi}", data)


TestOneInput = check


def main() -> None:  # pragma: no cover  # needs atheris; the corpus replay covers check
    run_middleware_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
