"""WSGI middleware: fuzzed requests never crash the guard, never reach the app invalid,
and get the same verdict as under the ASGI adapter.

Invariant: ``Utf8GuardWSGIMiddleware`` (block and normalize modes, buffered and
streamed bodies, with ``CONTENT_LENGTH`` or a terminated input) never raises; when it
does not call the app it answers 400 or 413 with application/problem+json; when it
does, everything the app reads is valid by ``utf8guard.reference`` (the slow oracle):
``SCRIPT_NAME + PATH_INFO`` under the path policy, every decoded query name and
value, every ``HTTP_*`` value, and the body of an inspected type. Second oracle: the
ASGI adapter, given the same request, answers with the same status and, on a 400,
the same first violation.

Run it with ``python -m fuzz.fuzz_wsgi`` from the repository root. Input layout: as
``fuzz_middleware`` (byte 0: content type bits 0-2, streaming bit 3,
normalize bit 4; byte 1: chunk length; the rest split at ``FE FE`` into raw path,
query, one header value and body), plus bit 5 of byte 0: no ``CONTENT_LENGTH``, the
input is terminated (a chunked upload).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote_to_bytes

from fuzz.fuzz_middleware import _INSPECTED_RAW, CONTENT_TYPES, _parse
from utf8guard import STRICT, reference
from utf8guard.middleware import (
    GuardConfig,
    Utf8GuardMiddleware,
    Utf8GuardWSGIMiddleware,
)
from utf8guard.middleware.asgi import Message, Receive, Scope, Send

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

#: The same input layout as fuzz_middleware, so the same bound (libFuzzer -max_len).
MAX_LEN: Final = 1024

_PATH_POLICY: Final = GuardConfig().effective_path_policy
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


def _fail(what: str, data: bytes) -> AssertionError:
    return AssertionError(f"{what}; input {data.hex(' ')}")


def _check_seen(app: _App, content_type: bytes | None, data: bytes) -> None:
    environ = app.environ or {}
    path = (environ["SCRIPT_NAME"] + environ["PATH_INFO"]).encode("latin-1")
    if not reference.is_valid(path, _PATH_POLICY):
        raise _fail("invalid path reached the app", data)
    query = environ["QUERY_STRING"].encode("latin-1")
    for part in query.replace(b"+", b" ").replace(b"=", b"&").split(b"&"):
        if not reference.is_valid(unquote_to_bytes(part), STRICT):
            raise _fail("invalid query reached the app", data)
    for key, value in environ.items():
        if key.startswith("HTTP_") and not reference.is_valid(
            value.encode("latin-1"), STRICT
        ):
            raise _fail("invalid header reached the app", data)
    if content_type in _INSPECTED_RAW and not reference.is_valid(app.body, STRICT):
        raise _fail("invalid body reached the app", data)


def _request(data: bytes) -> tuple[int, int, list[bytes]]:
    """``fuzz_middleware``'s layout; "?" and "#" escaped in the path, which a WSGI
    server could only have received as escapes (it splits the target on them)."""
    flags, chunk, parts = _parse(data)
    parts[0] = parts[0].replace(b"?", b"%3F").replace(b"#", b"%23")
    return flags, chunk, parts


def _first(body: bytes) -> object:
    document = json.loads(body)
    violations = document.get("violations") or [None]
    return violations[0]


def _wsgi(data: bytes) -> Verdict:
    flags, chunk, (raw_path, query, value, body) = _request(data)
    content_type = CONTENT_TYPES[flags & 0x07]
    environ: WSGIEnvironment = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        # Gunicorn: PATH_INFO is the raw path percent-decoded, as Latin-1.
        "PATH_INFO": unquote_to_bytes(b"/" + raw_path).decode("latin-1"),
        "RAW_URI": (b"/" + raw_path).decode("latin-1"),
        "QUERY_STRING": query.decode("latin-1"),
        "HTTP_X_FUZZ": value.decode("latin-1"),
        "wsgi.input": _Trickle(body, chunk),
    }
    if content_type is not None:
        environ["CONTENT_TYPE"] = content_type.decode("latin-1")
    if flags & 0x20:
        environ["wsgi.input_terminated"] = True
    else:
        environ["CONTENT_LENGTH"] = str(len(body))
    app = _App()
    guard = Utf8GuardWSGIMiddleware(
        app,
        mode="normalize" if flags & 0x10 else "block",
        stream_body=bool(flags & 0x08),
    )
    started: list[str] = []

    def start_response(status: str, *_: object) -> Callable[[bytes], object]:
        started.append(status)
        return len  # a write() that discards; the app here never writes

    reply = b"".join(guard(environ, start_response))
    status = int(started[-1].split()[0])
    if app.environ is not None and status == 200:
        _check_seen(app, content_type, data)
        return 200, None
    if status not in (400, 413) or json.loads(reply).get("status") != status:
        raise _fail(f"refused without a 400 or 413 problem (status {status})", data)
    return status, _first(reply)


def _asgi(data: bytes) -> Verdict:
    flags, chunk, (raw_path, query, value, body) = _request(data)
    content_type = CONTENT_TYPES[flags & 0x07]
    headers = [(b"x-fuzz", value)]
    if content_type is not None:
        headers.append((b"content-type", content_type))
    scope: Scope = {
        "type": "http",
        "path": raw_path.decode("latin-1"),
        "raw_path": b"/" + raw_path,
        "query_string": query,
        "headers": headers,
    }
    pieces = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    inbox = iter(
        [
            {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
            for i, piece in enumerate(pieces)
        ]
    )
    sent: list[Message] = []

    async def receive() -> Message:
        return next(inbox, {"type": "http.disconnect"})

    async def send(message: Message) -> None:
        sent.append(message)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass  # read the whole body, as the WSGI app does
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = Utf8GuardMiddleware(
        app,
        mode="normalize" if flags & 0x10 else "block",
        stream_body=bool(flags & 0x08),
    )
    asyncio.run(guard(scope, receive, send))
    status, reply = sent[0]["status"], sent[1].get("body", b"")
    if not isinstance(status, int) or not isinstance(reply, bytes):
        raise _fail("the ASGI adapter sent a malformed response", data)
    return status, None if status == 200 else _first(reply)


def check(data: bytes) -> None:
    """Run one fuzzed request through both adapters; AssertionError on a breach."""
    wsgi = _wsgi(data)
    asgi = _asgi(data)
    if wsgi != asgi:
        raise _fail(f"WSGI answered {wsgi}, ASGI {asgi}", data)


TestOneInput = check


def main() -> None:  # pragma: no cover  # needs atheris; the corpus replay covers check
    import atheris  # type: ignore[import-untyped, unused-ignore]  # no stubs ship

    # Every refusal logs a warning; at thousands of runs a second that is all noise.
    logging.getLogger("utf8guard").setLevel(logging.CRITICAL)
    atheris.instrument_all()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
