"""Ambiguous body framing (RFC 9112 §6.3) is refused before any byte is read."""

from __future__ import annotations

import asyncio
import json

import pytest

from utf8guard.middleware import GuardConfig, Utf8GuardMiddleware
from utf8guard.middleware.asgi import Message, Receive, Scope, Send
from utf8guard.middleware.engine._engine import BodyCheck

Headers = list[tuple[bytes, bytes]]

AMBIGUOUS = [
    ("two-lengths-equal", [(b"content-length", b"5"), (b"Content-Length", b"5")]),
    ("two-lengths", [(b"content-length", b"5"), (b"content-length", b"50")]),
    ("folded-list", [(b"content-length", b"5, 5")]),
    ("plus-sign", [(b"content-length", b"+5")]),
    ("hex", [(b"content-length", b"0x5")]),
    ("empty", [(b"content-length", b"")]),
    ("unicode-digit", [(b"content-length", "\u0665".encode())]),
    (
        "length-and-chunked",
        [(b"content-length", b"5"), (b"transfer-encoding", b"chunked")],
    ),
    (
        "binary-type-too",
        [
            (b"content-type", b"image/png"),
            (b"content-length", b"1"),
            (b"content-length", b"2"),
        ],
    ),
]
CLEAR = [
    ("length", [(b"content-length", b"5")]),
    ("length-ows", [(b"content-length", b" 5\t")]),
    ("chunked", [(b"transfer-encoding", b"chunked")]),
    ("none", []),
]


@pytest.mark.parametrize(
    "headers", [case[1] for case in AMBIGUOUS], ids=[case[0] for case in AMBIGUOUS]
)
def test_ambiguous_framing_is_refused(headers: Headers) -> None:
    check = BodyCheck(headers, GuardConfig(), "http")
    assert check.refusal is not None
    status, _, body = check.refusal
    assert status == 400
    kinds = [v["kind"] for v in json.loads(body)["violations"]]
    assert kinds == ["ambiguous_framing"]
    assert BodyCheck(headers, GuardConfig(mode="report"), "http").refusal is None


@pytest.mark.parametrize(
    "headers", [case[1] for case in CLEAR], ids=[case[0] for case in CLEAR]
)
def test_clear_framing_passes(headers: Headers) -> None:
    assert BodyCheck(headers, GuardConfig(), "http").refusal is None


def test_asgi_refuses_raw_duplicate_lengths() -> None:
    # ASGI servers pass the raw field list: the engine sees both fields.
    called = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        called.append(scope)

    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"hello", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": [(b"content-length", b"5"), (b"content-length", b"5")],
    }
    asyncio.run(Utf8GuardMiddleware(app)(scope, receive, send))
    assert not called
    assert sent[0]["status"] == 400
