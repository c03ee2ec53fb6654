"""Issue 26's proof: what real clients send passes every adapter with default options.

The corpus (``benign.py``: browser-, curl-, requests- and httpx-built multipart with
names in many languages and habits, forms and JSON in many scripts, real User-Agent
strings, gzip and br JSON, cookies written by Werkzeug and http.cookies, a 5 MB
upload) goes through the ASGI adapter, the WSGI adapter, Django's ``MIDDLEWARE``
class, and over uvicorn and Gunicorn. Every request must reach the app with its
body as sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.test import override_settings
from werkzeug.test import Client

from utf8guard.middleware import Utf8GuardMiddleware, Utf8GuardWSGIMiddleware

from .._servers import HOST, ServerProcess, e2e_env, gunicorn, request, uvicorn
from . import django_site
from .benign import LARGE_UPLOAD, Request, corpus
from .test_adapters import (
    _body_bytes,
    _str_headers,
    asgi_echo,
    exchange,
    http_scope,
    request_messages,
    wsgi_echo,
)

django_site.configure()

ROWS = [*corpus(), LARGE_UPLOAD]
IDS = [row[0] for row in ROWS]


def _seen_body(reply: bytes) -> bytes:
    # The echo apps answer the body as one code point per byte.
    body: str = json.loads(reply)["body"]
    return body.encode("latin-1")


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_asgi_adapter_passes(row: Request) -> None:
    _, method, target, headers, body = row
    sent = exchange(
        Utf8GuardMiddleware(asgi_echo),
        http_scope(method, target, headers, body),
        request_messages(body),
    )
    assert sent[0]["status"] == 200, b"".join(map(_body_bytes, sent[1:]))
    assert _seen_body(b"".join(map(_body_bytes, sent[1:]))) == body


def _werkzeug(app: object, row: Request) -> tuple[int, bytes]:
    _, method, target, headers, body = row
    # use_cookies=False: Werkzeug's client otherwise drops a Cookie header given here
    response = Client(app, use_cookies=False).open(  # type: ignore[arg-type]
        target.decode("ascii"), method=method, headers=_str_headers(headers), data=body
    )
    try:
        return response.status_code, response.get_data()
    finally:
        response.close()  # PEP 3333: the guard's spooled body goes with it


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_wsgi_adapter_passes(row: Request) -> None:
    status, reply = _werkzeug(Utf8GuardWSGIMiddleware(wsgi_echo), row)
    assert status == 200, reply
    assert _seen_body(reply) == row[4]


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_django_class_passes(row: Request) -> None:
    with override_settings(UTF8GUARD={}):
        handler = WSGIHandler()
    status, reply = _werkzeug(handler, row)
    assert status == 200, reply
    assert _seen_body(reply) == row[4]


SERVERS = {
    "uvicorn": uvicorn("tests.middleware.e2e_default_app:asgi"),
    "gunicorn": gunicorn("tests.middleware.e2e_default_app:wsgi()"),
}


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest) -> Iterator[int]:
    name: str = request.param
    with ServerProcess(SERVERS[name], env=e2e_env(name, lifetime_seconds=180)) as p:
        yield p.port


def test_servers_pass_the_corpus(server: int) -> None:
    refused = []
    for row_id, method, target, headers, body in ROWS:
        head = b"%s %s HTTP/1.1\r\n" % (method.encode(), target)
        head += b"".join(name + b": " + value + b"\r\n" for name, value in headers)
        head += b"Content-Length: %d\r\n\r\n" % len(body)
        status, seen = request(HOST, server, head, body)
        if (status, seen) != (200, {"length": len(body)}):
            refused.append((row_id, status, seen))
    assert refused == []
