"""Cookie values, checked as http.cookies (Starlette, Django) and Werkzeug decode them.

The oracles are the frameworks' own parsers: a value the guard passes must mean the
same to all of them, and a value it refuses as ambiguous must really be read
differently by them (issue 11, F12 and #7).
"""

from __future__ import annotations

import pytest
from django.http.cookie import (
    parse_cookie as django_parse,
)
from litestar._parsers import parse_cookie_string as litestar_parse
from starlette.requests import cookie_parser as starlette_parse
from werkzeug.http import parse_cookie as werkzeug_parse

from utf8guard import Kind, Policy
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.engine._finding import Finding, Location, RequestKind
from utf8guard.middleware.head._cookies import cookie_findings
from utf8guard.middleware.head._request import RequestHead, inspect_head


def found(value: bytes, policy: Policy | None = None) -> list[tuple[str, int]]:
    findings = cookie_findings(value, policy or Policy())
    return [(finding.kind.value, finding.offset) for finding in findings]


def parsed(header: bytes) -> tuple[dict[str, str], ...]:
    """The cookies as Starlette, Django and Werkzeug (Flask) give them to an app."""
    # Starlette decodes headers as Latin-1; Django as UTF-8 with "replace"
    # (get_str_from_wsgi); Werkzeug takes the WSGI (Latin-1) string and decodes it
    # as UTF-8 itself.
    return (
        starlette_parse(header.decode("latin-1")),
        django_parse(header.decode("utf-8", "replace")),
        dict(werkzeug_parse(header.decode("latin-1"))),
    )


VALID = [
    ("plain", b"session=abc123; theme=dark"),
    ("percent-encoded-utf8", b"name=caf%C3%A9"),
    ("quoted", b'a="hello world"'),
    ("escaped-quote-and-backslash", b'a="h\\"i\\\\j"'),
    ("ascii-octal", b'a="\\101\\102"'),
    ("escaped-backslash-then-digits", b'a="\\\\300"'),
    # issue 25 R5: escapes that decode to text pass (encodeURIComponent's JSON)
    ("percent-encoded-json", b"pref=%7B%22a%22%3A1%7D"),
    ("lone-percent", b"a=100%"),
    ("escaped-percent-once", b"a=%2500"),
]


@pytest.mark.parametrize("header", [row[1] for row in VALID], ids=[r[0] for r in VALID])
def test_valid_cookies_pass_and_mean_the_same_to_every_parser(header: bytes) -> None:
    assert found(header) == []
    starlette, django, werkzeug = parsed(header)
    assert starlette == django == werkzeug


def test_raw_utf8_cookie_passes() -> None:
    # Valid UTF-8, like any header value; Starlette shows every header as Latin-1.
    assert found("name=ä€𝄞".encode()) == []


PERCENT_REFUSED = [
    ("percent-nul", b"a=x%00y", [("nul", 3)]),
    ("percent-noncharacter", b"b=%EF%BF%BE", [("noncharacter", 2)]),
    ("percent-crlf", b"c=x%0D%0Ay", [("control", 3)]),
    ("percent-overlong", b"d=%C0%AF", [("overlong", 2)]),
    ("percent-truncated", b"d=%E2%82x", [("truncated", 2)]),
    ("percent-bidi-isolate", b"e=%E2%81%A6x", [("bidi_control", 2)]),
    ("percent-after-valid-run", b"f=%C3%A9;g=%FF", [("invalid_byte", 11)]),
]

REFUSED = [
    # (id, header, [(kind, offset in the header value)])
    # F12: U+FFFE to Werkzeug, 'ï¿¾' to the others (test_cookies_written.py has more)
    ("octal-noncharacter", b'a="\\357\\277\\276"', [("noncharacter", 3)]),
    ("octal-overlong-slash", b'a="\\300\\257"', [("cookie_octal_escape", 3)]),
    ("octal-nul", b'b="x\\000y"', [("nul", 4)]),
    ("octal-tab", b'b="\\011"', [("control", 3)]),
    ("octal-escape-char", b'b="\\033[2J"', [("control", 3)]),
    ("octal-del", b'b="\\177"', [("control", 3)]),
    ("raw-control", b"b=x\x01y", [("control", 3)]),
    ("raw-tab-inside", b"b=x\ty", [("control", 3)]),
    ("raw-c1-nel", b"b=x\xc2\x85", [("control", 3)]),
    ("raw-nul", b"b=\x00", [("nul", 2)]),
    # a backslash is no RFC 6265 cookie-octet: escapes count unquoted too
    ("unquoted-octal", b"a=\\300\\257", [("cookie_octal_escape", 2)]),
    # UAX #9 §2.4: LRI..PDI (E2 81 A6..A9), Trojan Source (CVE-2021-42574)
    ("bidi-lri", b"a=x\xe2\x81\xa6y", [("bidi_control", 3)]),
    ("bidi-pdi-in-name", b"\xe2\x81\xa9a=1", [("bidi_control", 0)]),
    ("bidi-rli-fsi", b"a=\xe2\x81\xa7\xe2\x81\xa8", [("bidi_control", 2)]),
    # issue 25 R5: Litestar percent-decodes every value; findings at the escape run
    *PERCENT_REFUSED,
]


