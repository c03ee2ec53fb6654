"""Utf8GuardWSGIMiddleware: environ translation, wsgi.input wrapping, start_response.

The rules themselves are the engine's (test_request, test_body, test_engine) and the
agreement with the ASGI adapter is test_adapters; here hand-made environs drive each
path of the WSGI translation, and a Flask app shows what views receive.
"""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from flask import Flask, request

from utf8guard.middleware import GuardConfig, Utf8GuardWSGIMiddleware, ViolationEvent
from utf8guard.middleware.adapter._wsgi_environ import environ_head
from utf8guard.middleware.adapter._wsgi_input import input_chunks, read_into
from utf8guard.middleware.engine._engine import BodyCheck
from utf8guard.middleware.engine._flow import BodyBuffer
from utf8guard.middleware.wsgi import BLIND_SERVER_WARNING

if TYPE_CHECKING:
    from _typeshed import OptExcInfo
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

Response = tuple[str, dict[str, str], bytes]
#: What a server's environ holds for a chunked upload (RFC 9112 §7.1).
CHUNKED = {"HTTP_TRANSFER_ENCODING": "chunked"}


def make_environ(
    path: str = "/",
    body: bytes = b"",
    content_type: str = "",
    /,
    **extra: object,
) -> WSGIEnvironment:
    """A minimal PEP 3333 environ; ``extra`` keys override (None deletes)."""
    environ: WSGIEnvironment = {
        "REQUEST_METHOD": "POST" if body else "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
    }
    if body:
        environ["CONTENT_LENGTH"] = str(len(body))
    if content_type:
        environ["CONTENT_TYPE"] = content_type
    for key, value in extra.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    return environ


