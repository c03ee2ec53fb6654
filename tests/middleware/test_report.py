"""One log record and one event per reported request, with a summary and no raw bytes.

Driven through both adapters (hand-made WSGI environs, Starlette's TestClient) so
that the record is the one a deployment gets; caplog holds the records.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

import pytest

from utf8guard.middleware import (
    GuardConfig,
    RequestSummary,
    Utf8GuardMiddleware,
    Utf8GuardWSGIMiddleware,
    ViolationEvent,
)
from utf8guard.middleware.asgi import Message, Receive, Scope, Send
from utf8guard.middleware.engine._report import MAX_SHOWN_BYTES, escape, summarize
from utf8guard.middleware.engine._spool import REPLAY_BYTES
from utf8guard.middleware.head._request import RequestHead

from .test_asgi import client
from .test_wsgi import call, echo, make_environ

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

# What a record may hold: printable ASCII only (no raw byte, no control).
PRINTABLE = re.compile(r"[\x20-\x7e]*")


def records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "utf8guard"]


def wsgi(**options: object) -> Utf8GuardWSGIMiddleware:
    return Utf8GuardWSGIMiddleware(echo, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"/plain/path", "/plain/path"),
        (b"/etc\xc0\xafpasswd", "/etc\\xc0\\xafpasswd"),
        (b"a b\tc\r\n\x1b[31m", "a\\x20b\\x09c\\x0d\\x0a\\x1b[31m"),
        (b"back\\slash", "back\\x5cslash"),
        ("caf\u00e9", "caf\\xc3\\xa9"),
    ],
)
def test_escape_leaves_only_printable_ascii(raw: bytes | str, shown: str) -> None:
    assert escape(raw) == shown


def test_escape_cuts_long_values() -> None:
    assert escape(b"a" * (MAX_SHOWN_BYTES + 1)) == "a" * MAX_SHOWN_BYTES + "..."
    assert escape(b"a" * MAX_SHOWN_BYTES) == "a" * MAX_SHOWN_BYTES


def test_one_record_and_one_event_per_request(caplog: pytest.LogCaptureFixture) -> None:
    events: list[ViolationEvent] = []
    guard = wsgi(mode="report", on_violation=events.append, request_id_header="X-Id")
    environ = make_environ(
        "/a\xc0",
        b"\xff ok",
        "text/plain",
        RAW_URI="/a%C0?q=%FF",
        QUERY_STRING="q=%FF",
        HTTP_X_ID="req-7\x1b\xff",
        REMOTE_ADDR="192.0.2.1",
        REMOTE_PORT="4711",
    )
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        call(guard, environ)
    (record,) = records(caplog)
    summary = RequestSummary(
        method="POST",
        path="/a%C0",
        client="192.0.2.1:4711",
        request_id="req-7\\x1b\\xff",
        scope_type="wsgi",
    )
    findings = [
        # Table 3-7: C0 is never a valid lead byte (overlong).
        {"location": "path", "name": None, "kind": "overlong", "offset": 2},
        {"location": "query", "name": "q", "kind": "invalid_byte", "offset": 2},
        # RFC 9110 §5.5: ESC is a CTL, no field-content.
        {"location": "header", "name": "x-id", "kind": "control", "offset": 5},
        {"location": "header", "name": "x-id", "kind": "invalid_byte", "offset": 6},
        {"location": "body", "name": None, "kind": "invalid_byte", "offset": 0},
    ]
    assert record.__dict__["utf8guard_findings"] == findings
    assert record.__dict__["utf8guard_action"] == "reported"
    assert record.__dict__["utf8guard_status"] is None
    assert record.__dict__["utf8guard_method"] == summary.method
    assert record.__dict__["utf8guard_path"] == summary.path
    assert record.__dict__["utf8guard_client"] == summary.client
    assert record.__dict__["utf8guard_request_id"] == summary.request_id
    assert record.__dict__["utf8guard_scope_type"] == "wsgi"
    assert record.getMessage() == (
        "utf8guard reported wsgi POST /a%C0 from 192.0.2.1:4711 [req-7\\x1b\\xff]: "
        "overlong at offset 2 in path, invalid_byte at offset 2 in query (q), "
        "control at offset 5 in header (x-id), "
        "invalid_byte at offset 6 in header (x-id), invalid_byte at offset 0 in body"
    )
    (event,) = events
    assert event.request == summary
    assert event.action == "reported"
    assert event.scope_type == "wsgi"
    assert event.finding == event.findings[0]
    assert [f.location.value for f in event.findings] == [
        "path",
        "query",
        "header",
        "header",
        "body",
    ]


def test_records_never_hold_raw_bytes(caplog: pytest.LogCaptureFixture) -> None:
    environ = make_environ(
        "/\r\n\xc0\xaf",
        REQUEST_METHOD="G\xe9T",
        RAW_URI="/\r\n\xc0\xaf",
        HTTP_X_ID="\x00\xff",
        REMOTE_ADDR="\x1b",
    )
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        status, _, _ = call(wsgi(request_id_header="x-id"), environ)
    assert status.startswith("400")
    (record,) = records(caplog)
    assert PRINTABLE.fullmatch(record.getMessage())
    extras = [v for k, v in record.__dict__.items() if k.startswith("utf8guard_")]
    assert all(PRINTABLE.fullmatch(str(value)) for value in extras)
    assert record.__dict__["utf8guard_path"] == "/\\x0d\\x0a\\xc0\\xaf"
    assert record.__dict__["utf8guard_status"] == 400


def test_body_over_the_limit_is_one_record_without_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events: list[ViolationEvent] = []
    guard = wsgi(max_body_size=4, on_violation=events.append)
    environ = make_environ("/", b"12345", "text/plain", REMOTE_ADDR="::1")
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        status, _, _ = call(guard, environ)
    assert status == "413 Content Too Large"
    (record,) = records(caplog)
    assert record.getMessage() == (
        "utf8guard blocked wsgi POST / from ::1: body over max_body_size"
    )
    assert record.__dict__["utf8guard_status"] == 413
    assert events == []


def test_clean_request_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        call(wsgi(), make_environ("/ok", b"fine", "text/plain"))
    assert records(caplog) == []


def test_blocked_head_lists_at_most_max_findings(
    caplog: pytest.LogCaptureFixture,
) -> None:
    environ = make_environ("/", QUERY_STRING="&".join(["q=%FF"] * 20))
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        call(wsgi(request_id_header="x-request-id"), environ)  # none sent
    (record,) = records(caplog)
    assert len(record.__dict__["utf8guard_findings"]) == 16
    assert record.__dict__["utf8guard_client"] is None
    assert record.__dict__["utf8guard_request_id"] is None
    assert "from -:" in record.getMessage()


def test_body_the_app_never_reads_is_reported_when_the_request_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def lazy(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        environ["wsgi.input"].read(2)  # stops long before the end of the body
        start_response("200 OK", [])
        return [b"done"]

    guard = Utf8GuardWSGIMiddleware(lazy, mode="normalize", stream_body=True)
    body = b"a" * 4 * REPLAY_BYTES + b"\xff"
    environ = make_environ("/", body, "text/plain", QUERY_STRING="q=%FF")
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        status, _, reply = call(guard, environ)
    assert (status, reply) == ("200 OK", b"done")
    # the head's finding, held for the body's, is reported when the response closes
    (record,) = records(caplog)
    assert record.__dict__["utf8guard_action"] == "normalized"
    assert [f["location"] for f in record.__dict__["utf8guard_findings"]] == ["query"]


def test_report_mode_body_is_reported_at_close(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def partial(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        environ["wsgi.input"].read(1)
        start_response("200 OK", [])
        return [b"done"]

    guard = Utf8GuardWSGIMiddleware(partial, mode="report")
    environ = make_environ("/", b"\xff" + b"a" * 9000, "text/plain")
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        call(guard, environ)
    (record,) = records(caplog)
    assert record.__dict__["utf8guard_action"] == "reported"


def test_asgi_records_the_client_and_method(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        response = client(request_id_header="x-request-id").get(
            "/etc%C0%AFpasswd", headers={"x-request-id": "abc-1"}
        )
    assert response.status_code == 400
    (record,) = records(caplog)
    assert record.getMessage() == (
        "utf8guard blocked http GET /etc%C0%AFpasswd from testclient:50000 [abc-1]: "
        "overlong at offset 4 in path, unexpected_continuation at offset 7 in path"
    )


def test_asgi_websocket_report_is_one_record(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="utf8guard"),
        client(mode="report").websocket_connect("/ws/%C0%AF?q=%FF") as session,
    ):
        session.receive_text()
    (record,) = records(caplog)
    assert record.__dict__["utf8guard_scope_type"] == "websocket"
    kinds = [f["kind"] for f in record.__dict__["utf8guard_findings"]]
    assert kinds == ["overlong", "unexpected_continuation", "invalid_byte"]


@pytest.mark.parametrize(
    ("client", "shown"),
    [
        (("192.0.2.1", 80), "192.0.2.1:80"),
        (["::1", 8000], "::1:8000"),
        (("unix-socket", None), "unix-socket"),
        (None, None),
        (("a", 1, 2), None),  # not the ASGI [host, port]: unknown, never an error
        ("192.0.2.1", None),
    ],
)
def test_client_as_the_server_gives_it(client: object, shown: str | None) -> None:
    head = RequestHead(path="/", raw_path=None, query_string=b"", headers=())
    summary = summarize(
        head, method=b"GET", client=client, scope_type="http", config=GuardConfig()
    )
    assert summary.client == shown
    assert summary.path == "/"


def test_wsgi_summary_is_what_the_server_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An app that rewrites REMOTE_ADDR (ProxyFix) before a streamed body finding is
    reported does not change the logged client: the summary is the server's."""

    def proxied(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        environ["REMOTE_ADDR"] = "203.0.113.9"
        environ["REQUEST_METHOD"] = "PUT"
        environ["wsgi.input"].read()
        start_response("200 OK", [])  # pragma: no cover  # the read refuses
        return [b"done"]  # pragma: no cover

    guard = Utf8GuardWSGIMiddleware(proxied, stream_body=True)
    environ = make_environ("/", b"a\xff", "text/plain", REMOTE_ADDR="192.0.2.1")
    environ["REMOTE_PORT"] = "4711"
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        call(guard, environ)
    (record,) = records(caplog)
    assert record.__dict__["utf8guard_client"] == "192.0.2.1:4711"
    assert record.__dict__["utf8guard_method"] == "POST"


def test_asgi_summary_is_what_the_server_said(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Likewise for an app that rewrites ``scope["client"]`` (proxy headers)."""

    async def proxied(scope: Scope, receive: Receive, send: Send) -> None:
        scope["client"] = ("203.0.113.9", 1)
        scope["method"] = "PUT"
        while (await receive())["type"] == "http.request":
            pass

    sent: list[Message] = [
        {"type": "http.request", "body": b"a\xff", "more_body": False},
        {"type": "http.disconnect"},
    ]
    messages = iter(sent)

    async def receive() -> Message:
        return next(messages)

    async def send(message: Message) -> None:
        return None

    scope: Scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "headers": [(b"content-type", b"text/plain")],
        "client": ("192.0.2.1", 4711),
    }
    guard = Utf8GuardMiddleware(proxied, stream_body=True)
    with caplog.at_level(logging.WARNING, logger="utf8guard"):
        asyncio.run(guard(scope, receive, send))
    (record,) = records(caplog)
    assert record.__dict__["utf8guard_client"] == "192.0.2.1:4711"
    assert record.__dict__["utf8guard_method"] == "POST"