@pytest.mark.parametrize(
    ("header", "expected"),
    [row[1:] for row in REFUSED],
    ids=[row[0] for row in REFUSED],
)
def test_cookie_rules(header: bytes, expected: list[tuple[str, int]]) -> None:
    kinds = found(header)
    # the octal escapes after the first are reported too: keep the first of each kind
    assert [kinds[0]] == expected[:1]
    assert set(kinds) >= set(expected)


def test_bidi_isolates_only_and_once() -> None:
    """U+2066..U+2069 and no neighbour; once when the policy refuses them itself."""
    isolates = [chr(code) for code in range(0x2066, 0x206A)]
    neighbours = ["\u2065", "\u206a", "\u2060", "\u00e9"]
    for char in isolates:
        value = f"a={char}".encode()
        for policy in (Policy(), Policy(allow_bidi_controls=False)):
            findings = list(cookie_findings(value, policy))
            assert [(f.kind, f.offset, f.fixable) for f in findings] == [
                (Kind.BIDI_CONTROL, 2, not policy.allow_bidi_controls)
            ]
    for char in neighbours:
        assert list(cookie_findings(f"a={char}".encode(), Policy())) == []


def test_octal_escapes_above_0177_are_read_differently() -> None:
    # The oracle for cookie_octal_escape: the parser families really disagree.
    for header in (b'a="\\357\\277\\276"', b'a="\\300\\257"', b'a="\\303\\244"'):
        starlette, django, werkzeug = parsed(header)
        assert starlette == django != werkzeug
    assert parsed(b'a="\\357\\277\\276"')[2] == {"a": "\ufffe"}
    assert parsed(b'a="\\303\\244"')[0] == {"a": "\u00c3\u00a4"}


def test_each_run_of_octal_escapes_is_judged_once() -> None:
    assert found(b'a="\\357\\277\\276\\357\\277\\277"') == [
        ("noncharacter", 3),
        ("noncharacter", 15),
    ]
    # runs end at a character, an ASCII escape or an escaped quote
    for sep in (b"x", b"\\101", b'\\"'):
        header = b'a="\\300' + sep + b'\\257"'
        assert found(header) == [], header


def test_fixable_only_what_the_policy_itself_refuses() -> None:
    findings = list(cookie_findings(b"a=\x00\xef\xbf\xbe\xff", Policy()))
    assert [(f.kind, f.fixable) for f in findings] == [
        (Kind.NUL, False),
        (Kind.NONCHARACTER, True),
        (Kind.INVALID_BYTE, True),
    ]
    assert all(f.name == "cookie" for f in findings)


def test_cookie_header_in_the_engine() -> None:
    head = RequestHead("/", b"/", b"", ((b"Cookie", b'a="\\300\\257"'),))
    assert list(inspect_head(head, GuardConfig())) == [
        Finding(Location.HEADER, "cookie", RequestKind.COOKIE_OCTAL_ESCAPE, 3),
    ]
    assert list(inspect_head(head, GuardConfig(skip_headers=["Cookie"]))) == []


#: What Litestar makes of an escape that should not be there: a control, a
#: noncharacter, U+FFFD for bytes that are not UTF-8, a bidi isolate.
_DECEPTIVE = frozenset("\x00\r\n\ufffe\ufffd\u2066")


@pytest.mark.parametrize(
    "header", [row[1] for row in PERCENT_REFUSED], ids=[r[0] for r in PERCENT_REFUSED]
)
def test_percent_rows_are_what_litestar_misreads(header: bytes) -> None:
    # The oracle: Litestar's own cookie parser (http.cookies' unquote, then
    # urllib's), on the header as an ASGI app gets it.
    values = litestar_parse(header.decode("latin-1")).values()
    assert any(_DECEPTIVE & set(value) for value in values)
    assert found(header) != []


@pytest.mark.parametrize("header", [row[1] for row in VALID], ids=[r[0] for r in VALID])
def test_valid_rows_are_plain_text_to_litestar(header: bytes) -> None:
    values = litestar_parse(header.decode("latin-1")).values()
    assert not any(_DECEPTIVE & set(value) for value in values)
