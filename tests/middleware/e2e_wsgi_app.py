"""The guarded Flask app the WSGI end-to-end tests run under Werkzeug and Gunicorn.

Its one catch-all view reports what it saw and whether anything it received was
invalid UTF-8 (``"clean"``), judged on the raw WSGI environ and body bytes, so the
tests can assert that nothing invalid got past the guard. ``python -m
tests.middleware.e2e_wsgi_app FD`` serves it with Werkzeug's development server on
an inherited listening socket; Gunicorn loads ``create()``. Either process exits by
itself after ``UTF8GUARD_E2E_LIFETIME`` seconds (default 120), so a test run that
dies cannot leave a server behind.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from urllib.parse import parse_qsl, unquote_to_bytes

from flask import Flask, Response, jsonify, request

from utf8guard import IncrementalValidator, Utf8Error, is_valid
from utf8guard.middleware import Utf8GuardWSGIMiddleware

from .e2e_app import ECHO_BYTES, _memory

#: Pieces the view reads the body in: the app never holds the whole upload either.
READ_BYTES = 64 * 1024


def _head_is_clean() -> bool:
    environ = request.environ
    path = (environ["SCRIPT_NAME"] + environ["PATH_INFO"]).encode("latin-1")
    query = environ["QUERY_STRING"].encode("latin-1")
    pairs = [unquote_to_bytes(part) for part in query.replace(b"+", b" ").split(b"&")]
    headers = [
        value.encode("latin-1")
        for key, value in environ.items()
        if key.startswith("HTTP_") and isinstance(value, str)
    ]
    return all(is_valid(part) for part in [path, *pairs, *headers])


def _read_body() -> tuple[bytes, int, bool]:
    """The echoed start of the body, its length, and whether it was valid UTF-8."""
    validator = IncrementalValidator()
    kept, length, valid = bytearray(), 0, True
    while piece := request.stream.read(READ_BYTES):
        length += len(piece)
        if len(kept) < ECHO_BYTES:
            kept += piece[: ECHO_BYTES - len(kept)]
        try:
            validator.feed(piece)
        except Utf8Error:
            valid = False
    try:
        validator.finish()
    except Utf8Error:
        valid = False
    return bytes(kept), length, valid


def view(path: str) -> Response:
    """Echo path, query, X-Name, body and whether all of it was clean."""
    if path == "memory":
        return jsonify(_memory())
    body, length, valid = _read_body()
    return jsonify(
        {
            "path": request.path,
            "query": dict(
                parse_qsl(
                    request.query_string.decode("utf-8", "replace"),
                    keep_blank_values=True,
                )
            ),
            "x-name": request.headers.get("X-Name", ""),
            "body": body.decode("utf-8", "replace") if length <= ECHO_BYTES else "",
            "length": length,
            "clean": valid and _head_is_clean(),
        }
    )


def _exit_later() -> None:
    """Stop this process (and a Gunicorn master) after the configured lifetime."""

    def stop() -> None:
        if os.environ.get("UTF8GUARD_E2E_GUNICORN"):
            os.kill(os.getppid(), signal.SIGTERM)
        os._exit(3)

    lifetime = float(os.environ.get("UTF8GUARD_E2E_LIFETIME", "120"))
    timer = threading.Timer(lifetime, stop)
    timer.daemon = True
    timer.start()


def create() -> Flask:
    """The Flask app with the guard on ``app.wsgi_app``, as the README shows."""
    _exit_later()
    app = Flask(__name__)
    methods = ["GET", "POST", "PUT"]
    app.add_url_rule("/", "view", view, defaults={"path": ""}, methods=methods)
    app.add_url_rule("/<path:path>", "view", view, methods=methods)
    # Flask declares wsgi_app a method, and documents replacing it this way.
    app.wsgi_app = Utf8GuardWSGIMiddleware(  # type: ignore[method-assign]
        app.wsgi_app, max_body_size=64 * 1024 * 1024
    )
    return app


def main() -> None:  # pragma: no cover  # runs in the server subprocess
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, create(), threaded=False, fd=int(sys.argv[1]))
    server.serve_forever()


if __name__ == "__main__":  # pragma: no cover
    main()
