"""The ASGI and WSGI adapters decide alike: one table, both stacks, same answers.

ASGI runs with hand-written ``receive``/``send`` (the body split into small messages,
so that sequences straddle them); WSGI runs under ``werkzeug.test.Client``. Each
request must get the same status, response body and ``on_violation`` events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING
from urllib.parse import unquote

import pytest
from werkzeug.test import Client

from utf8guard import IDENTIFIER, STRICT
from utf8guard._record import fields
from utf8guard.middleware import (
    GuardConfig,
    Utf8GuardMiddleware,
    Utf8GuardWSGIMiddleware,
    ViolationEvent,
)
from utf8guard.middleware.asgi import ASGIApp, Message, Receive, Scope, Send
from utf8guard.middleware.engine._config import GuardOptions

from .attack_table import MAX_BODY_BYTES, ROWS, Row

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

#: Adapter options the table runs under: every mode, buffered and streamed bodies.
CONFIGS = {
    "block": {"mode": "block"},
    "normalize": {"mode": "normalize"},
    "report": {"mode": "report"},
    "block-stream": {"mode": "block", "stream_body": True},
    "normalize-stream": {"mode": "normalize", "stream_body": True},
}
#: Small body messages split multibyte sequences; large bodies use bigger ones.
SMALL_CHUNK_BYTES = 5
LARGE_CHUNK_BYTES = 4096

Answer = tuple[int, bytes, list[tuple[object, str]]]


def _echo(path: bytes, query: bytes, length: bytes, body: bytes) -> bytes:
    """What the app saw, as JSON of byte-per-code-point strings."""
    seen = {"path": path, "query": query, "length": length, "body": body}
    return json.dumps({k: v.decode("latin-1") for k, v in seen.items()}).encode()


async def asgi_echo(scope: Scope, receive: Receive, send: Send) -> None:
    body = b""
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        assert isinstance(chunk, bytes)
        body += chunk
        more = bool(message.get("more_body", False))
    path = scope["path"]
    query = scope["query_string"]
    headers = scope["headers"]
    assert isinstance(path, str)
    assert isinstance(query, bytes)
    assert isinstance(headers, list)
    length = dict((bytes(k), bytes(v)) for k, v in headers).get(b"content-length")
    reply = _echo(path.encode(), query, length or b"", body)
    start = {"type": "http.response.start", "status": 200}
    await send(start | {"headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": reply})


def wsgi_echo(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
    length = environ.get("CONTENT_LENGTH") or ""
    body = environ["wsgi.input"].read(int(length or 0))
    reply = _echo(
        environ["PATH_INFO"].encode("latin-1"),
        environ["QUERY_STRING"].encode("latin-1"),
        length.encode("latin-1"),
        body,
    )
    start_response("200 OK", [("Content-Type", "application/json")])
    return [reply]


def _chunks(body: bytes) -> list[bytes]:
    size = SMALL_CHUNK_BYTES if len(body) < 1024 else LARGE_CHUNK_BYTES
    return [body[i : i + size] for i in range(0, len(body), size)] or [b""]


def http_scope(
    method: str, target: bytes, headers: Sequence[tuple[bytes, bytes]], body: bytes
) -> Scope:
    """The ASGI scope a server makes of a request (Host, Content-Length added)."""
    raw_path, _, query = target.partition(b"?")
    sent_headers = [(b"host", b"localhost"), *headers]
    if body:
        sent_headers.append((b"content-length", str(len(body)).encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        # uvicorn and Werkzeug decode the path the same way: UTF-8, errors replaced.
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "query_string": query,
        "root_path": "",
        "headers": sent_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
    }


def request_messages(body: bytes) -> list[Message]:
    """``http.request`` messages carrying ``body`` in the chunks a server would use."""
    return body_messages(_chunks(body))


def body_messages(pieces: list[bytes]) -> list[Message]:
    """One ``http.request`` message per piece, the last one ending the body."""
    return [
        {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
        for i, piece in enumerate(pieces)
    ]


def exchange(app: ASGIApp, scope: Scope, inbox: list[Message]) -> list[Message]:
    """Run ``app`` on ``scope``, its ``receive`` giving ``inbox`` and then
    ``http.disconnect``; the messages it sent."""
    outbox: list[Message] = []

    async def receive() -> Message:
        return inbox.pop(0) if inbox else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        outbox.append(message)

    async def run() -> None:
        await app(scope, receive, send)

    asyncio.run(run())
    return outbox


def run_asgi(row: Row, options: dict[str, object]) -> Answer:
    _, method, target, headers, body, _ = row
    events: list[ViolationEvent] = []
    app = Utf8GuardMiddleware(
        asgi_echo,
        max_body_size=MAX_BODY_BYTES,
        on_violation=events.append,
        **options,  # type: ignore[arg-type]  # the CONFIGS values, checked at runtime
    )
    scope = http_scope(method, target, headers, body)
    outbox = exchange(app, scope, request_messages(body))
    status = outbox[0]["status"]
    assert isinstance(status, int)
    reply = b"".join(_body_bytes(m) for m in outbox[1:])
    return status, reply, [(e.finding, e.action) for e in events]


def _body_bytes(message: Message) -> bytes:
    body = message.get("body", b"")
    assert isinstance(body, bytes)
    return body


def run_wsgi(row: Row, options: dict[str, object]) -> Answer:
    _, method, target, headers, body, _ = row
    events: list[ViolationEvent] = []
    app = Utf8GuardWSGIMiddleware(
        wsgi_echo,
        max_body_size=MAX_BODY_BYTES,
        on_violation=events.append,
        **options,  # type: ignore[arg-type]  # the CONFIGS values, checked at runtime
    )
    # use_cookies=False: a Client with a cookie jar replaces the Cookie header
    # with its own (none), so the rows' cookies would never reach the guard.
    response = Client(app, use_cookies=False).open(
        target.decode("ascii"),
        method=method,
        headers=_str_headers(headers),
        data=body,
    )
    reply = response.get_data()
    return response.status_code, reply, [(e.finding, e.action) for e in events]


def _str_headers(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    # PEP 3333: header values travel as one code point per byte.
    return [
        (name.decode("latin-1"), value.decode("latin-1")) for name, value in headers
    ]


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_adapters_agree(row: Row, config: dict[str, object]) -> None:
    asgi = run_asgi(row, config)
    wsgi = run_wsgi(row, config)
    assert wsgi == asgi
    if config["mode"] == "block":
        assert wsgi[0] == row[5]


def _noop(_: object) -> None:
    """A callable option value."""


#: A non-default value for every option; a new option must be added here.
SAMPLE_OPTIONS: dict[str, object] = {
    "mode": "normalize",
    "policy": IDENTIFIER,
    "path_policy": STRICT,
    "max_body_size": 1000,
    "max_upload_size": 2000,
    "memory_body_size": 100,
    "max_multipart_parts": 10,
    "windows_upload_names": True,
    "stream_body": True,
    "skip_headers": ["cookie"],
    "latin1_headers": ["x-legacy"],
    "allow_encoded_separators": True,
    "allow_lookalike_separators": True,
    "inspect_all_bodies": True,
    "on_violation": _noop,
    "on_refuse": _noop,
    "exclude_paths": ["/hooks"],
    "request_id_header": "x-request-id",
}


def test_adapters_take_the_same_options() -> None:
    # The options are GuardConfig's constructor fields (its declaration, not the
    # adapters' shared __init__), each typed in GuardOptions for the adapters.
    names = {field.name for field in fields(GuardConfig) if field.init}
    assert set(SAMPLE_OPTIONS) == names == set(GuardOptions.__annotations__)
    with pytest.raises(TypeError, match="unknown option 'max_body'"):
        Utf8GuardMiddleware(asgi_echo, max_body=1)  # type: ignore[call-arg]  # wrong on purpose
    with pytest.raises(TypeError, match="unknown option 'max_body'"):
        Utf8GuardWSGIMiddleware(wsgi_echo, max_body=1)  # type: ignore[call-arg]  # wrong on purpose
    expected = GuardConfig(**SAMPLE_OPTIONS)  # type: ignore[arg-type]  # checked
    for adapter, app in (
        (Utf8GuardMiddleware, asgi_echo),
        (Utf8GuardWSGIMiddleware, wsgi_echo),
    ):
        assert adapter(app, **SAMPLE_OPTIONS).config == expected  # type: ignore[arg-type]
        assert adapter(app, config=expected).config is expected  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not both: mode"):
            adapter(app, config=expected, mode="block")  # type: ignore[arg-type]
