"""JSON bodies (RFC 8259): UTF-8, valid raw bytes, no escape of a refused code point."""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern, literal
from ..._memo import remember
from ..._policy import Policy, refused_ranges
from ..._scan import find_violation, is_valid
from ..._violation import Kind
from ..engine._finding import Finding, Location, RequestKind
from ._text import MAX_BODY_FINDINGS, Utf8Check

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

__all__ = [
    "JSON_ESCAPE",
    "JSON_OPENS",
    "JSON_WIDE_SECOND",
    "JsonInspector",
    "detect_encoding",
    "is_plain_json",
    "opens_utf8",
]

#: Longest JSON escape the scanner waits for: a surrogate pair, "\\uD83D\\uDE00".
_PAIR_BYTES: Final = 12
_HEX4: Final = lazy_pattern(rb"[0-9A-Fa-f]{4}")
#: _plain_run's pattern of each policy (at most 16 held; see utf8guard._memo).
_PLAIN_RUNS: Final[dict[Policy, re.Pattern[bytes]]] = {}
_HEX: Final = b"0123456789ABCDEFabcdef"
#: What may follow "\u": four hex digits.
_HEX_SLOTS: Final = (_HEX,) * 4
#: Bytes one match of the plain-run pattern may cover: bounds the regex engine's
#: backtracking stack, whatever the chunk size.
_WINDOW_BYTES: Final = 64 * 1024
#: What json.detect_encoding (RFC 4627 §3) calls UTF-8: the encodings allowed.
_UTF8_ENCODINGS: Final = ("utf-8", "utf-8-sig")
#: Bytes json.detect_encoding looks at.
_DETECT_BYTES: Final = 4
#: RFC 8259 §2: what an object and an array begin with (the C lane reads it).
JSON_OPENS: Final = (b"{", b"[")
#: RFC 4627 §3 (json.detect_encoding): a UTF-16 or UTF-32 text that opens with "{" or
#: "[" has a NUL as its second byte (the C lane reads it).
JSON_WIDE_SECOND: Final = b"\x00"
#: The escape character (RFC 8259 §7; the C lane reads it), as the int that ``in`` looks
#: up with one memchr: with a one-byte ``bytes`` needle, ``bytes.__contains__`` first
#: tries the needle as an int and builds a TypeError it drops, which cost about 1.5 us
#: per request inside uvicorn (bench/README.md, "Inside a server").
JSON_ESCAPE: Final = ord("\\")
#: The escape character as bytes, and what starts the escape of a code point, "\u".
_ESCAPE: Final = bytes([JSON_ESCAPE])
_CODE_POINT_ESCAPE: Final = _ESCAPE + b"u"
#: What may follow a high surrogate's escape to make a pair: "\u" DC00-DFFF.
_LOW: Final = (_ESCAPE, b"u", b"dD", b"cdefCDEF", _HEX, _HEX)


def is_plain_json(body: bytes, policy: Policy) -> bool:
    """True when a whole JSON body is clean without a look at escapes: it has none
    (no backslash), ``json.loads`` would read it as UTF-8, and its bytes are valid.

    False says nothing: :class:`JsonInspector` decides such a body.
    """
    return (
        JSON_ESCAPE not in body
        and (
            opens_utf8(body) or detect_encoding(body[:_DETECT_BYTES]) in _UTF8_ENCODINGS
        )
        and is_valid(body, policy)
    )


def detect_encoding(head: bytes) -> str:
    """``json.detect_encoding``: the encoding ``json.loads`` reads bytes starting with
    ``head`` in (RFC 4627 §3). ``json`` (with its decoder, encoder and their regexes,
    2% of the middleware's import, issue 28) is imported by the first body that asks:
    :func:`opens_utf8` settles most bodies without it."""
    import json

    return json.detect_encoding(head)


def opens_utf8(body: bytes) -> bool:
    """True when ``json.detect_encoding`` must say UTF-8 (a shortcut: False decides
    nothing): an object or array opens it and no NUL follows (no byte order mark
    starts with "{" or "[", and a UTF-16/32 guess needs NUL in the first two)."""
    return body[:1] in JSON_OPENS and body[1:2] != JSON_WIDE_SECOND


