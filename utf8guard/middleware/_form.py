"""``application/x-www-form-urlencoded`` bodies: every decoded name and value."""

from __future__ import annotations

import re
from typing import Final

from .._policy import Policy
from .._stream import IncrementalValidator
from .._violation import Utf8Error
from ._finding import Finding, Location, safe_name
from ._percent import incomplete_escape_start, percent_decode

__all__ = ["FormInspector"]

_FORM_DELIMITER: Final = re.compile(rb"[&=]")
_SAFE_NAME_BYTES: Final = 65


class FormInspector:
    """``application/x-www-form-urlencoded``: every decoded name and value.

    Each name and value is percent-decoded strictly (``+`` is a space) and validated
    as its own stream, so memory stays O(chunk) however long a value is. A ``%``
    escape split across chunks waits for its end (at most 2 bytes held). Findings here
    are never fixable: normalize mode cannot re-encode a form safely, so it blocks.
    """

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        self._carry = b""
        self._offset = 0  # stream offset of _carry[0]: everything before is processed
        self._in_value = False
        self._name: str | None = None
        self._name_head = bytearray()
        self._start_piece()

    def _start_piece(self) -> None:
        self._utf8 = IncrementalValidator(self._policy)
        self._decoded = 0  # decoded bytes of this name or value fed so far
        self._tail: list[int] = []  # raw offsets of its last <= 3 decoded bytes
        self._failed = False

    @property
    def checked(self) -> int:
        pending = self._decoded - self._utf8.position
        if pending == 0 or self._failed:
            return self._offset
        return self._tail[-pending]

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._process(chunk, final=False)

    def finish(self) -> list[Finding]:
        return self._process(b"", final=True) + self._end_piece()

    def _process(self, chunk: bytes, *, final: bool) -> list[Finding]:
        buf = self._carry + chunk if self._carry else chunk
        cut = len(buf) if final else incomplete_escape_start(buf)
        findings: list[Finding] = []
        pos = 0
        for match in _FORM_DELIMITER.finditer(buf, 0, cut):
            findings += self._run(buf, pos, match.start())
            pos = match.end()
            if match.group() == b"&":
                findings += self._end_piece()
                self._in_value, self._name = False, None
                self._name_head.clear()
            elif not self._in_value:
                findings += self._end_piece()
                self._in_value = True
                self._name = safe_name(bytes(self._name_head))
            else:
                # WHATWG: only the first "=" splits; later ones belong to the value.
                findings += self._run(buf, match.start(), pos)
        findings += self._run(buf, pos, cut)
        self._carry = bytes(buf[cut:])
        self._offset += cut
        return findings

    def _run(self, buf: bytes, start: int, end: int) -> list[Finding]:
        """Decode and check ``buf[start:end]``, a stretch of one name or value."""
        if start == end:
            return []
        decoded = percent_decode(buf[start:end], plus_is_space=True)
        raw_base = self._offset + start
        findings = [
            Finding(Location.BODY, self._name, kind, raw_base + offset)
            for kind, offset in decoded.errors
        ]
        data = decoded.data
        if not self._in_value:
            self._name_head += data[: _SAFE_NAME_BYTES - len(self._name_head)]
        if self._failed:
            return findings
        first = self._decoded
        try:
            self._utf8.feed(data)
        except Utf8Error as exc:
            index = exc.violation.start - first
            offset = raw_base + decoded.raw_offset(index) if index >= 0 else None
            findings.append(self._failure(exc, offset))
        self._decoded += len(data)
        tail = range(max(len(data) - 3, 0), len(data))
        self._tail += [raw_base + decoded.raw_offset(i) for i in tail]
        del self._tail[:-3]
        return findings

    def _end_piece(self) -> list[Finding]:
        findings = []
        if not self._failed:
            try:
                self._utf8.finish()
            except Utf8Error as exc:
                findings.append(self._failure(exc, None))
        self._start_piece()
        return findings

    def _failure(self, exc: Utf8Error, offset: int | None) -> Finding:
        """A finding for ``exc``; an offset of None lies in the held tail bytes."""
        self._failed = True
        if offset is None:
            offset = self._tail[exc.violation.start - self._decoded]
        return Finding(Location.BODY, self._name, exc.violation.kind, offset)
