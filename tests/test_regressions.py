"""Regressions: each fixed bug or fuzz finding, with its input inline as bytes."""

from __future__ import annotations

import pytest

from utf8guard import (
    STRICT,
    IncrementalValidator,
    Kind,
    Utf8Error,
    Violation,
    reference,
)
from utf8guard._scan import first_violation


@pytest.mark.parametrize(
    ("data", "start", "expected"),
    [
        # From start=2 the scan must see E2's continuation 82 at offset 2 as stray;
        # with window 1 it stepped back to 1 and decoded E2 82 AC as one character.
        (b"a\xe2\x82\xacb", 2, Violation(Kind.UNEXPECTED_CONTINUATION, 2, 3)),
        # It also reported a violation before ``start``: C0 at 0, scanning from 1.
        (b"\xc0\x80\x80\x80\x80\x80", 1, Violation(Kind.UNEXPECTED_CONTINUATION, 1, 2)),
    ],
    ids=["skips-stray-continuation", "reports-before-start"],
)
def test_issue3_seam_small_window_stays_at_or_after_start(
    data: bytes, start: int, expected: Violation
) -> None:
    """Issue 3: with a window below 4 bytes, safe_cut stepped back before the scan
    position (found writing the fuzz harness; fixed on main by clamping the window)."""
    assert reference.find_violation(data[start:]) == Violation(
        expected.kind, expected.start - start, expected.end - start
    )
    assert first_violation(data, start, len(data), STRICT, window=1) == expected


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ([b"\xe0", b"\x80"], Violation(Kind.OVERLONG, 0, 1)),
        ([b"a\xe0\x9f"], Violation(Kind.OVERLONG, 1, 2)),
        ([b"\xf0", b"\x80"], Violation(Kind.OVERLONG, 0, 1)),
        ([b"ab", b"\xf0\x8f"], Violation(Kind.OVERLONG, 2, 3)),
        ([b"\xf4\x90"], Violation(Kind.OUT_OF_RANGE, 0, 1)),
    ],
    ids=["e080", "e09f", "f080", "f08f", "f490"],
)
def test_issue11_feed_fails_at_once_when_no_sequence_can_start(
    chunks: list[bytes], expected: Violation
) -> None:
    """Issue 11: feed() held E0 80, E0 9F, F0 80, F0 8F, F4 90 waiting for more bytes,
    though Table 3-7 rules each out; one-shot reports the lead alone."""
    assert reference.find_violation(b"".join(chunks)) == expected
    validator = IncrementalValidator()
    for chunk in chunks[:-1]:
        validator.feed(chunk)
    with pytest.raises(Utf8Error) as info:
        validator.feed(chunks[-1])
    assert info.value.violation == expected
