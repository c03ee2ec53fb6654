"""Strict percent-decoding to bytes (RFC 3986 §2.1), refusing what lenient decoders eat.

Lenient decoders pass ``%G0`` and a trailing ``%`` through, decode IIS's ``%uXXXX``, or
decode twice; each has been used to smuggle bytes past a filter. Here a well-formed
``%XX`` becomes its byte, and anything else after ``%`` is reported (and kept as the
literal ``%``, so offsets stay easy to map back).
"""

from __future__ import annotations

from bisect import bisect_left
from codecs import escape_decode
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote_to_bytes

from .._accel import IMPLEMENTATION
from ._abnf import NOT_PCT_ENCODED, PCT_ENCODED
from ._finding import RequestKind

__all__ = [
    "Decoded",
    "incomplete_escape_start",
    "percent_decode",
    "py_strict_unquote",
    "strict_unquote",
]

# RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG; any other "%" is malformed.
_HEX_DIGITS: Final = frozenset(b"0123456789ABCDEFabcdef")
#: Raw bytes one well-formed escape takes ("%XX"), less the one byte it becomes.
_ESCAPE_SHRINK: Final = 2


@dataclass(frozen=True, slots=True)
class Decoded:
    """Decoded bytes, the raw input, and whether any escape in it is malformed.

    :meth:`iter_errors` yields ``(kind, raw offset)`` of each malformed or
    non-standard escape, found on demand: a component full of them is never held
    as a list of errors.
    """

    data: bytes
    raw: bytes
    malformed: bool = False

    def iter_errors(self) -> Iterator[tuple[RequestKind, int]]:
        """Each malformed (``%G0``, trailing ``%``) or IIS (``%u``) escape, in order."""
        if not self.malformed:
            return
        for match in NOT_PCT_ENCODED.finditer(self.raw):
            following = self.raw[match.end() : match.end() + 1]
            if following in (b"u", b"U"):
                yield RequestKind.NONSTANDARD_ESCAPE, match.start()
            else:
                yield RequestKind.MALFORMED_ESCAPE, match.start()

    @property
    def errors(self) -> tuple[tuple[RequestKind, int], ...]:
        """Every error of :meth:`iter_errors` at once."""
        return tuple(self.iter_errors())

    def offset_map(self) -> Callable[[int], int]:
        """A function from a decoded index to its raw offset (its ``%`` if escaped).

        Builds the escape table once, in one pass over ``raw``; each lookup is then a
        binary search, so mapping every finding in a component stays O(n log n).
        """
        # Decoded index of each escape: its raw start less the bytes the escapes
        # before it saved.
        escapes = [
            match.start() - _ESCAPE_SHRINK * number
            for number, match in enumerate(PCT_ENCODED.finditer(self.raw))
        ]

        def to_raw(index: int) -> int:
            return index + _ESCAPE_SHRINK * bisect_left(escapes, index)

        return to_raw

    def raw_offset(self, index: int) -> int:
        """The raw offset of decoded byte ``index``; one lookup (see offset_map)."""
        return self.offset_map()(index)


def percent_decode(raw: bytes, *, plus_is_space: bool = False) -> Decoded:
    """Decode ``%XX`` escapes in ``raw``; with ``plus_is_space``, ``+`` is a space.

    ``plus_is_space`` is the ``application/x-www-form-urlencoded`` rule (WHATWG URL
    "application/x-www-form-urlencoded parsing"); it maps one byte to one byte.

    >>> percent_decode(b"a%C3%A4%G0").data, percent_decode(b"%G0").errors
    (b'a\\xc3\\xa4%G0', ((<RequestKind.MALFORMED_ESCAPE: 'malformed_escape'>, 0),))
    """
    if plus_is_space:
        raw = raw.replace(b"+", b" ")
    if b"%" not in raw:
        return Decoded(raw, raw)
    decoded = strict_unquote(raw)
    if decoded is not None:
        return Decoded(decoded, raw)
    # unquote_to_bytes decodes exactly the well-formed %XX and keeps any other "%".
    return Decoded(unquote_to_bytes(raw), raw, malformed=True)


def py_strict_unquote(raw: bytes) -> bytes | None:
    """``raw`` with every ``%XX`` decoded; None if a ``%`` starts no such escape.

    The reference; :data:`strict_unquote` is the C accelerator's twin when active.

    >>> py_strict_unquote(b"caf%C3%a9"), py_strict_unquote(b"100%")
    (b'caf\\xc3\\xa9', None)
    """
    # One C pass instead of a Python loop per escape (three times faster on a path
    # with two escapes): written as a bytes literal's escapes, "%XX" is "\xXX",
    # which CPython's escape decoder (codecs.escape_decode: it reads bytes literals
    # and pickle's protocol-0 strings; typed in typeshed) decodes only when two hex
    # digits of either case follow, as RFC 3986 §2.1 asks, and refuses with
    # ValueError otherwise. Every backslash is doubled first, so the decoder meets
    # no escape but these two.
    escaped = raw.replace(b"\\", b"\\\\").replace(b"%", b"\\x")
    try:
        return escape_decode(escaped)[0]
    except ValueError:
        return None


if IMPLEMENTATION == "c":
    from .._speedups import strict_unquote
else:
    strict_unquote = py_strict_unquote


def incomplete_escape_start(raw: bytes) -> int:
    """Where an escape cut off by the end of ``raw`` begins, else ``len(raw)``.

    A stream decoder holds these at most 2 bytes until the next chunk arrives.
    """
    end = len(raw)
    if raw.endswith(b"%"):
        return end - 1
    if end >= 2 and raw[end - 2] == 0x25 and raw[end - 1] in _HEX_DIGITS:
        return end - 2
    return end
