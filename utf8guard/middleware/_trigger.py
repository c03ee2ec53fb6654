"""What a request-head rule declares for the fast lane, next to its exact check; data.

The lane (``_clean``, and the C lane, which reads ``_clean.TRIGGERS``) proves a head
clean with the checks it shares with the full one (strict percent-decoding, UTF-8
under the policies, tokens, once-only fields) plus, for every other rule, a search
for the bytes that rule needs to find anything: its :class:`Trigger`'s needles.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Trigger"]


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
