"""The Falcon 4 echo apps behind the guard: WSGI for Gunicorn, ASGI for uvicorn.

Falcon picks a media handler by matching the Content-Type against its handlers'
types, wildcards included (issue 25 R1), and reads nested forms and multiparts
inside a multipart part with ``part.get_media()`` (R9, R10): the echo reads each
part's media too, under ``json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import falcon
import falcon.asgi

from .asgi_echo import _guarded
from .echo import Document, dumps, echo_pairs, file_entry, new_document, put_pairs
from .wsgi_dispatch import guarded

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

    from utf8guard.middleware.asgi import ASGIApp


def _flat(params: Mapping[str, object]) -> list[tuple[str, object]]:
    return [
        (name, item)
        for name, value in params.items()
        for item in (value if isinstance(value, list) else [value])
    ]


def _head(request: falcon.Request | falcon.asgi.Request, raw: str | None) -> Document:
    document = new_document("falcon", request.path, raw)
    echo_pairs(document, "query", lambda: _flat(request.params))
    echo_pairs(document, "headers", lambda: list(request.headers.items()))
    echo_pairs(document, "cookies", lambda: list(request.cookies.items()))
    return document


def _record(document: Document, key: str, exc: Exception) -> None:
    errors = document["errors"]
    assert isinstance(errors, dict)
    errors[key] = type(exc).__name__


def _is_multipart(request: falcon.Request | falcon.asgi.Request) -> bool:
    kind = (request.content_type or "").lower()
    return "multipart" in kind or "form-data" in kind


def _has_media(content_type: str | None) -> bool:
    """A part whose type is not text/plain: its media is read (R9, R10)."""
    return not (content_type or "text/plain").lower().startswith("text/plain")


def _store(document: Document, media: object, *, form: bool) -> None:
    if form and isinstance(media, dict):
        put_pairs(document, "form", _flat(media))
    else:
        document["json"] = media


def _wsgi_echo(req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
    request, response = req, resp
    raw = request.env.get("RAW_URI") or ""
    document = _head(request, raw.partition("?")[0] or None)
    try:
        if _is_multipart(request):
            fields: list[tuple[str, object]] = []
            files: list[list[object]] = []
            nested: list[object] = []
            for part in request.get_media():
                if part.filename:
                    files.append(file_entry(part.name, part.filename, part.get_data()))
                else:
                    fields.append((part.name, part.get_text()))
                    if _has_media(part.content_type):
                        nested.append(part.get_media())
            put_pairs(document, "form", fields)
            document["files"], document["json"] = files, nested
        else:
            kind = (request.content_type or "").lower()
            _store(document, request.get_media(), form="urlencoded" in kind)
    except Exception as exc:  # recorded in the echo, never dropped
        _record(document, "form", exc)
    response.data = dumps(document)
    response.content_type = "application/json"


async def _asgi_echo(
    req: falcon.asgi.Request,
    resp: falcon.asgi.Response | None,
    ws: falcon.asgi.WebSocket | None = None,
    **_: Any,
) -> None:
    if ws is not None:  # a websocket handshake: the sink gets ws, resp is None
        raw_ws = req.scope.get("raw_path")
        document = _head(req, None if raw_ws is None else raw_ws.decode("latin-1"))
        document["subprotocols"] = list(ws.subprotocols)
        await ws.accept()
        await ws.send_text(dumps(document).decode("ascii"))
        await ws.close()
        return
    assert resp is not None  # an HTTP request always gets one
    request, response = req, resp
    raw = request.scope.get("raw_path")
    document = _head(request, None if raw is None else raw.decode("latin-1"))
    try:
        if _is_multipart(request):
            fields: list[tuple[str, object]] = []
            files: list[list[object]] = []
            nested: list[object] = []
            async for part in await request.get_media():
                if part.filename:
                    data = await part.get_data()
                    files.append(file_entry(part.name, part.filename, data))
                else:
                    fields.append((part.name, await part.get_text()))
                    if _has_media(part.content_type):
                        nested.append(await part.get_media())
            put_pairs(document, "form", fields)
            document["files"], document["json"] = files, nested
        else:
            kind = (request.content_type or "").lower()
            _store(document, await request.get_media(), form="urlencoded" in kind)
    except Exception as exc:  # recorded in the echo, never dropped
        _record(document, "form", exc)
    response.data = dumps(document)
    response.content_type = "application/json"


def create() -> WSGIApplication:
    """The guarded Falcon WSGI echo app: one sink for every path."""
    app = falcon.App()
    app.add_sink(_wsgi_echo, prefix="/")
    return guarded(cast("WSGIApplication", app))


def create_asgi() -> ASGIApp:
    """The guarded Falcon ASGI echo app: one sink for every path."""
    app = falcon.asgi.App()
    app.add_sink(_asgi_echo, prefix="/")
    return _guarded(cast("ASGIApp", app))
