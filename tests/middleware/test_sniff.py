"""SniffingInspector: a body is JSON when ``json.loads`` would read it as JSON."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.test import Client

from utf8guard import STRICT, Policy
from utf8guard.middleware import Utf8GuardMiddleware, Utf8GuardWSGIMiddleware
from utf8guard.middleware.asgi import Message, Receive, Scope, Send
from utf8guard.middleware.body._sniff import SniffingInspector
from utf8guard.middleware.engine._finding import Finding, Location, RequestKind

from .test_adapters import body_messages, exchange

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

Row = tuple[str, int]


def run(
    data: bytes, cuts: list[int], *, binary: bool, policy: Policy = STRICT
) -> tuple[list[Row], SniffingInspector]:
    inspector = SniffingInspector(policy, binary=binary)
    points = sorted({min(cut, len(data)) for cut in cuts})
    findings: list[Finding] = []
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        findings += inspector.feed(data[a:b])
    findings += inspector.finish()
    return [(f.kind.value, f.offset) for f in findings], inspector


def every_split(data: bytes) -> list[list[int]]:
    return [[], list(range(len(data)))] + [[i] for i in range(len(data) + 1)]


# (id, body, findings when binary, findings when text)
CASES = [
    (
        "object",
        b'{"a": "\\ud800"}',
        [("json_surrogate_escape", 7)],
        [("json_surrogate_escape", 7)],
    ),
    (
        "array-after-ws",
        b' \r\n\t["\\uffff"]',
        [("noncharacter", 6)],
        [("noncharacter", 6)],
    ),
    (
        "string",
        b'"\\udc00"',
        [("json_surrogate_escape", 1)],
        [("json_surrogate_escape", 1)],
    ),
    (
        "bom-object",
        b'\xef\xbb\xbf{"a": "\\ud800"}',
        [("json_surrogate_escape", 10)],
        [("json_surrogate_escape", 10)],
    ),
    (
        "raw-invalid-json",
        b'{"a": "\xed\xa0\x80"}',
        [("surrogate", 7)],
        [("surrogate", 7)],
    ),
    ("malformed-escape-left-to-parser", b'["C:\\users"]', [], []),
    ("png", b"\x89PNG\r\n\x1a\n\xff\xfe", [], [("unexpected_continuation", 0)]),
    ("pdf", b"%PDF-1.7 \xe2\x82", [], [("truncated", 9)]),
    ("text", "h\u00e9llo \\ud800".encode(), [], []),
    ("number", b"12 \\ud800", [], []),
    ("empty", b"", [], []),
    ("whitespace-only", b"  \n ", [], []),
    ("zeros", b"\x00\x00\x00\x00\x01", [], []),
    ("utf16-bom-not-json", b"\xff\xfeh\x00i\x00", [], [("invalid_byte", 0)]),
    (
        "utf16le-json",
        '{"a": "\\ud800"}'.encode("utf-16-le"),
        [("non_utf8_json", 0)],
        [("non_utf8_json", 0)],
    ),
    (
        "utf16be-json",
        '["x"]'.encode("utf-16-be"),
        [("non_utf8_json", 0)],
        [("non_utf8_json", 0)],
    ),
    (
        "utf32-bom-json",
        '"x"'.encode("utf-32"),
        [("non_utf8_json", 0)],
        [("non_utf8_json", 0)],
    ),
    (
        "utf16-long-ws-json",
        (" " * 40 + "{}").encode("utf-16-le"),
        [("non_utf8_json", 0)],
        [("non_utf8_json", 0)],
    ),
    ("utf16-ws-only", "   ".encode("utf-16-le"), [], []),
    ("utf16-two-bytes", b"1\x00", [], []),
]


@pytest.mark.parametrize(
    ("data", "binary_rows", "text_rows"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_every_split(data: bytes, binary_rows: list[Row], text_rows: list[Row]) -> None:
    for cuts in every_split(data):
        assert run(data, cuts, binary=True)[0] == binary_rows, cuts
        assert run(data, cuts, binary=False)[0] == text_rows, cuts


@pytest.mark.parametrize(
    "data", [c[1] for c in CASES if c[2] and c[2][0][0] == "non_utf8_json"]
)
def test_non_utf8_cases_are_json_to_json_loads(data: bytes) -> None:
    json.loads(data)  # the independent check: what the application would parse


def test_binary_that_is_not_json_passes_and_says_so() -> None:
    inspector = SniffingInspector(STRICT, binary=True)
    assert inspector.feed(b"\x89") == []
    assert not inspector.passed
    assert inspector.checked == 0
    assert inspector.feed(b"PNG\xff") == []
    assert inspector.passed
    assert inspector.checked == 5
    assert inspector.feed(b"\xc0") == []
    assert inspector.checked == 6
    assert inspector.finish() == []


def test_whitespace_is_counted_not_held() -> None:
    inspector = SniffingInspector(STRICT, binary=True)
    for _ in range(100):
        assert inspector.feed(b" " * 1000) == []
    assert inspector.checked == 100_000
    assert inspector.feed(b'["\\ud800') == []
    assert inspector.checked == 100_002  # the escape waits: it may start a pair
    assert inspector.feed(b"\\") == []  # still may ("\\udc00" would pair)
    assert inspector.feed(b'"]') == [
        # '"' cannot continue a pair: decided now, not at the end of the body
        Finding(Location.BODY, None, RequestKind.JSON_SURROGATE_ESCAPE, 100_002)
    ]
    assert inspector.finish() == []


def test_refused_utf16_body_stops_looking() -> None:
    data = '["\\ud800"]'.encode("utf-16-le") * 50
    inspector = SniffingInspector(STRICT, binary=True)
    assert [f.kind.value for f in inspector.feed(data)] == ["non_utf8_json"]
    assert inspector.feed(b"\xff") == []
    assert inspector.checked == len(data) + 1
    assert inspector.finish() == []


def test_policy_applies_to_the_bom() -> None:
    rows, _ = run(b"\xef\xbb\xbf[1]", [2], binary=True, policy=Policy(allow_bom=False))
    assert rows == [("bom", 0)]


# --- through the adapters: a binary body passes on after its first bytes ----------


def asgi_run(
    headers: list[tuple[bytes, bytes]], pieces: list[bytes], **options: object
) -> tuple[int, list[Message]]:
    """Status, and the body messages the app received."""
    seen: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        more = True
        while more:
            message = await receive()
            seen.append(message)
            more = bool(message.get("more_body"))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    scope: Scope = {
        "type": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": headers,
    }
    guard = Utf8GuardMiddleware(app, **options)  # type: ignore[arg-type]  # test options
    sent = exchange(guard, scope, body_messages(pieces))
    status = sent[0]["status"]
    assert isinstance(status, int)
    return status, seen


OCTET = [(b"content-type", b"application/octet-stream")]


def test_asgi_binary_passes_after_its_first_bytes() -> None:
    pieces = [b"\x89", b"PNG\xff", b"\xc0\xaf", b"end"]
    status, seen = asgi_run(OCTET, pieces, max_body_size=4)
    assert status == 200
    bodies = [m["body"] for m in seen]
    assert all(isinstance(body, bytes) for body in bodies)
    assert b"".join(b for b in bodies if isinstance(b, bytes)) == b"".join(pieces)
    assert [m.get("more_body") for m in seen][-1] is False
    assert all(m.get("more_body") for m in seen[:-1])


def test_asgi_binary_that_is_json_is_checked_across_messages() -> None:
    pieces = [b" ", b'{"a": "\\ud8', b'00"}']
    assert asgi_run(OCTET, pieces)[0] == 400
    assert asgi_run(OCTET, pieces, stream_body=True)[0] == 400
    assert asgi_run([], [b'{"a": "\xed\xa0', b'\x80"}'])[0] == 400  # F10: no type
    assert asgi_run(OCTET, [b'{"a": "\\u00e9"}'])[0] == 200


def test_asgi_binary_json_is_limited_like_json() -> None:
    assert asgi_run(OCTET, [b"[1", b", 2]"], max_body_size=3)[0] == 413


def test_wsgi_binary_passes_after_its_first_bytes() -> None:
    body = b"\x89PNG" + bytes(range(256)) * 300
    got: list[bytes] = []

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        got.append(environ["wsgi.input"].read())
        start_response("200 OK", [])
        return [b""]

    client = Client(Utf8GuardWSGIMiddleware(app, max_body_size=10))
    response = client.post("/", data=body, content_type="application/octet-stream")
    assert response.status_code == 200
    assert got == [body]
    client = Client(Utf8GuardWSGIMiddleware(app))
    refused = client.post("/", data=b'\t["\\udfff"]', content_type="image/png")
    assert refused.status_code == 400
    assert refused.json["violations"][0]["kind"] == "json_surrogate_escape"  # type: ignore[index]


sniff_bytes = st.lists(
    st.sampled_from(
        [
            b" ",
            b"\t",
            b"\r\n",
            b"{",
            b"[",
            b'"',
            b"a",
            b"1",
            b"\x00",
            b"\xef\xbb\xbf",
            b"\xff\xfe",
            b"\xfe\xff",
            b"\\ud800",
            b"\\u0041",
            b"\\",
            b"\xc3\xa4",
            b"\xc0",
        ]
    ),
    max_size=25,
).map(b"".join)


@given(sniff_bytes, st.lists(st.integers(0, 80), max_size=6), st.booleans())
def test_any_chunking_gives_the_one_shot_verdict(
    data: bytes, cuts: list[int], binary: bool
) -> None:
    whole, inspector = run(data, [], binary=binary)
    assert run(data, cuts, binary=binary)[0] == whole
    if inspector.passed:
        assert binary
        assert not [kind for kind, _ in whole]


@pytest.mark.parametrize(
    ("version", "headers", "expected"),
    [
        ("1.1", [], (200, 0)),  # RFC 9112 §6.3: no body; nothing read before the app
        ("1.1", [(b"content-type", b"multipart/form-data; boundary=b")], (400, 0)),
        ("1.1", [(b"content-length", b"0")], (200, 1)),
        ("2", [], (200, 1)),  # HTTP/2 frames a body without Content-Length
    ],
)
def test_asgi_request_without_a_body(
    version: str, headers: list[tuple[bytes, bytes]], expected: tuple[int, int]
) -> None:
    received: list[Message] = []
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> Message:
        message: Message = {"type": "http.request", "body": b"", "more_body": False}
        received.append(message)
        return message

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http",
        "http_version": version,
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": headers,
    }
    asyncio.run(Utf8GuardMiddleware(app)(scope, receive, send))
    assert (sent[0]["status"], len(received)) == expected
