"""The guarded app the end-to-end tests run under uvicorn: it reports what it saw.

Every response says whether anything the app received was invalid UTF-8
(``"clean"``), so the tests can assert that nothing invalid got past the guard.
The process exits by itself after ``UTF8GUARD_E2E_LIFETIME`` seconds (default 120),
so a test run that dies cannot leave a server behind.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from urllib.parse import parse_qsl, unquote_to_bytes

from utf8guard import IncrementalValidator, Utf8Error, is_valid
from utf8guard.middleware import Utf8GuardMiddleware
from utf8guard.middleware.asgi import Message, Receive, Scope, Send

#: Bodies up to this size are echoed back; larger ones only counted and checked.
ECHO_BYTES = 64 * 1024


def _memory() -> dict[str, int]:
    """VmRSS and VmHWM (peak) of this process in KiB, from /proc (Linux)."""
    status = Path("/proc/self/status")
    if not status.exists():  # pragma: no cover  # the tests skip off Linux
        return {}
    fields = dict(
        line.split(":", 1) for line in status.read_text().splitlines() if ":" in line
    )
    return {key: int(fields[key].split()[0]) for key in ("VmRSS", "VmHWM")}


def _head_is_clean(scope: Scope) -> bool:
    path, query, headers = scope["path"], scope["query_string"], scope["headers"]
    assert isinstance(path, str)
    assert isinstance(query, bytes)
    assert isinstance(headers, list)
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    pairs = [unquote_to_bytes(part) for part in query.replace(b"+", b" ").split(b"&")]
    return all(is_valid(part) for part in pairs) and all(
        is_valid(bytes(value)) for _, value in headers
    )


async def _read_body(receive: Receive) -> tuple[bytes, int, bool]:
    """The echoed start of the body, its length, and whether it was valid UTF-8."""
    validator = IncrementalValidator()
    kept, length, valid, more = bytearray(), 0, True, True
    while more:
        message = await receive()
        body = message.get("body", b"")
        assert isinstance(body, bytes)
        more = bool(message.get("more_body", False))
        length += len(body)
        if len(kept) < ECHO_BYTES:
            kept += body[: ECHO_BYTES - len(kept)]
        try:
            validator.feed(body)
            if not more:
                validator.finish()
        except Utf8Error:
            valid = False
    return bytes(kept), length, valid


async def _respond(send: Send, document: dict[str, object]) -> None:
    body = json.dumps(document).encode()
    start: Message = {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    await send(start)
    await send({"type": "http.response.body", "body": body})


async def inner(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        # ASGI lifespan: answer startup, then wait for shutdown.
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["path"] == "/memory":
        await _respond(send, dict(_memory()))
        return
    body, length, valid = await _read_body(receive)
    text = body.decode("utf-8", "replace") if length <= ECHO_BYTES else ""
    headers, query = scope["headers"], scope["query_string"]
    assert isinstance(headers, list)
    assert isinstance(query, bytes)
    names = {bytes(name).decode("latin-1"): bytes(value) for name, value in headers}
    await _respond(
        send,
        {
            "path": scope["path"],
            "query": dict(
                parse_qsl(query.decode("utf-8", "replace"), keep_blank_values=True)
            ),
            "x-name": names.get("x-name", b"").decode("utf-8", "replace"),
            "body": text,
            "length": length,
            "clean": valid and _head_is_clean(scope),
        },
    )


def create() -> Utf8GuardMiddleware:
    """The uvicorn factory (``--factory``): the guarded app, and the exit timer."""
    lifetime = float(os.environ.get("UTF8GUARD_E2E_LIFETIME", "120"))
    timer = threading.Timer(lifetime, os._exit, args=(3,))
    timer.daemon = True
    timer.start()
    return Utf8GuardMiddleware(inner, max_body_size=64 * 1024 * 1024)
