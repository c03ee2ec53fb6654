"""JsonInspector: escapes against a byte-at-a-time oracle; encodings per RFC 8259."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, Policy, find_violation
from utf8guard.middleware.body._json import JsonInspector, _plain_run
from utf8guard.middleware.body._text import MAX_BODY_FINDINGS
from utf8guard.middleware.engine._finding import Finding

from ._inspection import run, splits

Row = tuple[str, int]
POLICIES = [
    STRICT,
    WELL_FORMED,
    IDENTIFIER,
    Policy(allow_private_use=False, allow_bom=False),
    Policy(allow_noncharacters=True, allow_private_use=False),
]


def inspect(
    data: bytes, cuts: list[int], policy: Policy = STRICT, *, malformed: bool = True
) -> list[Row]:
    inspector = JsonInspector(policy, malformed=malformed)
    points = sorted({min(cut, len(data)) for cut in cuts})
    findings: list[Finding] = []
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        findings += inspector.feed(data[a:b])
    findings += inspector.finish()
    return [(f.kind.value, f.offset) for f in findings]


def refused(code: int, policy: Policy) -> str | None:
    """RFC 8259 §8.2 and the policy, asked of the core one code point at a time."""
    if 0xD800 <= code <= 0xDFFF:
        return "json_surrogate_escape"
    found = find_violation(chr(code).encode(), policy)
    return None if found is None else found.kind.value


def oracle(data: bytes, policy: Policy = STRICT) -> list[Row]:
    """Escape findings, walking the text one escape at a time (RFC 8259 §7)."""
    rows: list[Row] = []
    i = 0
    hexdigits = b"0123456789abcdefABCDEF"
    while i < len(data):
        if data[i] != 0x5C:
            i += 1
            continue
        if i + 1 >= len(data):
            rows.append(("malformed_json_escape", i))
            break
        if data[i + 1] != ord("u"):
            i += 2
            continue
        digits = data[i + 2 : i + 6]
        if len(digits) < 4 or any(d not in hexdigits for d in digits):
            # "\u" then a non-hex byte: malformed, and the text goes on after
            # "\u"; only hex digits cut off by the end belong to the escape.
            rows.append(("malformed_json_escape", i))
            cut_off = all(d in hexdigits for d in digits)
            i = len(data) if cut_off else i + 2
            continue
        code = int(digits, 16)
        low_digits = data[i + 8 : i + 12]
        pair = (
            0xD800 <= code <= 0xDBFF
            and data[i + 6 : i + 8] == b"\\u"
            and len(low_digits) == 4
            and all(d in hexdigits for d in low_digits)
            and 0xDC00 <= int(low_digits, 16) <= 0xDFFF
        )
        if pair:
            code = 0x10000 + ((code - 0xD800) << 10) + (int(low_digits, 16) - 0xDC00)
        kind = refused(code, policy)
        if kind is not None:
            rows.append((kind, i))
        i += 12 if pair else 6
    return rows[:MAX_BODY_FINDINGS]


@pytest.mark.parametrize("policy", POLICIES, ids=repr)
def test_plain_run_skips_exactly_the_allowed_bmp_escapes(policy: Policy) -> None:
    plain = _plain_run(policy)
    for code in range(0x10000):
        escape = b"\\u%04x" % code
        skipped = plain.fullmatch(escape) is not None
        assert skipped == (refused(code, policy) is None), hex(code)
        assert skipped == (plain.fullmatch(b"\\u%04X" % code) is not None), hex(code)


@pytest.mark.parametrize("policy", POLICIES, ids=repr)
def test_plain_run_skips_exactly_the_allowed_pairs(policy: Policy) -> None:
    plain = _plain_run(policy)
    for high in range(0xD800, 0xDC00):
        for low in (0xDC00, 0xDC01, 0xDE00, 0xDFFD, 0xDFFE, 0xDFFF):
            code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            skipped = plain.fullmatch(b"\\u%04x\\u%04X" % (high, low)) is not None
            assert skipped == (refused(code, policy) is None), hex(code)


json_bytes = st.lists(
    st.sampled_from(
        [
            b'"',
            b"a",
            b"\\",
            b"\\\\",
            b"\\u",
            b"\\u00",
            b"0041",
            b"\\u0041",
            b"\\ud83d",
            b"\\ude00",
            b"\\uDBFF",
            b"\\uDFFF",
            b"\\uffff",
            b"\\uFDD0",
            b"\\uE000",
            b"\\u202e",
            b"\\u0000",
            b"\\n",
            b"G",
            b"\xc3\xa4",
            b"\\u12G4",
        ]
    ),
    max_size=30,
).map(b"".join)


@given(json_bytes, st.lists(st.integers(0, 100), max_size=6), st.sampled_from(POLICIES))
def test_escapes_agree_with_the_oracle(
    data: bytes, cuts: list[int], policy: Policy
) -> None:
    body = b" " * 4 + data  # the first bytes decide the encoding: keep them UTF-8
    expected = [(kind, at + 4) for kind, at in oracle(data, policy)]
    assert inspect(body, cuts, policy) == expected


def test_escapes_across_the_regex_window() -> None:
    data = b'["' + b"\\u0041" * 30000 + b"\\\\" * 40000 + b'\\ud800"]'
    at = len(data) - 8
    for cuts in ([], [65535], [65536, 65537], list(range(0, len(data), 4099))):
        assert inspect(data, cuts) == [("json_surrogate_escape", at)]


def test_malformed_escapes_can_be_left_to_the_parser() -> None:
    data = b'"C:\\users\\x\\u12G4 \\ud800" \\'
    assert inspect(data, [], malformed=False) == [("json_surrogate_escape", 18)]
    assert [kind for kind, _ in inspect(data, [])] == [
        "malformed_json_escape",
        "malformed_json_escape",
        "json_surrogate_escape",
        "malformed_json_escape",
    ]


def test_findings_are_capped_per_body() -> None:
    data = b'"' + b"\\ud800" * 100 + b"\xff"
    got = inspect(data, [7, 300])
    assert got == [("json_surrogate_escape", 1 + 6 * i) for i in range(16)]


TEXTS = ['{"a": "\\ud800"}', '["\\uFFFE"]', '"x"', "[1]", '{"a": 1}', "{}", "1"]
ENCODINGS = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32"]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("text", TEXTS)
def test_json_in_utf16_or_utf32_is_refused(text: str, encoding: str) -> None:
    data = text.encode(encoding)
    assert json.loads(data) == json.loads(text)  # what the application would get
    for cut in range(len(data) + 1):
        inspector = JsonInspector(STRICT, base=3)
        findings = inspector.feed(data[:cut]) + inspector.feed(data[cut:])
        findings += inspector.finish()
        # A BOM (FF FE, FE FF) is an invalid byte as well: refused either way.
        assert ("non_utf8_json", 3) in [(f.kind.value, f.offset) for f in findings]


@pytest.mark.parametrize("data", [b"", b"1", b"12", b"123", b"[1]", b"\xef\xbb\xbf[1]"])
def test_utf8_json_is_not_taken_for_utf16(data: bytes) -> None:
    # RFC 4627 §3: only NULs in the first two bytes mean UTF-16/32.
    assert json.loads(data or b"0") == json.loads((data or b"0").decode("utf-8-sig"))
    assert inspect(data, [1]) == []


def test_two_byte_utf16_body_is_refused() -> None:
    assert json.loads(b"1\x00") == 1  # json.loads reads it as UTF-16-LE
    assert inspect(b"1\x00", [1]) == [("non_utf8_json", 0)]


def test_checked_waits_for_the_encoding() -> None:
    inspector = JsonInspector(STRICT, base=5)
    inspector.feed(b"[1")
    assert inspector.checked == 5
    inspector.feed(b", 2")
    assert inspector.checked == 10


@pytest.mark.parametrize("opener", [b"{", b"["])
def test_shortcut_to_utf8_agrees_with_detect_encoding(opener: bytes) -> None:
    """``opens_utf8`` may say True only where ``json.detect_encoding`` says UTF-8:
    every second byte, the lengths detect_encoding treats apart (1 to 4 and more),
    and the third and fourth bytes that decide UTF-16 from UTF-32."""
    from utf8guard.middleware.body._json import opens_utf8

    tails = [b"", b"\x00", b"\x00\x00", b"a", b"a\x00", b"\x00a", b"ab", b"ab cd"]
    for second in range(256):
        for tail in tails:
            body = opener + bytes([second]) + tail
            for cut in range(1, len(body) + 1):
                head = body[:cut]
                if opens_utf8(head):
                    assert json.detect_encoding(head[:4]) == "utf-8", head
    assert opens_utf8(opener + b'"a": 1}')
    assert not opens_utf8(opener + b"\x00")
    assert not opens_utf8(b' {"a": 1}')


def test_findings_come_in_body_order_at_every_split() -> None:
    """The byte check and the escape scan each find in order; within a chunk their
    findings are merged by offset, so every split gives the one-shot list (fuzz_wsgi
    found a whole body naming the overlong first, a trickled one the escape)."""
    body = b'{"e": "\\ud83d\\ude0x", "o": "\xe0\x80\xaf"}'
    expected = [
        ("json_surrogate_escape", 7),
        ("malformed_json_escape", 13),
        ("overlong", 28),
    ]
    for chunks in splits(body):
        assert run(JsonInspector(STRICT), chunks) == expected, chunks


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # RFC 8259 §8.1 / json.detect_encoding: 00 00 xx xx is UTF-32-BE, whose
        # finding is at the body's start; the byte check finds C0 before the
        # fourth byte arrives.
        (b"\x00\x00\xc0\xaf", [("non_utf8_json", 0), ("overlong", 2)]),
        (b"\x00\xff", [("non_utf8_json", 0), ("invalid_byte", 1)]),
        (b"\xff", [("invalid_byte", 0)]),
    ],
    ids=["utf-32-be-overlong", "short-utf-16-be-invalid", "one-bad-byte"],
)
def test_encoding_finding_comes_first_at_every_split(
    body: bytes, expected: list[tuple[str, int]]
) -> None:
    for chunks in splits(body):
        assert run(JsonInspector(STRICT), chunks) == expected, chunks


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # An escape cut off by a byte that can never be hex: malformed at once.
        (b'{"a": "\\ud8\xfe"}', [("malformed_json_escape", 7), ("invalid_byte", 11)]),
        # A high surrogate whose next byte can never start "\\udc..": lone at once.
        (b'{"a": "\\ud83d\xff"}', [("json_surrogate_escape", 7), ("invalid_byte", 13)]),
        (
            b'{"a": "\\ud83d\\u00\xff"}',
            [
                ("json_surrogate_escape", 7),
                ("malformed_json_escape", 13),
                ("invalid_byte", 17),
            ],
        ),
    ],
    ids=["cut-escape", "lone-high", "high-then-other-escape"],
)
def test_escape_decided_before_a_later_byte_at_every_split(
    body: bytes, expected: list[tuple[str, int]]
) -> None:
    """An escape waits for more bytes only while they can still complete it, so a
    refused byte after it never comes first (fuzz_wsgi, third input)."""
    for chunks in splits(body):
        assert run(JsonInspector(STRICT), chunks) == expected, chunks
