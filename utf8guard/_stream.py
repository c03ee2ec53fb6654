"""Streams split at any byte: validation, every violation, and repair.

The stream is cut into segments that no sequence or maximal subpart spans, carrying at
most 3 bytes of an unfinished sequence between chunks; each segment is checked with the
one-shot code, offsets shifted to absolute stream positions. IncrementalValidator takes
a chunk in one step call, which the accelerator makes one C call (``stream_step``; the
per-chunk Python around a 64 KiB scan shows, bench/README.md).
"""

from __future__ import annotations

from ._accel import compiled_stream_step
from ._policy import STRICT, Policy, not_a_policy
from ._repair import repaired_parts
from ._scan import BytesLike, as_buffer, first_violation, is_valid, iter_range
from ._tables import CONTINUATION_HI, CONTINUATION_LO, LEADS, MAX_SEQUENCE_BYTES
from ._violation import Kind, Utf8Error, Violation

# typing, and collections.abc (which imports collections), each cost about what the
# rest of ``import utf8guard`` does (issue 28); only mypy needs them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Final

    from ._accel import StreamStep

__all__ = ["IncrementalValidator", "iter_stream_violations", "repair_stream"]

#: The first byte that is not ASCII: a chunk ending below it ends between sequences.
_FIRST_NON_ASCII: Final = 0x80
#: ``(buf, start, end, base)``: check ``buf[start:end]``; byte ``i`` is at ``base + i``.
Segment = tuple[BytesLike, int, int, int]


def _may_continue(buf: BytesLike, lead: int, end: int) -> bool:
    """False when the bytes from ``buf[lead]`` to ``end`` can start no well-formed
    sequence, so the violation is known without waiting for more bytes.

    Table 3-7: only the second byte's range depends on the lead (``E0 80..9F``,
    ``ED A0..BF``, ``F0 80..8F``, ``F4 90..BF`` are ruled out); the bytes after the
    lead are already known to be continuation bytes. CPython's incremental decoder and
    Rust's ``Utf8Error::error_len`` also fail at once (CPython waits after ``ED A0``).
    """
    row = LEADS[buf[lead]]
    return end - lead < 2 or row.lo <= buf[lead + 1] <= row.hi


class _Splitter:
    """Cut chunks into segments at positions no span crosses; hold at most 3 bytes."""

    def __init__(self, pending: bytes = b"") -> None:
        self.pending = pending  # an unfinished sequence held from the last chunk
        self.offset = 0  # stream offset of the next byte not yet handed out

    def push(self, chunk: BytesLike) -> list[Segment]:
        """``chunk``'s segments, the held sequence it completes (or breaks) first."""
        buf = chunk if type(chunk) is bytes else as_buffer(chunk)
        segments: list[Segment] = []
        rest = 0
        if self.pending:
            joined, rest = self._complete(buf)
            if joined is None:
                return segments
            segments.append((joined, 0, len(joined), self.offset))
            self.offset += len(joined)
        carry = len(buf)
        if carry > rest and buf[-1] >= _FIRST_NON_ASCII:  # else nothing unfinished
            carry = self._unfinished_tail(buf, rest)
        segments.append((buf, rest, carry, self.offset - rest))
        self.offset += carry - rest
        self.pending = bytes(buf[carry:])
        return segments

    def flush(self) -> Segment:
        pending, self.pending = self.pending, b""
        self.offset += len(pending)
        return pending, 0, len(pending), self.offset - len(pending)

    def _complete(self, buf: BytesLike) -> tuple[bytes | None, int]:
        """Extend the held sequence with the continuation bytes that start ``buf``.

        Returns the finished (or broken) sequence and how much of ``buf`` it took, or
        ``(None, len(buf))`` when ``buf`` ended before the sequence did.
        """
        need = LEADS[self.pending[0]].length - len(self.pending)
        taken = 0
        for byte in buf[:need]:  # at most 3 bytes
            if not CONTINUATION_LO <= byte <= CONTINUATION_HI:
                break
            taken += 1
        joined = self.pending + bytes(buf[:taken])
        if taken < need and taken == len(buf) and _may_continue(joined, 0, len(joined)):
            self.pending = joined
            return None, taken
        self.pending = b""
        return joined, taken

    @staticmethod
    def _unfinished_tail(buf: BytesLike, start: int) -> int:
        """Where a trailing unfinished sequence begins, else ``len(buf)``."""
        end = pos = len(buf)
        stop = max(end - MAX_SEQUENCE_BYTES, start - 1)
        # Runs once per chunk: a while loop over bytes, no range or calls per byte.
        while (pos := pos - 1) > stop:
            byte = buf[pos]
            if not CONTINUATION_LO <= byte <= CONTINUATION_HI:
                length = LEADS[byte].length
                if length > end - pos and _may_continue(buf, pos, end):
                    return pos
                return end
        return end


def _first_in(segment: Segment, policy: Policy) -> Violation | None:
    """The first violation in ``segment``, at its stream offsets."""
    buf, start, end, base = segment
    if start == 0 and end == len(buf) and is_valid(buf, policy):
        # A whole chunk: one is_valid call (one C call with the accelerator, and
        # isascii first in pure Python) is the cheapest proof it is clean.
        return None
    found = first_violation(buf, start, end, policy)
    if found is None:
        return None
    return Violation(found.kind, base + found.start, base + found.end)


