"""Streams: any chunking reports what one-shot validation does, at absolute offsets."""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Iterator
from typing import TypeVar

import pytest

from utf8guard import (
    STRICT,
    WELL_FORMED,
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


# Table 3-7: a lead and a continuation byte outside its second-byte range start no
# well-formed sequence. Found with the oracle: no continuation bytes complete them.
RULED_OUT = [
    bytes([lead, second])
    for lead in range(0xC2, 0xF5)
    for second in range(0x80, 0xC0)
    if not any(
        reference.is_valid(bytes([lead, second]) + b"\x80" * more, WELL_FORMED)
        for more in range(3)
    )
]

T = TypeVar("T")


class _Waited(Exception):
    """The stream API asked for another chunk before reporting."""


def _then_wait(prefix: bytes) -> Iterator[bytes]:
    yield prefix[:1]
    yield prefix[1:]
    raise _Waited


def _until_it_waits(results: Iterator[T]) -> list[T]:
    out: list[T] = []
    with pytest.raises(_Waited):
        out.extend(results)
    return out


def _cpython_incremental_error(prefix: bytes) -> tuple[int, int] | None:
    """The error span CPython's incremental decoder raises on feeding ``prefix`` in
    two pieces, or None if it waits for more."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(prefix[:1])
        decoder.decode(prefix[1:])
    except UnicodeDecodeError as exc:
        return exc.start, exc.end
    return None


def test_ruled_out_prefixes_are_the_table_3_7_ones() -> None:
    # E0 80..9F, ED A0..BF, F0 80..8F, F4 90..BF: 32 + 32 + 16 + 48.
    assert len(RULED_OUT) == 128
    assert {p[0] for p in RULED_OUT} == {0xE0, 0xED, 0xF0, 0xF4}


@pytest.mark.parametrize("prefix", RULED_OUT, ids=lambda p: p.hex())
def test_feed_fails_at_once_on_a_ruled_out_prefix(prefix: bytes) -> None:
    expected = reference.find_violation(prefix)
    assert expected is not None
    for chunks in ([prefix], [prefix[:1], prefix[1:]], [b"ok", prefix[:1], prefix[1:]]):
        validator = IncrementalValidator()
        for chunk in chunks[:-1]:
            validator.feed(chunk)
        with pytest.raises(Utf8Error) as info:
            validator.feed(chunks[-1])
        offset = len(b"".join(chunks)) - 2
        assert info.value.violation == Violation(
            expected.kind, expected.start + offset, expected.end + offset
        )


@pytest.mark.parametrize("prefix", RULED_OUT, ids=lambda p: p.hex())
def test_stream_iterators_report_a_ruled_out_prefix_at_once(prefix: bytes) -> None:
    violations = _until_it_waits(iter_stream_violations(_then_wait(prefix)))
    assert violations == list(reference.iter_violations(prefix))
    repaired = _until_it_waits(repair_stream(_then_wait(prefix)))
    assert b"".join(repaired) == reference.repair(prefix)


def test_cpython_incremental_decoder_agrees_on_ruled_out_prefixes() -> None:
    """CPython's decoder raises on feeding the same prefixes, with the same span,
    except ED A0..BF: it checks surrogates only once the sequence is complete."""
    waits = []
    for prefix in RULED_OUT:
        span = _cpython_incremental_error(prefix)
        if span is None:
            waits.append(prefix)
            continue
        found = _first_from_stream([prefix[:1], prefix[1:]])
        assert found is not None
        assert (found.start, found.end) == span, prefix
    assert waits == [bytes([0xED, second]) for second in range(0xA0, 0xC0)]


@pytest.mark.parametrize(
    "prefix", [b"\xe0\xa0", b"\xed\x9f", b"\xf0\x90\x80", b"\xf4\x8f\xbf"]
)
def test_well_formed_prefixes_still_wait(prefix: bytes) -> None:
    validator = IncrementalValidator()
    validator.feed(prefix)
    assert validator.position == 0
    validator.feed(b"\x80" * ((3 if prefix[0] < 0xF0 else 4) - len(prefix)))
    validator.finish()
    assert validator.position == len(prefix) + (
        1 if prefix[0] < 0xF0 else 4 - len(prefix)
    )
