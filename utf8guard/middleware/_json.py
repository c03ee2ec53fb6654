"""JSON bodies (RFC 8259): valid raw UTF-8, and no escape of a lone surrogate."""

from __future__ import annotations

import re
from typing import Final

from .._policy import Policy
from .._scan import find_violation
from .._violation import Kind
from ._finding import Finding, Location, RequestKind
from ._text import Utf8Check

__all__ = ["JsonInspector"]

#: Longest JSON escape the scanner waits for: a surrogate pair, "\\uD83D\\uDE00".
_PAIR_BYTES: Final = 12
_HEX4: Final = re.compile(rb"[0-9A-Fa-f]{4}")


class JsonInspector:
    """JSON: valid raw bytes, and no ``\\u`` escape of a lone surrogate (RFC 8259 §8.2).

    ``"\\ud800"`` is refused, ``"\\ud83d\\ude00"`` (a pair) passes, and ``"\\\\ud800"``
    is an escaped backslash followed by text, which passes. Escaped code points are
    also held to the policy (``"\\uffff"`` is a noncharacter). An escape split across
    chunks waits for its end: at most 11 bytes are held.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        base: int = 0,
        name: str | None = None,
        fixable: bool = True,
    ) -> None:
        self._policy = policy
        self._name = name
        self._utf8 = Utf8Check(policy, base, name, fix=fixable)
        self._carry = b""
        self._offset = base  # stream offset of _carry[0]
        self._verdicts: dict[int, Kind | None] = {}  # the policy on escaped code points

    @property
    def checked(self) -> int:
        return min(self._utf8.position, self._offset)

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._utf8.feed(chunk) + self._escapes(chunk, final=False)

    def finish(self) -> list[Finding]:
        return self._utf8.finish() + self._escapes(b"", final=True)

    def _escapes(self, chunk: bytes, *, final: bool) -> list[Finding]:
        buf = self._carry + chunk if self._carry else chunk
        if not final and b"\\u" not in buf:
            # No \u escape in here; an odd run of backslashes at the end may start one.
            plain = len(buf)
            while plain and buf[plain - 1] == 0x5C:
                plain -= 1
            cut = len(buf) - (len(buf) - plain) % 2
            self._carry = bytes(buf[cut:])
            self._offset += cut
            return []
        findings: list[Finding] = []
        pos = 0
        while (start := buf.find(b"\\", pos)) >= 0:
            end = self._escape_end(buf, start, final)
            if end is None:
                break
            kind = self._refusal(buf, start, end)
            if kind is not None:
                offset = self._offset + start
                findings.append(Finding(Location.BODY, self._name, kind, offset))
            pos = end
        else:
            start = len(buf)
        self._carry = bytes(buf[start:])
        self._offset += start
        return findings

    @staticmethod
    def _escape_end(buf: bytes, start: int, final: bool) -> int | None:
        """Where the escape at ``start`` ends, or None to wait for more bytes."""
        available = len(buf) - start
        if available < 2 or (buf[start + 1] == 0x75 and available < 6):
            return len(buf) if final else None
        if buf[start + 1] != 0x75 or not _HEX4.fullmatch(buf, start + 2, start + 6):
            return start + 2
        if 0xD800 <= int(buf[start + 2 : start + 6], 16) <= 0xDBFF:
            if available < _PAIR_BYTES and not final:
                return None
            if _low_surrogate(buf, start + 6) is not None:
                return start + _PAIR_BYTES
        return start + 6

    def _refusal(self, buf: bytes, start: int, end: int) -> Kind | RequestKind | None:
        """The refusal for the complete escape ``buf[start:end]``, if any."""
        if end - start < 2:
            return RequestKind.MALFORMED_JSON_ESCAPE
        if buf[start + 1] != 0x75:
            return None
        if end - start < 6 or not _HEX4.fullmatch(buf, start + 2, start + 6):
            return RequestKind.MALFORMED_JSON_ESCAPE
        code = int(buf[start + 2 : start + 6], 16)
        low = _low_surrogate(buf, start + 6) if 0xD800 <= code <= 0xDBFF else None
        if low is not None:
            # RFC 8259 §7: a pair of escapes encodes one supplementary code point.
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        elif 0xD800 <= code <= 0xDFFF:
            return RequestKind.JSON_SURROGATE_ESCAPE
        if code not in self._verdicts:
            found = find_violation(chr(code).encode(), self._policy)
            self._verdicts[code] = None if found is None else found.kind
        return self._verdicts[code]


def _low_surrogate(buf: bytes, pos: int) -> int | None:
    """The low surrogate escaped at ``buf[pos:pos + 6]``, if one is there."""
    if buf[pos : pos + 2] != b"\\u" or not _HEX4.fullmatch(buf, pos + 2, pos + 6):
        return None
    code = int(buf[pos + 2 : pos + 6], 16)
    return code if 0xDC00 <= code <= 0xDFFF else None
