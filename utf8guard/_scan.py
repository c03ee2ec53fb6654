"""One-shot validation: find_violation, iter_violations, is_valid, validate, decode.

Fast path: CPython's own C machinery does the byte work. ``bytes.isascii`` settles pure
ASCII, the strict UTF-8 codec checks well-formedness in bounded chunks (so memory stays
O(chunk)), and the plan's gates (``_gates``) rule out refused code points in each
decoded chunk. Python-level classification runs only where something is wrong.
``bench/README.md`` has the measurements.
"""

from __future__ import annotations

from ._accel import compiled_first_violation, compiled_is_valid
from ._gates import first_refused, may_refuse, small_is_valid, ucs4_floor
from ._plan import Plan, narrow_gate, plan_for, tail_gate
from ._policy import STRICT, Policy
from ._tables import CONTINUATION_HI, CONTINUATION_LO, LEADS, MAX_SEQUENCE_BYTES
from ._violation import Kind, Utf8Error, Violation

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from typing import Final

__all__ = [
    "BytesLike",
    "decode",
    "find_violation",
    "first_violation",
    "is_continuation",
    "is_valid",
    "iter_range",
    "iter_violations",
    "python_is_valid",
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

#: The compiled first_violation (utf8guard._speedups), or None for pure Python.
_compiled = compiled_first_violation


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
        # A lone lead before a continuation byte: that byte is outside [lo, hi].
        second = buf[start + 1]
        return lead.below if second < lead.lo else lead.above
    return Kind.TRUNCATED


def first_violation(
    buf: BytesLike, start: int, end: int, policy: Policy, window: int = CHUNK_BYTES
) -> Violation | None:
    """The first violation in ``buf[start:end]``, with offsets into ``buf``.

    This is the seam a compiled accelerator replaces. ``end`` must not cut a sequence
    short unless the input really ends there (callers cut with :func:`safe_cut`).
    """
    if _compiled is not None:
        return _compiled(buf, start, end, policy)
    plan = plan_for(policy)
    # Below 4 bytes, safe_cut could step back to or before ``pos``.
    window = max(window, MAX_SEQUENCE_BYTES)
    # The hot loop: one decode per chunk proves it well-formed, the gates then rule out
    # refused code points, mostly at memchr speed; the regex runs only where they fail.
    view: memoryview | None = None
    pos = start
    while pos < end:
        stop = end if end - pos <= window else safe_cut(buf, pos + window)
        window = min(window * 2, CHUNK_BYTES)
        chunk: BytesLike = buf  # the whole input (a stream's chunk): no view to make
        if stop - pos != len(buf):
            view = memoryview(buf) if view is None else view
            chunk = view[pos:stop]
        elif plan.ascii_clean and isinstance(buf, bytes | bytearray) and buf.isascii():
            return None  # isascii() is twice as fast as decoding ASCII
        try:
            text = str(chunk, "utf-8")
        except UnicodeDecodeError as exc:
            bad_start, bad_end = pos + exc.start, pos + exc.end
            return first_refused(buf, pos, bad_start, plan) or Violation(
                classify(buf, bad_start, bad_end, stop), bad_start, bad_end
            )
        if plan.pattern is not None and not (plan.ascii_clean and text.isascii()):
            if plan.gates is None or may_refuse(buf, pos, stop, text, plan):
                found = first_refused(buf, pos, stop, plan)
                if found is not None:
                    return found
        pos = stop
    return None


def find_violation(data: BytesLike, policy: Policy = STRICT) -> Violation | None:
    """Return the first violation in ``data`` under ``policy``, or None if it is valid.

    >>> find_violation(b"\\xc0\\xaf")
    Violation(kind=<Kind.OVERLONG: 'overlong'>, start=0, end=1)

    Raises:
        TypeError: ``data`` is not bytes, bytearray or memoryview, or ``policy``
            is not a :class:`Policy`.
    """
    buf = as_buffer(data)
    if _compiled is not None:  # the compiled scan beats both shortcuts below
        return _compiled(buf, 0, len(buf), policy)
    if (
        compiled_is_valid is None
        and type(buf) in (bytes, bytearray)
        and len(buf) <= CHUNK_BYTES
    ):
        # Valid input, the common case, gets is_valid's one-chunk verdict (up to 10x
        # cheaper than first_violation's loop at 64 bytes); invalid input is decoded
        # once more to place its violation.
        if is_valid(buf, policy):
            return None
    elif (
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
        TypeError: ``data`` is not bytes, bytearray or memoryview, or ``policy``
            is not a :class:`Policy`.
    """
    buf = as_buffer(data)
    return iter_range(buf, 0, len(buf), policy)


#: STRICT's plan and gates, bound to module names by _bind_strict: the pure-Python
#: is_valid reads them on every call, and each attribute read costs about as much as
#: a memchr over 16 bytes. Every noncharacter's UTF-8 holds the tail byte (0xBF:
#: U+nFFFE, U+nFFFF) or the regex gate's prefix (EF B7: U+FDD0..U+FDEF); in text with
#: no character above U+FFFF only the lead's lookups (U+FFFE, U+FFFF) and that regex
#: are left (narrow_gate checked every other gate is a 4-byte lead's).
_STRICT_PLAN: Plan
_STRICT_TAIL: int
_STRICT_LEAD: int
_STRICT_SECOND: int
_STRICT_REGEX: re.Pattern[bytes]
_STRICT_LOOKUP_A: str
_STRICT_LOOKUP_B: str
#: ucs4_floor(): a decoded str below _UCS4_FLOOR + 4 * len(text) in size holds no
#: character above U+FFFF; 0 where __sizeof__ does not tell.
_UCS4_FLOOR: int


def _bind_strict() -> None:
    """Compile STRICT's plan and bind its gates to the names above."""
    global _STRICT_PLAN, _STRICT_TAIL, _STRICT_LEAD, _STRICT_SECOND, _STRICT_REGEX
    global _STRICT_LOOKUP_A, _STRICT_LOOKUP_B, _UCS4_FLOOR
    _STRICT_PLAN = plan_for(STRICT)
    _STRICT_TAIL, _STRICT_LEAD, _STRICT_SECOND, _STRICT_REGEX = tail_gate(_STRICT_PLAN)
    _STRICT_LOOKUP_A, _STRICT_LOOKUP_B = narrow_gate(_STRICT_PLAN, _STRICT_LEAD)
    _UCS4_FLOOR = ucs4_floor()


def is_valid(data: BytesLike, policy: Policy = STRICT) -> bool:
    """True when ``data`` is valid UTF-8 under ``policy``.

    >>> is_valid("€".encode()), is_valid(b"\\xed\\xa0\\x80")
    (True, False)

    Raises:
        TypeError: ``data`` is not bytes, bytearray or memoryview, or ``policy``
            is not a :class:`Policy`.
    """
    # First the commonest case with the fewest tests (each costs about 10 ns, as much
    # as decoding 16 bytes): bytes under STRICT, the default, which refuses no ASCII.
    if policy is STRICT and type(data) is bytes:
        if data.isascii():
            return True
        if len(data) <= CHUNK_BYTES:
            try:
                text = data.decode()
            except UnicodeDecodeError:
                return False  # ill-formed: refused under every policy
            # Exact, not only gates: a regex match or a lookup found is a refusal.
            if _STRICT_TAIL not in data:
                # No U+nFFFE/F: only U+FDD0..U+FDEF (EF B7 90..AF) is left.
                return (
                    _STRICT_SECOND not in data
                    or _STRICT_LEAD not in data
                    or _STRICT_REGEX.search(data) is None
                )
            if _UCS4_FLOOR and text.__sizeof__() < _UCS4_FLOOR + 4 * len(text):
                # No character above U+FFFF (Cyrillic, CJK): no 4-byte gate can match.
                return _STRICT_LEAD not in data or (
                    _STRICT_LOOKUP_A not in text
                    and _STRICT_LOOKUP_B not in text
                    and (
                        _STRICT_SECOND not in data or _STRICT_REGEX.search(data) is None
                    )
                )
            return small_is_valid(data, text, _STRICT_PLAN)
    if type(data) is not bytes or len(data) > CHUNK_BYTES:
        if type(data) is bytearray and len(data) <= CHUNK_BYTES:
            # A copy of one chunk at most (the decode makes a str up to 4x that
            # anyway) takes the bytes path: first_violation's loop costs 10x a decode.
            return is_valid(bytes(data), policy)
        return find_violation(data, policy) is None
    # Small bytes: first_violation's checks on one chunk, inlined, since each layer
    # between costs about as much as decoding 64 bytes.
    try:
        plan = policy._plan
    except AttributeError:  # not a Policy: plan_for raises the TypeError
        plan = None
    if type(plan) is not Plan:
        plan = plan_for(policy)
    if plan.ascii_clean and data.isascii():
        return True
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return False
    return small_is_valid(data, text, plan)


_python_is_valid = is_valid
if compiled_is_valid is None:
    _bind_strict()
    #: The pure-Python is_valid, which the compiled one must match (tests, benchmarks).
    python_is_valid = is_valid
else:
    # The whole predicate in one C call, same verdicts (tests/test_speedups.py): the
    # Python function around the compiled seam cost twice a small decode.
    is_valid = compiled_is_valid


def __getattr__(name: str) -> object:
    # The C build builds STRICT's plan (a twentieth of the import, issue 28; its
    # regexes compile at their first search) when python_is_valid is first asked for.
    if name != "python_is_valid":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _bind_strict()
    globals()[name] = _python_is_valid
    return _python_is_valid


def validate(data: BytesLike, policy: Policy = STRICT) -> None:
    """Return if ``data`` is valid under ``policy``; raise for its first violation.

    Raises:
        Utf8Error: with ``.violation``, the first violation.
        TypeError: ``data`` is not bytes, bytearray or memoryview, or ``policy``
            is not a :class:`Policy`.
    """
    buf = as_buffer(data)
    found = find_violation(buf, policy)
    if found is not None:
        raise Utf8Error(found, bytes(buf[found.start : found.end]))


def decode(data: BytesLike, policy: Policy = STRICT) -> str:
    """Decode ``data`` as UTF-8 after validating it under ``policy``.

    Raises:
        Utf8Error: with ``.violation``, the first violation.
        TypeError: ``data`` is not bytes, bytearray or memoryview, or ``policy``
            is not a :class:`Policy`.
    """
    buf = as_buffer(data)
    validate(buf, policy)
    return str(buf, "utf-8")
