"""``application/x-www-form-urlencoded`` bodies: every decoded name and value."""

from __future__ import annotations

import re
from typing import Final

from .._policy import Policy
from .._stream import IncrementalValidator
from .._violation import Utf8Error
from ._finding import Finding, Location, safe_name
from ._percent import Decoded, incomplete_escape_start, percent_decode
from ._text import MAX_BODY_FINDINGS

__all__ = ["FormInspector"]

#: Decoded bytes of a name shown in findings; longer names are never shown.
_SAFE_NAME_BYTES: Final = 65
#: Raw bytes that can hold _SAFE_NAME_BYTES decoded ones ("%XX" each).
_NAME_RAW_BYTES: Final = 3 * _SAFE_NAME_BYTES
_NAME_END: Final = re.compile(rb"[&=]")
_VALUE_END: Final = re.compile(rb"&")
# RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG; any other "%" is malformed.
_MALFORMED: Final = re.compile(rb"%(?![0-9A-Fa-f]{2})")


class FormInspector:
    """``application/x-www-form-urlencoded``: every decoded name and value.

    Names and values are percent-decoded strictly (``+`` is a space) and must be
    valid UTF-8 each. The delimiters ``&`` and ``=`` are ASCII, so a name or value is
    valid exactly when the decoded stream with its delimiters left in place is: the
    inspector decodes each chunk in one pass and validates that stream, and works out
    which field a violation is in only when it finds one (linear time, O(chunk)
    memory). After a violation the rest of that name or value is skipped, so each
    gets at most one finding; at most ``MAX_BODY_FINDINGS`` are reported per body,
    then inspection stops. A ``%`` escape split across chunks waits for its end (at
    most 2 bytes held). Findings here are never fixable: normalize mode cannot
    re-encode a form safely, so it blocks.
    """

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        self._utf8 = IncrementalValidator(policy)
        self._fed = 0  # decoded bytes fed to _utf8
        self._tail: list[int] = []  # raw offsets of the bytes _utf8 holds (<= 3)
        self._carry = b""
        self._offset = 0  # stream offset of _carry[0]: everything before is processed
        self._in_value = False  # at _offset: inside the current field's value
        self._name_raw = b""  # the current field's raw name (first _NAME_RAW_BYTES)
        self._skipping = False  # the current name or value already has a finding
        self._found = 0

    @property
    def checked(self) -> int:
        pending = self._fed - self._utf8.position
        if pending and not self._skipping and not self._done:
            return self._tail[-pending]
        return self._offset

    @property
    def _done(self) -> bool:
        return self._found >= MAX_BODY_FINDINGS

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._process(chunk, final=False)

    def finish(self) -> list[Finding]:
        findings = self._process(b"", final=True)
        if not self._skipping and not self._done:
            try:
                self._utf8.finish()
            except Utf8Error as exc:
                findings += self._kept([self._utf8_finding(b"", exc, None)])
        return findings

    def _process(self, chunk: bytes, *, final: bool) -> list[Finding]:
        buf = self._carry + chunk if self._carry else chunk
        cut = len(buf) if final else incomplete_escape_start(buf)
        findings: list[Finding] = []
        if not self._done:
            findings = self._escape_errors(buf, cut) + self._validate(buf, cut)
            findings = self._kept(sorted(findings, key=lambda f: f.offset))
        self._advance(buf, cut)
        return findings

    def _kept(self, findings: list[Finding]) -> list[Finding]:
        kept = findings[: max(MAX_BODY_FINDINGS - self._found, 0)]
        self._found += len(kept)
        return kept

    def _escape_errors(self, buf: bytes, cut: int) -> list[Finding]:
        findings: list[Finding] = []
        for match in _MALFORMED.finditer(buf, 0, cut):
            at = match.start()
            kind = percent_decode(buf[at : at + 2]).errors[0][0]  # which malformation
            findings.append(
                Finding(Location.BODY, self._name_at(buf, at), kind, self._offset + at)
            )
            if len(findings) >= MAX_BODY_FINDINGS:
                break
        return findings

    def _validate(self, buf: bytes, cut: int) -> list[Finding]:
        """Validate the decoded ``buf[:cut]``; one finding per failing name or value."""
        findings: list[Finding] = []
        pos = 0
        while pos < cut and len(findings) < MAX_BODY_FINDINGS:
            if self._skipping:
                end = self._piece_end(buf, pos, cut)
                if end is None:
                    break
                self._skipping = False
                self._utf8 = IncrementalValidator(self._policy)
                self._fed, self._tail = 0, []
                pos = end  # the delimiter itself is ASCII: feed it
            decoded = _decode(buf[pos:cut])
            before = self._fed
            try:
                self._utf8.feed(decoded.data)
            except Utf8Error as exc:
                index = exc.violation.start - before
                at = pos + decoded.raw_offset(index) if index >= 0 else None
                findings.append(self._utf8_finding(buf, exc, at))
                self._skipping = True
                pos = max(pos, 0 if at is None else at)
                continue
            self._fed += len(decoded.data)
            self._track_tail(decoded, pos)
            pos = cut
        return findings

    def _track_tail(self, decoded: Decoded, pos: int) -> None:
        """Remember where the bytes the validator holds came from (rarely any)."""
        pending = self._fed - self._utf8.position
        if not pending:
            self._tail = []
            return
        size = len(decoded.data)
        fresh = [
            self._offset + pos + decoded.raw_offset(i)
            for i in range(max(size - pending, 0), size)
        ]
        self._tail = (self._tail + fresh)[-pending:]

    def _utf8_finding(self, buf: bytes, exc: Utf8Error, at: int | None) -> Finding:
        """A finding for ``exc``; ``at`` of None: in the held bytes of a past chunk."""
        if at is None:
            offset = self._tail[exc.violation.start - (self._fed - len(self._tail))]
            name = self._name_at(buf, 0)
        else:
            offset = self._offset + at
            name = self._name_at(buf, at)
        return Finding(Location.BODY, name, exc.violation.kind, offset)

    def _state_at(self, buf: bytes, pos: int) -> tuple[bool, bytes]:
        """At ``buf[pos]``: inside a value?, and the field's raw name (its head)."""
        amp = buf.rfind(b"&", 0, pos)
        if amp < 0 and self._in_value:
            return True, self._name_raw
        start = amp + 1
        equals = buf.find(b"=", start, pos)
        head = self._name_raw if amp < 0 else b""
        end = pos if equals < 0 else equals
        return equals >= 0, (head + buf[start : min(end, start + _NAME_RAW_BYTES)])

    def _name_at(self, buf: bytes, pos: int) -> str | None:
        in_value, name_raw = self._state_at(buf, pos)
        if not in_value:
            return None
        decoded = percent_decode(name_raw[:_NAME_RAW_BYTES], plus_is_space=True)
        return safe_name(decoded.data[:_SAFE_NAME_BYTES])

    def _piece_end(self, buf: bytes, pos: int, cut: int) -> int | None:
        """The delimiter that ends the name or value at ``buf[pos]``, if in ``buf``."""
        in_value, _ = self._state_at(buf, pos)
        end = (_VALUE_END if in_value else _NAME_END).search(buf, pos, cut)
        return None if end is None else end.start()

    def _advance(self, buf: bytes, cut: int) -> None:
        """Move past ``buf[:cut]``: carry the rest, track the field it ends in."""
        self._in_value, self._name_raw = self._state_at(buf, cut)
        self._name_raw = self._name_raw[:_NAME_RAW_BYTES]
        self._carry = bytes(buf[cut:])
        self._offset += cut


def _decode(raw: bytes) -> Decoded:
    """``raw`` percent-decoded (``+`` left alone: it and the space are both ASCII)."""
    if b"%" not in raw:
        return Decoded(raw, raw, ())
    if _MALFORMED.search(raw) is not None:
        return percent_decode(raw)
    # Every "%" starts a well-formed escape. Rewritten as "\\xHH" (each "\\" doubled),
    # the unicode_escape codec decodes them in C, 6x faster than unquote_to_bytes
    # (2 MiB of "%41": 55 ms, not 315 ms); latin-1 maps U+00HH back to byte HH.
    escaped = raw.replace(b"\\", b"\\\\").replace(b"%", b"\\x")
    return Decoded(escaped.decode("unicode_escape").encode("latin-1"), raw, ())
