"""The Bottle echo app behind the guard, for Gunicorn.

Bottle parses ``request.forms`` from every body that is not ``multipart/*``, whatever
its Content-Type (issue 25 R2), and decodes form strings as Latin-1 unless read as
attributes (``FormsDict.getunicode``): the echo reads them decoded, as an app would.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import bottle

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

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


def _decoded(pairs: bottle.FormsDict) -> list[tuple[str, object]]:
    # FormsDict.decode(): the UTF-8 reading an app gets from ``forms.name``.
    return list(pairs.decode().allitems())


def _read_form(document: Document) -> None:
    request = bottle.request
    put_pairs(document, "form", _decoded(request.forms))
    document["files"] = [
        file_entry(name, upload.raw_filename, upload.file.read())
        for name, upload in request.files.decode().allitems()
    ]


def echo_document() -> Document:
    """What Bottle parsed, read through its API (echo.py has the shape)."""
    request = bottle.request
    raw = request.environ.get("RAW_URI") or ""
    document = new_document("bottle", request.path, raw.partition("?")[0] or None)
    echo_pairs(document, "query", lambda: _decoded(request.query))
    echo_pairs(document, "headers", request.headers.items)
    echo_pairs(document, "cookies", lambda: _decoded(request.cookies))
    attempt(document, "form", lambda: _read_form(document))
    data = attempt(document, "data", lambda: request.body.read()) or b""
    document["json"] = attempt(document, "json", lambda: request.json)
    document["json_loads"] = attempt(document, "json_loads", lambda: json.loads(data))
    return document


def create() -> WSGIApplication:
    """The guarded Bottle echo app: one catch-all route."""
    app = bottle.Bottle()

    def echo(path: str) -> bytes:
        del path  # the echo reports request.path
        bottle.response.content_type = "application/json"
        return dumps(echo_document())

    app.route("/<path:re:[\\s\\S]*>", method=["GET", "POST", "PUT"])(echo)
    # Bottle reads a form from every body that is not multipart, and form-data
    # from every multipart/* type: SECURITY.md asks for inspect_all_bodies.
    return guarded(app, inspect_all_bodies=True)
