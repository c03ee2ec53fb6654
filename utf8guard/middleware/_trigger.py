"""What a request-head rule declares for the fast lane, and how the lane looks for it.

The lane (``_clean``, and the C lane, which reads ``_clean.TRIGGERS``) proves a head
clean with the checks it shares with the full one (strict percent-decoding, UTF-8
under the policies, tokens, once-only fields) plus, for every other rule, a search
for the bytes that rule needs to find anything: its :class:`Trigger`'s needles.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Needles", "Trigger", "holds_any", "needles_of"]


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


class Needles(NamedTuple):
    """A trigger's needles, grouped for the cheapest search of each (CPython 3.11's
    ``bytes.__contains__`` tries a bytes needle as an int first, and raising and
    clearing that TypeError costs several times the search)."""

    #: Single bytes, as ints.
    single: tuple[int, ...]
    #: Longer ASCII needles.
    ascii: tuple[bytes, ...]
    #: Needles with a byte over 0x7F: only a value that is not ASCII can hold one.
    non_ascii: tuple[bytes, ...]


def needles_of(trigger: Trigger) -> Needles:
    """``trigger``'s needles as :func:`holds_any` searches them."""
    found = trigger.needles
    return Needles(
        tuple(needle[0] for needle in found if len(needle) == 1),
        tuple(n for n in found if len(n) > 1 and n.isascii()),
        tuple(n for n in found if not n.isascii()),
    )


def holds_any(value: bytes, needles: Needles) -> bool:
    """Whether ``value`` holds one of ``needles``."""
    for byte in needles.single:
        if byte in value:
            return True
    # bytes.find, not "in" (see Needles).
    for needle in needles.ascii:
        if value.find(needle) != -1:
            return True
    if needles.non_ascii and not value.isascii():
        for needle in needles.non_ascii:
            if value.find(needle) != -1:
                return True
    return False
