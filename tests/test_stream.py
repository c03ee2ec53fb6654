"""Streams: any chunking reports what one-shot validation does, at absolute offsets."""

from __future__ import annotations

import itertools

import pytest

from utf8guard import (
    STRICT,
    IncrementalValidator,
    Kind,
    Policy,
    Utf8Error,
    Violation,
    iter_stream_violations,
    reference,
    repair_stream,
)

from .vectors import INVALID, VALID

SAMPLES = (
    [d for _, d, *_ in INVALID]
    + [d for _, d, _ in VALID]
    + [
        b"ok \xe2\x82\xac\xf0\x9d\x84\x9e\xc0\xaf\xed\xa0\x80 \xef\xbf\xbe\xf4\x8f\xbf",
        b"\xe2\x82\xe2\x82\xac\x80\x80\x80\x80\xf0",
    ]
)


def _splits(data: bytes, parts: int) -> list[list[bytes]]:
    """Every way to cut ``data`` into ``parts`` pieces (empty pieces included)."""
    out = []
    for cuts in itertools.combinations_with_replacement(
        range(len(data) + 1), parts - 1
    ):
        bounds = [0, *cuts, len(data)]
        out.append([data[a:b] for a, b in itertools.pairwise(bounds)])
    return out


def _first_from_stream(
    chunks: list[bytes], policy: Policy = STRICT
) -> Violation | None:
    validator = IncrementalValidator(policy)
    try:
        for chunk in chunks:
            validator.feed(chunk)
        validator.finish()
    except Utf8Error as exc:
        return exc.violation
    return None


@pytest.mark.parametrize("data", SAMPLES, ids=lambda d: d.hex()[:24] or "empty")
def test_every_two_and_three_way_split(data: bytes) -> None:
    expected = list(reference.iter_violations(data))
    repaired = reference.repair(data)
    for chunks in _splits(data, 2) + _splits(data, 3):
        assert _first_from_stream(chunks) == (expected[0] if expected else None), chunks
        assert list(iter_stream_violations(chunks)) == expected, chunks
        assert b"".join(repair_stream(chunks)) == repaired, chunks


def test_byte_at_a_time() -> None:
    data = SAMPLES[-2]
    chunks = [data[i : i + 1] for i in range(len(data))]
    assert list(iter_stream_violations(chunks)) == list(reference.iter_violations(data))


def test_fail_closed_after_violation() -> None:
    validator = IncrementalValidator()
    validator.feed(b"abc")
    with pytest.raises(Utf8Error) as first:
        validator.feed(b"\xc0\xaf")
    with pytest.raises(Utf8Error) as again:
        validator.feed(b"fine")
    with pytest.raises(Utf8Error) as at_end:
        validator.finish()
    assert first.value.violation == again.value.violation == at_end.value.violation
    assert first.value.violation == Violation(Kind.OVERLONG, 3, 4)


def test_truncated_tail_is_reported_by_finish() -> None:
    validator = IncrementalValidator()
    validator.feed(b"ab\xf0\x9f")
    validator.feed(b"\x98")
    assert validator.position == 2
    with pytest.raises(Utf8Error) as info:
        validator.finish()
    assert info.value.violation == Violation(Kind.TRUNCATED, 2, 5)


def test_position_counts_checked_bytes() -> None:
    validator = IncrementalValidator()
    validator.feed(b"\xe2")
    assert validator.position == 0
    validator.feed(memoryview(b"\x82\xac!"))
    validator.feed(bytearray(b"ok"))
    validator.finish()
    assert validator.position == 6


def test_policy_applies_across_chunks() -> None:
    chunks = [b"x\xe2\x80", b"\xae"]  # U+202E split after two bytes
    assert _first_from_stream(chunks, Policy(allow_bidi_controls=False)) == Violation(
        Kind.BIDI_CONTROL, 1, 4
    )


def test_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError, match="policy must be a Policy"):
        IncrementalValidator("strict")  # type: ignore[arg-type]  # wrong type on purpose
    with pytest.raises(TypeError, match="not str"):
        IncrementalValidator().feed("text")  # type: ignore[arg-type]  # wrong type on purpose
    with pytest.raises(TypeError, match="not str"):
        list(iter_stream_violations(["text"]))  # type: ignore[list-item]  # on purpose


def test_large_stream_in_small_chunks() -> None:
    text = ("Grüße, мир, 世界, 🎉 " * 5000).encode()
    data = text + b"\xed\xa0\x80" + text
    chunks = [data[i : i + 4093] for i in range(0, len(data), 4093)]
    expected = Violation(Kind.SURROGATE, len(text), len(text) + 1)
    assert _first_from_stream(chunks) == expected
    assert next(iter_stream_violations(chunks)) == expected


def test_ascii_chunks_under_a_policy_refusing_ascii() -> None:
    validator = IncrementalValidator(Policy(allow_nul=False))
    validator.feed(b"plain")
    with pytest.raises(Utf8Error) as info:
        validator.feed(b"ab\x00")
    assert info.value.violation == Violation(Kind.NUL, 7, 8)
