"""FormInspector against an independent oracle: split, unquote, validate each piece."""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st

from utf8guard import STRICT, find_violation
from utf8guard.middleware.body._form import FormInspector, _last_raw_offsets
from utf8guard.middleware.body._text import MAX_BODY_FINDINGS
from utf8guard.middleware.engine._engine import MAX_FINDINGS
from utf8guard.middleware.engine._finding import Finding, safe_name

Row = tuple[str | None, str, int]
_MALFORMED = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def inspect(data: bytes, cuts: list[int]) -> list[Row]:
    inspector = FormInspector(STRICT)
    points = sorted({min(cut, len(data)) for cut in cuts})
    findings: list[Finding] = []
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        findings += inspector.feed(data[a:b])
    findings += inspector.finish()
    return [(f.name, f.kind.value, f.offset) for f in findings]


def piece_findings(piece: bytes, base: int, name: str | None) -> list[Row]:
    """WHATWG urlencoded parsing of one name or value, checked as its own string."""
    rows: list[Row] = []
    for match in _MALFORMED.finditer(piece):
        nonstandard = piece[match.end() : match.end() + 1] in (b"u", b"U")
        kind = "nonstandard_escape" if nonstandard else "malformed_escape"
        rows.append((name, kind, base + match.start()))
    # raw offset of each decoded byte, built byte by byte (independent of the code)
    decoded, origin, i = bytearray(), [], 0
    while i < len(piece):
        escape = piece[i : i + 3]
        if re.fullmatch(rb"%[0-9A-Fa-f]{2}", escape):
            decoded += unquote_to_bytes(escape)
            origin.append(i)
            i += 3
        else:
            decoded.append(piece[i])
            origin.append(i)
            i += 1
    violation = find_violation(bytes(decoded))
    if violation is not None:
        rows.append((name, violation.kind.value, base + origin[violation.start]))
    # A second decode, as in a query: each run of escapes left after the first must
    # be valid UTF-8 on its own; reported at the run's first escape.
    i = 0
    while i < len(decoded):
        j = i
        while re.fullmatch(rb"%[0-9A-Fa-f]{2}", decoded[j : j + 3]):
            j += 3
        if j > i and find_violation(unquote_to_bytes(bytes(decoded[i:j]))):
            rows.append((name, "double_encoding", base + origin[i]))
        i = max(j, i + 1)
    return rows


def oracle(data: bytes) -> list[Row]:
    rows: list[Row] = []
    start = 0
    for field in data.split(b"&"):
        name_raw, equals, value = field.partition(b"=")
        rows += piece_findings(name_raw, start, None)
        if equals:
            decoded_name = unquote_to_bytes(name_raw.replace(b"+", b" "))
            shown = safe_name(decoded_name[:65])
            rows += piece_findings(value, start + len(name_raw) + 1, shown)
        start += len(field) + 1
    rows.sort(key=lambda row: row[2])
    return rows[:MAX_BODY_FINDINGS]


form_bytes = st.lists(
    st.sampled_from(
        [
            b"a",
            b"=",
            b"&",
            b"+",
            b"%",
            b"%4",
            b"%41",
            b"%C3",
            b"%A4",
            b"%E2%82",
            b"%AC",
            b"%FF",
            b"%u00",
            b"\\",
            b"\xc3",
            b"\xa4",
            b"\xef\xbf\xbe",
            b"%EF%BF%BE",
            b"%5C",
            b"%25",
            b"name",
        ]
    ),
    max_size=40,
).map(b"".join)


@given(form_bytes, st.lists(st.integers(0, 120), max_size=6))
def test_form_agrees_with_the_piecewise_oracle(data: bytes, cuts: list[int]) -> None:
    assert inspect(data, cuts) == oracle(data)


CASES = [
    ("backslash-kept", b"a=\\x41&b=%5C%FF", [("b", "invalid_byte", 12)]),
    (
        "one-finding-per-value",
        b"q=%FF%FE%C0&r=%FF",
        [("q", "invalid_byte", 2), ("r", "invalid_byte", 14)],
    ),
    (
        "name-then-value",
        b"%FF=%FF",
        [(None, "invalid_byte", 0), (None, "invalid_byte", 4)],
    ),
    ("truncated-before-amp", b"n=%E2%82&m=ok", [("n", "truncated", 2)]),
    ("encoded-delimiters", b"n=%26%3D%FF", [("n", "invalid_byte", 8)]),
    ("double-encoded", b"a=%25C0%25AF&b=%2541", [("a", "double_encoding", 2)]),
    ("double-nibbles", b"a=%25%43%30%25%41%46", [("a", "double_encoding", 2)]),
    ("double-in-name", b"%25FF=1", [(None, "double_encoding", 0)]),
    (
        "double-split-by-fields",
        b"a=%25C3&b=%25A9",
        [("a", "double_encoding", 2), ("b", "double_encoding", 10)],
    ),
    ("double-valid-url", b"next=%2Fcaf%25C3%25A9%3Fq%3D%2541", []),
    (
        "double-after-invalid",
        b"a=%FF%25FF",
        [("a", "invalid_byte", 2), ("a", "double_encoding", 5)],
    ),
]


