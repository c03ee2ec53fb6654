"""Code-point sets as sorted inclusive ranges, looked up by bisection.

The one representation of code-point sets in utf8guard (the model is idna's
``intranges.py``): a tuple of ``(lo, hi)`` pairs, sorted, disjoint, inclusive as in the
Unicode data files. A lookup costs O(log n) whatever the set's size.
"""

from __future__ import annotations

from bisect import bisect_right

# typing, and collections.abc (which imports collections), each cost about what the
# rest of ``import utf8guard`` does (issue 28); only mypy needs them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

__all__ = ["Ranges", "in_ranges", "to_ranges"]

#: Inclusive code-point ranges, sorted and disjoint.
Ranges = tuple[tuple[int, int], ...]

# Above every code point (U+10FFFF is the last, Unicode ch. 3 D9): as the second item of
# a probe it sorts after every range starting at the probed code point.
_PAST_LAST: Final = 0x110000


def in_ranges(cp: int, ranges: Ranges) -> bool:
    """True when code point ``cp`` lies in one of the sorted, disjoint ``ranges``."""
    index = bisect_right(ranges, (cp, _PAST_LAST))
    return index > 0 and cp <= ranges[index - 1][1]


def to_ranges(code_points: Iterable[int]) -> Ranges:
    """The sorted, merged ranges covering exactly ``code_points``.

    >>> to_ranges([0x41, 0x43, 0x42, 0x61])
    ((65, 67), (97, 97))
    """
    merged: list[list[int]] = []
    for cp in sorted(set(code_points)):
        if merged and merged[-1][1] + 1 == cp:
            merged[-1][1] = cp
        else:
            merged.append([cp, cp])
    return tuple((lo, hi) for lo, hi in merged)
