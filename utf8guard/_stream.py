"""IncrementalValidator: validate a stream split at any byte, carrying at most 3."""

from __future__ import annotations

from ._policy import STRICT, Policy
from ._scan import (
    MAX_SEQUENCE_BYTES,
    BytesLike,
    as_buffer,
    first_violation,
    is_continuation,
)
from ._tables import LEADS
from ._violation import Utf8Error, Violation

__all__ = ["IncrementalValidator"]


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
            raise TypeError(f"policy must be a Policy, not {type(policy).__name__}")
        self._policy = policy
        self._pending = b""
        self._offset = 0  # stream offset of _pending[0]
        self._error: Utf8Error | None = None

    @property
    def position(self) -> int:
        """Bytes of the stream checked so far (not the held unfinished sequence)."""
        return self._offset

    def feed(self, chunk: BytesLike) -> None:
        """Check the next chunk of the stream.

        Raises:
            Utf8Error: the stream so far has a violation.
            TypeError: ``chunk`` is not bytes, bytearray or memoryview.
        """
        buf = as_buffer(chunk)
        self._raise_if_failed()
        rest = 0
        if self._pending:
            rest = self._complete_pending(buf)
            if self._pending:
                return
        carry = self._unfinished_tail(buf, rest)
        self._check(buf, rest, carry, self._offset - rest)
        self._pending = bytes(buf[carry:])
        self._offset += carry - rest

    def finish(self) -> None:
        """Declare the end of the stream: a held unfinished sequence is truncated.

        Raises:
            Utf8Error: the stream has a violation.
        """
        self._raise_if_failed()
        pending, self._pending = self._pending, b""
        self._check(pending, 0, len(pending), self._offset)
        self._offset += len(pending)

    def _complete_pending(self, buf: BytesLike) -> int:
        """Join held bytes with the start of ``buf``; return how much of it was used."""
        need = LEADS[self._pending[0]].length - len(self._pending)
        joined = self._pending + bytes(buf[:need])
        if len(joined) < LEADS[joined[0]].length and all(
            map(is_continuation, joined[1:])
        ):
            self._pending = joined  # still unfinished: the chunk was tiny
            return len(buf)
        self._pending = b""
        self._check(joined, 0, len(joined), self._offset)
        self._offset += len(joined)
        return need if need <= len(buf) else len(buf)

    @staticmethod
    def _unfinished_tail(buf: BytesLike, start: int) -> int:
        """Where a trailing unfinished sequence begins, else ``len(buf)``."""
        end = len(buf)
        for pos in range(end - 1, max(end - MAX_SEQUENCE_BYTES, start - 1), -1):
            if LEADS[buf[pos]].length > 1:
                return pos if end - pos < LEADS[buf[pos]].length else end
            if not is_continuation(buf[pos]):
                return end
        return end

    def _check(self, buf: BytesLike, start: int, end: int, base: int) -> None:
        """Validate ``buf[start:end]``; byte ``i`` is at stream offset ``base + i``."""
        found = first_violation(buf, start, end, self._policy)
        if found is not None:
            shifted = Violation(found.kind, base + found.start, base + found.end)
            self._error = Utf8Error(shifted, bytes(buf[found.start : found.end]))
            self._raise_if_failed()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error