@pytest.mark.parametrize(
    ("data", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_form_every_split(data: bytes, expected: list[Row]) -> None:
    for cut in range(len(data) + 1):
        assert inspect(data, [cut]) == expected, cut
    assert inspect(data, list(range(len(data)))) == expected


CHARSET_CASES = [
    ("utf7", b"_charset_=utf-7&a=1", [("_charset_", "unsupported_charset", 0)]),
    (
        "escaped-name",
        b"a=1&%5Fcharset%5f=UTF-16",
        [("_charset_", "unsupported_charset", 4)],
    ),
    ("upper-name", b"_CHARSET_=utf-7", [("_charset_", "unsupported_charset", 0)]),
    ("plus-value", b"_charset_=utf+7", [("_charset_", "unsupported_charset", 0)]),
    ("empty", b"_charset_=&b=1", [("_charset_", "unsupported_charset", 0)]),
    ("utf8-then-invalid", b"_charset_=UTF-8&b=%FF", [("b", "invalid_byte", 18)]),
    ("ascii", b"_charset_=us-ascii", []),
    ("padded", b"_charset_=+utf-8+", []),
    (
        "twice",
        b"_charset_=utf-8&_charset_=utf-8",
        [("_charset_", "ambiguous_parameter", 16)],
    ),
    ("other-name", b"x_charset_=utf-7&_charset=utf-7&charset=utf-7", []),
    ("in-a-value", b"a=_charset_=utf-7", []),
    (
        "long-value",
        b"_charset_=" + b"u" * 100 + b"&a=1",
        [("_charset_", "unsupported_charset", 0)],
    ),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [c[1:] for c in CHARSET_CASES],
    ids=[c[0] for c in CHARSET_CASES],
)
def test_charset_field_every_split(data: bytes, expected: list[Row]) -> None:
    # RFC 7578 §4.6 and HTML: "_charset_" names the encoding the form was sent in.
    for cut in range(len(data) + 1):
        assert inspect(data, [cut]) == expected, cut
    assert inspect(data, list(range(len(data)))) == expected


def test_charset_field_holds_at_most_one_short_field() -> None:
    inspector = FormInspector(STRICT)
    inspector.feed(b"a=1&_char")
    assert inspector.checked == 4
    inspector.feed(b"set_=utf-8&b=2&c")
    assert inspector.checked == 24 + 1  # "c" is not the start of "_charset_"


def test_findings_are_capped_per_body() -> None:
    assert MAX_BODY_FINDINGS == MAX_FINDINGS
    data = b"a=%FF&" * 1000
    got = inspect(data, list(range(0, len(data), 100)))
    assert got == [("a", "invalid_byte", 2 + 6 * i) for i in range(MAX_BODY_FINDINGS)]
    inspector = FormInspector(STRICT)
    inspector.feed(data)
    inspector.feed(b"x=%E2%8")  # %8 waits; E2 would be held if it were inspected
    assert inspector.checked == len(data) + 5


def test_malformed_escapes_are_capped_too() -> None:
    data = b"a=%G" * 100
    assert len(inspect(data, [7, 50])) == MAX_BODY_FINDINGS
    assert len(inspect(b"_charset_=x&" * 100, [])) == MAX_BODY_FINDINGS


def _raw_offsets(raw: bytes) -> list[int]:
    """The raw offset of each decoded byte, reading forwards (RFC 3986 §2.1: "%"
    and two hex digits is one byte; anything else is itself)."""
    found, i = [], 0
    while i < len(raw):
        found.append(i)
        escape = raw[i : i + 1] == b"%" and re.fullmatch(
            rb"[0-9A-Fa-f]{2}", raw[i + 1 : i + 3]
        )
        i += 3 if escape else 1
    return found


@given(st.lists(st.sampled_from([b"%", b"%C3", b"%a9", b"C", b"3", b"x", b"%%"])))
def test_the_last_raw_offsets_read_backwards_match_a_forward_read(
    pieces: list[bytes],
) -> None:
    # Issue 28: the offsets of a character a chunk cuts are read from the chunk's end.
    raw = b"".join(pieces)
    forward = _raw_offsets(raw)
    for count in range(min(len(forward), 4) + 1):
        assert _last_raw_offsets(raw, count) == forward[len(forward) - count :]


@pytest.mark.parametrize("cut", range(1, 18))
def test_a_character_cut_by_a_chunk_is_found_where_it_starts(cut: int) -> None:
    # The chunk ends inside U+20AC's escapes, held by the validator, then it is
    # followed by no continuation byte: the finding is at its first "%".
    data = b"a=x%E2%82%AC%E2%82x"
    assert inspect(data, [cut]) == [("a", "truncated", 12)]