class JsonInspector:
    """JSON: UTF-8, valid raw bytes, and no ``\\u`` escape of a refused code point.

    ``"\\ud800"`` is refused (RFC 8259 §8.2: a lone surrogate), ``"\\ud83d\\ude00"``
    (a pair) passes, and ``"\\\\ud800"`` is an escaped backslash followed by text,
    which passes. Escaped code points are held to the policy (``"\\uffff"`` is a
    noncharacter). A body that ``json.loads`` would decode as UTF-16 or UTF-32 is
    refused (RFC 8259 §8.1), and until the first 4 bytes decide that, findings in
    them wait, so the encoding's finding comes first however the body is cut. An
    escape split across chunks waits for its end: at most 11 bytes are held.
    ``malformed=False`` leaves escapes that no JSON parser accepts (``"\\u12G4"``) to
    the parser: for bodies only sniffed as JSON, where ``C:\\users`` may be plain
    text. At most ``MAX_BODY_FINDINGS`` are reported.

    Escapes the policy allows are skipped by one regular expression per policy, so
    only a refused or unfinished escape costs Python work: linear time, with about
    the constant of a regex scan.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        base: int = 0,
        name: str | None = None,
        fixable: bool = True,
        malformed: bool = True,
    ) -> None:
        self._policy = policy
        self._base = base
        self._name = name
        self._malformed = malformed
        try:  # the memo read inline: every JSON body asks it (utf8guard._memo)
            self._plain = _PLAIN_RUNS[policy]
        except KeyError:
            self._plain = remember(_PLAIN_RUNS, policy, _plain_run(policy), 16)
        self._utf8 = Utf8Check(policy, base, name, fix=fixable)
        self._head: bytes | None = b""  # first bytes, until the encoding is known
        # Findings in those bytes, held until the encoding's verdict goes first.
        self._held: list[Finding] = []
        self._carry = b""
        self._offset = base  # stream offset of _carry[0]
        self._found = 0
        self._verdicts: dict[int, Kind | None] = {}  # the policy on escaped code points

    @property
    def checked(self) -> int:
        if self._head is not None:
            return self._base
        return min(self._utf8.position, self._offset)

    def feed(self, chunk: bytes) -> list[Finding]:
        found = self._encoding(chunk, final=False) + self._utf8.feed(chunk)
        return self._kept(found + self._escapes(chunk, final=False))

    def finish(self) -> list[Finding]:
        found = self._encoding(b"", final=True) + self._utf8.finish()
        return self._kept(found + self._escapes(b"", final=True))

    def _kept(self, findings: list[Finding]) -> list[Finding]:
        # In body order: the byte check and the escape scan each find theirs in
        # order, and a chunk's are merged, so the findings (and the first one, which
        # the refusal names) are the same however the body arrives in chunks. Until
        # the first bytes decide the encoding, whose finding is at the body's start,
        # what the others find is held.
        if self._head is not None:
            self._held += findings
            return []
        findings = self._held + findings
        self._held = []
        findings.sort(key=_offset)
        kept = findings[: max(MAX_BODY_FINDINGS - self._found, 0)]
        self._found += len(kept)
        return kept

    def _encoding(self, chunk: bytes, *, final: bool) -> list[Finding]:
        """RFC 8259 §8.1: refuse what json.loads(bytes) would decode as UTF-16/32."""
        if self._head is None:
            return []
        self._head += chunk[: _DETECT_BYTES - len(self._head)]
        if len(self._head) < _DETECT_BYTES and not final:
            return []
        encoding = detect_encoding(self._head)
        self._head = None
        if encoding in _UTF8_ENCODINGS:
            return []
        return [
            Finding(Location.BODY, self._name, RequestKind.NON_UTF8_JSON, self._base)
        ]

    def _escapes(self, chunk: bytes, *, final: bool) -> list[Finding]:
        buf = self._carry + chunk if self._carry else chunk
        if _CODE_POINT_ESCAPE not in buf:
            return self._no_u_escape(buf, final=final)
        findings: list[Finding] = []
        pos = 0
        while pos < len(buf) and self._found + len(findings) < MAX_BODY_FINDINGS:
            # The pattern matches the empty string: there is always a match.
            run = self._plain.match(buf, pos, pos + _WINDOW_BYTES)
            pos = run.end()  # type: ignore[union-attr]  # never None: see above
            if pos == len(buf) or buf[pos] != JSON_ESCAPE:
                continue  # the end, or a window boundary inside a run
            end = self._escape_end(buf, pos, final)
            if end is None:
                break
            kind = self._refusal(buf, pos, end)
            if kind is not None:
                offset = self._offset + pos
                findings.append(Finding(Location.BODY, self._name, kind, offset))
            pos = end
        self._carry = bytes(buf[pos:])
        self._offset += pos
        return findings

    def _no_u_escape(self, buf: bytes, *, final: bool) -> list[Finding]:
        """``buf`` has no ``\\u``: only a backslash at its very end can matter."""
        plain = len(buf.rstrip(_ESCAPE))
        cut = len(buf) - (len(buf) - plain) % 2  # an odd run ends in an open escape
        self._carry = bytes(buf[cut:])
        self._offset += cut
        if not final or not self._carry:
            return []
        kind = self._refusal(buf, cut, len(buf))
        return (
            []
            if kind is None
            else [Finding(Location.BODY, self._name, kind, self._offset)]
        )

    @staticmethod
    def _escape_end(buf: bytes, start: int, final: bool) -> int | None:
        """Where the escape at ``start`` ends, or None to wait for more bytes."""
        available = len(buf) - start
        if available < 2:
            return len(buf) if final else None
        if buf[start + 1] == 0x75 and available < 6:
            # Wait only while the bytes so far can still be "\uXXXX": an escape
            # decided as soon as it can be keeps the findings in body order
            # however the body is split (a byte after it may be refused at once).
            # A non-hex byte ends it after "\u", as with 6 bytes at hand; hex
            # digits cut off by the end of the body are the escape's.
            if not _fits(buf, start + 2, _HEX_SLOTS):
                return start + 2
            return len(buf) if final else None
        if buf[start + 1] != 0x75 or not _HEX4.fullmatch(buf, start + 2, start + 6):
            return start + 2
        if 0xD800 <= int(buf[start + 2 : start + 6], 16) <= 0xDBFF:
            if _low_surrogate(buf, start + 6) is not None:
                return start + _PAIR_BYTES
            if available < _PAIR_BYTES and not final and _fits(buf, start + 6, _LOW):
                return None  # may yet be a pair
        return start + 6

    def _refusal(self, buf: bytes, start: int, end: int) -> Kind | RequestKind | None:
        """The refusal for the complete escape ``buf[start:end]``, if any."""
        malformed = RequestKind.MALFORMED_JSON_ESCAPE if self._malformed else None
        if end - start < 2:
            return malformed
        if buf[start + 1] != 0x75:
            return None
        if end - start < 6 or not _HEX4.fullmatch(buf, start + 2, start + 6):
            return malformed
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


def _offset(finding: Finding) -> int:
    return finding.offset


def _fits(buf: bytes, pos: int, slots: tuple[bytes, ...]) -> bool:
    """Whether ``buf[pos:]`` (shorter than ``slots``) can still grow into one byte
    of each slot, in order."""
    return all(byte in slot for byte, slot in zip(buf[pos:], slots, strict=False))


def _low_surrogate(buf: bytes, pos: int) -> int | None:
    """The low surrogate escaped at ``buf[pos:pos + 6]``, if one is there."""
    if buf[pos : pos + 2] != _CODE_POINT_ESCAPE or not _HEX4.fullmatch(
        buf, pos + 2, pos + 6
    ):
        return None
    code = int(buf[pos + 2 : pos + 6], 16)
    return code if 0xDC00 <= code <= 0xDFFF else None


def _plain_run(policy: Policy) -> re.Pattern[bytes]:
    """A run of JSON bytes with no escape the policy refuses, from an escape boundary.

    Any byte but ``\\``; a two-byte escape other than ``\\u``; ``\\uXXXX`` of a BMP
    code point the policy allows; a surrogate pair of an allowed code point. Built
    from ``refused_ranges``, the same sets the validator refuses.
    """
    allowed = bytearray(b"\x01") * 0x110000
    allowed[0xD800:0xE000] = bytes(0x800)  # a surrogate escape is alone or a pair
    for _, ranges in refused_ranges(policy):
        for low, high in ranges:
            allowed[low : high + 1] = bytes(high + 1 - low)
    bmp = _hex_pattern(bytes(allowed[:0x10000]), 4)
    # RFC 8259 §7, Unicode ch. 3.9 D91: high D800..DBFF, low DC00..DFFF, 10 bits each.
    highs_by_lows: dict[bytes, bytearray] = {}
    for high in range(0xD800, 0xDC00):
        start = 0x10000 + ((high - 0xD800) << 10)
        lows = bytes(allowed[start : start + 0x400])
        highs_by_lows.setdefault(lows, bytearray(0x10000))[high] = 1
    pairs = [
        _hex_pattern(bytes(highs), 4)
        + literal(_CODE_POINT_ESCAPE)
        + _hex_pattern(bytes(0xDC00) + lows + bytes(0x2000), 4)
        for lows, highs in highs_by_lows.items()
        if lows.count(1)
    ]
    escape = b"|".join([bmp, *pairs])
    # Any run without the escape character, an escape of one character other than
    # "u", or an allowed "\u" escape.
    backslash = literal(_ESCAPE)
    return lazy_pattern(
        rb"(?:[^%s]+|%s[^u]|%s(?:%s))*"
        % (backslash, backslash, literal(_CODE_POINT_ESCAPE), escape)
    )


def _hex_pattern(allowed: bytes, width: int) -> bytes:
    """A pattern for the ``width``-digit hex numbers ``n`` with ``allowed[n]`` set.

    A trie over the digits, sibling digits with equal subtrees merged into one class
    (either case: RFC 8259 §7 allows both). ``allowed`` must not be all zero.
    """
    ones = allowed.count(1)
    if ones == len(allowed):
        return rb"[0-9A-Fa-f]" * width
    step = len(allowed) // 16
    digits_by_rest: dict[bytes, bytes] = {}
    for digit in range(16):
        part = allowed[digit * step : (digit + 1) * step]
        if part.count(1):
            rest = _hex_pattern(part, width - 1)
            forms = f"{digit:x}{digit:X}" if digit > 9 else f"{digit}"
            digits_by_rest[rest] = digits_by_rest.get(rest, b"") + forms.encode()
    return (
        b"(?:"
        + b"|".join(b"[" + d + b"]" + r for r, d in digits_by_rest.items())
        + b")"
    )
