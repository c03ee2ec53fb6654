"""One table of requests for every adapter and server test: attacks and clean controls.

Each row is ``(id, method, target, headers, body, status)``: the raw request target
(ASCII, so every client and server passes it on unchanged), extra headers besides
Host and Content-Length, the body, and the status the default guard (block mode)
answers with under ``MAX_BODY_BYTES`` below.
"""

from __future__ import annotations

from typing import Final

#: The body limit the tests configure, small so that the oversize row stays small.
MAX_BODY_BYTES: Final = 64 * 1024

Row = tuple[str, str, bytes, tuple[tuple[bytes, bytes], ...], bytes, int]

_JSON: Final = ((b"content-type", b"application/json"),)
_BINARY: Final = ((b"content-type", b"application/octet-stream"),)
_TEXT: Final = ((b"content-type", b"text/plain; charset=utf-8"),)
_FORM: Final = ((b"content-type", b"application/x-www-form-urlencoded"),)
_MULTIPART: Final = ((b"content-type", b"multipart/form-data; boundary=XyZ"),)


def _multipart(value: bytes) -> bytes:
    """One form field in RFC 7578 framing."""
    return (
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="comment"\r\n\r\n'
        + value
        + b"\r\n--XyZ--\r\n"
    )


ROWS: Final[tuple[Row, ...]] = (
    # Clean controls: each must pass untouched.
    ("clean-get", "GET", b"/hello/caf%C3%A9?name=%E2%82%AC", (), b"", 200),
    ("clean-json", "POST", b"/api", _JSON, '{"a": "h\u00e9 \u20ac"}'.encode(), 200),
    # A declared binary type that does not start like JSON passes untouched (a body
    # with no Content-Type is checked as text: SECURITY.md, Content-Type).
    ("clean-binary", "POST", b"/upload", _BINARY, b"\xff\xfe\xc0\xaf", 200),
    # Table 3-7: C0 AF is the overlong "/" of CVE-2000-0884 (IIS traversal).
    ("path-overlong-slash", "GET", b"/files/%C0%AF..%C0%AFetc", (), b"", 400),
    # Table 3-7 row ED: A0..BF would encode a surrogate (U+D800).
    ("path-surrogate", "GET", b"/a%ED%A0%80", (), b"", 400),
    # RFC 3986 §2.2: an encoded "/" hides a separator from routing.
    ("path-encoded-slash", "GET", b"/a%2Fb", (), b"", 400),
    # Double encoding (CVE-2001-0333): %252e decodes to %2e, then to ".".
    ("path-double-encoding", "GET", b"/a/%252e%252e/b", (), b"", 400),
    # RFC 3986 §5.2.4 leaves encoded dot segments to a later decode.
    ("path-encoded-dot-segment", "GET", b"/static/%2e%2e/app.py", (), b"", 400),
    # UAX #15: U+FF0F FULLWIDTH SOLIDUS becomes "/" under NFKC.
    ("path-lookalike-slash", "GET", b"/a%EF%BC%8Fb", (), b"", 400),
    # NUL truncates paths in C-based layers.
    ("path-nul", "GET", b"/a%00.txt", (), b"", 400),
    # IIS %u escapes (CVE-2001-0500 class): no RFC defines them.
    ("path-iis-u-escape", "GET", b"/a%u002fb", (), b"", 400),
    ("query-invalid-byte", "GET", b"/q?x=%FF", (), b"", 400),
    ("query-malformed-escape", "GET", b"/q?x=%G0", (), b"", 400),
    # Unicode ch. 23 noncharacter U+FFFE, refused by STRICT.
    ("query-noncharacter", "GET", b"/q?x=%EF%BF%BE", (), b"", 400),
    ("header-latin1", "GET", b"/h", ((b"x-name", b"caf\xe9"),), b"", 400),
    # RFC 9110 §5.5: no CTL but HTAB in a field value (ESC: a terminal escape).
    ("header-esc", "GET", b"/h", ((b"user-agent", b"a\x1b[31m"),), b"", 400),
    # Cookies reach every adapter (issue 26): a value Werkzeug wrote passes, U+FFFE
    # as Werkzeug reads its escapes and a raw overlong do not.
    (
        "clean-cookie-written",
        "GET",
        b"/c",
        ((b"cookie", b'city="mediod\\303\\255a"'),),
        b"",
        200,
    ),
    (
        "cookie-octal-fffe",
        "GET",
        b"/c",
        ((b"cookie", b'a="\\357\\277\\276"'),),
        b"",
        400,
    ),
    ("cookie-raw-overlong", "GET", b"/c", ((b"cookie", b"a=\xc0\xaf"),), b"", 400),
    ("body-json-overlong", "POST", b"/api", _JSON, b'{"a": "\xc0\xaf"}', 400),
    # RFC 8259 §8.2: a lone surrogate escape decodes to invalid text.
    ("body-json-surrogate-escape", "POST", b"/api", _JSON, b'{"a": "\\ud800"}', 400),
    ("body-form-overlong", "POST", b"/form", _FORM, b"a=1&b=%C0%AF", 400),
    ("body-text-truncated", "POST", b"/text", _TEXT, b"abc\xe2\x82", 400),
    ("body-multipart-invalid", "POST", b"/m", _MULTIPART, _multipart(b"x\xff"), 400),
    # UTF-7 smuggles "<" as +ADw- past byte-level filters.
    (
        "body-charset-utf7",
        "POST",
        b"/text",
        ((b"content-type", b"text/plain; charset=utf-7"),),
        b"+ADw-script+AD4-",
        400,
    ),
    (
        "body-too-large",
        "POST",
        b"/api",
        _JSON,
        b'"' + b"a" * MAX_BODY_BYTES + b'"',
        413,
    ),
)
