"""Bounded memory of header-name shapes seen before (environ keys, joined names).

A server sends the same header names request after request, so what the lanes
decide of them is worth remembering; clients choose those names, so the memory is
bounded: only shapes of at most :data:`MAX_SEEN_CHARS` characters (or bytes), and
at most :data:`MAX_SEEN_SHAPES` of them, after which it starts over.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeVar

    Shape = TypeVar("Shape")
    Known = TypeVar("Known")

__all__ = ["MAX_SEEN_CHARS", "MAX_SEEN_SHAPES", "remember"]

#: At most this many shapes are remembered in one memory; then it starts over.
MAX_SEEN_SHAPES: Final = 64
#: Shapes longer than this (characters of all keys, or bytes) are not remembered.
MAX_SEEN_CHARS: Final = 4096


def remember(seen: dict[Shape, Known], shape: Shape, known: Known, size: int) -> None:
    """Keep ``known`` for ``shape`` (``size`` characters) in ``seen``, within bounds."""
    if size <= MAX_SEEN_CHARS:
        if len(seen) >= MAX_SEEN_SHAPES:
            seen.clear()
        seen[shape] = known
