"""End to end: the request-head rules of issue 11 over raw sockets, on four servers.

uvicorn (h11 and httptools) with the ASGI echo app, Werkzeug's development server
and Gunicorn with the Flask echo app, each in a subprocess on 127.0.0.1. Every row
must be refused with a 400 (the guard's problem document, or the server's own 400
before any app runs); no row may reach an app or cost a 5xx. A few rows per rule:
the differential suite covers the seven stacks in full.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .._servers import HOST, echo_server
from .._servers import request as send_raw

SERVERS = ("uvicorn-h11", "uvicorn-httptools", "werkzeug", "gunicorn")
#: Host, port and which server it is.
Server = tuple[str, int, str]


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    name: str = request.param
    with echo_server(name, lifetime_seconds=300) as process:
        yield HOST, process.port, name


ROWS = [
    # (id, request head, kind and raw offset of the guard's first finding)
    # offsets count in the raw target on every server (Werkzeug's PATH_INFO holds
    # two U+FFFD here, six bytes, where the target has %C0%AF)
    ("offset-after-overlong", b"GET /a/%C0%AF/%FF HTTP/1.1\r\n\r\n", "overlong", 3),
    # F4: the hex digits of a double-encoded "." and "/" escaped themselves
    (
        "double-nibbles-dotdot",
        b"GET /static/%25%32%65%25%32%65/secret HTTP/1.1\r\n\r\n",
        "double_encoding",
        8,
    ),
    (
        "double-nibbles-slash",
        b"GET /a%25%32%46b HTTP/1.1\r\n\r\n",
        "double_encoding",
        2,
    ),
    (
        "double-nibbles-overlong",
        b"GET /%25%43%30%25%41%46 HTTP/1.1\r\n\r\n",
        "double_encoding",
        1,
    ),
    # F6: a decoded CR LF in the path
    ("path-crlf", b"GET /a%0D%0ASet-Cookie:%20evil=1 HTTP/1.1\r\n\r\n", "control", 2),
    # F13: dot segments delimited by "\\" or carrying ";" parameters
    (
        "encoded-dotdot-backslash",
        b"GET /static/%2e%2e\\secret HTTP/1.1\r\n\r\n",
        "encoded_dot_segment",
        8,
    ),
    (
        "encoded-dotdot-semicolon",
        b"GET /static/%2e%2e;/secret HTTP/1.1\r\n\r\n",
        "encoded_dot_segment",
        8,
    ),
    (
        "dotdot-semicolon",
        b"GET /static/..;/secret HTTP/1.1\r\n\r\n",
        "ambiguous_dot_segment",
        8,
    ),
    # #8: raw bytes over 0x7F in the target, valid UTF-8 or not
    ("raw-overlong-path", b"GET /a\xc0\xafb HTTP/1.1\r\n\r\n", "non_ascii_target", 2),
    (
        "raw-overlong-query",
        b"GET /q?x=\xc0\xaf HTTP/1.1\r\n\r\n",
        "non_ascii_target",
        2,
    ),
    (
        "raw-utf8-path",
        "GET /raw/ä€𝄞 HTTP/1.1\r\n\r\n".encode(),
        "non_ascii_target",
        5,
    ),
    ("raw-utf8-query", "GET /q?x=ä HTTP/1.1\r\n\r\n".encode(), "non_ascii_target", 2),
    # RFC 9112 §3.2: two Host lines (the client helper adds "Host: t")
    ("duplicate-host", b"GET /h HTTP/1.1\r\nHost: evil\r\n\r\n", "duplicate_header", 0),
    # F12 / #7: octal escapes, U+FFFE to Werkzeug; C0 AF, "/" to a lax decoder
    (
        "cookie-octal-noncharacter",
        b'GET /c HTTP/1.1\r\nCookie: a="\\357\\277\\276"\r\n\r\n',
        "noncharacter",
        3,
    ),
    (
        "cookie-octal-overlong",
        b'GET /c HTTP/1.1\r\nCookie: a="\\300\\257"\r\n\r\n',
        "cookie_octal_escape",
        3,
    ),
    ("cookie-octal-nul", b'GET /c HTTP/1.1\r\nCookie: b="x\\000y"\r\n\r\n', "nul", 4),
]


@pytest.mark.parametrize(
    ("head", "kind", "offset"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_head_attack_is_refused(
    server: Server, head: bytes, kind: str, offset: int
) -> None:
    status, problem = send_raw(*server[:2], head)
    assert status == 400
    if problem:  # else the server refused it itself, before any app ran
        violations = problem["violations"]
        assert isinstance(violations, list)
        # the same first finding, at the same raw offset, on every server
        assert (violations[0]["kind"], violations[0]["offset"]) == (kind, offset)


def test_valid_head_passes(server: Server) -> None:
    status, seen = send_raw(
        *server[:2],
        b"GET /ok/%C3%A4/v1.2;x/..a?q=%E2%82%AC HTTP/1.1\r\n"
        b'Cookie: a="b c"; d=e; f="\\101"\r\nX-Name: caf\xc3\xa9\tx\r\n\r\n',
    )
    assert status == 200
    assert seen["clean"] is True
