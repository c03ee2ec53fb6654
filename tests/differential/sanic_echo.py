"""The Sanic echo app behind the guard, as an ASGI app under uvicorn.

Sanic's own server runs no ASGI middleware, so the guard protects Sanic as an ASGI
application. Sanic splits a multipart body at every occurrence of the boundary,
dashes or not (issue 25 R3), and percent-decodes parameters (R0, R6).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from sanic import Request, Sanic
from sanic.response import HTTPResponse, raw

from utf8guard.middleware.asgi import ASGIApp

from .asgi_echo import _guarded
from .echo import (
    Document,
    attempt,
    dumps,
    echo_pairs,
    file_entry,
    new_document,
    put_pairs,
)


def _flat(params: Mapping[str, list[str]]) -> list[tuple[str, object]]:
    return [(name, value) for name, values in params.items() for value in values]


def _read_form(request: Request, document: Document) -> None:
    put_pairs(document, "form", _flat(request.form or {}))
    document["files"] = [
        file_entry(name, upload.name, upload.body)
        for name, uploads in (request.files or {}).items()
        for upload in uploads
    ]


async def echo(request: Request, path: str = "") -> HTTPResponse:
    """What Sanic parsed, read through its API (echo.py has the shape)."""
    # Sanic hands the app the path as sent (request.path, the route's argument),
    # escapes and all: the echo reports it decoded, as an app reading it would.
    del path
    document = new_document("sanic", unquote(request.path), request.path)
    echo_pairs(document, "query", lambda: request.query_args)
    echo_pairs(document, "headers", lambda: list(request.headers.items()))
    # Sanic's parameters map each name to a list of values.
    echo_pairs(document, "cookies", lambda: _flat(request.cookies))
    attempt(document, "form", lambda: _read_form(request, document))
    document["json"] = attempt(document, "json", lambda: request.json)
    document["json_loads"] = attempt(
        document, "json_loads", lambda: json.loads(request.body)
    )
    return raw(dumps(document), content_type="application/json")


async def echo_ws(request: Request, ws: Any, path: str = "") -> None:
    """What Sanic parsed of a websocket handshake, sent after accepting it."""
    del path
    document = new_document("sanic", unquote(request.path), request.path)
    echo_pairs(document, "query", lambda: request.query_args)
    echo_pairs(document, "headers", lambda: list(request.headers.items()))
    echo_pairs(document, "cookies", lambda: _flat(request.cookies))
    document["subprotocols"] = list(request.scope.get("subprotocols", []))
    await ws.send(dumps(document).decode("ascii"))
    await ws.close()


def create() -> ASGIApp:
    """The guarded Sanic echo app: one catch-all route."""
    app = Sanic("utf8guard_echo")
    app.config.TOUCHUP = False
    app.add_route(echo, "/", methods=["GET", "POST", "PUT"], name="root")
    app.add_route(echo, "/<path:path>", methods=["GET", "POST", "PUT"])
    # A websocket route is a GET route to Sanic, so it cannot share the catch-all:
    # it takes /ws and below, where every websocket row goes (table_ws.py).
    app.add_websocket_route(echo_ws, "/ws", name="root_ws")
    app.add_websocket_route(echo_ws, "/ws/<path:path>", name="echo_ws")
    # Sanic decodes header values as UTF-8 with surrogateescape, not Latin-1: a
    # Latin-1 User-Agent reaches it as a lone surrogate (docs: other stacks).
    return _guarded(app, latin1_headers=())
