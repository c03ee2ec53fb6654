"""The lead-byte table against CPython and the reference, every lead x second byte."""

from __future__ import annotations

import pytest

from utf8guard import WELL_FORMED, Kind, Violation, find_violation, reference
from utf8guard._tables import LEADS

from .conftest import cpython_span


@pytest.mark.parametrize("lead", range(256), ids=lambda b: f"{b:02x}")
def test_every_lead_and_second_byte(lead: int) -> None:
    for second in [*range(256), None]:
        head = bytes([lead]) if second is None else bytes([lead, second])
        for data in (head, head + b"\x80\x80", head + b"A"):
            found = find_violation(data, WELL_FORMED)
            span = cpython_span(data)
            assert (found and (found.start, found.end)) == span, data.hex(" ")
            assert found == reference.find_violation(data, WELL_FORMED), data.hex(" ")


def test_table_rows() -> None:
    assert len(LEADS) == 256
    assert [b for b in range(256) if LEADS[b].length == 1] == list(range(0x80))
    assert [b for b in range(256) if LEADS[b].length == 2] == list(range(0xC2, 0xE0))
    assert [b for b in range(256) if LEADS[b].length == 3] == list(range(0xE0, 0xF0))
    assert [b for b in range(256) if LEADS[b].length == 4] == list(range(0xF0, 0xF5))
    assert (LEADS[0xE0].lo, LEADS[0xED].hi, LEADS[0xF0].lo, LEADS[0xF4].hi) == (
        0xA0,
        0x9F,
        0x90,
        0x8F,
    )


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\xe0\x80", Kind.OVERLONG),
        (b"\xe0\x9f", Kind.OVERLONG),
        (b"\xed\xa0", Kind.SURROGATE),
        (b"\xed\xbf", Kind.SURROGATE),
        (b"\xf0\x80", Kind.OVERLONG),
        (b"\xf0\x8f", Kind.OVERLONG),
        (b"\xf4\x90", Kind.OUT_OF_RANGE),
        (b"\xf4\xbf", Kind.OUT_OF_RANGE),
        (b"\xe0\xa0", Kind.TRUNCATED),
        (b"\xf4\x8f", Kind.TRUNCATED),
    ],
    ids=lambda v: v.hex() if isinstance(v, bytes) else str(v),
)
def test_second_byte_gaps_of_table_3_7(data: bytes, kind: Kind) -> None:
    assert find_violation(data) == Violation(
        kind, 0, 1 if kind != Kind.TRUNCATED else 2
    )
