"""Compile a Policy into a bytes regex matching the encodings of what it refuses.

The regex is only ever run over bytes already known to be well-formed, where every match
of a complete encoding starts on a character boundary, so no alignment checks are
needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise, product
from typing import Final

from ._policy import Policy, Ranges, refused_ranges
from ._violation import Kind

__all__ = ["Plan", "plan_for"]

# A prefilter with more needles than this costs more than the regex it guards.
MAX_NEEDLES: Final = 8
# The last code point of each UTF-8 length (RFC 3629 §3).
_LENGTH_LIMITS: Final = (0x7F, 0x7FF, 0xFFFF)

ByteClasses = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """How to scan a well-formed region for the code points one policy refuses."""

    #: matches any refused encoding; None when the policy refuses no well-formed code
    #: point
    pattern: re.Pattern[bytes] | None
    #: every refused encoding contains one of these; None when no small set exists
    needles: tuple[bytes, ...] | None
    #: the policy refuses no ASCII code point, so pure ASCII input is valid
    ascii_clean: bool


def _byte_classes(lo: int, hi: int) -> list[ByteClasses]:
    """Split ``[lo, hi]`` into runs whose encodings are a fixed sequence of byte ranges.

    The classic construction (RE2 and Rust's utf8-ranges): split at length boundaries,
    then at 6-bit continuation boundaries until each byte position is one contiguous
    range.
    """
    for limit in _LENGTH_LIMITS:
        if lo <= limit < hi:
            return _byte_classes(lo, limit) + _byte_classes(limit + 1, hi)
    for bits in (6, 12, 18):
        mask = (1 << bits) - 1
        if lo & ~mask != hi & ~mask:
            if lo & mask:
                return _byte_classes(lo, lo | mask) + _byte_classes((lo | mask) + 1, hi)
            if hi & mask != mask:
                return _byte_classes(lo, (hi & ~mask) - 1) + _byte_classes(
                    hi & ~mask, hi
                )
    first, last = chr(lo).encode(), chr(hi).encode()
    return [tuple(zip(first, last, strict=True))]


def _count(window: tuple[tuple[int, int], ...]) -> int:
    """How many byte strings a window of byte ranges stands for."""
    total = 1
    for lo, hi in window:
        total *= hi - lo + 1
    return total


def _window_options(sequence: ByteClasses) -> set[frozenset[bytes]]:
    """For each small window (one byte or two adjacent) of ``sequence``, its strings."""
    windows = (
        [(c,) for c in sequence] if len(sequence) == 1 else list(pairwise(sequence))
    )
    return {
        frozenset(bytes(p) for p in product(*(range(lo, hi + 1) for lo, hi in w)))
        for w in windows
        if _count(w) <= MAX_NEEDLES
    }


def _prefilter(sequences: list[ByteClasses]) -> tuple[bytes, ...] | None:
    """A small set of needles such that every sequence contains one of them, or None.

    Greedy set cover: take the needle set that covers the most sequences per new needle.
    For STRICT this finds ``EF B7`` (U+FDD0..U+FDEF) and ``BF BE``, ``BF BF`` (every
    U+nFFFE/F).
    """
    options = [_window_options(seq) for seq in sequences]
    if not all(options):
        return None
    chosen: set[bytes] = set()
    uncovered = options
    while uncovered:
        candidates = sorted({c for opts in uncovered for c in opts}, key=sorted)
        best = max(
            candidates,
            key=lambda c: (
                sum(c in opts for opts in uncovered) / max(1, len(c - chosen))
            ),
        )
        chosen |= best
        if len(chosen) > MAX_NEEDLES:
            return None
        uncovered = [opts for opts in uncovered if not any(o <= chosen for o in opts)]
    return tuple(sorted(chosen))


def _alternation(sequences: list[ByteClasses]) -> bytes:
    return b"|".join(
        b"".join(b"[\\x%02x-\\x%02x]" % (lo, hi) for lo, hi in seq) for seq in sequences
    )


def _compile(refused: tuple[tuple[Kind, Ranges], ...]) -> Plan:
    """One named group per kind, so a match says which rule it broke (``lastgroup``)."""
    groups = {
        kind: [seq for lo, hi in ranges for seq in _byte_classes(lo, hi)]
        for kind, ranges in refused
    }
    if not groups:
        return Plan(None, None, ascii_clean=True)
    pattern = re.compile(
        b"|".join(
            b"(?P<%s>%s)" % (kind.value.encode(), _alternation(seqs))
            for kind, seqs in groups.items()
        )
    )
    all_sequences = [seq for seqs in groups.values() for seq in seqs]
    ascii_clean = all(seq[0][0] > 0x7F for seq in all_sequences)
    return Plan(pattern, _prefilter(all_sequences), ascii_clean=ascii_clean)


def plan_for(policy: Policy) -> Plan:
    """The plan for ``policy``, compiled once and kept on the policy object."""
    plan = policy._plan
    if isinstance(plan, Plan):
        return plan
    plan = _compile(refused_ranges(policy))
    object.__setattr__(policy, "_plan", plan)
    return plan
