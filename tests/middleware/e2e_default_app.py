"""A raw ASGI and a raw WSGI app behind the guard with default options (issue 26).

For ``test_e2e_uploads.py`` and ``test_benign.py``: uvicorn runs ``asgi``,
Gunicorn ``wsgi()``, each in a subprocess. The app reads the whole body and answers
its length, so a test sees that the guard passed the request as sent. The process
exits by itself after ``UTF8GUARD_E2E_LIFETIME`` seconds (default 120).
"""

from __future__ import annotations

import json
import os
import signal
import threading
from typing import TYPE_CHECKING

from utf8guard.middleware import Utf8GuardMiddleware, Utf8GuardWSGIMiddleware
from utf8guard.middleware.asgi import Receive, Scope, Send

if TYPE_CHECKING:
    from collections.abc import Iterable

    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

#: Pieces the WSGI app reads the body in.
READ_BYTES = 64 * 1024


def _exit_later() -> None:
    """Stop this process (and a Gunicorn master) after the configured lifetime."""

    def stop() -> None:
        if os.environ.get("UTF8GUARD_E2E_GUNICORN"):
            os.kill(os.getppid(), signal.SIGTERM)
        os._exit(3)

    timer = threading.Timer(
        float(os.environ.get("UTF8GUARD_E2E_LIFETIME", "120")), stop
    )
    timer.daemon = True
    timer.start()


async def _length_app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    length, more = 0, True
    while more:
        message = await receive()
        body = message.get("body", b"")
        assert isinstance(body, bytes)
        length += len(body)
        more = bool(message.get("more_body", False))
    reply = json.dumps({"length": length}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": reply})


def _wsgi_length_app(
    environ: WSGIEnvironment, start_response: StartResponse
) -> Iterable[bytes]:
    length = 0
    while piece := environ["wsgi.input"].read(READ_BYTES):
        length += len(piece)
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps({"length": length}).encode()]


def asgi() -> Utf8GuardMiddleware:
    """The uvicorn factory (``--factory``): the guarded app, and the exit timer."""
    _exit_later()
    return Utf8GuardMiddleware(_length_app)


def wsgi() -> WSGIApplication:
    """Gunicorn's ``module:wsgi()``."""
    _exit_later()
    return Utf8GuardWSGIMiddleware(_wsgi_length_app)
