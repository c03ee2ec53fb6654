"""The ASGI adapter's view of a head: malformed parts are refused, never raised."""

from __future__ import annotations

import asyncio

import pytest

from utf8guard.middleware import Utf8GuardMiddleware
from utf8guard.middleware.asgi import Message, Receive, Scope, Send


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def status_for(headers: object) -> object:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": headers,
    }
    asyncio.run(Utf8GuardMiddleware(app)(scope, receive, send))
    return sent[0]["status"]


@pytest.mark.parametrize(
    "pair",
    [(b"a",), ("a", "b"), (b"a", "b"), (b"a", b"b", b"c"), None, b"ab", (b"cookie", 1)],
    ids=["one-item", "str-pair", "str-value", "three-items", "none", "bytes", "int"],
)
def test_malformed_header_pair_is_refused_not_raised(pair: object) -> None:
    # #9 (issue 11): a server that breaks the ASGI spec gets a 400, never a 500.
    assert status_for([(b"x-ok", b"1"), pair]) == 400


def test_header_pairs_as_lists_or_tuples_pass() -> None:
    assert status_for([[b"x-a", b"1"], (b"x-b", b"2")]) == 200
