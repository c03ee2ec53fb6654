"""The Quart echo app behind the guard, for uvicorn.

Quart parses forms with Werkzeug's form parser, which reads
``application/x-url-encoded`` as a form too (issue 25 R7).
"""

from __future__ import annotations

import json
from typing import cast

from quart import Quart, Response, request, websocket

from utf8guard.middleware.asgi import ASGIApp

from .asgi_echo import _attempt, _guarded
from .echo import Document, dumps, echo_pairs, file_entry, new_document, put_pairs


async def _read_form(document: Document) -> None:
    form = await request.form
    files = await request.files
    put_pairs(document, "form", form.items(multi=True))
    document["files"] = [
        file_entry(name, upload.filename, upload.read())
        for name, upload in files.items(multi=True)
    ]


async def _loads() -> object:
    return json.loads(await request.get_data())


async def echo(path: str = "") -> Response:
    """What Quart parsed, read through its API (echo.py has the shape)."""
    del path  # the echo reports request.path
    raw = request.scope.get("raw_path")
    document = new_document(
        "quart", request.path, None if raw is None else raw.decode("latin-1")
    )
    echo_pairs(document, "query", lambda: request.args.items(multi=True))
    echo_pairs(document, "headers", request.headers.items)
    echo_pairs(document, "cookies", lambda: request.cookies.items(multi=True))
    await _attempt(document, "form", lambda: _read_form(document))
    document["json"] = await _attempt(document, "json", request.get_json)
    document["json_loads"] = await _attempt(document, "json_loads", _loads)
    return Response(dumps(document), content_type="application/json")


async def echo_ws(path: str = "") -> None:
    """What Quart parsed of a websocket handshake, sent after accepting it."""
    del path
    raw = websocket.scope.get("raw_path")
    document = new_document(
        "quart", websocket.path, None if raw is None else raw.decode("latin-1")
    )
    echo_pairs(document, "query", lambda: websocket.args.items(multi=True))
    echo_pairs(document, "headers", websocket.headers.items)
    echo_pairs(document, "cookies", lambda: websocket.cookies.items(multi=True))
    document["subprotocols"] = list(websocket.requested_subprotocols)
    await websocket.accept()
    await websocket.send(dumps(document).decode("ascii"))
    await websocket.close(1000)


def create() -> ASGIApp:
    """The guarded Quart echo app: one catch-all route."""
    app = Quart(__name__, static_folder=None)
    methods = ["GET", "POST", "PUT"]
    app.add_url_rule("/", "root", echo, methods=methods)
    app.add_url_rule("/<path:path>", "echo", echo, methods=methods)
    app.add_websocket("/", "root_ws", echo_ws)
    app.add_websocket("/<path:path>", "echo_ws", echo_ws)
    return _guarded(cast("ASGIApp", app))
