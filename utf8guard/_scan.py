"""One-shot validation: find_violation, iter_violations, is_valid, validate, decode.

Fast path: CPython's own C machinery does the byte work. ``bytes.isascii`` settles pure
ASCII, the strict UTF-8 codec checks well-formedness in bounded chunks (so memory stays
O(chunk)), and refused code points are found with ``bytes.find`` needles and a compiled
bytes regex over the well-formed region only. Python-level classification runs only
where something is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from ._plan import Plan, plan_for
from ._policy import STRICT, Policy
from ._tables import CONTINUATION_HI, CONTINUATION_LO, LEADS
from ._violation import Kind, Utf8Error, Violation

__all__ = [
    "BytesLike",
    "decode",
    "find_violation",
    "first_violation",
    "is_continuation",
    "is_valid",
    "iter_range",
    "iter_violations",
    "safe_cut",
    "validate",
]

BytesLike = bytes | bytearray | memoryview

#: Largest slice decoded at once: bounds the transient ``str`` to 4x this.
CHUNK_BYTES: Final = 1 << 16
#: Window after a violation, doubled per clean window up to CHUNK_BYTES: a run of
#: violations must not cost a full chunk each (every UnicodeDecodeError copies the slice
#: it was given).
RESUME_BYTES: Final = 256
#: Longest UTF-8 sequence (RFC 3629 §3).
MAX_SEQUENCE_BYTES: Final = 4


def as_buffer(data: object) -> bytes | bytearray | memoryview:
    """Check the public input type; a memoryview comes back as a flat view of bytes."""
    if isinstance(data, bytes | bytearray):
        return data
    if isinstance(data, memoryview):
        if data.format == "B" and data.ndim == 1 and data.c_contiguous:
            return data
        if not data.c_contiguous:
            raise TypeError("memoryview must be C-contiguous")
        return data.cast("B")
    if isinstance(data, str):
        raise TypeError(
            "expected bytes, bytearray or memoryview, not str: utf8guard checks "
            "encoded bytes; pass the raw bytes you received"
        )
    raise TypeError(
        f"expected bytes, bytearray or memoryview, not {type(data).__name__}"
    )


def is_continuation(byte: int) -> bool:
    return CONTINUATION_LO <= byte <= CONTINUATION_HI


def safe_cut(buf: BytesLike, cut: int) -> int:
    """A position at or just before ``cut`` that no sequence or maximal subpart spans.

    A span is a lead plus continuation bytes, so it never crosses a position holding a
    non-continuation byte; if the 3 bytes before ``cut`` and the one at it are all
    continuation bytes, a span across ``cut`` would be 5 bytes or longer, which cannot
    be (RFC 3629 §3).
    """
    for pos in range(cut, max(cut - MAX_SEQUENCE_BYTES + 1, 0) - 1, -1):
        if pos == len(buf) or not is_continuation(buf[pos]):
            return pos
    return cut


def classify(buf: BytesLike, start: int, end: int, limit: int) -> Kind:
    """The kind of the ill-formed span ``buf[start:end]``; input ends at ``limit``.

    Table 3-7: a continuation byte outside the lead's second-byte range makes the lead
    alone a maximal subpart (overlong, surrogate, out of range); any other failure is
    truncation.
    """
    lead = LEADS[buf[start]]
    if lead.alone is not None:
        return lead.alone
    if end - start == 1 and start + 1 < limit and is_continuation(buf[start + 1]):
        second = buf[start + 1]
        if second < lead.lo:
            return lead.below
        if second > lead.hi:
            return lead.above
    return Kind.TRUNCATED


def _refused(buf: BytesLike, start: int, end: int, plan: Plan) -> Violation | None:
    """The first refused code point in the well-formed region ``buf[start:end]``."""
    if plan.pattern is None or start >= end:
        return None
    if plan.needles is not None and isinstance(buf, bytes | bytearray):
        if all(buf.find(needle, start, end) < 0 for needle in plan.needles):
            return None
    match = plan.pattern.search(buf, start, end)
    if match is None:
        return None
    return Violation(Kind(match.lastgroup), match.start(), match.end())


def first_violation(
    buf: BytesLike, start: int, end: int, policy: Policy, window: int = CHUNK_BYTES
) -> Violation | None:
    """The first violation in ``buf[start:end]``, with offsets into ``buf``.

    This is the seam a compiled accelerator replaces. ``end`` must not cut a sequence
    short unless the input really ends there (callers cut with :func:`safe_cut`).
    """
    plan = plan_for(policy)
    view = memoryview(buf)
    pos = start
    while pos < end:
        stop = end if end - pos <= window else safe_cut(buf, pos + window)
        window = min(window * 2, CHUNK_BYTES)
        try:
            str(view[pos:stop], "utf-8")
        except UnicodeDecodeError as exc:
            bad_start, bad_end = pos + exc.start, pos + exc.end
            return _refused(buf, pos, bad_start, plan) or Violation(
                classify(buf, bad_start, bad_end, stop), bad_start, bad_end
            )
        found = _refused(buf, pos, stop, plan)
        if found is not None:
            return found
        pos = stop
    return None


def find_violation(data: BytesLike, policy: Policy = STRICT) -> Violation | None:
    """Return the first violation in ``data`` under ``policy``, or None if it is valid.

    >>> find_violation(b"\\xc0\\xaf")
    Violation(kind=<Kind.OVERLONG: 'overlong'>, start=0, end=1)

    Raises:
        TypeError: ``data`` is not bytes, bytearray or memoryview.
    """
    buf = as_buffer(data)
    if (
        isinstance(buf, bytes | bytearray)
        and buf.isascii()
        and plan_for(policy).ascii_clean
    ):
        return None
    return first_violation(buf, 0, len(buf), policy)


def iter_range(
    buf: BytesLike, start: int, end: int, policy: Policy
) -> Iterator[Violation]:
    """Every violation in ``buf[start:end]``, resuming after the end of each."""
    pos, window = start, CHUNK_BYTES
    while (found := first_violation(buf, pos, end, policy, window)) is not None:
        yield found
        pos, window = found.end, RESUME_BYTES


def iter_violations(data: BytesLike, policy: Policy = STRICT) -> Iterator[Violation]:
    """Yield every violation in order, resuming after the end of each.

    Raises:
        TypeError: ``data`` is not bytes, bytearray or memoryview.
    """
    buf = as_buffer(data)
    return iter_range(buf, 0, len(buf), policy)


def is_valid(data: BytesLike, policy: Policy = STRICT) -> bool:
    """True when ``data`` is valid UTF-8 under ``policy``.

    >>> is_valid("€".encode()), is_valid(b"\\xed\\xa0\\x80")
    (True, False)

    Raises:
        TypeError: ``data`` is not bytes, bytearray or memoryview.
    """
    return find_violation(data, policy) is None


def validate(data: BytesLike, policy: Policy = STRICT) -> None:
    """Return if ``data`` is valid under ``policy``; raise for its first violation.

    Raises:
        Utf8Error: with ``.violation``, the first violation.
        TypeError: ``data`` is not bytes, bytearray or memoryview.
    """
    buf = as_buffer(data)
    found = find_violation(buf, policy)
    if found is not None:
        raise Utf8Error(found, bytes(buf[found.start : found.end]))


def decode(data: BytesLike, policy: Policy = STRICT) -> str:
    """Decode ``data`` as UTF-8 after validating it under ``policy``.

    Raises:
        Utf8Error: with ``.violation``, the first violation.
        TypeError: ``data`` is not bytes, bytearray or memoryview.
    """
    buf = as_buffer(data)
    validate(buf, policy)
    return str(buf, "utf-8")
