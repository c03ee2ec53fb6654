"""End to end, raw sockets: bodies the frameworks parse never carry refused text.

Werkzeug's server raises ``OSError`` from ``wsgi.input`` on a chunk extension, a
trailer or a bad chunk size (F11); Gunicorn parses extensions and trailers and
answers a bad chunk size with its own 400. FastAPI parses any body as JSON for a
body model, whatever its Content-Type, and answered F10 with a 500.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .._servers import HOST, echo_server, request, uvicorn_server
from .test_e2e_wsgi import SERVERS

#: Host, port and which server it is.
Server = tuple[str, int, str]

_CHUNKED = (
    b"POST /t HTTP/1.1\r\nContent-Type: text/plain\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)
ODD_CHUNKS = [
    ("extension", b"2;e=1\r\nab\r\n0\r\n\r\n"),
    ("trailer", b"2\r\nab\r\n0\r\nX-T: 1\r\n\r\n"),
    ("bad-size", b"zz\r\nab\r\n0\r\n\r\n"),
    ("extension-bytes", b"2;e=\xff\r\nab\r\n0\r\n\r\n"),
]


@pytest.fixture(scope="module", params=SERVERS)
def wsgi_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    name: str = request.param
    log = tmp_path_factory.mktemp(name) / "stderr.log"
    with echo_server(name, lifetime_seconds=120, log=log) as process:
        yield HOST, process.port, name
    # The guard logs kinds and offsets; never a traceback with the body's bytes.
    assert b"Traceback" not in log.read_bytes()
    assert b"\xff" not in log.read_bytes()


@pytest.mark.parametrize(
    "body", [case[1] for case in ODD_CHUNKS], ids=[case[0] for case in ODD_CHUNKS]
)
def test_odd_chunked_body_is_never_a_500(wsgi_server: Server, body: bytes) -> None:
    status, reply = request(*wsgi_server[:2], _CHUNKED, body)
    assert status < 500
    if wsgi_server[2] == "werkzeug":
        assert status == 400
        violations = reply["violations"]
        assert isinstance(violations, list)
        assert violations[0]["kind"] == "unreadable_body"
    elif body.startswith((b"2;e=1", b"2\r\n")):
        assert (status, reply["body"], reply["clean"]) == (200, "ab", True)
    else:
        assert status == 400  # Gunicorn's own answer


@pytest.fixture(scope="module")
def fastapi_server() -> Iterator[tuple[str, int]]:
    factory = "tests.middleware.e2e_fastapi_app:create"
    with uvicorn_server(factory, lifetime_seconds=120) as process:
        yield HOST, process.port


def _post(target: bytes, content_type: bytes | None, body: bytes) -> bytes:
    head = b"POST %s HTTP/1.1\r\n" % target
    if content_type is not None:
        head += b"Content-Type: %s\r\n" % content_type
    return head + b"Content-Length: %d\r\n\r\n" % len(body)


REFUSED_JSON = [
    # F10: no Content-Type, a raw surrogate: FastAPI's 422 handler answered 500.
    ("f10-raw-surrogate", b"/model", None, b'{"a": "\xed\xa0\x80"}', "surrogate"),
    ("no-type-escape", b"/model", None, b'{"a": "\\ud800"}', "json_surrogate_escape"),
    (
        "text-escape",
        b"/json",
        b"text/plain",
        b'{"a": "\\udfff"}',
        "json_surrogate_escape",
    ),
    (
        "octet-escape",
        b"/json",
        b"application/octet-stream",
        b' {"a": "\\uffff"}',
        "noncharacter",
    ),
    (
        "ndjson-escape",
        b"/json",
        b"application/x-ndjson",
        b'{"a": "\\ud800"}',
        "json_surrogate_escape",
    ),
    # F2: json.loads(bytes) decodes UTF-16 and UTF-32 by itself.
    (
        "utf16-json",
        b"/model",
        b"application/json",
        '{"a": "\\ud800"}'.encode("utf-16-le"),
        "non_utf8_json",
    ),
    (
        "utf32-octet",
        b"/json",
        b"application/octet-stream",
        '{"a": "\\ufdd0"}'.encode("utf-32-be"),
        "non_utf8_json",
    ),
    (
        "charset-star",
        b"/json",
        b"application/json; charset*=utf-8''utf-7",
        b'{"a": "+ADw-"}',
        "unsupported_charset",
    ),
]


@pytest.mark.parametrize(
    ("target", "content_type", "body", "kind"),
    [case[1:] for case in REFUSED_JSON],
    ids=[case[0] for case in REFUSED_JSON],
)
def test_json_under_any_type_is_checked(
    fastapi_server: tuple[str, int],
    target: bytes,
    content_type: bytes | None,
    body: bytes,
    kind: str,
) -> None:
    status, reply = request(*fastapi_server, _post(target, content_type, body), body)
    assert status == 400
    violations = reply["violations"]
    assert isinstance(violations, list)
    assert violations[0]["kind"] == kind


def test_clean_json_under_any_type_passes(fastapi_server: tuple[str, int]) -> None:
    body = '{"a": "h\u00e9 \\u00e9 \\ud83d\\ude00"}'.encode()
    expected = "h\u00e9 \u00e9 \U0001f600"
    # FastAPI reads a body with no type as bytes, not JSON: its 422 (once a 500,
    # F10, when the bytes were not UTF-8). The guard lets the valid body through.
    status, _ = request(*fastapi_server, _post(b"/model", None, body), body)
    assert status == 422
    head = _post(b"/model", b"application/json", body)
    assert request(*fastapi_server, head, body) == (200, {"a": ascii(expected)})
    # Starlette's request.json() parses the body whatever the type says.
    for content_type in (b"text/plain", b"application/octet-stream"):
        head = _post(b"/json", content_type, body)
        status, reply = request(*fastapi_server, head, body)
        assert (status, reply) == (200, {"json": ascii({"a": expected})})


ASGI_SERVERS = ("uvicorn-h11", "uvicorn-httptools", "hypercorn")


@pytest.fixture(scope="module", params=ASGI_SERVERS)
def asgi_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    name: str = request.param
    with echo_server(name, lifetime_seconds=120) as process:
        yield HOST, process.port, name


_POST = b"POST /t HTTP/1.1\r\nContent-Type: text/plain\r\n"
FRAMING = [
    ("two-lengths", _POST + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n", b"abc"),
    (
        "length-and-chunked",
        _POST + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"2\r\nab\r\n0\r\n\r\n",
    ),
    ("plus-length", _POST + b"Content-Length: +2\r\n\r\n", b"ab"),
    # RFC 9112 §6.3 lets a server merge equal values: h11 (uvicorn, hypercorn) does,
    # and then the one length it kept is the only one the guard can see.
    ("equal-lengths", _POST + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n", b"ab"),
    ("length-list", _POST + b"Content-Length: 2, 2\r\n\r\n", b"ab"),
]


@pytest.mark.parametrize(
    ("head", "body"), [case[1:] for case in FRAMING], ids=[case[0] for case in FRAMING]
)
def test_ambiguous_framing_asgi(asgi_server: Server, head: bytes, body: bytes) -> None:
    status, reply = request(*asgi_server[:2], head, body)
    if status == 200:
        # Only a merge of equal values by the server itself gets through.
        assert head.count(b": 2") == 2 or b"2, 2" in head
        assert (reply["body"], reply["length"]) == ("ab", 2)
    else:
        assert status == 400


@pytest.mark.parametrize(
    ("head", "body"), [case[1:] for case in FRAMING], ids=[case[0] for case in FRAMING]
)
def test_ambiguous_framing_wsgi(wsgi_server: Server, head: bytes, body: bytes) -> None:
    status, reply = request(*wsgi_server[:2], head, body)
    if status == 200:
        # Werkzeug's server keeps one of two Content-Length fields and drops the
        # other before the guard runs (SECURITY.md, WSGI); Gunicorn refuses them.
        assert wsgi_server[2] == "werkzeug"
        assert head.count(b"Content-Length") == 2
        assert reply["clean"] is True
    else:
        assert status == 400
