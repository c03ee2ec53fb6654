"""Hypothesis properties: fast == reference == CPython, on near-valid UTF-8."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from utf8guard import (
    STRICT,
    WELL_FORMED,
    IncrementalValidator,
    Policy,
    Utf8Error,
    Violation,
    find_violation,
    is_valid,
    iter_stream_violations,
    iter_violations,
    reference,
    repair,
    repair_stream,
)
from utf8guard._scan import CHUNK_BYTES

from .conftest import FLAGS, cpython_span

# Bytes that sit on the edges of Table 3-7 and of the refused sets.
EDGE_BYTES = [
    bytes([b]) for b in (0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0)
]
EDGE_BYTES += [
    bytes([b]) for b in (0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF)
]
SPLICES = [
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc0\xaf",
    b"\xef\xb7\x90",
    b"\xef\xbf\xbe",
    b"\xf3\xbf\xbf\xbf",
    b"\xe2\x80\xae",
    b"\xef\xbb\xbf",
    b"\xee\x80\x80",
    b"\xc2\x85",
]

pieces = st.one_of(
    st.text(max_size=8).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.sampled_from(EDGE_BYTES + SPLICES),
    st.binary(max_size=4),
)
near_valid = st.lists(pieces, max_size=12).map(b"".join)
policies = st.fixed_dictionaries({flag: st.booleans() for flag in FLAGS}).map(
    lambda flags: Policy(**flags)
)


def _codec_with_noncharacters(data: bytes) -> bool:
    """CPython's strict codec plus the noncharacter rule: the STRICT oracle."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any(
        0xFDD0 <= ord(c) <= 0xFDEF or ord(c) & 0xFFFE == 0xFFFE for c in text
    )


@given(near_valid)
def test_is_valid_agrees_with_cpython(data: bytes) -> None:
    assert is_valid(data, STRICT) == _codec_with_noncharacters(data)
    try:
        data.decode("utf-8")
        decodes = True
    except UnicodeDecodeError:
        decodes = False
    assert is_valid(data, WELL_FORMED) == decodes


@given(near_valid, policies)
def test_fast_equals_reference(data: bytes, policy: Policy) -> None:
    assert list(iter_violations(data, policy)) == list(
        reference.iter_violations(data, policy)
    )


@given(near_valid)
def test_first_ill_formed_span_equals_cpython(data: bytes) -> None:
    found = find_violation(data, WELL_FORMED)
    assert (found and (found.start, found.end)) == cpython_span(data)


@given(near_valid, policies, st.lists(st.integers(min_value=0), max_size=6))
def test_any_chunking_equals_one_shot(
    data: bytes, policy: Policy, cuts: list[int]
) -> None:
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)]
    expected = list(iter_violations(data, policy))
    validator = IncrementalValidator(policy)
    first = None
    try:
        for chunk in chunks:
            validator.feed(chunk)
        validator.finish()
    except Utf8Error as exc:
        first = exc.violation
    assert first == (expected[0] if expected else None)
    assert list(iter_stream_violations(chunks, policy)) == expected
    assert b"".join(repair_stream(chunks, policy)) == repair(data, policy)


@given(near_valid, policies)
def test_repair_is_valid_idempotent_and_bounded(data: bytes, policy: Policy) -> None:
    repaired = repair(data, policy)
    assert is_valid(repaired, policy)
    assert repair(repaired, policy) == repaired
    assert len(repaired) <= 3 * len(data)


@given(near_valid)
def test_repair_equals_cpython_replace(data: bytes) -> None:
    assert repair(data, WELL_FORMED) == data.decode("utf-8", "replace").encode()


@given(
    near_valid,
    policies,
    st.integers(min_value=0, max_value=8),
    st.sampled_from(["a", "ä", "€", "🎉"]),
)
def test_violations_across_the_chunk_boundary(
    data: bytes, policy: Policy, back: int, filler: str
) -> None:
    # A valid prefix ending near CHUNK_BYTES shifts every violation by its length.
    prefix = filler.encode() * ((CHUNK_BYTES - back) // len(filler.encode()))
    shifted = [
        Violation(v.kind, v.start + len(prefix), v.end + len(prefix))
        for v in reference.iter_violations(data, policy)
    ]
    assert list(iter_violations(prefix + data, policy)) == shifted
