"""The fast lane decides exactly as the full check: same status, body and events.

The oracle is the adapters' full check, forced by turning the lane off
(``asgi_plan`` and ``head_plan`` answering None). Every row of the attack table,
and generated requests around the lane's edges (framing, Content-Type, escapes, one
body message or several, HTTP/1.1 or 2), must get the same answer both ways, and the
app must see the same bytes. Then the lane's own paths: the app gets the server's
scope and messages untouched, and a WSGI read error or short read is the full
check's.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import TYPE_CHECKING
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard.middleware import (
    GuardConfig,
    Utf8GuardMiddleware,
    Utf8GuardWSGIMiddleware,
)
from utf8guard.middleware import asgi as asgi_module
from utf8guard.middleware import wsgi as wsgi_module
from utf8guard.middleware.asgi import Message, Receive, Scope, Send
from utf8guard.middleware.engine import _engine as engine_module
from utf8guard.middleware.head._fast import Lane, remember_kind

from .attack_table import MAX_BODY_BYTES, ROWS, Row
from .test_adapters import (
    CONFIGS,
    asgi_echo,
    body_messages,
    exchange,
    http_scope,
    wsgi_echo,
)
from .test_wsgi import make_environ

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

Answer = tuple[int, bytes, list[tuple[object, str]]]


def _lane_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asgi_module, "asgi_plan", lambda *_: None)
    monkeypatch.setattr(wsgi_module, "head_plan", lambda *_: None)
    monkeypatch.setattr(wsgi_module, "py_wsgi_plan", lambda *_: None)
    # The engine's own one-pass proof, or the full check never runs on a clean head.
    monkeypatch.setattr(engine_module, "is_clean_head", lambda *_: False)


def _warm(lane: Lane, headers: object, config: GuardConfig) -> None:
    """Remember each Content-Type as an earlier request would have: the lane then
    takes a JSON type's body in one call (an int plan)."""
    for name, value in headers:  # type: ignore[attr-defined]
        if name.lower() == b"content-type":
            remember_kind(lane, value, config)


def run_asgi(
    scope: Scope, pieces: list[bytes], options: dict[str, object], *, warm: bool = False
) -> Answer:
    """The guarded echo app on ``scope``, the body in ``pieces`` (one message each);
    ``warm``: with the request's Content-Type values remembered by the lane."""
    events: list[object] = []
    app = Utf8GuardMiddleware(
        asgi_echo,
        on_violation=events.append,
        **({"max_body_size": MAX_BODY_BYTES} | options),  # type: ignore[arg-type]
    )
    if warm:
        _warm(app._lane, scope["headers"], app.config)
    outbox = exchange(app, scope, body_messages(pieces))
    if not outbox:
        return 0, b"", [(e, "") for e in events]
    status = outbox[0]["status"]
    assert isinstance(status, int)
    reply = b"".join(m.get("body", b"") for m in outbox[1:])  # type: ignore[misc]
    return status, reply, [(e, "") for e in events]


def run_wsgi(
    environ: WSGIEnvironment, options: dict[str, object], *, warm: bool = False
) -> Answer:
    events: list[object] = []
    app = Utf8GuardWSGIMiddleware(
        wsgi_echo,
        max_body_size=MAX_BODY_BYTES,
        on_violation=events.append,
        **options,  # type: ignore[arg-type]
    )
    if warm and isinstance(environ.get("CONTENT_TYPE"), str):
        content_type = environ["CONTENT_TYPE"].encode("latin-1")
        _warm(app._lane, [(b"content-type", content_type)], app.config)
    seen: list[str] = []

    def start_response(status: str, *_: object) -> None:
        seen.append(status)

    reply = b"".join(app(environ, start_response))  # type: ignore[arg-type]
    return int(seen[0].split()[0]), reply, [(e, "") for e in events]


