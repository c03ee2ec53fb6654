"""Starlette and FastAPI echo apps behind the guard, as uvicorn and Hypercorn load them.

``starlette_app()`` and ``fastapi_app()`` are factories (uvicorn ``--factory``,
Hypercorn ``module:starlette_app()``): each arms the exit timer and returns the app
wrapped by ``Utf8GuardMiddleware`` in its default configuration (block mode), except
under ``/normalize/`` (see ``echo.NORMALIZE_PREFIX``). Every route reads the request
through the framework's own API, the way an application would.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import FastAPI
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.convertors import PathConvertor, register_url_convertor
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from utf8guard.middleware import Utf8GuardMiddleware
from utf8guard.middleware.asgi import ASGIApp, Receive, Scope, Send

from .echo import (
    NORMALIZE_PREFIX,
    Document,
    dumps,
    echo_pairs,
    exit_later,
    file_entry,
    latin1,
    new_document,
    put_pairs,
)

T = TypeVar("T")
METHODS = ["GET", "POST", "PUT"]
#: The catch-all route: every path, CR and LF too, must reach the echo.
CATCH_ALL = "/{path:everything}"


class EverythingConvertor(PathConvertor):
    """``path``, but "." matches line breaks too (a 404 would hide issue 11 F6)."""

    regex = "(?s:.*)"


async def _attempt(
    document: Document, key: str, read: Callable[[], Awaitable[T]]
) -> T | None:
    """``await read()``; a framework exception is recorded (as echo.attempt does)."""
    try:
        return await read()
    except Exception as exc:  # recorded in the echo, never dropped
        errors = document["errors"]
        assert isinstance(errors, dict)
        errors[key] = type(exc).__name__
        return None


async def _read_form(request: Request, document: Document) -> None:
    fields: list[tuple[str, object]] = []
    files: list[list[object]] = []
    async with request.form() as form:
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                files.append(file_entry(name, value.filename, await value.read()))
            else:
                fields.append((name, value))
    put_pairs(document, "form", fields)
    document["files"] = files


async def _loads(request: Request) -> object:
    return json.loads(await request.body())


async def echo_document(request: Request, app: str) -> Document:
    """What the framework parsed, read through its API (echo.py has the shape)."""
    raw_path = request.scope.get("raw_path")
    document = new_document(app, request.scope["path"], latin1(raw_path))
    echo_pairs(document, "query", request.query_params.multi_items)
    echo_pairs(document, "headers", request.headers.items)
    echo_pairs(document, "cookies", request.cookies.items)
    document["json"] = await _attempt(document, "json", request.json)
    document["json_loads"] = await _attempt(
        document, "json_loads", lambda: _loads(request)
    )
    await _attempt(document, "form", lambda: _read_form(request, document))
    return document


def _respond(document: Document) -> Response:
    return Response(dumps(document), media_type="application/json")


def _guarded(app: ASGIApp, **options: Any) -> ASGIApp:
    exit_later()
    block = Utf8GuardMiddleware(app, **options)
    normalize = Utf8GuardMiddleware(
        app, mode="normalize", allow_encoded_separators=True, **options
    )

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path")
        if isinstance(path, str) and path.startswith(NORMALIZE_PREFIX):
            await normalize(scope, receive, send)
        else:
            await block(scope, receive, send)

    return dispatch


async def websocket_echo(
    websocket: WebSocket, app: str, subprotocols: list[str] | None = None
) -> None:
    """What the framework parsed of a websocket handshake, sent as one text message
    after accepting it (ws.py reads it)."""
    raw_path = websocket.scope.get("raw_path")
    document = new_document(app, websocket.scope["path"], latin1(raw_path))
    echo_pairs(document, "query", websocket.query_params.multi_items)
    echo_pairs(document, "headers", websocket.headers.items)
    echo_pairs(document, "cookies", websocket.cookies.items)
    document["subprotocols"] = subprotocols or websocket.scope.get("subprotocols", [])
    await websocket.accept()
    await websocket.send_text(dumps(document).decode("ascii"))
    await websocket.close()


async def _starlette_ws(websocket: WebSocket) -> None:
    await websocket_echo(websocket, "starlette")


async def _starlette_echo(request: Request) -> Response:
    return _respond(await echo_document(request, "starlette"))


def starlette_app() -> ASGIApp:
    """The guarded Starlette echo app: one catch-all route."""
    register_url_convertor("everything", EverythingConvertor())
    app = Starlette(
        routes=[
            Route(CATCH_ALL, _starlette_echo, methods=METHODS),
            WebSocketRoute(CATCH_ALL, _starlette_ws),
        ]
    )
    return _guarded(app)


class Item(BaseModel):
    """The FastAPI body model of ``POST /model`` (issue 11 F10 crashed here)."""

    a: str


def fastapi_app() -> ASGIApp:
    """The guarded FastAPI echo app: a body-model route and a catch-all."""
    register_url_convertor("everything", EverythingConvertor())
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/model")
    async def model(item: Item, request: Request) -> Response:
        document = await echo_document(request, "fastapi")
        document["model"] = item.model_dump()
        return _respond(document)

    @app.websocket(CATCH_ALL)
    async def catch_all_ws(websocket: WebSocket) -> None:
        await websocket_echo(websocket, "fastapi")

    @app.api_route(CATCH_ALL, methods=METHODS)
    async def catch_all(request: Request) -> Response:
        return _respond(await echo_document(request, "fastapi"))

    return _guarded(app)
