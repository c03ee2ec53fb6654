"""End to end: uvicorn in a subprocess on 127.0.0.1, raw HTTP/1.1 over a socket.

Raw sockets, so no client normalises the path or re-encodes a header. The app
reports whether anything it received was invalid (``clean``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .._servers import HOST, chunked, echo_server, request

#: The 50 MB upload: large enough that buffering it in memory would show in RSS.
UPLOAD_BYTES = 50 * 1024 * 1024
#: Peak RSS growth allowed for that upload; the guard spools it to a file instead.
RSS_GROWTH_KIB = 16 * 1024


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    if not Path("/proc/self/status").exists():  # pragma: no cover
        pytest.skip("needs Linux /proc to measure the server's memory")
    name = "uvicorn-h11"
    with echo_server(name, lifetime_seconds=300) as process:
        yield HOST, process.port


def test_valid_text_arrives_intact(server: tuple[str, int]) -> None:
    # h11 refuses raw non-ASCII in the request target, so path and query are escaped.
    body = "ä € 𝄞".encode()
    status, seen = request(
        *server,
        b"POST /%C3%A4/%E2%82%AC/%F0%9D%84%9E?q=%E2%82%AC&r=%C3%A4 HTTP/1.1\r\n"
        b"X-Name: \xf0\x9d\x84\x9e\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + b"Content-Length: %d\r\n\r\n"
        % len(body),
        body,
    )
    assert status == 200
    assert seen == {
        "path": "/ä/€/𝄞",
        "query": {"q": "€", "r": "ä"},
        "x-name": "𝄞",
        "body": "ä € 𝄞",
        "length": 11,
        "clean": True,
    }


def test_chunked_body_with_characters_straddling_chunks(
    server: tuple[str, int],
) -> None:
    status, seen = request(
        *server,
        b"POST /t HTTP/1.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n",
        chunked(
            b'{"a": "\xc3',
            b"\xa4\xe2\x82",
            b'\xac\xf0\x9d\x84\x9e", "e": "\\ud83d',
            b'\\ude00"}',
        ),
    )
    assert status == 200
    assert seen["body"] == '{"a": "ä€𝄞", "e": "\\ud83d\\ude00"}'
    assert seen["clean"] is True


def test_chunked_invalid_sequence_straddling_chunks(server: tuple[str, int]) -> None:
    status, problem = request(
        *server,
        b"POST /t HTTP/1.1\r\nContent-Type: text/plain\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n",
        chunked(b"fine \xed", b"\xa0\x80 rest"),
    )
    assert status == 400
    assert problem["violations"][0] == {  # type: ignore[index]
        "location": "body",
        "kind": "surrogate",
        "offset": 5,
    }


def post(content_type: bytes, body: bytes) -> tuple[bytes, bytes]:
    head = b"POST / HTTP/1.1\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
    return head % (content_type, len(body)), body


ATTACKS = [
    # (id, request head, body, expected kind of the first violation)
    ("overlong-slash", b"GET /etc%C0%AFpasswd HTTP/1.1\r\n\r\n", b"", "overlong"),
    # raw non-ASCII in the target: h11 answers 400 itself, before any app
    ("raw-overlong", b"GET /etc\xc0\xafpasswd HTTP/1.1\r\n\r\n", b"", None),
    ("double-encoded", b"GET /%25C0%25AF HTTP/1.1\r\n\r\n", b"", "double_encoding"),
    ("double-dot", b"GET /a/%252e%252e/b HTTP/1.1\r\n\r\n", b"", "double_encoding"),
    ("iis-unicode", b"GET /a%u002fb HTTP/1.1\r\n\r\n", b"", "nonstandard_escape"),
    ("bad-escape", b"GET /a%G0 HTTP/1.1\r\n\r\n", b"", "malformed_escape"),
    ("encoded-slash", b"GET /a%2Fb HTTP/1.1\r\n\r\n", b"", "encoded_separator"),
    (
        "encoded-backslash",
        b"GET /a%5c..%5cb HTTP/1.1\r\n\r\n",
        b"",
        "encoded_separator",
    ),
    ("encoded-dotdot", b"GET /%2e%2e/etc HTTP/1.1\r\n\r\n", b"", "encoded_dot_segment"),
    (
        "fullwidth-slash",
        b"GET /a%EF%BC%8F..%EF%BC%8Fb HTTP/1.1\r\n\r\n",
        b"",
        "lookalike_separator",
    ),
    (
        "division-slash",
        b"GET /a%E2%88%95b HTTP/1.1\r\n\r\n",
        b"",
        "lookalike_separator",
    ),
    ("nul-in-path", b"GET /a%00.txt HTTP/1.1\r\n\r\n", b"", "nul"),
    ("rlo-in-path", b"GET /a%E2%80%AEtxt.exe HTTP/1.1\r\n\r\n", b"", "bidi_control"),
    ("query-surrogate", b"GET /?q=%ED%A0%80 HTTP/1.1\r\n\r\n", b"", "surrogate"),
    ("query-latin1", b"GET /?q=caf%E9 HTTP/1.1\r\n\r\n", b"", "truncated"),
    ("header-latin1", b"GET / HTTP/1.1\r\nX-Name: caf\xe9\r\n\r\n", b"", "truncated"),
    # RFC 9110 §5.5: no CTL but HTAB in a field value (h11 passes ESC to the app)
    ("header-esc", b"GET / HTTP/1.1\r\nUser-Agent: a\x1b[31m\r\n\r\n", b"", "control"),
    (
        "json-lone-surrogate",
        *post(b"application/json", b'{"a":"\\ud800"}'),
        "json_surrogate_escape",
    ),
    (
        "json-raw-surrogate",
        *post(b"application/json", b'{"a":"\xed\xa0\x80"}'),
        "surrogate",
    ),
    ("utf7-body", *post(b"text/plain; charset=utf-7", b"+ADw-"), "unsupported_charset"),
    (
        "form-overlong",
        *post(b"application/x-www-form-urlencoded", b"a=%C0%AF"),
        "overlong",
    ),
    (
        "multipart-filename-rlo",
        *post(
            b"multipart/form-data; boundary=B",
            b'--B\r\nContent-Disposition: form-data; name="f"; '
            b'filename="\xe2\x80\xaetxt.exe"\r\n\r\nx\r\n--B--\r\n',
        ),
        "bidi_control",
    ),
]


@pytest.mark.parametrize(
    ("head", "body", "kind"),
    [case[1:] for case in ATTACKS],
    ids=[case[0] for case in ATTACKS],
)
def test_attack_is_refused(
    server: tuple[str, int], head: bytes, body: bytes, kind: str | None
) -> None:
    status, problem = request(*server, head, body)
    assert status == 400
    if kind is None:
        assert problem == {}
    else:
        assert problem["violations"][0]["kind"] == kind  # type: ignore[index]


def test_oversize_body_is_413(server: tuple[str, int]) -> None:
    status, problem = request(
        *server,
        b"POST / HTTP/1.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n" % (65 * 1024 * 1024),
    )
    assert (status, problem["status"]) == (413, 413)


@pytest.mark.slow
def test_50_mb_upload_keeps_server_memory_flat(server: tuple[str, int]) -> None:
    _, before = request(*server, b"GET /memory HTTP/1.1\r\n\r\n")
    line = "ä€𝄞 valid text, line after line\n".encode()
    body = line * (UPLOAD_BYTES // len(line))
    status, seen = request(
        *server,
        b"POST /upload HTTP/1.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body),
        body,
    )
    _, after = request(*server, b"GET /memory HTTP/1.1\r\n\r\n")
    assert status == 200
    assert (seen["length"], seen["clean"]) == (len(body), True)
    growth = after["VmHWM"] - before["VmHWM"]  # type: ignore[operator]
    print(f"server peak RSS grew {growth} KiB over a {len(body)} byte upload")
    assert growth < RSS_GROWTH_KIB, f"peak RSS grew {growth} KiB"