def _environ(row: Row, *, chunked_reads: bool = False) -> WSGIEnvironment:
    _, method, target, headers, body, _ = row
    raw_path, _, query = target.partition(b"?")
    environ = make_environ(
        "/",
        body,
        "",
        REQUEST_METHOD=method,
        RAW_URI=target.decode("latin-1"),
        PATH_INFO=unquote_to_bytes(raw_path).decode("latin-1"),
        QUERY_STRING=query.decode("latin-1"),
        HTTP_HOST="localhost",
    )
    for name, value in headers:
        key = name.decode().upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        environ[key] = value.decode("latin-1")
    if chunked_reads:
        environ["wsgi.input"] = _Trickle(body)
    return environ


class _Trickle(io.RawIOBase):
    """A server stream that hands over at most 3 bytes per read."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        piece = self._data.read(min(3, len(buffer)))
        buffer[: len(piece)] = piece
        return len(piece)


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_table_asgi_lane_agrees(
    row: Row, config: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, method, target, headers, body, _ = row
    scope = http_scope(method, target, headers, body)
    fast = run_asgi(dict(scope), [body], config)
    assert run_asgi(dict(scope), [body], config, warm=True) == fast
    _lane_off(monkeypatch)
    assert fast == run_asgi(dict(scope), [body], config)


#: How a server hands over the body: whole, a few bytes per read, or terminated
#: (Gunicorn: wsgi.input_terminated on every request), or over HTTP/2.
SERVERS = {
    "whole": {},
    "trickle": {"trickle": True},
    "terminated": {"wsgi.input_terminated": True},
    "http2": {"SERVER_PROTOCOL": "HTTP/2", "wsgi.input_terminated": True},
}


@pytest.mark.parametrize("server", SERVERS.values(), ids=SERVERS.keys())
@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_table_wsgi_lane_agrees(
    row: Row,
    config: dict[str, object],
    server: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def environ() -> WSGIEnvironment:
        made = _environ(row, chunked_reads=bool(server.get("trickle")))
        made.update({k: v for k, v in server.items() if k != "trickle"})
        return made

    fast = run_wsgi(environ(), config)
    assert run_wsgi(environ(), config, warm=True) == fast
    _lane_off(monkeypatch)
    assert fast == run_wsgi(environ(), config)


_BODIES = [
    b"",
    b'{"a": "caf\xc3\xa9"}',
    b'{"a": "\\u00e9"}',
    b'{"a": "\\ud800"}',
    b'{"a": "\\uffff"}',
    b'{"a": "\xef\xbf\xbe"}',
    b'{"a": "\xc0\xaf"}',
    b"  [1, 2]",
    b"plain caf\xc3\xa9 text",
    b"plain \xff text",
    b"a=1&b=caf%C3%A9",
    b"a=%FF",
    b"\xff\xfe{\x00}\x00",
    b'{"a": 1}\\',
    b'--XyZ\r\nContent-Disposition: form-data; name="c"\r\n\r\nx\r\n--XyZ--\r\n',
]
_TYPES = [
    None,
    b"application/json",
    b"application/json; charset=utf-8",
    b"application/json; charset=latin-1",
    b"text/plain",
    b"application/octet-stream",
    b"application/x-www-form-urlencoded",
    b"multipart/form-data; boundary=XyZ",
    b"application/problem+json",
    b"image/png; charset*=utf-8''x",
]
_EXTRA = [
    (),
    ((b"content-encoding", b"gzip"),),
    ((b"content-encoding", b"identity"),),
    ((b"transfer-encoding", b"chunked"),),
    ((b"content-type", b"text/plain"),),
    ((b"Content-Length", b"5"),),
]


@settings(max_examples=300, deadline=None)
@given(
    body=st.sampled_from(_BODIES),
    content_type=st.sampled_from(_TYPES),
    extra=st.sampled_from(_EXTRA),
    length=st.sampled_from(["exact", "none", "short", "long", "junk"]),
    split=st.integers(min_value=0, max_value=40),
    version=st.sampled_from(["1.1", "2"]),
    config=st.sampled_from([*CONFIGS.values(), {"max_body_size": 8}]),
)
def test_generated_asgi_lane_agrees(
    body: bytes,
    content_type: bytes | None,
    extra: tuple[tuple[bytes, bytes], ...],
    length: str,
    split: int,
    version: str,
    config: dict[str, object],
) -> None:
    headers: list[tuple[bytes, bytes]] = [(b"host", b"localhost")]
    if content_type is not None:
        headers.append((b"content-type", content_type))
    declared = {"exact": len(body), "short": len(body) - 1, "long": len(body) + 1}
    if length in declared:
        headers.append((b"content-length", str(declared[length]).encode()))
    elif length == "junk":
        headers.append((b"content-length", b"1e3"))
    headers.extend(extra)
    scope = http_scope("POST", b"/api?q=caf%C3%A9", [], b"")
    scope["headers"] = headers
    scope["http_version"] = version
    pieces = [body[:split], body[split:]] if 0 < split < len(body) else [body]
    options = dict(config)
    fast = run_asgi(dict(scope), pieces, options)
    assert run_asgi(dict(scope), pieces, options, warm=True) == fast
    with pytest.MonkeyPatch.context() as patch:
        _lane_off(patch)
        assert fast == run_asgi(dict(scope), pieces, options)


def test_clean_get_reaches_the_app_untouched() -> None:
    """No body: the app gets the server's own scope and receive."""
    seen: list[object] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.extend([scope, receive])

    async def receive() -> Message:
        raise AssertionError("the lane reads no body")

    async def send(message: Message) -> None:
        raise AssertionError(message)

    scope = http_scope("GET", b"/caf%C3%A9?q=1", [(b"cookie", b"a=1")], b"")
    asyncio.run(Utf8GuardMiddleware(app)(scope, receive, send))
    assert seen == [scope, receive]


