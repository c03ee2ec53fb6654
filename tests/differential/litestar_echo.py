"""The Litestar echo app behind the guard, for uvicorn.

Litestar unquotes every cookie value (issue 25 R5) and percent-decodes quoted
multipart parameters (R0, R6).
"""

from __future__ import annotations

import json
from typing import cast

from litestar import Litestar, Request, Response, WebSocket, route, websocket
from litestar.datastructures import State, UploadFile

from utf8guard.middleware.asgi import ASGIApp

from .asgi_echo import _attempt, _guarded
from .echo import Document, dumps, echo_pairs, file_entry, new_document, put_pairs

_Request = Request[object, object, State]


async def _read_form(request: _Request, document: Document) -> None:
    fields: list[tuple[str, object]] = []
    files: list[list[object]] = []
    form = await request.form()
    for name, value in form.multi_items():
        if isinstance(value, UploadFile):
            files.append(file_entry(name, value.filename, await value.read()))
        else:
            fields.append((name, value))
    put_pairs(document, "form", _in_order(fields, await request.body()))
    document["files"] = files


async def _loads(request: _Request) -> object:
    return json.loads(await request.body())


def _in_order(pairs: list[tuple[str, object]], raw: bytes) -> list[tuple[str, object]]:
    """Litestar's pairs (grouped by name), in the order of the names in ``raw``."""
    text = raw.decode("latin-1")
    return sorted(pairs, key=lambda pair: text.find(pair[0]))


@route("/{path:path}", http_method=["GET", "POST", "PUT"])
async def echo(request: _Request, path: str) -> Response[bytes]:
    """What Litestar parsed, read through its API (echo.py has the shape)."""
    del path  # the echo reports the scope's path
    raw = request.scope.get("raw_path")
    document = new_document(
        "litestar",
        request.scope["path"],
        None if raw is None else raw.decode("latin-1"),
    )
    query = request.scope["query_string"]
    echo_pairs(
        document,
        "query",
        lambda: _in_order(list(request.query_params.multi_items()), query),
    )
    echo_pairs(document, "headers", lambda: list(request.headers.items()))
    echo_pairs(document, "cookies", lambda: list(request.cookies.items()))
    document["json"] = await _attempt(document, "json", request.json)
    document["json_loads"] = await _attempt(
        document, "json_loads", lambda: _loads(request)
    )
    await _attempt(document, "form", lambda: _read_form(request, document))
    return Response(dumps(document), media_type="application/json")


@websocket("/{path:path}")
async def echo_ws(socket: WebSocket[object, object, State], path: str) -> None:
    """What Litestar parsed of a websocket handshake, sent after accepting it."""
    del path
    raw = socket.scope.get("raw_path")
    document = new_document(
        "litestar", socket.scope["path"], None if raw is None else raw.decode("latin-1")
    )
    echo_pairs(document, "query", lambda: list(socket.query_params.multi_items()))
    echo_pairs(document, "headers", lambda: list(socket.headers.items()))
    echo_pairs(document, "cookies", lambda: list(socket.cookies.items()))
    document["subprotocols"] = list(socket.scope.get("subprotocols", []))
    await socket.accept()
    await socket.send_text(dumps(document).decode("ascii"))
    await socket.close()


def create() -> ASGIApp:
    """The guarded Litestar echo app: one catch-all route."""
    return _guarded(cast("ASGIApp", Litestar([echo, echo_ws], openapi_config=None)))
