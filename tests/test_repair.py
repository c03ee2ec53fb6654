"""repair(): one U+FFFD per maximal subpart (Unicode ch. 3) or refused code point."""

from __future__ import annotations

import pytest

from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, is_valid, reference, repair

from .vectors import INVALID, VALID

FFFD = "\ufffd".encode()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # Unicode ch. 3, Table 3-8 "U+FFFD for Non-Shortest Form Sequences" etc.: the
        # standard's own worked example, 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
        (
            b"\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
            b"a" + FFFD * 3 + b"b" + FFFD + b"c" + FFFD * 2 + b"d",
        ),
        # Table 3-8: C0 AF E0 80 BF F0 81 82 41 -> eight U+FFFD then A.
        (b"\xc0\xaf\xe0\x80\xbf\xf0\x81\x82\x41", FFFD * 8 + b"A"),
        # Table 3-9: ED A0 80 ED BF BF ED AF 41 -> eight U+FFFD then A.
        (b"\xed\xa0\x80\xed\xbf\xbf\xed\xaf\x41", FFFD * 8 + b"A"),
        # Table 3-10: F4 91 92 93 FF 41 80 BF 42 -> U+FFFD x5, A, U+FFFD x2, B.
        (b"\xf4\x91\x92\x93\xff\x41\x80\xbf\x42", FFFD * 5 + b"A" + FFFD * 2 + b"B"),
        # Table 3-11: E1 80 E2 F0 91 92 F1 BF 41 -> U+FFFD x4, A (truncated prefixes).
        (b"\xe1\x80\xe2\xf0\x91\x92\xf1\xbf\x41", FFFD * 4 + b"A"),
        (b"\xef\xbf\xbe", FFFD),  # noncharacter under STRICT
    ],
    ids=[
        "ch3-example",
        "table-3-8",
        "table-3-9",
        "table-3-10",
        "table-3-11",
        "nonchar",
    ],
)
def test_standard_examples(data: bytes, expected: bytes) -> None:
    assert repair(data) == expected


@pytest.mark.parametrize(
    "data",
    [d for _, d, *_ in INVALID] + [d for _, d, _ in VALID],
    ids=lambda d: d.hex(),
)
def test_equals_cpython_replace_and_reference(data: bytes) -> None:
    assert repair(data, WELL_FORMED) == data.decode("utf-8", "replace").encode()
    for policy in (STRICT, IDENTIFIER):
        repaired = repair(data, policy)
        assert repaired == reference.repair(data, policy)
        assert is_valid(repaired, policy)
        assert repair(repaired, policy) == repaired


def test_valid_input_comes_back_unchanged() -> None:
    data = "Grüße €".encode()
    assert repair(data) == data
    assert repair(bytearray(data)) == data
    assert isinstance(repair(memoryview(data)), bytes)