def test_clean_post_gets_the_servers_message_then_its_receive() -> None:
    body = json.dumps({"a": "café"}, ensure_ascii=False).encode()
    message: Message = {"type": "http.request", "body": body, "more_body": False}
    later: Message = {"type": "http.disconnect"}
    inbox = [message, later]
    got: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        got.extend([await receive(), await receive()])

    async def receive() -> Message:
        return inbox.pop(0)

    async def send(message: Message) -> None:
        raise AssertionError(message)

    scope = http_scope("POST", b"/api", [(b"content-type", b"application/json")], body)
    asyncio.run(Utf8GuardMiddleware(app)(scope, receive, send))
    assert got[0] is message
    assert got[1] is later


def _wsgi_app(seen: list[bytes]) -> object:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        seen.append(environ["wsgi.input"].read())
        start_response("200 OK", [])
        return [b"ok"]

    return app


@pytest.mark.parametrize(
    ("extra", "lane"),
    [
        ({}, True),
        ({"wsgi.input_terminated": True}, True),
        ({"SERVER_PROTOCOL": "HTTP/1.0"}, True),
        ({"SERVER_PROTOCOL": "HTTP/2", "wsgi.input_terminated": True}, False),
        ({"SERVER_PROTOCOL": None}, True),
    ],
    ids=["http1.1", "terminated", "http1.0", "http2", "no-protocol"],
)
def test_wsgi_get_takes_the_lane_on_http1_framing(
    extra: dict[str, object], lane: bool
) -> None:
    """RFC 9112 §6.3 item 7: no Content-Length and no Transfer-Encoding on HTTP/1 is
    no body, also when the server marks its input terminated (Gunicorn does, on every
    request); HTTP/2 frames bodies without them: the full check reads the stream."""
    seen: list[bytes] = []
    environ = make_environ("/a", b"", "", RAW_URI="/a", **extra)
    environ["wsgi.input"] = io.BytesIO(b"x=1")
    guard = Utf8GuardWSGIMiddleware(_wsgi_app(seen))  # type: ignore[arg-type]
    assert b"".join(guard(environ, lambda *_: None)) == b"ok"  # type: ignore[arg-type]
    # The lane hands over an empty stream; the full check reads what the server has
    # (to its end only with wsgi.input_terminated).
    terminated = bool(extra.get("wsgi.input_terminated"))
    assert seen == [b"" if lane or not terminated else b"x=1"]


