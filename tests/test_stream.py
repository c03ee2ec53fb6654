"""Streams: any chunking reports what one-shot validation does, at absolute offsets."""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard import (
    STRICT,
    WELL_FORMED,
    IncrementalValidator,
    Kind,
    Policy,
    Utf8Error,
    Violation,
    _stream,
    find_violation,
    iter_stream_violations,
    reference,
    repair_stream,
)
from utf8guard._scan import BytesLike

from .conftest import FLAGS
from .test_properties import near_valid, policies
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


# --- one chunk's step: _python_step and the compiled stream_step --------------------

try:
    from utf8guard._speedups import stream_step as _compiled_step
except ImportError:  # pragma: no cover - a build without a C compiler
    _compiled_step = None  # type: ignore[assignment]  # only the Python step runs

Step = Callable[[bytes, BytesLike, Policy], bytes | Violation]
STEPS: list[Step] = [_stream._python_step]
if _compiled_step is not None:
    STEPS.append(_compiled_step)
#: Nothing refused, STRICT (noncharacters), each other refused set alone, and all.
STEP_POLICIES = [
    WELL_FORMED,
    STRICT,
    *(
        Policy(**{**dict.fromkeys(FLAGS, True), flag: False})
        for flag in FLAGS
        if flag != "allow_noncharacters"
    ),
    Policy(**dict.fromkeys(FLAGS, False)),
]
#: Each sequence length, Table 3-7's edge rows, surrogates, noncharacters, each
#: refused set, ill-formed and truncated sequences: cut anywhere, they straddle chunks.
STEP_SAMPLES = [
    b"a\xc3\xa9b",
    b"a\xe2\x82\xacb",
    b"a\xf0\x9f\x98\x80b",
    b"\xe0\xa0\x80\xed\x9f\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbd",
    b"a\xed\xa0\x80b",
    b"ab\xef\xbf\xbe",
    b"\xf4\x8f\xbf\xbfz",
    b"\xf0\x9f\xbf\xbf\xef\xb7\x90",
    b"x\xe2\x80\xae\xd8\x9c",
    b"\xef\xbb\xbf\xee\x80\x80\xf3\xb0\x80\x80",
    b"\xc2\x85\x00\x7f",
    b"\xe0\x80\x80\xf0\x80\x80\x80",
    b"\xf4\x90\x80\x80\xc0\xaf\xc1",
    b"\xe2\x82\xe2\x82\xac\xf0\x9f\x98a",
    b"ok\xf0\x9f\x98",
    b"\x80\xbf\xff\xe2",
]
WRAPPERS: list[Callable[[bytes], BytesLike]] = [bytes, bytearray, memoryview]
#: A stream holds at most one byte less than the longest sequence (RFC 3629 §3).
MAX_HELD_BYTES = 3


def _step_oracle(held: bytes, chunk: bytes, policy: Policy) -> bytes | Violation:
    """The step's contract, from the oracle: the first violation in ``held + chunk``
    unless it is a sequence cut short by the end of the data, which is held."""
    data = held + chunk
    found = reference.find_violation(data, policy)
    if found is None:
        return b""
    if found.kind is Kind.TRUNCATED and found.end == len(data):
        return data[found.start :]
    return found


def _stream_by_steps(
    step: Step, chunks: list[bytes], policy: Policy, wrap: Callable[[bytes], BytesLike]
) -> Violation | None:
    """Drive ``step`` over ``chunks`` as feed does, checking each call against the
    oracle; the stream's first violation, at stream offsets."""
    held, base = b"", 0  # base: the stream offset of held[0]
    for chunk in chunks:
        got = step(held, wrap(chunk), policy)
        assert got == _step_oracle(held, chunk, policy), (held, chunk)
        if isinstance(got, Violation):
            return Violation(got.kind, base + got.start, base + got.end)
        assert len(got) <= MAX_HELD_BYTES
        base += len(held) + len(chunk) - len(got)
        held = got
    return Violation(Kind.TRUNCATED, base, base + len(held)) if held else None


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.__module__)
@pytest.mark.parametrize("data", STEP_SAMPLES, ids=lambda d: d.hex())
def test_step_at_every_split_under_every_policy(step: Step, data: bytes) -> None:
    for policy in STEP_POLICIES:
        expected = reference.find_violation(data, policy)
        for chunks, wrap in itertools.product(_splits(data, 2), WRAPPERS):
            assert _stream_by_steps(step, chunks, policy, wrap) == expected, chunks
        for chunks in _splits(data, 3):
            assert _stream_by_steps(step, chunks, policy, bytes) == expected, chunks


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.__module__)
def test_step_on_a_large_chunk_completing_a_held_sequence(step: Step) -> None:
    body = ("ж" * 20000).encode()
    data = b"\xe2\x82\xac" + body + b"\xed\xa0\x80"
    for cut in (1, 2, 3):
        chunks = [data[:cut], data[cut:]]
        assert _stream_by_steps(step, chunks, STRICT, bytes) == find_violation(data)


@pytest.mark.parametrize(
    ("chunk", "size"),
    [
        (b"a", 1),
        (memoryview(b"ab").cast("B", (1, 2)), 2),
        (memoryview(b"abcd").cast("H"), 4),
    ],
    ids=["bytes", "2-d", "uint16"],
)
def test_feed_counts_the_bytes_of_any_buffer(chunk: BytesLike, size: int) -> None:
    validator = IncrementalValidator()
    validator.feed(b"\xe2\x82")
    validator.feed(b"\xac")
    validator.feed(chunk)
    assert validator.position == 3 + size


def test_error_snippet_joins_held_bytes_and_the_chunk() -> None:
    validator = IncrementalValidator()
    validator.feed(b"ab\xef\xbf")
    with pytest.raises(Utf8Error) as info:
        validator.feed(memoryview(b"\xbezz"))
    assert info.value.violation == Violation(Kind.NONCHARACTER, 2, 5)
    assert "ef bf be" in str(info.value)
    assert validator.position == 2


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(STEPS),
    near_valid,
    policies,
    st.lists(st.integers(min_value=0), max_size=4),
    st.sampled_from(WRAPPERS),
)
def test_step_on_near_valid_input_under_any_policy(
    step: Step,
    data: bytes,
    policy: Policy,
    cuts: list[int],
    wrap: Callable[[bytes], BytesLike],
) -> None:
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)]
    expected = reference.find_violation(data, policy)
    assert _stream_by_steps(step, chunks, policy, wrap) == expected