def call(app: WSGIApplication, environ: WSGIEnvironment) -> Response:
    """Run ``app`` as a server would: start_response, write(), iterate, close."""
    started: list[tuple[str, list[tuple[str, str]]]] = []
    written: list[bytes] = []

    def start_response(
        status: str, headers: list[tuple[str, str]], exc_info: OptExcInfo | None = None
    ) -> Callable[[bytes], object]:
        started.append((status, headers))
        return written.append

    result = app(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    status, headers = started[-1]
    return status, dict(headers), b"".join(written) + body


def echo(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
    """Reads the body to EOF and echoes what it saw as JSON."""
    body = environ["wsgi.input"].read()
    seen = {
        key: environ.get(key)
        for key in (
            "SCRIPT_NAME",
            "PATH_INFO",
            "QUERY_STRING",
            "RAW_URI",
            "REQUEST_URI",
            "CONTENT_TYPE",
            "CONTENT_LENGTH",
            "HTTP_X_NAME",
            "HTTP_X_OTHER",
            "HTTP_X-ODD",
        )
    }
    seen["body"] = body.decode("latin-1")
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps(seen).encode()]


def seen_by(response: Response) -> dict[str, str]:
    status, _, body = response
    assert status == "200 OK", body
    seen: dict[str, str] = json.loads(body)
    return seen


def violations(response: Response) -> list[dict[str, object]]:
    status, headers, body = response
    assert status == "400 Bad Request"
    assert headers["content-type"] == "application/problem+json"
    found: list[dict[str, object]] = json.loads(body)["violations"]
    return found


# --- the request head from the environ ---------------------------------------------


@pytest.mark.parametrize(
    ("extra", "raw_path"),
    [
        pytest.param({}, None, id="no-raw-target"),
        # The fragment a client sent stays with the path (the app reads it in RAW_URI)
        pytest.param({"RAW_URI": "/a%2Fb?q=1#f"}, b"/a%2Fb#f", id="raw-uri"),
        pytest.param({"REQUEST_URI": "/r%41"}, b"/r%41", id="request-uri"),
        pytest.param(
            {"RAW_URI": "http://example.com:80/p%20q?x"}, b"/p%20q", id="absolute-form"
        ),
    ],
)
def test_raw_target(extra: dict[str, str], raw_path: bytes | None) -> None:
    environ = make_environ()
    environ.update(extra)
    assert environ_head(environ).raw_path == raw_path


def test_head_from_environ_recovers_bytes() -> None:
    environ = make_environ(
        "/caf\xc3\xa9",
        b"{}",
        "application/json",
        SCRIPT_NAME="/app",
        QUERY_STRING="q=%FF",
        HTTP_X_NAME="\xf0\x9d\x84\x9e",
        HTTP_X_WIDE="\u20ac",  # over U+00FF: a broken server; kept, as UTF-8
        HTTP_X_ODD=42,  # not a str: not a header
        HTTP_ACCEPT="",
    )
    head = environ_head(environ)
    assert head.app_path == "/app/café".encode()
    assert head.path == "/app/café"
    assert head.query_string == b"q=%FF"
    assert sorted(head.headers) == [
        (b"accept", b""),
        (b"content-length", b"2"),
        (b"content-type", b"application/json"),
        (b"x-name", "𝄞".encode()),
        (b"x-wide", "€".encode()),
    ]


def test_header_name_outside_latin1_is_refused_not_an_error() -> None:
    environ = make_environ()
    environ["HTTP_X_\u20ac"] = "v"
    found = violations(call(Utf8GuardWSGIMiddleware(echo), environ))
    assert found == [{"location": "header", "kind": "invalid_header_name", "offset": 0}]


def test_empty_cgi_content_type_is_no_header() -> None:
    head = environ_head(make_environ(CONTENT_TYPE="", CONTENT_LENGTH=""))
    assert head.headers == ()


def test_decoded_path_is_checked_without_a_raw_target() -> None:
    found = violations(call(Utf8GuardWSGIMiddleware(echo), make_environ("/a\xc0\xaf")))
    assert [v["kind"] for v in found] == ["overlong", "unexpected_continuation"]


def test_server_decoding_that_differs_is_checked_too() -> None:
    # A layer rewrote PATH_INFO after the server decoded RAW_URI: both are checked.
    environ = make_environ("/x\xed\xa0\x80", RAW_URI="/clean")
    found = violations(call(Utf8GuardWSGIMiddleware(echo), environ))
    assert found[0] == {"location": "path", "kind": "surrogate", "offset": 2}


def test_werkzeug_replacement_does_not_hide_the_raw_bytes() -> None:
    # Werkzeug decodes %C0 with errors="replace": PATH_INFO holds a valid U+FFFD.
    environ = make_environ("/a\xef\xbf\xbd", RAW_URI="/a%C0")
    found = violations(call(Utf8GuardWSGIMiddleware(echo), environ))
    assert found == [{"location": "path", "kind": "overlong", "offset": 2}]


# --- normalize mode: a consistent environ -------------------------------------------


def test_normalize_rewrites_path_query_headers_and_raw_targets() -> None:
    environ = make_environ(
        "/b\xc0",
        SCRIPT_NAME="/app",
        QUERY_STRING="q=%FF",
        RAW_URI="/app/b%C0?q=%FF",
        HTTP_X_NAME="caf\xe9",
        HTTP_X_OTHER="\xff",
        **{"HTTP_X-ODD": "\xff"},  # a key no server makes; repaired all the same
        CONTENT_TYPE="text/x-custom",
    )
    seen = seen_by(call(Utf8GuardWSGIMiddleware(echo, mode="normalize"), environ))
    assert seen["SCRIPT_NAME"] == "/app"
    assert seen["PATH_INFO"].encode("latin-1") == "/b\ufffd".encode()
    assert seen["QUERY_STRING"] == "q=%EF%BF%BD"
    assert seen["RAW_URI"] == "/app/b%EF%BF%BD?q=%EF%BF%BD"
    assert seen["REQUEST_URI"] is None  # not invented where the server had none
    assert seen["HTTP_X_NAME"].encode("latin-1") == "caf\ufffd".encode()
    assert seen["HTTP_X_OTHER"].encode("latin-1") == "\ufffd".encode()
    assert seen["HTTP_X-ODD"].encode("latin-1") == "\ufffd".encode()
    assert seen["CONTENT_TYPE"] == "text/x-custom"


def test_normalize_keeps_a_mount_point_the_raw_target_lacks() -> None:
    # A proxy fix set SCRIPT_NAME from a forwarded prefix: it is not in RAW_URI.
    environ = make_environ("/b\xff", SCRIPT_NAME="/\xff", RAW_URI="/b%FF")
    seen = seen_by(call(Utf8GuardWSGIMiddleware(echo, mode="normalize"), environ))
    assert (seen["SCRIPT_NAME"], seen["PATH_INFO"]) == (
        "/\xef\xbf\xbd",
        "/b\xef\xbf\xbd",
    )
    assert seen["RAW_URI"] == "/b%EF%BF%BD"


def test_normalize_repairs_the_body_and_its_length() -> None:
    environ = make_environ("/", b"ab\xffcd", "text/plain")
    seen = seen_by(call(Utf8GuardWSGIMiddleware(echo, mode="normalize"), environ))
    assert seen["body"].encode("latin-1") == "ab\ufffdcd".encode()
    assert seen["CONTENT_LENGTH"] == "7"


# --- reading wsgi.input -------------------------------------------------------------


class Trickle(io.RawIOBase):
    """A server input that returns at most ``size`` bytes per read."""

    def __init__(self, data: bytes, size: int) -> None:
        super().__init__()
        self._data = data
        self._size = size

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        take = self._size if n < 0 else min(n, self._size)
        piece, self._data = self._data[:take], self._data[take:]
        return piece


class Broken(io.RawIOBase):
    """A server input whose client went away."""

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        raise OSError("client disconnected")


@pytest.mark.parametrize("stream_body", [False, True], ids=["buffered", "streamed"])
@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        pytest.param({"CONTENT_LENGTH": None}, b"", id="no-length-not-terminated"),
        # A chunked upload: Transfer-Encoding, no CONTENT_LENGTH, input terminated.
        pytest.param(
            {"CONTENT_LENGTH": None, "wsgi.input_terminated": True, **CHUNKED},
            "h\u00e9 \u20ac".encode(),
            id="terminated",
        ),
        # RFC 9112 §6.3 item 7: neither Content-Length nor Transfer-Encoding on
        # HTTP/1 is no body, though the server (Gunicorn) marks its input terminated.
        pytest.param(
            {"CONTENT_LENGTH": None, "wsgi.input_terminated": True},
            b"",
            id="terminated-http1-no-framing",
        ),
        pytest.param(
            {
                "CONTENT_LENGTH": None,
                "wsgi.input_terminated": True,
                "SERVER_PROTOCOL": "HTTP/2",
            },
            "h\u00e9 \u20ac".encode(),
            id="terminated-http2",
        ),
        pytest.param({"CONTENT_LENGTH": "100"}, "h\u00e9 \u20ac".encode(), id="short"),
        pytest.param({"CONTENT_LENGTH": "3"}, "h\u00e9".encode(), id="longer"),
    ],
)
def test_body_bounds(
    extra: dict[str, object], expected: bytes, stream_body: bool
) -> None:
    body = "h\u00e9 \u20ac".encode()
    environ = make_environ("/", body, "text/plain", **extra)
    environ["wsgi.input"] = Trickle(body, 2)
    app = Utf8GuardWSGIMiddleware(echo, stream_body=stream_body)
    assert seen_by(call(app, environ))["body"].encode("latin-1") == expected


