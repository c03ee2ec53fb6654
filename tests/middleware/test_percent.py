"""Strict percent-decoding: RFC 3986 §2.1 escapes, and every lenient form refused."""

from __future__ import annotations

import pytest

from utf8guard.middleware._finding import RequestKind
from utf8guard.middleware._percent import incomplete_escape_start, percent_decode

MALFORMED = RequestKind.MALFORMED_ESCAPE
NONSTANDARD = RequestKind.NONSTANDARD_ESCAPE

DECODE_CASES = [
    # each row: id, raw bytes, plus is space?, decoded bytes, escape errors
    ("plain", b"abc", False, b"abc", ()),
    ("utf8-escapes", b"%C3%a4", False, b"\xc3\xa4", ()),
    ("overlong-kept-as-bytes", b"%C0%AF", False, b"\xc0\xaf", ()),
    ("bad-hex", b"a%G0", False, b"a%G0", ((MALFORMED, 1),)),
    ("trailing-percent", b"a%", False, b"a%", ((MALFORMED, 1),)),
    ("one-hex-digit", b"%4", False, b"%4", ((MALFORMED, 0),)),
    ("iis-u-escape", b"%u002f", False, b"%u002f", ((NONSTANDARD, 0),)),
    ("iis-U-escape", b"%U002F", False, b"%U002F", ((NONSTANDARD, 0),)),
    ("plus-kept", b"a+b", False, b"a+b", ()),
    ("plus-is-space", b"a+b%2B", True, b"a b+", ()),
    ("double-is-one-level", b"%252e", False, b"%2e", ()),
]


@pytest.mark.parametrize(
    ("raw", "plus", "decoded", "errors"),
    [case[1:] for case in DECODE_CASES],
    ids=[case[0] for case in DECODE_CASES],
)
def test_percent_decode(
    raw: bytes,
    plus: bool,
    decoded: bytes,
    errors: tuple[tuple[RequestKind, int], ...],
) -> None:
    result = percent_decode(raw, plus_is_space=plus)
    assert result.data == decoded
    assert result.errors == errors


def test_raw_offset_maps_back_through_escapes() -> None:
    result = percent_decode(b"ab%C3%A4c%20d")
    assert result.data == b"ab\xc3\xa4c d"
    assert [result.raw_offset(i) for i in range(len(result.data))] == [
        0,
        1,
        2,
        5,
        8,
        9,
        12,
    ]


@pytest.mark.parametrize(
    ("raw", "start"),
    [(b"abc", 3), (b"ab%", 2), (b"ab%4", 2), (b"ab%4G", 5), (b"%", 0), (b"a4", 2)],
)
def test_incomplete_escape_start(raw: bytes, start: int) -> None:
    assert incomplete_escape_start(raw) == start