def test_wsgi_no_body_gets_an_empty_stream() -> None:
    """PEP 3333: no CONTENT_LENGTH, no terminated input: the app reads nothing, even
    when the server's stream holds more (a pipelined request)."""
    seen: list[bytes] = []
    environ = make_environ("/a", b"", "", RAW_URI="/a")
    environ["wsgi.input"] = io.BytesIO(b"GET /next HTTP/1.1\r\n\r\n")
    guard = Utf8GuardWSGIMiddleware(_wsgi_app(seen))  # type: ignore[arg-type]
    assert b"".join(guard(environ, lambda *_: None)) == b"ok"  # type: ignore[arg-type]
    assert seen == [b""]


class _Broken(io.RawIOBase):
    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        raise OSError("client went away: quoted \xff bytes")


def test_wsgi_read_error_in_the_lane_is_the_full_checks_400() -> None:
    """F11: a server's read error is refused as unreadable_body, not a 500."""
    seen: list[bytes] = []
    body = b'{"a": 1}'
    environ = make_environ("/a", body, "application/json", RAW_URI="/a")
    environ["wsgi.input"] = _Broken()
    guard = Utf8GuardWSGIMiddleware(_wsgi_app(seen))  # type: ignore[arg-type]
    statuses: list[str] = []
    reply = b"".join(guard(environ, lambda status, *_: statuses.append(status)))  # type: ignore[arg-type]
    assert statuses[0].startswith("400")
    assert b"unreadable_body" in reply
    assert b"quoted" not in reply
    assert seen == []


def test_wsgi_short_body_is_the_full_checks() -> None:
    """A body shorter than CONTENT_LENGTH: the lane hands what it read to the full
    check, which passes the client's bytes on as they are."""
    seen: list[bytes] = []
    environ = make_environ("/a", b'{"a": 1}', "application/json", RAW_URI="/a")
    environ["CONTENT_LENGTH"] = "50"
    guard = Utf8GuardWSGIMiddleware(_wsgi_app(seen))  # type: ignore[arg-type]
    assert b"".join(guard(environ, lambda *_: None)) == b"ok"  # type: ignore[arg-type]
    assert seen == [b'{"a": 1}']


def test_excluded_paths_skip_the_lane() -> None:
    """A path an exclusion may match goes the full way, which decides exclusion."""
    body = b'{"a": "\\ud800"}'
    seen: list[bytes] = []
    guard = Utf8GuardWSGIMiddleware(
        _wsgi_app(seen),  # type: ignore[arg-type]
        exclude_paths=["/hooks"],
    )
    statuses: list[str] = []
    for path in ("/hooks/x", "/api"):
        environ = make_environ(path, body, "application/json", RAW_URI=path)
        b"".join(guard(environ, lambda s, *_: statuses.append(s)))  # type: ignore[arg-type]
    assert [status[:3] for status in statuses] == ["200", "400"]
    assert seen == [body]


def test_excluded_paths_skip_the_asgi_lane() -> None:
    """As in WSGI: a path an exclusion may match goes the full way; others the lane."""
    body = b'{"a": "\\ud800"}'
    statuses = []
    for path in ("/hooks/x", "/api", "/api"):
        scope = http_scope(
            "POST", path.encode(), [(b"content-type", b"application/json")], body
        )
        scope["path"] = path
        statuses.append(run_asgi(scope, [body], {"exclude_paths": ["/hooks"]})[0])
    assert statuses == [200, 400, 400]