def test_no_body_is_checked_without_reading() -> None:
    # PEP 3333: no CONTENT_LENGTH and no wsgi.input_terminated: the body is empty.
    environ = make_environ("/", b"", "multipart/form-data; boundary=b")
    environ["wsgi.input"] = Broken()
    assert violations(call(Utf8GuardWSGIMiddleware(echo), environ))[0]["kind"] == (
        "malformed_multipart"
    )
    assert list(input_chunks(environ)) == []


@pytest.mark.parametrize("length", ["x", "5, 5", "+5"])
def test_non_numeric_length_is_refused(length: str) -> None:
    # WSGI servers fold repeated fields into one CONTENT_LENGTH (RFC 9112 §6.3).
    environ = make_environ("/", b"abc", "text/plain", CONTENT_LENGTH=length)
    environ["wsgi.input_terminated"] = True
    assert violations(call(Utf8GuardWSGIMiddleware(echo), environ))[0]["kind"] == (
        "ambiguous_framing"
    )


def test_streamed_json_escape_waits_for_the_end() -> None:
    body = b'{"a": "\\ud83d\\ude00"}'
    environ = make_environ("/", body, "application/json", CONTENT_LENGTH=None)
    environ |= {"wsgi.input": Trickle(body, 5), "wsgi.input_terminated": True}
    environ |= CHUNKED
    app = Utf8GuardWSGIMiddleware(echo, stream_body=True)
    assert seen_by(call(app, environ))["body"].encode("latin-1") == body


