"""The oracle itself, held to CPython's codec exhaustively on short inputs."""

from __future__ import annotations

import itertools

from utf8guard import WELL_FORMED, Kind, Violation, reference

from .conftest import cpython_span

# One byte of each class that matters at each position.
CLASSES = bytes(
    [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xEE]
)
CLASSES += bytes([0xF0, 0xF1, 0xF4, 0xF5, 0xF8, 0xFE])


def test_spans_equal_cpython_for_all_three_byte_combinations() -> None:
    for combo in itertools.product(CLASSES, repeat=3):
        data = bytes(combo)
        found = reference.find_violation(data, WELL_FORMED)
        assert (found and (found.start, found.end)) == cpython_span(data), data.hex()


def test_repair_equals_cpython_for_all_four_byte_combinations() -> None:
    for combo in itertools.product(CLASSES[::2], repeat=4):
        data = bytes(combo)
        assert (
            reference.repair(data, WELL_FORMED)
            == data.decode("utf-8", "replace").encode()
        )


def test_decodes_every_length() -> None:
    for text in ("A", "\u07ff", "\uffef", "\U00010000", "\U0010fffd"):
        assert reference.is_valid(text.encode())
    assert reference.find_violation(b"\xf4\x8f\xbf\xbf") == Violation(
        Kind.NONCHARACTER, 0, 4
    )
