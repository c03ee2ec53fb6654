"""Cookies the Python frameworks write themselves pass; escape tricks are refused.

The oracles are the frameworks' own writers and readers (issue 26). Two families
write non-ASCII with octal escapes: ``http.cookies`` (Django, Starlette, Bottle,
Litestar) escapes a code point below 256, Werkzeug and WebOb each UTF-8 byte. Every
reader reads a written value as the writer meant it, as the other family's
mojibake (the UTF-8 bytes as Latin-1 code points), or with U+FFFD for bytes that are
not UTF-8 (docs/kinds/cookie_octal_escape.md: why these pass); WebOb alone raises
``UnicodeDecodeError`` on a code point written by ``http.cookies``.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Callable

import bottle
import pytest
from django.http import HttpResponse
from django.http.cookie import parse_cookie as django_parse
from falcon import testing as falcon_testing
from hypothesis import given
from hypothesis import strategies as st
from litestar._parsers import parse_cookie_string as litestar_parse
from litestar.datastructures import Cookie as LitestarCookie
from sanic.cookies.request import parse_cookie as sanic_parse
from sanic.cookies.response import Cookie as SanicCookie
from starlette.requests import cookie_parser as starlette_parse
from starlette.responses import Response as StarletteResponse
from werkzeug.http import dump_cookie
from werkzeug.http import parse_cookie as werkzeug_parse

from utf8guard import Policy
from utf8guard.middleware.head._cookies import cookie_findings

from . import django_site

with warnings.catch_warnings():
    # WebOb imports cgi, deprecated since Python 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    import webob

django_site.configure()


def _django(value: str) -> str:
    response = HttpResponse()
    response.set_cookie("k", value)
    return str(response.cookies["k"].OutputString())


def _starlette(value: str) -> str:
    response = StarletteResponse()
    response.set_cookie("k", value)
    return dict(response.raw_headers)[b"set-cookie"].decode("latin-1")


def _webob(value: str) -> str:
    response = webob.Response()
    with warnings.catch_warnings():
        # WebOb warns that it will refuse to quote such values one day.
        warnings.simplefilter("ignore", RuntimeWarning)
        response.set_cookie("k", value)
    return str(response.headers["Set-Cookie"])


def _bottle(value: str) -> str:
    response = bottle.BaseResponse()
    response.set_cookie("k", value)
    return str(response.headerlist[-1][1])


WRITERS: dict[str, Callable[[str], str]] = {
    "django": _django,
    "starlette": _starlette,
    "werkzeug": lambda value: dump_cookie("k", value),
    "webob": _webob,
    "bottle": _bottle,
    "sanic": lambda value: str(SanicCookie("k", value)),
    "litestar": lambda value: LitestarCookie(key="k", value=value).to_header(),
}
VALUES = {
    "ascii": "abc",
    "latin": "mediodía",
    "latin-c1-in-utf8": "Åsa…",
    "cjk": "東京",
    "emoji": "😀",
    "dquote": 'a"b',
    "backslash": "a\\b",
    "semicolon": "a;b",
    "comma": "a,b",
    "space": "a b",
}


def _wire(writer: str, set_cookie: str) -> bytes:
    """The Cookie header a browser sends back: the name=value the server sent.
    Sanic encodes a header as UTF-8, the others as Latin-1 (PEP 3333, Starlette,
    Litestar, Django's ASGI handler), so http.cookies' raw code points over 255
    cannot be sent by them."""
    pair = set_cookie.removeprefix("Set-Cookie: ").split(";")[0].strip()
    return pair.encode("utf-8" if writer == "sanic" else "latin-1")


def _written() -> list[tuple[str, str, bytes]]:
    """(writer, value id, Cookie header) for every value the writer can send."""
    rows = []
    for writer, write in WRITERS.items():
        for value_id, value in VALUES.items():
            try:
                rows.append((writer, value_id, _wire(writer, write(value))))
            except UnicodeEncodeError:
                continue
    return rows


WRITTEN = _written()


def _falcon(header: str) -> str | None:
    request = falcon_testing.create_req(headers={"Cookie": header})
    return request.cookies.get("k")


def _webob_read(header: str) -> str | None:
    request = webob.Request({"HTTP_COOKIE": header, "REQUEST_METHOD": "GET"})
    value = request.cookies.get("k")
    return None if value is None else str(value)


def _bottle_read(header: str) -> str | None:
    cookies = bottle.BaseRequest({"HTTP_COOKIE": header}).cookies
    return cookies.get("k")  # type: ignore[no-any-return]  # untyped FormsDict


#: Each reader over the header as its framework gets it: a Latin-1 str (WSGI's
#: environ, ASGI apps), Django's UTF-8 with "replace" (get_str_from_wsgi), Sanic's
#: UTF-8 with "surrogateescape" (sanic/http/http1.py).
READERS: dict[str, Callable[[bytes], str | None]] = {
    "django": lambda raw: django_parse(raw.decode("utf-8", "replace")).get("k"),
    "starlette": lambda raw: starlette_parse(raw.decode("latin-1")).get("k"),
    "werkzeug": lambda raw: werkzeug_parse(raw.decode("latin-1")).get("k"),
    "webob": lambda raw: _webob_read(raw.decode("latin-1")),
    "bottle": lambda raw: _bottle_read(raw.decode("latin-1")),
    "sanic": lambda raw: sanic_parse(raw.decode(errors="surrogateescape"))["k"][0],
    "litestar": lambda raw: litestar_parse(raw.decode("latin-1")).get("k"),
    "falcon": lambda raw: _falcon(raw.decode("latin-1")),
}


def _is_a_reading(reading: str, value: str) -> bool:
    """Whether ``reading`` is ``value`` with each character read as written, as its
    UTF-8 bytes taken for code points (a code-point reader of a byte writer's
    escapes, or a Latin-1 reader of raw UTF-8), or, for a code point below 256
    written as one escape, as U+FFFD (a byte reader: not UTF-8)."""
    forms = []
    for char in value:
        options = [re.escape(char), re.escape(char.encode().decode("latin-1"))]
        if 0x80 <= ord(char) <= 0xFF:
            options.append("\ufffd")
        forms.append(f"(?:{'|'.join(options)})")
    return re.fullmatch("".join(forms), reading) is not None


@pytest.mark.parametrize(
    ("writer", "value_id", "header"),
    WRITTEN,
    ids=[f"{writer}-{value_id}" for writer, value_id, _ in WRITTEN],
)
def test_a_written_cookie_passes_and_reads_as_written(
    writer: str, value_id: str, header: bytes
) -> None:
    value = VALUES[value_id]
    assert list(cookie_findings(header, Policy())) == []
    if header.isascii():
        assert READERS[writer](header) == value  # each reads its own escapes back
    for reader, read in READERS.items():
        try:
            reading = read(header)
        except UnicodeDecodeError:
            # WebOb decodes bytes strictly: a code point http.cookies escaped
            assert reader == "webob"
            assert writer in {"django", "starlette", "bottle", "litestar"}
            continue
        assert reading is not None, reader
        assert _is_a_reading(reading, value), reader


def test_both_families_write_escapes() -> None:
    # The table above holds the two forms the guard once refused.
    headers = {(writer, value_id): header for writer, value_id, header in WRITTEN}
    assert headers["django", "latin"] == b'k="mediod\\355a"'
    assert headers["werkzeug", "latin"] == b'k="mediod\\303\\255a"'
    assert headers["werkzeug", "emoji"] == b'k="\\360\\237\\230\\200"'


#: (id, Cookie header, kind, offset, what some reader makes of it)
ATTACKS = [
    ("octal-nul", b'k="x\\000y"', "nul", 4, "x\x00y"),
    ("octal-cr-lf", b'k="x\\015\\012y"', "control", 4, "x\r\ny"),
    ("octal-utf8-noncharacter", b'k="\\357\\277\\276"', "noncharacter", 3, "\ufffe"),
    ("octal-utf8-bidi-isolate", b'k="\\342\\201\\246x"', "bidi_control", 3, "\u2066x"),
    ("octal-utf8-c1-nel", b'k="\\302\\205"', "control", 3, "\x85"),
    ("octal-code-point-c1", b'k="\\205"', "control", 3, "\x85"),
    ("octal-lone-del", b'k="\\177"', "control", 3, "\x7f"),
    # a lax decoder (RFC 2279 §2) reads C0 AF as "/" (CVE-2000-0884)
    ("octal-overlong-slash", b'k="\\300\\257"', "cookie_octal_escape", 3, None),
    ("octal-surrogate", b'k="\\355\\240\\200"', "cookie_octal_escape", 3, None),
    ("octal-out-of-range", b'k="\\364\\220\\200\\200"', "cookie_octal_escape", 3, None),
    ("octal-overlong-3", b'k="x\\340\\200\\257"', "cookie_octal_escape", 4, None),
    # Litestar percent-decodes what http.cookies unquoted: \045 is "%"
    ("escaped-percent-nul", b'k="x\\045000y"', "nul", 4, "x\x000y"),
    ("escaped-percent-crlf", b'k="\\0450D\\0450A"', "control", 3, "\r\n"),
    ("escaped-digits-nul", b'k="%\\060\\060"', "nul", 3, "\x00"),
    ("escaped-percent-fffe", b'k="\\045EF\\045BF\\045BE"', "noncharacter", 3, "\ufffe"),
]


@pytest.mark.parametrize(
    ("header", "kind", "offset", "misread"),
    [row[1:] for row in ATTACKS],
    ids=[row[0] for row in ATTACKS],
)
def test_escape_tricks_are_refused(
    header: bytes, kind: str, offset: int, misread: str | None
) -> None:
    findings = [(f.kind.value, f.offset) for f in cookie_findings(header, Policy())]
    assert findings[0] == (kind, offset)
    if misread is not None:
        readings = []
        for read in READERS.values():
            try:
                readings.append(read(header))
            except UnicodeDecodeError:
                continue
        assert misread in readings


def test_overlong_is_a_slash_to_a_lax_decoder() -> None:
    # The oracle for the lax rows: RFC 2279's bit patterns, decoded by hand.
    lead, tail = 0o300, 0o257
    assert chr(((lead & 0x1F) << 6) | (tail & 0x3F)) == "/"


#: (id, header, findings): Latin-1 text that http.cookies writes and no byte writer
#: can (its bytes are not UTF-8); it passes unless its bytes make a whole lax form.
LATIN1_WRITTEN = [
    ("a-grave-letter", b'k="\\300l"', []),
    ("o-umlaut", b'k="K\\366ln"', []),
    ("y-umlaut-end", b'k="\\377"', []),
    ("u-umlaut-then-nbsp", b'k="\\374\\240x"', []),
    # the cost of the lax rule: "í«»" is ED AB BB, a surrogate form
    ("i-acute-then-guillemets", b'k="\\355\\253\\273"', [("cookie_octal_escape", 3)]),
]


@pytest.mark.parametrize(
    ("header", "expected"),
    [row[1:] for row in LATIN1_WRITTEN],
    ids=[row[0] for row in LATIN1_WRITTEN],
)
def test_latin1_text_written_by_http_cookies(
    header: bytes, expected: list[tuple[str, int]]
) -> None:
    findings = [(f.kind.value, f.offset) for f in cookie_findings(header, Policy())]
    assert findings == expected
    assert "\ufffd" in (READERS["werkzeug"](header) or "")
    reading = READERS["django"](header) or ""
    # code points, none a control (Unicode ch. 23.1: category Cc)
    assert all(unicodedata.category(char) != "Cc" for char in reading)


def test_a_percent_run_is_reported_once() -> None:
    # found in the raw value and again with the ASCII escapes decoded
    findings = list(cookie_findings(b'k="\\101%00"', Policy()))
    assert [(f.kind.value, f.offset) for f in findings] == [("nul", 7)]


#: Any text but the escapes' own characters (``\\`` and ``%`` have rules of their
#: own) and surrogates (no UTF-8 form).
_TEXT = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\\%"),
    max_size=12,
)


@given(_TEXT)
def test_werkzeug_escapes_are_judged_as_the_raw_text(text: str) -> None:
    # The oracle: the guard's own verdict on the same text sent raw. Werkzeug's
    # escapes (UTF-8 bytes as \ooo) are refused exactly when the raw text is.
    raw = b'k="' + text.encode() + b'"'
    escaped = _wire("werkzeug", dump_cookie("k", text))
    assert escaped.isascii()
    assert werkzeug_parse(escaped.decode("latin-1")).get("k") == text
    refused_raw = list(cookie_findings(raw, Policy())) != []
    refused_escaped = list(cookie_findings(escaped, Policy())) != []
    assert refused_escaped == refused_raw