def _python_step(held: bytes, chunk: BytesLike, policy: Policy) -> bytes | Violation:
    """One chunk of a stream: the first violation in ``held + chunk``, with offsets
    from ``held[0]``; where there is none but a sequence the end of the data cuts
    short, its bytes, to hold for the next chunk; else ``b""``.

    ``held`` is what the call for the chunk before returned; ``chunk`` is flat (as
    :func:`~utf8guard._scan.as_buffer` gives it). The reference for the compiled
    ``stream_step``, which must return the same for every input.
    """
    if (
        not held
        and (not chunk or chunk[-1] < _FIRST_NON_ASCII)
        and is_valid(chunk, policy)
    ):
        # Nothing held, nothing to hold: one call settles the chunk.
        return b""
    splitter = _Splitter(held)
    for segment in splitter.push(chunk):
        found = _first_in(segment, policy)
        if found is not None:
            return found
    return splitter.pending


#: A stream's chunk in one call: compiled with the accelerator, else _python_step.
_step: Final[StreamStep] = compiled_stream_step or _python_step


class IncrementalValidator:
    """Validate UTF-8 arriving in chunks, reporting what one-shot validation would.

    ``feed`` each chunk as it arrives and call ``finish`` at the end of the stream. A
    sequence may be split anywhere; at most 3 bytes of an unfinished sequence are held
    between calls. Offsets are absolute in the stream, and the first violation raised is
    the one :func:`~utf8guard.find_violation` reports for the whole stream. After a
    violation every further call raises it again (fail closed).

    >>> v = IncrementalValidator()
    >>> v.feed(b"\\xe2\\x82"); v.feed(b"\\xac"); v.finish()

    Raises:
        Utf8Error: from ``feed`` or ``finish``, for the first violation.
    """

    def __init__(self, policy: Policy = STRICT) -> None:
        if not isinstance(policy, Policy):
            raise not_a_policy(policy)
        self._policy = policy
        self._held = b""  # an unfinished sequence at the end of the bytes fed
        self._fed = 0  # bytes fed, the held ones included
        self._error: Utf8Error | None = None

    @property
    def position(self) -> int:
        """Bytes of the stream checked so far (not the held unfinished sequence)."""
        return self._fed - len(self._held)

    def feed(self, chunk: BytesLike) -> None:
        """Check the next chunk of the stream.

        Raises:
            Utf8Error: the stream so far has a violation.
            TypeError: ``chunk`` is not bytes, bytearray or memoryview.
        """
        if self._error is not None:
            raise self._error
        if type(chunk) is not bytes:
            chunk = as_buffer(chunk)  # len() counts bytes from here on
        held = self._held
        step = _step(held, chunk, self._policy)
        if not isinstance(step, bytes):
            raise self._fail(step, held, chunk)
        self._fed += len(chunk)
        self._held = step

    def finish(self) -> None:
        """Declare the end of the stream: a held unfinished sequence is truncated.

        Raises:
            Utf8Error: the stream has a violation.
        """
        if self._error is not None:
            raise self._error
        if self._held:
            # What _step holds is a prefix of a sequence, cut short (Table 3-7).
            held = self._held
            raise self._fail(Violation(Kind.TRUNCATED, 0, len(held)), held, b"")

    def _fail(self, found: Violation, held: bytes, chunk: BytesLike) -> Utf8Error:
        """Fail closed on ``found``, with offsets from ``held[0]`` in ``held + chunk``:
        the error every later call raises."""
        base, size = self.position, len(held)
        snippet = held[found.start : found.end] + bytes(
            chunk[max(found.start - size, 0) : max(found.end - size, 0)]
        )
        shifted = Violation(found.kind, base + found.start, base + found.end)
        self._error = Utf8Error(shifted, snippet)
        return self._error


def _segments(chunks: Iterable[BytesLike]) -> Iterator[Segment]:
    splitter = _Splitter()
    for chunk in chunks:
        yield from splitter.push(chunk)
    yield splitter.flush()


def iter_stream_violations(
    chunks: Iterable[BytesLike], policy: Policy = STRICT
) -> Iterator[Violation]:
    """Yield every violation in a stream of chunks, with absolute stream offsets.

    The result is what :func:`~utf8guard.iter_violations` gives for the joined stream,
    whatever the chunking, holding at most 3 bytes beyond the chunk in hand.

    >>> chunks = [b"ok \\xe2\\x82", b"\\xac \\xc0"]
    >>> [(str(v.kind), v.start) for v in iter_stream_violations(chunks)]
    [('overlong', 7)]

    Raises:
        TypeError: a chunk is not bytes, bytearray or memoryview.
    """
    for buf, start, end, base in _segments(chunks):
        for found in iter_range(buf, start, end, policy):
            yield Violation(found.kind, base + found.start, base + found.end)


def repair_stream(
    chunks: Iterable[BytesLike], policy: Policy = STRICT
) -> Iterator[bytes]:
    """Yield the repaired stream piece by piece: :func:`~utf8guard.repair` for streams.

    Joining the pieces gives ``repair`` of the joined input, whatever the chunking.

    >>> b"".join(repair_stream([b"a\\xe2\\x82", b"\\xac\\xed\\xa0", b"\\x80"]))
    b'a\\xe2\\x82\\xac\\xef\\xbf\\xbd\\xef\\xbf\\xbd\\xef\\xbf\\xbd'

    Raises:
        TypeError: a chunk is not bytes, bytearray or memoryview.
    """
    for buf, start, end, _ in _segments(chunks):
        yield from repaired_parts(buf, start, end, policy)
