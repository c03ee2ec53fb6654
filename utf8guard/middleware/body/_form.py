"""``application/x-www-form-urlencoded`` bodies: every decoded name and value."""

from __future__ import annotations

from bisect import bisect_left

from ..._lazy_pattern import IGNORECASE, lazy_pattern, literal
from ..._policy import Policy
from ..._stream import IncrementalValidator
from ..._violation import Utf8Error
from ..engine._finding import (
    MAX_SAFE_NAME_BYTES,
    Finding,
    Location,
    RequestKind,
    safe_name,
)
from ..head._abnf import PCT_ENCODED
from ..head._percent import (
    Decoded,
    SecondDecode,
    incomplete_escape_start,
    percent_decode,
)
from ._mediatype import UTF8_CHARSETS
from ._text import MAX_BODY_FINDINGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["FormInspector"]

#: Decoded bytes of a name shown in findings; longer names are never shown.
# One byte more than a shown name may have, so that a longer name is not shown cut.
_SAFE_NAME_BYTES: Final = MAX_SAFE_NAME_BYTES + 1
#: Raw bytes that can hold _SAFE_NAME_BYTES decoded ones ("%XX" each).
_NAME_RAW_BYTES: Final = 3 * _SAFE_NAME_BYTES
_NAME_END: Final = lazy_pattern(rb"[&=]")
_VALUE_END: Final = lazy_pattern(rb"&")
#: HTML form submission and RFC 7578 §4.6: a field named "_charset_" declares the
#: encoding of the form data.
_CHARSET_NAME: Final = b"_charset_"
# Each character as itself or escaped, any case (fail closed: some parsers fold it).
_CHARSET_FIELD: Final = lazy_pattern(
    rb"(?:^|(?<=&))(?:"
    + rb")(?:".join(
        literal(bytes([c]))
        + b"|%"
        + b"%02x" % c
        + b"|%"
        + b"%02x" % ord(chr(c).upper())
        for c in _CHARSET_NAME
    )
    + rb")=([^&]*)",
    IGNORECASE,
)
#: Longest unfinished field held for the next chunk when it may be a _charset_
#: field: its name escaped ("%5F..." 27 bytes), "=" and a 64-byte value.
_HELD_FIELD_BYTES: Final = 3 * len(_CHARSET_NAME) + 1 + 64


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
    most 2 bytes held). ``escapes=False`` lets a malformed escape (``50% off``)
    pass: the reading of a body that is a form only to some frameworks (issue 25
    R2, R8), where a ``%`` is mostly just text. Findings here are never fixable:
    normalize mode cannot re-encode a form safely, so it blocks.
    """

    def __init__(self, policy: Policy, *, escapes: bool = True) -> None:
        self._policy = policy
        self._escapes = escapes
        self._utf8 = IncrementalValidator(policy)
        self._fed = 0  # decoded bytes fed to _utf8
        self._tail: list[int] = []  # raw offsets of the bytes _utf8 holds (<= 3)
        self._carry = b""
        self._offset = 0  # stream offset of _carry[0]: everything before is processed
        self._in_value = False  # at _offset: inside the current field's value
        self._name_raw = b""  # the current field's raw name (first _NAME_RAW_BYTES)
        self._skipping = False  # the current name or value already has a finding
        self._at_field_start = True  # _carry[0] starts a field
        self._charset_seen = False  # a _charset_ field was seen
        self._second = SecondDecode(policy)
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
        cut = len(buf) if final else self._held_from(buf, incomplete_escape_start(buf))
        findings: list[Finding] = []
        if not self._done:
            decoded = percent_decode(buf[:cut])  # "+" left alone: ASCII as " " is
            findings = self._validate(buf, cut, decoded)
            if self._escapes:
                findings += self._escape_errors(buf, decoded)
            if _CHARSET_NAME + b"=" in decoded.data.lower():
                findings += self._charsets(buf, cut)  # rare: its regex is slow
            if self._second.pending or b"%" in decoded.data:
                findings += self._double_encoding(buf, decoded, final)
            findings = self._kept(sorted(findings, key=lambda f: f.offset))
        self._advance(buf, cut)
        return findings

    def _kept(self, findings: list[Finding]) -> list[Finding]:
        kept = findings[: max(MAX_BODY_FINDINGS - self._found, 0)]
        self._found += len(kept)
        return kept

    def _held_from(self, buf: bytes, cut: int) -> int:
        """Where to stop in ``buf``: before a short last field that may still turn
        out to be ``_charset_``, so that it is seen whole with the next chunk."""
        amp = buf.rfind(b"&", 0, cut)
        start = amp + 1 if amp >= 0 else (0 if self._at_field_start else cut)
        if cut - start > _HELD_FIELD_BYTES:
            return cut
        name, equals, _ = buf[start:cut].partition(b"=")
        decoded = percent_decode(name).data.lower()
        if (decoded == _CHARSET_NAME) if equals else _CHARSET_NAME.startswith(decoded):
            return start
        return cut

    def _charsets(self, buf: bytes, cut: int) -> list[Finding]:
        """A ``_charset_`` field (RFC 7578 §4.6) must say UTF-8, and come once.

        A second one is ambiguous (parsers keep the first or the last); so the
        fields checked stay few however many the body repeats.
        """
        findings: list[Finding] = []
        for match in _CHARSET_FIELD.finditer(buf, 0, cut):
            if match.start() == 0 and not self._at_field_start:
                continue
            value = percent_decode(match.group(1), plus_is_space=True).data
            label = value.strip(b" \t\n\f\r").lower().decode("latin-1")
            if self._charset_seen:
                kind = RequestKind.AMBIGUOUS_PARAMETER
            elif label not in UTF8_CHARSETS:
                kind = RequestKind.UNSUPPORTED_CHARSET
            else:
                self._charset_seen = True
                continue
            self._charset_seen = True
            offset = self._offset + match.start()
            findings.append(Finding(Location.BODY, "_charset_", kind, offset))
            if len(findings) >= MAX_BODY_FINDINGS:
                break
        return findings

    def _double_encoding(
        self, buf: bytes, decoded: Decoded, final: bool
    ) -> list[Finding]:
        """Escapes left after one decode that a second would not read as valid text
        (``%25C0%25AF``), as in a query: an application may unquote a field again,
        or read the query and the form as one (Flask's ``request.values``)."""
        offsets: list[_Offsets] = []
        base = self._offset

        def locate(index: int) -> int:  # may be called after this chunk is done
            if not offsets:
                offsets.append(_Offsets(decoded.raw))
            return base + offsets[0].raw(index)

        found = self._second.feed(decoded.data, locate)
        if final:
            found += self._second.finish()
        # Only what _kept can keep is named: each name is a search back to its "&".
        del found[max(MAX_BODY_FINDINGS - self._found, 0) :]
        return [
            Finding(
                Location.BODY,
                self._name_at(buf, max(at - self._offset, 0)),
                RequestKind.DOUBLE_ENCODING,
                at,
            )
            for at in found
        ]

    def _escape_errors(self, buf: bytes, decoded: Decoded) -> list[Finding]:
        """The malformed escapes of ``decoded`` (from ``buf[0]``), named."""
        return [
            Finding(Location.BODY, self._name_at(buf, at), kind, self._offset + at)
            for kind, at in decoded.errors[:MAX_BODY_FINDINGS]
        ]

    def _validate(self, buf: bytes, cut: int, whole: Decoded) -> list[Finding]:
        """Validate ``whole``, the decoded ``buf[:cut]``; one finding per failing
        name or value (after one, the rest of that name or value is skipped).

        Decoded once; a restart after a violation feeds a view of it, so a chunk
        costs O(chunk) however many findings it has.
        """
        findings: list[Finding] = []
        offsets: _Offsets | None = None
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
            start = 0
            if pos:
                offsets = offsets or _Offsets(whole.raw)
                start = offsets.decoded(pos)
            data = memoryview(whole.data)[start:] if start else whole.data
            before = self._fed
            try:
                self._utf8.feed(data)
            except Utf8Error as exc:
                at = None
                if exc.violation.start >= before:
                    offsets = offsets or _Offsets(whole.raw)
                    at = offsets.raw(start + exc.violation.start - before)
                findings.append(self._utf8_finding(buf, exc, at))
                self._skipping = True
                pos = max(pos, 0 if at is None else at)
                continue
            self._fed += len(data)
            self._track_tail(whole, start)
            pos = cut
        return findings

    def _track_tail(self, whole: Decoded, start: int) -> None:
        """Remember where the bytes the validator holds came from (rarely any)."""
        pending = self._fed - self._utf8.position
        if not pending:
            self._tail = []
            return
        size = len(whole.data)
        count = size - max(size - pending, start)
        fresh = [self._offset + at for at in _last_raw_offsets(whole.raw, count)]
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
        if cut:
            self._at_field_start = buf[cut - 1] == 0x26  # "&"
        self._carry = bytes(buf[cut:])
        self._offset += cut


def _last_raw_offsets(raw: bytes, count: int) -> list[int]:
    """The raw offsets of the last ``count`` decoded bytes of ``raw``, read from its
    end (a character cut by the chunk: at most 3 bytes, not an _Offsets of all).

    Every "%" and two hex digits is an escape however ``raw`` is read: the digits
    of one escape never hold the "%" of another.
    """
    found: list[int] = []
    end = len(raw)
    for _ in range(count):
        end -= 3 if PCT_ENCODED.fullmatch(raw, max(end - 3, 0), end) else 1
        found.append(end)
    return found[::-1]


class _Offsets:
    """Raw and decoded offsets of one percent-decoded chunk, mapped both ways.

    Built only when a violation needs it: one pass over the chunk's escapes, then a
    bisect per lookup (the escapes' decoded positions, as ``Decoded.raw_offset``).
    """

    def __init__(self, raw: bytes) -> None:
        self._raw = [match.start() for match in PCT_ENCODED.finditer(raw)]
        self._decoded = [at - 2 * number for number, at in enumerate(self._raw)]

    def raw(self, index: int) -> int:
        """The raw offset of decoded byte ``index`` (its "%" if it was escaped)."""
        return index + 2 * bisect_left(self._decoded, index)

    def decoded(self, at: int) -> int:
        """The decoded offset of raw byte ``at``, which is not inside an escape."""
        return at - 2 * bisect_left(self._raw, at)
