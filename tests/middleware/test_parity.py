"""Issue 26: one verdict, one document, every adapter, whatever the server gives.

The attack table's requests as Gunicorn hands them to a WSGI app (``RAW_URI`` as
sent, ``PATH_INFO`` percent-decoded, one byte per code point: PEP 3333) go through
the WSGI adapter and Django's ``MIDDLEWARE`` class under Django's WSGI handler, and
as uvicorn hands them over (``raw_path``, ``path``) through the ASGI adapter: each
must list the same findings in the same problem document. ``GET /%C0%AF`` once got
two spurious ``double_encoding`` findings under Django only (Django re-percent-
encodes the invalid bytes of PATH_INFO).
"""

from __future__ import annotations

import asyncio
import io
import json
from urllib.parse import unquote, unquote_to_bytes

import pytest
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest
from django.test import override_settings

from utf8guard.middleware import Utf8GuardMiddleware, Utf8GuardWSGIMiddleware
from utf8guard.middleware.asgi import Message, Scope
from utf8guard.middleware.django import _server_path_info

from . import django_site
from .attack_table import MAX_BODY_BYTES, ROWS
from .test_adapters import _body_bytes, asgi_echo, wsgi_echo

django_site.configure()

#: Head-only rows and paths the table holds, plus the issue's own request.
TARGETS = sorted(
    {row[2] for row in ROWS if row[1] == "GET"}
    | {b"/%C0%AF", b"/caf%C3%A9%FF", b"/%25C0%25AF", b"/a%2Fb", b"/%E2%80%AE.txt"}
)
#: What a refusal says, for the comparison: status, then the problem document's
#: type, title, violations and count (a pass answers the app's own body).
Verdict = tuple[int, object]


def _verdict(status: int, body: bytes) -> Verdict:
    if status < 400:
        return status, None
    document = json.loads(body)
    return status, [document[key] for key in ("type", "title", "violations", "count")]


def gunicorn_environ(target: bytes) -> dict[str, object]:
    """The environ Gunicorn builds (gunicorn/http/wsgi.py: RAW_URI, unquoted path)."""
    path, _, query = target.partition(b"?")
    return {
        "REQUEST_METHOD": "GET",
        "RAW_URI": target.decode("latin-1"),
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "SCRIPT_NAME": "",
        "QUERY_STRING": query.decode("latin-1"),
        "SERVER_NAME": "t",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "t",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "http",
    }


def run_wsgi_app(app: object, target: bytes) -> Verdict:
    started: list[str] = []

    def start_response(status: str, headers: object, *_: object) -> None:
        started.append(status)

    body = b"".join(app(gunicorn_environ(target), start_response))  # type: ignore[operator]
    return _verdict(int(started[0][:3]), body)


def run_asgi(target: bytes) -> Verdict:
    path, _, query = target.partition(b"?")
    # uvicorn: path = unquote(raw_path) as UTF-8 with replacement
    scope: Scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": unquote(path.decode("ascii")),
        "raw_path": path,
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"t")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    guard = Utf8GuardMiddleware(asgi_echo, max_body_size=MAX_BODY_BYTES)
    asyncio.run(guard(scope, receive, send))
    status = sent[0]["status"]
    assert isinstance(status, int)
    body = b"".join(_body_bytes(message) for message in sent[1:])
    return _verdict(status, body)


@pytest.mark.parametrize("target", TARGETS, ids=[t.decode() for t in TARGETS])
def test_every_adapter_gives_one_verdict(target: bytes) -> None:
    wsgi = run_wsgi_app(
        Utf8GuardWSGIMiddleware(wsgi_echo, max_body_size=MAX_BODY_BYTES), target
    )
    with override_settings(UTF8GUARD={"max_body_size": MAX_BODY_BYTES}):
        handler = WSGIHandler()
    assert run_wsgi_app(handler, target) == wsgi
    assert run_asgi(target) == wsgi


def test_the_issue_request_lists_two_findings() -> None:
    # Table 3-7: C0 is never a lead byte (overlong), AF is a continuation alone.
    status, document = run_wsgi_app(Utf8GuardWSGIMiddleware(wsgi_echo), b"/%C0%AF")
    assert status == 400
    assert isinstance(document, list)
    assert [v["kind"] for v in document[2]] == ["overlong", "unexpected_continuation"]


@pytest.mark.parametrize(
    ("raw", "script", "path_info", "expected"),
    [
        # Gunicorn: the bytes Django re-percent-encoded come back from RAW_URI.
        ("/%C0%AF", "", "/\xc0\xaf", "/\xc0\xaf"),
        ("/app/caf%C3%A9?q=1", "/app", "/caf\xc3\xa9", "/caf\xc3\xa9"),
        ("/app", "/app", "", "/"),
        # No raw target (runserver), an absolute-form one, one outside SCRIPT_NAME,
        # or one Django's path is not the reading of: Django's text, as before.
        (None, "", "/\xc0\xaf", "/%C0%AF"),
        ("http://t/%C0%AF", "", "/\xc0\xaf", "/%C0%AF"),
        ("/other/%C0%AF", "/app", "/\xc0\xaf", "/%C0%AF"),
        ("/a", "", "/\xc0\xaf", "/%C0%AF"),
    ],
)
def test_server_path_info(
    raw: str | None, script: str, path_info: str, expected: str
) -> None:
    environ = gunicorn_environ(b"/")
    environ |= {"SCRIPT_NAME": script, "PATH_INFO": path_info}
    if raw is None:
        del environ["RAW_URI"]
    else:
        environ["RAW_URI"] = raw
    request = WSGIRequest(environ)
    assert _server_path_info(request, script) == expected
