"""The Django middleware gives the WSGI adapter's verdicts, under WSGI and ASGI Django.

A guarded Django site (``django_site``) answers the shared attack table exactly as
the guarded WSGI echo app of ``test_adapters`` does: same status, same reply, same
``on_violation`` events, through Django's WSGI handler (driven by Werkzeug's test
client, as the WSGI adapter is) and through Django's ASGI handler (driven with a
hand-written scope, as the ASGI adapter is).
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import cast

import pytest
from asgiref.sync import iscoroutinefunction
from django.core.handlers.asgi import (
    ASGIHandler,
    ASGIRequest,
)
from django.core.handlers.wsgi import WSGIHandler
from django.http import HttpRequest, HttpResponse
from django.test import (
    RequestFactory,
    override_settings,
)
from werkzeug.test import Client

from utf8guard.middleware import (
    GuardConfig,
    Refusal,
    Utf8GuardWSGIMiddleware,
    ViolationEvent,
)
from utf8guard.middleware import django as django_adapter
from utf8guard.middleware.asgi import Message
from utf8guard.middleware.django import Utf8GuardMiddleware

from . import django_site
from .attack_table import MAX_BODY_BYTES, ROWS, Row
from .test_adapters import (
    SAMPLE_OPTIONS,
    Answer,
    _body_bytes,
    _str_headers,
    http_scope,
    request_messages,
    run_wsgi,
)

django_site.configure()

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
    # use_cookies=False: a jar would drop the rows' Cookie headers (test_adapters).
    response = Client(handler, use_cookies=False).open(
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
    scope = http_scope(method, target, headers, body)
    inbox = request_messages(body)
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


def guarded_view(
    options: dict[str, object],
) -> tuple[Utf8GuardMiddleware, list[HttpRequest]]:
    """The middleware around a view that records the request it gets."""
    seen: list[HttpRequest] = []

    def view(request: HttpRequest) -> HttpResponse:
        seen.append(request)
        return HttpResponse(request.body)

    with override_settings(UTF8GUARD=options):
        return Utf8GuardMiddleware(view), seen


def respond(middleware: Utf8GuardMiddleware, request: HttpRequest) -> HttpResponse:
    """The sync middleware's answer (its type admits the async one too)."""
    return cast(HttpResponse, middleware(request))


def test_django_takes_the_adapters_options() -> None:
    expected = GuardConfig(**{**SAMPLE_OPTIONS, "stream_body": False})  # type: ignore[arg-type]
    middleware, _ = guarded_view({**SAMPLE_OPTIONS, "stream_body": False})
    assert middleware.config == expected
    middleware, _ = guarded_view({"config": expected})
    assert middleware.config is expected


@pytest.mark.parametrize(
    ("setting", "error", "message"),
    [
        (["block"], TypeError, "UTF8GUARD must be a dict of options, not list"),
        ({"config": GuardConfig(), "mode": "report"}, TypeError, "not both: mode"),
        ({"mode": "strict"}, ValueError, "mode must be one of"),
        ({"stream_body": True}, ValueError, "stream_body is not supported"),
    ],
)
def test_bad_settings_raise(
    setting: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        guarded_view(setting)  # type: ignore[arg-type]  # wrong on purpose


def test_sync_and_async_capable() -> None:
    sync, _ = guarded_view({})
    assert not iscoroutinefunction(sync)

    async def get_response(request: HttpRequest) -> HttpResponse:
        return HttpResponse(b"ok")

    assert Utf8GuardMiddleware.sync_capable
    assert Utf8GuardMiddleware.async_capable
    assert iscoroutinefunction(Utf8GuardMiddleware(get_response))


def test_normalize_repairs_django_path_under_a_script_name() -> None:
    middleware, seen = guarded_view({"mode": "normalize"})
    # Unicode ch. 23: U+FFFE is a noncharacter, which STRICT refuses and repairs.
    request = RequestFactory().get("/a%EF%BF%BE", SCRIPT_NAME="/app")
    response = respond(middleware, request)
    assert response.status_code == 200
    (passed,) = seen
    assert (passed.path, passed.path_info) == ("/app/a\ufffd", "/a\ufffd")
    assert passed.META["PATH_INFO"] == "/a\ufffd"


def test_normalize_repairs_the_path_under_asgi() -> None:
    seen: list[HttpRequest] = []

    async def view(request: HttpRequest) -> HttpResponse:
        seen.append(request)
        return HttpResponse(b"ok")

    with override_settings(UTF8GUARD={"mode": "normalize"}):
        middleware = Utf8GuardMiddleware(view)
    # Django's AsyncRequestFactory decodes the path as Latin-1; servers use UTF-8.
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/a\ufffe",
        "raw_path": b"/a%EF%BF%BE",
        "query_string": b"q=%EF%BF%BE",
        "headers": [],
    }
    request = ASGIRequest(scope, io.BytesIO())
    response = asyncio.run(middleware(request))  # type: ignore[arg-type]
    assert response.status_code == 200
    (passed,) = seen
    assert passed.path == "/a\ufffd"
    assert passed.GET["q"] == "\ufffd"


def test_asgi_scope_without_raw_parts_falls_back_to_meta() -> None:
    # Django's own AsyncRequestFactory gives a str query and no raw_path.
    seen: list[HttpRequest] = []

    async def view(request: HttpRequest) -> HttpResponse:
        seen.append(request)
        return HttpResponse(b"ok")

    with override_settings(UTF8GUARD={}):
        middleware = Utf8GuardMiddleware(view)
    for query, status in (("q=%C3%A4", 200), ("q=%FF", 400)):
        scope = {"type": "http", "method": "GET", "path": "/", "query_string": query}
        request = ASGIRequest(scope, io.BytesIO())
        response = asyncio.run(middleware(request))  # type: ignore[arg-type]
        assert response.status_code == status
    (passed,) = seen
    assert passed.GET["q"] == "\u00e4"


def test_refusal_is_shaped_by_on_refuse() -> None:
    def cors(refusal: Refusal) -> Refusal:
        extra = ((b"access-control-allow-origin", b"*"),)
        return refusal.replace(headers=refusal.headers + extra)

    middleware, seen = guarded_view({"on_refuse": cors})
    # RAW_URI as Gunicorn sets it (Django's own RequestFactory sets none)
    target = "/etc%C0%AFpasswd"
    response = respond(middleware, RequestFactory().get(target, RAW_URI=target))
    assert seen == []
    assert response.status_code == 400
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Content-Type"] == "application/problem+json"
    assert json.loads(response.content)["violations"][0]["kind"] == "overlong"


def test_excluded_route_gets_its_body_unchecked() -> None:
    middleware, _ = guarded_view({"exclude_paths": ["/hooks"]})
    body = b'{"sig": "\xff"}'
    request = RequestFactory().post("/hooks/x", body, content_type="application/json")
    response = respond(middleware, request)
    assert (response.status_code, response.content) == (200, body)


def test_one_wsgi_adapter_per_middleware(monkeypatch: pytest.MonkeyPatch) -> None:
    """The WSGI adapter (and its lane's memories) is built once, not per request."""
    built: list[object] = []

    class Counted(Utf8GuardWSGIMiddleware):
        def _ready(self) -> None:
            built.append(self)
            super()._ready()

    monkeypatch.setattr(django_adapter, "Utf8GuardWSGIMiddleware", Counted)
    middleware, seen = guarded_view({})
    factory = RequestFactory()
    for path in ("/a", "/b", "/%C0%AF"):
        respond(middleware, factory.get(path))
    assert len(built) == 1
    assert [request.path for request in seen] == ["/a", "/b"]
