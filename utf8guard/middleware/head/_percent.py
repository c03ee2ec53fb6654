"""Strict percent-decoding to bytes (RFC 3986 §2.1), refusing what lenient decoders eat.

Lenient decoders pass ``%G0`` and a trailing ``%`` through, decode IIS's ``%uXXXX``, or
decode twice; each has been used to smuggle bytes past a filter. Here a well-formed
``%XX`` becomes its byte, and anything else after ``%`` is reported (and kept as the
literal ``%``, so offsets stay easy to map back).
"""

from __future__ import annotations

from bisect import bisect_left
from codecs import escape_decode

from ..._accel import IMPLEMENTATION
from ..._lazy_pattern import lazy_pattern
from ..._policy import Policy
from ..._record import Record
from ..._scan import is_valid
from ..._stream import IncrementalValidator
from ..._violation import Utf8Error
from ..engine._finding import RequestKind
from ._abnf import NOT_PCT_ENCODED, PCT_ENCODED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Final

    #: Where a run starts: the ``locate`` of its chunk and an index in that chunk (the
    #: chunk stays referenced while its run is open: one chunk at most).
    _Place = tuple[Callable[[int], int], int]

__all__ = [
    "ESCAPE_RUN",
    "Decoded",
    "SecondDecode",
    "incomplete_escape_start",
    "percent_decode",
    "py_strict_unquote",
    "strict_unquote",
]

# RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG; any other "%" is malformed.
_HEX_DIGITS: Final = frozenset(b"0123456789ABCDEFabcdef")
#: Raw bytes one well-formed escape takes ("%XX"), less the one byte it becomes.
_ESCAPE_SHRINK: Final = 2
#: Consecutive well-formed escapes: what a second decode turns into bytes.
ESCAPE_RUN: Final = lazy_pattern(rb"(?:%[0-9A-Fa-f]{2})+")
#: The run that ends a chunk, read from the chunk's end (reversed): a backward
#: scan finds the same escapes, since no escape can overlap another.
_REVERSED_RUN: Final = lazy_pattern(rb"(?:[0-9A-Fa-f]{2}%)*")
#: ASCII no policy refuses stays; controls and non-ASCII become "." (SecondDecode).
_NEUTRAL: Final = bytes(
    c if 0x20 <= c < 0x7F or c in b"\t\n\r" else ord(".") for c in range(256)
)


class Decoded(Record):
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
    # unquote_to_bytes decodes exactly the well-formed %XX and keeps any other "%";
    # imported here, as urllib.parse costs more at import than this module.
    from urllib.parse import unquote_to_bytes

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
    try:
        return escape_decode(_as_literal(raw))[0]
    except ValueError:
        return None


if IMPLEMENTATION == "c":
    from ..._speedups import strict_unquote
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


