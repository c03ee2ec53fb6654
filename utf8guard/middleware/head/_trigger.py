"""What a request-head rule declares for the fast lane, and how the lane looks for it.

The lane (``_clean``, and the C lane, which reads ``_clean.TRIGGERS``) proves a head
clean with the checks it shares with the full one (strict percent-decoding, UTF-8
under the policies, tokens, once-only fields) plus, for every other rule, a search
for the bytes that rule needs to find anything: its :class:`Trigger`'s needles.
"""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern, literal

# Only mypy reads re and typing here: importing the lane compiles no pattern and
# imports no typing (issue 28).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import NamedTuple
else:
    from ..._named_tuple import NamedTuple

__all__ = ["Gate", "Trigger", "gate_of", "pattern_of", "second_marks_of"]

#: A pattern that matches nothing: the search of a trigger without needles.
_NOTHING = b"(?!)"


class Trigger(NamedTuple):
    """The bytes that can make a head rule find anything, and examples it refuses.

    A component holding none of ``needles`` is clean of the rule (the lane passes
    it); one holding any goes to the full check, which only costs time. ``vectors``
    are components the rule refuses, each holding a needle:
    ``tests/middleware/test_triggers.py`` checks that, and splices them into clean
    heads to check that the lane never calls clean what the full check refuses.
    """

    needles: tuple[bytes, ...]
    vectors: tuple[bytes, ...]


class Gate(NamedTuple):
    """A trigger's needles as the pure-Python lane looks for them in a value: only
    when ``0 in value.translate(marks)`` (a needle's first byte is there, or a NUL)
    can ``pattern.search(value)`` find one. One ``translate`` pass and a ``bytes``
    search cost less than a Python loop over the needles (about a third, callgrind).
    When the one needle is one byte, ``byte in value`` says it all, at a quarter of
    the ``translate`` pass."""

    marks: bytes
    pattern: re.Pattern[bytes]
    #: The one needle's byte, when the needles are one single byte; else None.
    byte: int | None


def pattern_of(needles: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """A pattern whose ``search`` finds some of ``needles`` in a value, in one pass:
    ``any(needle in value for needle in needles)``. Literals grouped by their first
    byte (``%(?:2e|2f|5c)``), so the regular expression engine stops only at those
    bytes and tries each once (about 8% less than the needles side by side).

    A :func:`..._lazy_pattern.lazy_pattern`, compiled at its first search: importing
    the lane compiles nothing and needs no ``re`` (issue 28), and requests whose
    gates stay shut never compile it. The callers hold the pattern, not its
    ``search``: once compiled, ``.search`` is a slot read (a function over the
    search would cost a Python frame a call, about 0.8k instructions a head)."""
    rests: dict[bytes, list[bytes]] = {}
    for needle in needles:
        rests.setdefault(needle[:1], []).append(needle[1:])
    pattern = b"|".join(
        literal(first)
        if b"" in after
        else literal(first) + b"(?:" + b"|".join(map(literal, after)) + b")"
        for first, after in rests.items()
    )
    return lazy_pattern(pattern or _NOTHING)


def gate_of(needles: tuple[bytes, ...]) -> Gate:
    """``needles`` as a :class:`Gate`."""
    first = {needle[0] for needle in needles} | {0}
    marks = bytes(0 if byte in first else byte for byte in range(256))
    byte = needles[0][0] if len(needles) == 1 and len(needles[0]) == 1 else None
    return Gate(marks, pattern_of(needles), byte)


def second_marks_of(needles: tuple[bytes, ...]) -> bytes:
    """A ``translate`` table for a cheaper gate than :func:`gate_of`'s where a value
    is searched in lower case: ``value.lower()`` can hold a needle only where
    ``0 in value.translate(table)``, since then ``value`` holds, in either case, the
    needle's second byte, or its only one (a NUL too). Second bytes are rarer than
    first ones when the value is "/" + a path and the needles start with "/" or
    "%"."""
    wanted = {needle[1:2] or needle for needle in needles} | {b"\0"}
    return bytes(0 if bytes([byte]).lower() in wanted else byte for byte in range(256))
