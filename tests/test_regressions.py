"""Regressions: each fixed bug or fuzz finding, with its input inline as bytes."""

from __future__ import annotations

import pytest

from utf8guard import STRICT, Kind, Violation, reference
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
