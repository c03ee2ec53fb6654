"""Middleware: fuzzed requests never crash the guard, and never reach the app invalid.

Invariant: ``Utf8GuardMiddleware`` (block and normalize modes, buffered and streamed
bodies), driven with a fuzzed raw path, query, header value (sent as ``X-Fuzz`` or
as ``Cookie``), content type and a body cut into fuzzer-chosen chunks, never raises;
when it does not call the app it answers 400 or 413; when it does, everything the app
receives is valid by ``utf8guard.reference`` (the slow oracle, not the fast core):
the percent-decoded path under the path policy, every decoded query name and value,
every header value, and the body of an inspected type. A complete JSON body must also
re-encode without a lone surrogate (CPython's ``json`` as second oracle). In block
mode, also every cookie name and value as ``http.cookies`` decodes it (quoted
strings, octal escapes), and every header, parameter and form field that a lenient
multipart reader finds (``fuzz/_multipart.py``).

Input layout (``fuzz._common.Request``): byte 0 flags (content type bits 0-2,
streaming bit 3, normalize bit 4, multipart script bit 6, cookie bit 7), byte 1 the
chunk length, the rest split at ``FE FE`` into raw path, query, header value, body.
Run: ``python -m fuzz run middleware`` or ``python -m fuzz.fuzz_middleware``.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import unquote_to_bytes

from fuzz._common import (
    Request,
    Seen,
    as_bytes,
    check_seen,
    fail,
    parse_request,
    run_asgi,
    run_middleware_atheris,
)
from utf8guard.middleware.asgi import Receive, Scope, Send

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

MAX_LEN: Final = 1024


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
            self.body += as_bytes(message.get("body", b""))
            more = bool(message.get("more_body", False))
            self.complete = not more
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def seen(self, data: bytes) -> Seen:
        scope = self.scope or {}
        headers = scope.get("headers")
        if not isinstance(headers, list):
            raise fail("the app got headers that are not a list", data)
        return Seen(
            path=unquote_to_bytes(as_bytes(scope.get("raw_path"))),
            query=as_bytes(scope.get("query_string")),
            headers=[(bytes(name).lower(), bytes(value)) for name, value in headers],
            body=bytes(self.body),
            complete=self.complete,
        )


def check(data: bytes) -> None:
    """Run one fuzzed request through the guard; raise AssertionError on a breach."""
    request: Request = parse_request(data)
    app = _App()
    sent = run_asgi(app, request)
    if app.scope is not None:
        check_seen(request, app.seen(data), data)
    status = sent[0]["status"] if sent else None
    if app.scope is None and status not in (400, 413):
        raise fail(f"refused without a 400 or 413 (status {status})", data)


TestOneInput = check


def main() -> None:  # pragma: no cover  # needs atheris; the corpus replay covers check
    run_middleware_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