class SecondDecode:
    """Double encoding: escapes left after the guard's decode, as a second decode
    would read them (CVE-2001-0333: ``%25C0%25AF`` is ``%C0%AF`` after one decode).

    Fed a once-decoded stream in chunks, this reports each run of consecutive
    escapes (``%C0%AF``) whose bytes are not valid UTF-8 under the policy, at the
    run's first escape; a run is reported once. The rest of the stream is the first
    check's: where the once-decoded stream is valid UTF-8, its raw sequences stay
    whole and its escapes are ASCII, so a second decode can only go wrong inside a
    run, and it is valid exactly when every run is (tests/middleware/test_percent.py
    holds this against ``unquote_to_bytes``). A run or an escape may be split
    anywhere: at most 2 bytes and one run's validator are held. Linear, and the runs
    a chunk holds whole are decoded and validated together in C, so a body of short
    runs costs no Python per run unless one fails.
    """

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        self._run: IncrementalValidator | None = None  # a run the last chunk ended in
        self._run_at: _Place = (int, 0)  # where that run starts
        self._failed = False  # that run is reported: skip the rest of it
        self._held = b""  # "%" or "%X" that ended the last chunk
        self._held_at: _Place = (int, 0)

    @property
    def pending(self) -> bool:
        """True when the last chunk ended in a run or in a cut escape: feed the next
        chunk even if it holds no ``%``."""
        return self._run is not None or bool(self._held)

    def feed(self, data: bytes, locate: Callable[[int], int]) -> list[int]:
        """Where each failing run that ends in ``data`` starts; ``locate`` maps an
        index in ``data`` to the offset to report."""
        found: list[int] = []
        held = self._held
        buf = held + data if held else data
        cut = incomplete_escape_start(buf)
        if not cut:
            return self._hold(buf, cut, held, locate, found)
        lo = 0
        run = self._run
        if run is not None:
            first = ESCAPE_RUN.match(buf, 0, cut)  # the open run goes on at buf[0]
            if first is not None:
                self._extend(run, first.group(), found)
                lo = first.end()
            if lo == cut:  # and holds the whole chunk: it stays open
                return self._hold(buf, cut, held, locate, found)
            self._close(found)
        hi = cut
        if PCT_ENCODED.fullmatch(buf, cut - 3, cut):  # a run reaches the cut
            last = _REVERSED_RUN.match(buf[lo:cut][::-1])
            hi -= last.end() if last else 0
        region = buf[lo:hi] if lo or hi < len(buf) else buf
        if b"%" in region and not self._runs_are_valid(region):
            for match in ESCAPE_RUN.finditer(buf, lo, hi):
                if not is_valid(_unescape(match.group()), self._policy):
                    found.append(_offset(self._where(match.start(), held, locate)))
        if hi < cut:
            self._extend(self._open(self._where(hi, held, locate)), buf[hi:cut], found)
        return self._hold(buf, cut, held, locate, found)

    def _runs_are_valid(self, region: bytes) -> bool:
        """True when every run of escapes in ``region`` is valid on its own.

        All at once, in C: each escape becomes its byte; a "%" that starts no escape
        "?" (``escape_decode`` replaces a bad ``\\x`` and the hex digit it took, if
        any); and every other byte stays if ASCII the policy never refuses, else
        becomes ".". So only a run can fail here, and the run-by-run pass that
        names it is taken only when one does (a raw sequence cut by the chunk's
        start or end, or a control, would fail the check but not a run).
        """
        decoded = escape_decode(_as_literal(region.translate(_NEUTRAL)), "replace")[0]
        return is_valid(decoded, self._policy)

    def finish(self) -> list[int]:
        """The end of the stream: a run open there is checked whole. A cut escape
        ("%" or "%X") is no escape: a second decode keeps it as it is."""
        found: list[int] = []
        self._close(found)
        self._held = b""
        return found

    def _hold(
        self,
        buf: bytes,
        cut: int,
        held: bytes,
        locate: Callable[[int], int],
        found: list[int],
    ) -> list[int]:
        """Keep ``buf[cut:]``, a cut escape, for the next chunk; return ``found``."""
        if cut < len(buf) and cut >= len(held):
            self._held_at = (locate, cut - len(held))
        self._held = buf[cut:]
        return found

    def _where(self, start: int, held: bytes, locate: Callable[[int], int]) -> _Place:
        """The offset of ``buf[start]``: in ``data``, or in the bytes held before it
        (a run's "%" is their first byte)."""
        return (locate, start - len(held)) if start >= len(held) else self._held_at

    def _open(self, at: _Place) -> IncrementalValidator:
        self._run = IncrementalValidator(self._policy)
        self._run_at = at
        self._failed = False
        return self._run

    def _extend(
        self, run: IncrementalValidator, escapes: bytes, found: list[int]
    ) -> None:
        if self._failed:
            return
        try:
            run.feed(_unescape(escapes))
        except Utf8Error:
            found.append(_offset(self._run_at))
            self._failed = True

    def _close(self, found: list[int]) -> None:
        run, self._run = self._run, None
        if run is None or self._failed:
            return
        try:
            run.finish()
        except Utf8Error:
            found.append(_offset(self._run_at))


def _offset(place: _Place) -> int:
    """The offset of a place, worked out only for a run that fails: ``locate`` may
    build a map of its chunk's escapes to answer."""
    locate, index = place
    return locate(index)


def _unescape(escapes: bytes) -> bytes:
    """The bytes of well-formed escapes only (``%C3%A9``), decoded in C."""
    return escape_decode(_as_literal(escapes))[0]


def _as_literal(raw: bytes) -> bytes:
    """``raw`` as the escapes of a bytes literal (see :func:`py_strict_unquote`):
    each backslash doubled, then each "%" as "\\x"."""
    return raw.replace(b"\\", b"\\\\").replace(b"%", b"\\x")