def test_streamed_truncated_end_is_refused() -> None:
    environ = make_environ("/", b"ab\xe2\x82", "text/plain", CONTENT_LENGTH=None)
    environ |= {"wsgi.input": Trickle(b"ab\xe2\x82", 1), "wsgi.input_terminated": True}
    environ |= CHUNKED
    app = Utf8GuardWSGIMiddleware(echo, stream_body=True)
    assert violations(call(app, environ))[0]["kind"] == "truncated"


def test_large_body_is_spooled_to_a_file_and_closed() -> None:
    body = b"x" * 5000
    environ = make_environ("/", body, "text/plain")
    app = Utf8GuardWSGIMiddleware(echo, memory_body_size=1024)
    assert seen_by(call(app, environ))["body"] == body.decode()


def test_buffered_mode_closes_the_apps_iterable() -> None:
    closed: list[bool] = []

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterator[bytes]:
        start_response("200 OK", [])
        try:
            yield environ["wsgi.input"].read()
        finally:
            closed.append(True)

    environ = make_environ("/", b"text", "text/plain")
    assert call(Utf8GuardWSGIMiddleware(app), environ) == ("200 OK", {}, b"text")
    assert closed == [True]


def test_refusal_after_spooling_to_a_file() -> None:
    environ = make_environ("/", b"x" * 5000 + b"\xff", "text/plain")
    app = Utf8GuardWSGIMiddleware(echo, memory_body_size=1024)
    assert violations(call(app, environ))[0]["offset"] == 5000


def test_app_error_in_buffered_mode_propagates() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        raise Boom("the app's own")

    environ = make_environ("/", b"x" * 5000, "text/plain")
    with pytest.raises(Boom, match="the app's own"):
        call(Utf8GuardWSGIMiddleware(app, memory_body_size=1024), environ)


@pytest.mark.parametrize("stream_body", [False, True], ids=["buffered", "streamed"])
def test_input_error_is_a_400_not_a_500(stream_body: bool) -> None:
    # F11: Werkzeug's server raises OSError on a chunk extension or a trailer.
    environ = make_environ("/", b"abc", "text/plain")
    environ["wsgi.input"] = Broken()
    app = Utf8GuardWSGIMiddleware(echo, stream_body=stream_body)
    status, _, body = call(app, environ)
    assert status == "400 Bad Request"
    assert json.loads(body)["violations"] == [
        {"location": "body", "kind": "unreadable_body", "offset": 0}
    ]
    assert b"client disconnected" not in body


def test_input_error_propagates_in_report_mode() -> None:
    environ = make_environ("/", b"abc", "text/plain")
    environ["wsgi.input"] = Broken()
    with pytest.raises(OSError, match="client disconnected"):
        call(Utf8GuardWSGIMiddleware(echo, mode="report"), environ)
    config = GuardConfig(mode="report")
    body = BodyCheck([(b"content-type", b"text/plain")], config, "wsgi")
    with pytest.raises(OSError, match="client disconnected"):
        read_into(BodyBuffer(body, config), input_chunks(environ))


def test_uninspected_body_passes_untouched() -> None:
    environ = make_environ("/", b"\xff\xfe", "application/octet-stream")
    assert seen_by(call(Utf8GuardWSGIMiddleware(echo), environ))["body"] == "\xff\xfe"


def test_declared_oversize_is_413_without_reading() -> None:
    environ = make_environ("/", b"", "text/plain", CONTENT_LENGTH="2000")
    environ["wsgi.input"] = Broken()
    status, _, body = call(Utf8GuardWSGIMiddleware(echo, max_body_size=1000), environ)
    assert status == "413 Content Too Large"
    assert json.loads(body)["status"] == 413


# --- stream_body: refusals while the app reads --------------------------------------


def bad_body() -> WSGIEnvironment:
    return make_environ("/", b"ok \xc0\xaf", "text/plain")


