"""The Pyramid (WebOb) echo app behind the guard, for Gunicorn.

WebOb parses ``request.POST`` for a POST or PUT with no Content-Type (issue 25 R8),
a form or a multipart body; its multipart parser is the ``cgi`` module's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

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


def _read_form(request: Request, document: Document) -> None:
    fields: list[tuple[str, object]] = []
    files: list[list[object]] = []
    for name, value in request.POST.items():
        if hasattr(value, "file"):
            files.append(file_entry(name, value.filename, value.file.read()))
        else:
            fields.append((name, value))
    put_pairs(document, "form", fields)
    document["files"] = files


def echo(request: Request) -> Response:
    """What WebOb parsed, read through its API (echo.py has the shape)."""
    raw = request.environ.get("RAW_URI") or ""
    document = new_document("pyramid", request.path_info, raw.partition("?")[0] or None)
    echo_pairs(document, "query", request.GET.items)
    echo_pairs(document, "headers", request.headers.items)
    echo_pairs(document, "cookies", request.cookies.items)
    attempt(document, "form", lambda: _read_form(request, document))
    data = attempt(document, "data", lambda: request.body) or b""
    document["json"] = attempt(document, "json", lambda: request.json_body)
    document["json_loads"] = attempt(document, "json_loads", lambda: json.loads(data))
    return Response(dumps(document), content_type="application/json")


def create() -> WSGIApplication:
    """The guarded Pyramid echo app: one catch-all route."""
    with Configurator() as config:
        config.add_route("echo", "/*path")
        config.add_view(echo, route_name="echo")
        app = config.make_wsgi_app()
    return guarded(app)
