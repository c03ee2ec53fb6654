"""Middleware: fuzzed requests never crash the guard, and never reach the app invalid.

Invariant: ``Utf8GuardMiddleware`` (block and normalize modes, buffered and streamed
bodies), driven with a fuzzed raw path, query, header value, content type and a body
cut into fuzzer-chosen chunks, never raises; when it does not call the app it answers
400 or 413 with application/problem+json; when it does, everything the app receives is
valid by ``utf8guard.reference`` (the slow oracle, not the fast core): the
percent-decoded path under the path policy, every decoded query name and value, every
header value, and the body of an inspected type. A complete JSON body must also
re-encode without a lone surrogate (CPython's ``json`` as second oracle).

Input layout: byte 0 picks the content type (bits 0-2), streaming (bit 3) and
normalize mode (bit 4); byte 1 the chunk length (1 + byte % 64); the rest is split at
``FE FE`` into raw path, query string, one header value and body.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Final
from urllib.parse import unquote_to_bytes

from utf8guard import STRICT, reference
from utf8guard.middleware import GuardConfig, Utf8GuardMiddleware
from utf8guard.middleware.asgi import Message, Receive, Scope, Send

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

MAX_LEN: Final = 1024
CONTENT_TYPES: Final = (
    b"text/plain",
    b"application/json",
    b"application/x-www-form-urlencoded",
    b"multipart/form-data; boundary=B",
    b"image/png",
    None,
    b"text/plain; charset=utf-16",
    b"application/ld+json",
)
_INSPECTED_RAW: Final = (b"text/plain", b"application/json", b"application/ld+json")
_SEPARATOR: Final = b"\xfe\xfe"
_PATH_POLICY: Final = GuardConfig().effective_path_policy


class _App:
    """Records the scope and every body byte it is given, then answers 200."""

    def __init__(self) -> None:
        self.scope: Scope | None = None
        self.body = bytearray()
        self.complete = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.scope = scope
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            self.body += _as_bytes(message.get("body", b""))
            more = bool(message.get("more_body", False))
            self.complete = not more
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def _as_bytes(value: object) -> bytes:
    if not isinstance(value, bytes):
        raise AssertionError(f"expected bytes in the ASGI message, not {value!r}")
    return value


def _parse(data: bytes) -> tuple[int, int, list[bytes]]:
    flags = data[0] if data else 0
    chunk = 1 + (data[1] if len(data) > 1 else 0) % 64
    parts = data[2:].split(_SEPARATOR, 3)
    parts += [b""] * (4 - len(parts))
    return flags, chunk, parts


def _fail(what: str, data: bytes) -> AssertionError:
    return AssertionError(f"{what}; input {data.hex(' ')}")


def _check_seen(app: _App, content_type: bytes | None, data: bytes) -> None:
    """Everything the app received is valid by the reference oracle."""
    scope = app.scope or {}
    raw_path = _as_bytes(scope.get("raw_path"))
    query = _as_bytes(scope.get("query_string"))
    headers = scope.get("headers")
    if not isinstance(headers, list):
        raise _fail("the app got headers that are not a list", data)
    if not reference.is_valid(unquote_to_bytes(raw_path), _PATH_POLICY):
        raise _fail("invalid path reached the app", data)
    for part in query.replace(b"+", b" ").replace(b"=", b"&").split(b"&"):
        if not reference.is_valid(unquote_to_bytes(part), STRICT):
            raise _fail("invalid query reached the app", data)
    for _, value in headers:
        if not reference.is_valid(bytes(value), STRICT):
            raise _fail("invalid header reached the app", data)
    body = bytes(app.body)
    if content_type in _INSPECTED_RAW and not reference.is_valid(body, STRICT):
        raise _fail("invalid body reached the app", data)
    if content_type == b"application/json" and app.complete:
        try:
            document = json.loads(body)
        except ValueError:
            return  # not JSON: the guard checks encoding, not syntax
        try:
            json.dumps(document, ensure_ascii=False).encode()
        except UnicodeEncodeError as exc:
            raise _fail("a lone surrogate escape reached the app", data) from exc


def check(data: bytes) -> None:
    """Run one fuzzed request through the guard; raise AssertionError on a breach."""
    flags, chunk, (raw_path, query, value, body) = _parse(data)
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
    messages = iter(
        [
            {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
            for i, piece in enumerate(pieces)
        ]
    )
    sent: list[Message] = []

    async def receive() -> Message:
        return next(messages, {"type": "http.disconnect"})

    async def send(message: Message) -> None:
        sent.append(message)

    app = _App()
    guard = Utf8GuardMiddleware(
        app,
        mode="normalize" if flags & 0x10 else "block",
        stream_body=bool(flags & 0x08),
    )
    asyncio.run(guard(scope, receive, send))
    if app.scope is not None:
        _check_seen(app, content_type, data)
    status = sent[0]["status"] if sent else None
    if app.scope is None and status not in (400, 413):
        raise _fail(f"refused without a 400 or 413 (status {status})", data)


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
