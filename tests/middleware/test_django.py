"""The Django middleware gives the WSGI adapter's verdicts, under WSGI and ASGI Django.

A guarded Django site (``django_site``) answers the shared attack table exactly as
the guarded WSGI echo app of ``test_adapters`` does: same status, same reply, same
``on_violation`` events, through Django's WSGI handler (driven by Werkzeug's test
client, as the WSGI adapter is) and through Django's ASGI handler (driven with a
hand-written scope, as the ASGI adapter is).
"""

from __future__ import annotations

import asyncio
from urllib.parse import unquote

import django  # type: ignore[import-untyped]
import pytest
from django.conf import settings  # type: ignore[import-untyped]
from django.core.handlers.asgi import ASGIHandler  # type: ignore[import-untyped]
from django.core.handlers.wsgi import WSGIHandler  # type: ignore[import-untyped]
from django.test import override_settings  # type: ignore[import-untyped]
from werkzeug.test import Client

from utf8guard.middleware import ViolationEvent
from utf8guard.middleware.asgi import Message, Scope

from . import django_site
from .attack_table import MAX_BODY_BYTES, ROWS, Row
from .test_adapters import Answer, _body_bytes, _chunks, _str_headers, run_wsgi

if not settings.configured:
    settings.configure(
        **{
            name: getattr(django_site, name)
            for name in dir(django_site)
            if name.isupper()
        }
    )
    django.setup()

#: The modes the table runs under (stream_body is refused by the Django class).
CONFIGS = {
    "block": {"mode": "block"},
    "normalize": {"mode": "normalize"},
    "report": {"mode": "report"},
}


def run_django_wsgi(row: Row, options: dict[str, object]) -> Answer:
    _, method, target, headers, body, _ = row
    events: list[ViolationEvent] = []
    guard = {"max_body_size": MAX_BODY_BYTES, "on_violation": events.append, **options}
    with override_settings(UTF8GUARD=guard):
        handler = WSGIHandler()  # loads MIDDLEWARE, reading UTF8GUARD
    response = Client(handler).open(
        target.decode("ascii"), method=method, headers=_str_headers(headers), data=body
    )
    reply = response.get_data()
    return response.status_code, reply, [(e.finding, e.action) for e in events]


def run_django_asgi(row: Row, options: dict[str, object]) -> Answer:
    _, method, target, headers, body, _ = row
    events: list[ViolationEvent] = []
    guard = {"max_body_size": MAX_BODY_BYTES, "on_violation": events.append, **options}
    with override_settings(UTF8GUARD=guard):
        handler = ASGIHandler()
    raw_path, _, query = target.partition(b"?")
    sent_headers = [(b"host", b"localhost"), *headers]
    if body:
        sent_headers.append((b"content-length", str(len(body)).encode()))
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(raw_path.decode("ascii")),
        "raw_path": raw_path,
        "query_string": query,
        "root_path": "",
        "headers": sent_headers,
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
    }
    pieces = _chunks(body)
    inbox: list[Message] = [
        {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
        for i, piece in enumerate(pieces)
    ]
    outbox: list[Message] = []

    async def receive() -> Message:
        if not inbox:
            # Django listens for a disconnect while the view runs: none comes.
            await asyncio.Event().wait()
        return inbox.pop(0)

    async def send(message: Message) -> None:
        outbox.append(message)

    asyncio.run(handler(scope, receive, send))
    status = outbox[0]["status"]
    assert isinstance(status, int)
    reply = b"".join(_body_bytes(m) for m in outbox[1:])
    return status, reply, [(e.finding, e.action) for e in events]


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_django_wsgi_agrees_with_the_wsgi_adapter(
    row: Row, config: dict[str, object]
) -> None:
    assert run_django_wsgi(row, config) == run_wsgi(row, config)


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_django_asgi_agrees_with_the_wsgi_adapter(
    row: Row, config: dict[str, object]
) -> None:
    assert run_django_asgi(row, config) == run_wsgi(row, config)