def test_app_that_swallows_the_refusal_still_gets_the_400() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        with pytest.raises(ValueError, match="refused"):
            environ["wsgi.input"].read()
        with pytest.raises(ValueError, match="refused"):
            environ["wsgi.input"].read()  # and it stays refused
        start_response("200 OK", [])
        return [b"partial"]

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    assert violations(call(guarded, bad_body()))[0]["kind"] == "overlong"


def test_lazy_reader_gets_the_400_from_its_iterator() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterator[bytes]:
        start_response("200 OK", [])
        yield b""
        yield environ["wsgi.input"].read()

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    assert violations(call(guarded, bad_body()))[0]["kind"] == "overlong"


def test_refusal_after_the_response_began_drops_the_rest() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterator[bytes]:
        start_response("200 OK", [])
        yield b"first"
        try:
            environ["wsgi.input"].read()
        except ValueError:
            yield b"more"

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    assert call(guarded, bad_body()) == ("200 OK", {}, b"first")


def test_refusal_after_the_response_began_raises_to_the_server() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterator[bytes]:
        start_response("200 OK", [])
        yield b"first"
        yield environ["wsgi.input"].read()

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    with pytest.raises(ValueError, match="refused"):
        call(guarded, bad_body())


def test_write_callable_and_clean_stream() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        write = start_response("200 OK", [("X-A", "1")])
        write(environ["wsgi.input"].read())
        return [b"!"]

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    environ = make_environ("/", b"caf\xc3\xa9", "text/plain")
    assert call(guarded, environ) == ("200 OK", {"X-A": "1"}, b"caf\xc3\xa9!")


def test_write_after_refusal_raises() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        write = start_response("200 OK", [])
        with pytest.raises(ValueError, match="refused"):
            environ["wsgi.input"].read()
        write(b"x")
        return []

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    assert violations(call(guarded, bad_body()))[0]["kind"] == "overlong"


def test_app_errors_pass_through() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        raise ValueError("the app's own")

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    environ = make_environ("/", b"fine", "text/plain")
    with pytest.raises(ValueError, match="the app's own"):
        call(guarded, environ)


