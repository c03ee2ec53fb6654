"""The Flask echo app behind the guard, for Gunicorn and Werkzeug's development server.

Gunicorn loads ``create()``; ``python -m tests.differential.flask_echo FD`` serves
it with ``werkzeug.serving.run_simple`` on an inherited listening socket. The guard
is installed the way the README shows, on ``app.wsgi_app`` (wsgi_dispatch.py).
"""

from __future__ import annotations

import json
import os
import sys

from flask import Flask, Response, request
from werkzeug.routing import PathConverter

from .echo import (
    Document,
    attempt,
    dumps,
    echo_pairs,
    file_entry,
    new_document,
    put_pairs,
)
from .wsgi_dispatch import guarded


def _read_form(document: Document) -> None:
    put_pairs(document, "form", request.form.items(multi=True))
    document["files"] = [
        file_entry(name, upload.filename, upload.read())
        for name, upload in request.files.items(multi=True)
    ]


def echo_document() -> Document:
    """What Flask parsed, read through its API (echo.py has the shape)."""
    environ = request.environ
    # The raw target (Gunicorn, Werkzeug); its path, as ASGI's raw_path has.
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI") or ""
    document = new_document("flask", request.path, raw.partition("?")[0] or None)
    echo_pairs(document, "query", lambda: request.args.items(multi=True))
    echo_pairs(document, "headers", request.headers.items)
    echo_pairs(document, "cookies", lambda: request.cookies.items(multi=True))
    # Form first: Werkzeug parses a form from the stream, and get_data() after it
    # still returns the body of every other type.
    attempt(document, "form", lambda: _read_form(document))
    data = attempt(document, "data", request.get_data) or b""
    document["json"] = attempt(document, "json", request.get_json)
    document["json_loads"] = attempt(document, "json_loads", lambda: json.loads(data))
    return document


class EverythingConverter(PathConverter):
    """``path``, but "." matches line breaks too (a 404 would hide issue 11 F6)."""

    regex = "(?s:.*)"
    # Werkzeug derives part_isolating from "/" in the regex unless it is set here.
    part_isolating = False


def _view(path: str) -> Response:
    del path  # the echo reports request.path
    return Response(dumps(echo_document()), content_type="application/json")


def create() -> Flask:
    """The Flask echo app; its ``wsgi_app`` is wrapped by the guard."""
    # No static route: Flask's /static/<path> would answer 404 before the echo.
    app = Flask(__name__, static_folder=None)
    app.url_map.converters["everything"] = EverythingConverter
    methods = ["GET", "POST", "PUT"]
    app.add_url_rule("/<everything:path>", "view", _view, methods=methods)
    # Flask declares wsgi_app a method, and documents replacing it this way.
    app.wsgi_app = guarded(app.wsgi_app)  # type: ignore[method-assign,assignment]
    return app


def main() -> None:  # pragma: no cover  # runs in the server subprocess
    from werkzeug.serving import run_simple

    # run_simple serves an inherited socket only in a reloader child, which these two
    # variables mark; threaded, as Flask's own app.run() and `flask run` serve.
    os.environ["WERKZEUG_RUN_MAIN"] = "true"
    os.environ["WERKZEUG_SERVER_FD"] = sys.argv[1]
    run_simple("127.0.0.1", 0, create(), threaded=True)


if __name__ == "__main__":  # pragma: no cover
    main()
