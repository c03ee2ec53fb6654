"""Strict percent-decoding: RFC 3986 §2.1 escapes, and every lenient form refused."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, Policy, find_violation
from utf8guard.middleware.engine._finding import RequestKind
from utf8guard.middleware.head._percent import (
    SecondDecode,
    incomplete_escape_start,
    percent_decode,
)

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


def second_decode(data: bytes, cuts: list[int], policy: Policy = STRICT) -> list[int]:
    """SecondDecode over ``data`` cut at ``cuts``; offsets are indices in ``data``."""
    second = SecondDecode(policy)
    points = sorted({min(cut, len(data)) for cut in cuts})
    found: list[int] = []
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        found += second.feed(data[a:b], lambda index, a=a: a + index)  # type: ignore[misc]
    return found + second.finish()


SECOND_CASES = [
    # each row: id, once-decoded bytes, where each failing run starts
    ("none", b"plain text", []),
    ("valid-run", b"/caf%C3%A9?q=%41", []),
    ("overlong", b"%C0%AF", [0]),
    ("truncated-at-end", b"x%E2%82", [1]),
    ("truncated-by-text", b"%E2%82x%41", [0]),
    ("stray-continuation", b"\xc3\xa9%A9", [2]),
    ("noncharacter", b"a%EF%BF%BE", [1]),
    ("each-run", b"%FF.%C3%A9.%C0%80", [0, 11]),
    ("reported-once", b"%FF%FE%FD", [0]),
    ("cut-escape-is-literal", b"%C3%A9%4", []),
    ("cut-escape-ends-run", b"%C3%4", [0]),
    ("lower-hex", b"%c0%af", [0]),
    ("middle-run-fails", b"%C3%A9.%41.%FF.%E2%82%AC", [11]),
    ("two-fail-among-valid", b"x%FF.%41.%C0.y", [1, 9]),
    ("held-percent-starts-failing-run", b"%%FF", [1]),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [case[1:] for case in SECOND_CASES],
    ids=[case[0] for case in SECOND_CASES],
)
def test_second_decode_at_every_split(data: bytes, expected: list[int]) -> None:
    assert second_decode(data, []) == expected
    for cut in range(len(data) + 1):
        assert second_decode(data, [cut]) == expected, cut
    assert second_decode(data, list(range(len(data)))) == expected


once_decoded = st.lists(
    st.sampled_from(
        [b"a", b"%", b"%4", b"%41", b"%C3", b"%A9", b"%E2", b"%82", b"%AC", b"%ED",
         b"%A0", b"%80", b"%EF", b"%BF", b"%BE", b"%C0", b"%F4", b"%90", b"%FF",
         b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xef\xbf\xbd"]
    ),
    max_size=30,
).map(b"".join)  # fmt: skip


@given(once_decoded, st.lists(st.integers(0, 100), max_size=5))
def test_second_decode_is_unquote_then_validate(data: bytes, cuts: list[int]) -> None:
    """The locality claim: once-decoded text that is valid UTF-8 is valid after a
    second decode (``unquote_to_bytes``, the stdlib's) exactly when no run fails."""
    assert find_violation(data) is None  # the alphabet is valid UTF-8 piece by piece
    valid = find_violation(unquote_to_bytes(data)) is None
    assert (second_decode(data, cuts) == []) == valid


# Controls, backslashes and cut escapes next to runs, under policies that refuse
# controls and NUL (IDENTIFIER) or allow noncharacters (WELL_FORMED).
ascii_edges = st.lists(
    st.sampled_from(
        [b"%00", b"%01", b"%7F", b"%09", b"%C2%85", b"%EF%BF%BF", b"%C3", b"%A9",
         b"%FF", b"%41", b"%", b"%4", b"%%", b"\\", b"\\x41", b"?", b".", b"x",
         b"\t", b"\xc3\xa9", b"\x01", b"\x00"]
    ),
    max_size=30,
).map(b"".join)  # fmt: skip


@pytest.mark.parametrize("policy", [STRICT, IDENTIFIER, WELL_FORMED])
@given(data=ascii_edges, cuts=st.lists(st.integers(0, 100), max_size=5))
def test_second_decode_under_each_policy(
    policy: Policy, data: bytes, cuts: list[int]
) -> None:
    assume(find_violation(data, policy) is None)  # else the first check refuses it
    valid = find_violation(unquote_to_bytes(data), policy) is None
    assert (second_decode(data, cuts, policy) == []) == valid