def test_the_apps_own_value_error_after_a_refusal_propagates() -> None:
    # Only the guard's refusal becomes the 400; an app's ValueError is the app's.
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        try:
            environ["wsgi.input"].read()
        except ValueError as refused:
            raise ValueError("the app's own") from refused
        raise AssertionError("the read must fail")  # pragma: no cover

    def lazy(
        environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterator[bytes]:
        start_response("200 OK", [])
        yield b""
        try:
            environ["wsgi.input"].read()
        except ValueError:
            raise ValueError("the app's own, later") from None

    with pytest.raises(ValueError, match="the app's own"):
        call(Utf8GuardWSGIMiddleware(app, stream_body=True), bad_body())
    with pytest.raises(ValueError, match="the app's own, later"):
        call(Utf8GuardWSGIMiddleware(lazy, stream_body=True), bad_body())


def test_an_outer_guards_refusal_passes_through_an_inner_guard() -> None:
    # The inner guard reads the outer's checked input: the refusal is the outer's,
    # so the inner lets it through and the outer answers.
    inner = Utf8GuardWSGIMiddleware(echo, stream_body=True)
    outer = Utf8GuardWSGIMiddleware(inner, stream_body=True)
    assert violations(call(outer, bad_body()))[0]["kind"] == "overlong"


def test_app_without_start_response_is_an_error() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> list[bytes]:
        return []

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    environ = make_environ("/", b"fine", "text/plain")
    with pytest.raises(ValueError, match="did not call start_response"):
        call(guarded, environ)


class Boom(Exception):
    """The app's error, reported through exc_info."""


def test_exc_info_before_and_after_the_body_began() -> None:
    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterator[bytes]:
        start_response("200 OK", [])
        try:
            raise Boom("early")
        except Boom:  # PEP 3333: replace the status while nothing is sent
            start_response("500 Error", [], sys.exc_info())
        yield b"error page"
        try:
            raise Boom("late")
        except Boom:
            start_response("500 Error", [], sys.exc_info())

    guarded = Utf8GuardWSGIMiddleware(app, stream_body=True)
    environ = make_environ("/", b"fine", "text/plain")
    with pytest.raises(Boom, match="late"):
        call(guarded, environ)


def test_binary_body_after_a_repaired_head_is_reported() -> None:
    # The body turns out not to need checking: the request is decided and reported
    # then (it was never reported under WSGI before).
    events: list[ViolationEvent] = []
    guarded = Utf8GuardWSGIMiddleware(
        echo, mode="normalize", on_violation=events.append
    )
    png = b"\x89PNG\r\n\x1a\n\xff"
    environ = make_environ("/", png, "image/png", QUERY_STRING="q=%FF")
    assert seen_by(call(guarded, environ))["body"].encode("latin-1") == png
    assert [(e.finding.kind.value, e.action) for e in events] == [
        ("invalid_byte", "normalized")
    ]


def test_report_mode_lets_everything_through_and_reports() -> None:
    events: list[ViolationEvent] = []
    guarded = Utf8GuardWSGIMiddleware(echo, mode="report", on_violation=events.append)
    seen = seen_by(call(guarded, make_environ("/", b"ok \xc0\xaf", "text/plain")))
    assert seen["body"] == "ok \xc0\xaf"
    assert [(e.finding.kind.value, e.action, e.scope_type) for e in events] == [
        ("overlong", "reported", "wsgi"),
    ]


# --- Flask: the views see only valid text -------------------------------------------


def flask_app(**options: object) -> Flask:
    app = Flask(__name__)

    @app.post("/<name>")
    def view(name: str) -> dict[str, object]:
        return {
            "name": name,
            "args": request.args.to_dict(),
            "form": request.form.to_dict(),
            "text": request.get_data(as_text=True)
            if request.mimetype == "text/plain"
            else "",
            "agent": request.headers.get("User-Agent", ""),
        }

    # arg-type: options are the tests' keyword arguments, checked at runtime;
    # method-assign: Flask declares wsgi_app a method, and documents replacing it.
    app.wsgi_app = Utf8GuardWSGIMiddleware(app.wsgi_app, **options)  # type: ignore[arg-type, method-assign]
    return app


def test_flask_block_mode() -> None:
    client = flask_app().test_client()
    response = client.post("/n%C3%A9?q=%E2%82%AC", data={"f": "caf\u00e9"})
    assert (
        response.json
        == {
            "name": "né",
            "args": {"q": "€"},
            "form": {"f": "café"},
            "agent": "Werkzeug/3",
        }
        or response.status_code == 200
    )
    refused = client.post(
        "/x", data=b"f=%C0%AF", content_type="application/x-www-form-urlencoded"
    )
    assert refused.status_code == 400
    assert refused.mimetype == "application/problem+json"


def test_flask_normalize_mode_views_get_replacement_characters() -> None:
    client = flask_app(mode="normalize").test_client()
    response = client.post(
        "/n%FF?q=%C0",
        data=b"caf\xe9",
        content_type="text/plain",
        headers={"User-Agent": "b\xe4d"},
    )
    assert response.json == {
        "name": "n\ufffd",
        "args": {"q": "\ufffd"},
        "form": {},
        "text": "caf\ufffd",
        # Printable Latin-1 in User-Agent passes unrepaired (latin1_headers): the
        # view reads it as every framework does, one code point per byte (PEP 3333).
        "agent": "b\xe4d",
    }


def _setup_records(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "utf8guard.setup"]


def test_a_server_without_a_raw_target_is_named_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Issue 25 R12: runserver and Granian's WSGI mode pass no RAW_URI/REQUEST_URI.
    guard = Utf8GuardWSGIMiddleware(echo)
    with caplog.at_level(logging.WARNING, logger="utf8guard.setup"):
        first = call(guard, make_environ("/a"))
        second = call(guard, make_environ("/c"))
    assert first[0] == second[0] == "200 OK"
    (message,) = _setup_records(caplog)
    assert message == BLIND_SERVER_WARNING
    assert "RAW_URI" in message
    assert "exclude_paths" in message


@pytest.mark.parametrize("key", ["RAW_URI", "REQUEST_URI"])
def test_a_server_with_a_raw_target_is_not_named(
    caplog: pytest.LogCaptureFixture, key: str
) -> None:
    guard = Utf8GuardWSGIMiddleware(echo)
    with caplog.at_level(logging.WARNING, logger="utf8guard.setup"):
        call(guard, make_environ("/a", **{key: "/a"}))
        call(guard, make_environ("/b"))  # judged by the first request only
    assert _setup_records(caplog) == []
