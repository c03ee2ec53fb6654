"""The Cookie header, checked as the frameworks decode it; pure.

RFC 6265 §4.2.1 leaves no room for escapes (a cookie-octet is no CTL, whitespace,
DQUOTE, comma, semicolon or backslash), but the frameworks unquote a value in
double quotes and decode its backslash escapes: ``http.cookies._unquote`` (used by
Starlette's ``cookie_parser`` and Django's ``parse_cookie``) and Werkzeug's
``parse_cookie`` (``_cookie_unslash``) both read ``\\ooo`` (first digit 0-3) as an
octal escape and ``\\c`` as ``c``, left to right. They differ on what an octal
escape is: ``http.cookies`` makes it a code point, ``chr(0o303)``; Werkzeug makes it
a byte and decodes the bytes as UTF-8 afterwards (with ``errors="replace"``). The
writers match: ``http.cookies`` (Django, Starlette, Bottle, Litestar) writes a code
point below 256 as ``\\ooo``, Werkzeug (Flask) and WebOb write each UTF-8 byte. So
``"\\303\\255"`` is ``'í'`` to Flask and ``'Ã\\xad'`` to Django, ``"\\355"`` the
reverse. A run of octal escapes above ``\\177`` passes when one reading is clean
text and the other is only its mojibake (code points U+0080..U+00FF) or its
replacement (U+FFFD): the byte reading is judged first, as the text a raw value
would be; if it is not UTF-8, each code point is judged; a run that a lax decoder
(RFC 2279 §2) reads as an overlong, surrogate or out-of-range form is refused
(docs/kinds/cookie_octal_escape.md gives the reasons and the writers' table).

Litestar also percent-decodes every cookie value (issue 25 R5: ``a=x%00y`` is a
NUL to it, ``b=%EF%BF%BE`` U+FFFE), so each run of escapes must decode to text the
raw value would be allowed to hold. A ``%`` that starts no escape (``100%``) is
read as written by every parser. It does so after ``http.cookies`` unquoted the
value, so ``"\\045\\060\\060"`` is ``%00``, then NUL, to Litestar: percent escapes
are judged in the value with its ASCII backslash escapes decoded too.
"""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern
from ..._memo import memoize
from ..._policy import Policy
from ..._scan import is_valid, iter_violations
from ..._violation import ILL_FORMED, Kind
from ..engine._finding import Finding, Location, RequestKind
from ._percent import ESCAPE_RUN, percent_decode
from ._trigger import Trigger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

__all__ = ["COOKIE_TRIGGER", "cookie_findings", "cookie_policy"]

#: The name findings in a Cookie header carry.
COOKIE: Final = "cookie"
# The escape grammar of both: http.cookies' _unquote_sub and Werkzeug's
# _cookie_unslash_re (sansio/http.py) are this pattern, applied left to right.
_ESCAPE: Final = lazy_pattern(rb"\\([0-3][0-7]{2}|.)")
# Unicode ch. 23.1: TAB, LF and CR, the controls a text policy keeps.
_LINE_CONTROL: Final = lazy_pattern(rb"[\t\n\r]")
# UAX #9 §2.4: LRI, RLI, FSI and PDI (U+2066..U+2069) reorder what they enclose
# when shown (Trojan Source, CVE-2021-42574); none is a cookie-octet (RFC 6265
# §4.1.1). UTF-8 is self-synchronising: the encoded forms match only those.
_BIDI_ISOLATES: Final = tuple(chr(code).encode() for code in range(0x2066, 0x206A))
_BIDI_ISOLATE: Final = lazy_pattern(b"|".join(_BIDI_ISOLATES))
#: What this module's rules need in a value that is valid under cookie_policy and
#: holds no CR or LF (what the lane checks of every header value): a backslash
#: escape, a TAB, a bidi isolate, a percent escape. A rule added here adds its
#: needles and vectors here; the lane reads them from _clean.TRIGGERS.
COOKIE_TRIGGER: Final[Trigger] = Trigger(
    needles=(b"\\", b"\t", b"%", *_BIDI_ISOLATES),
    vectors=(
        b"a=\\001",
        b"a=\\177",
        b"a=\\000",
        b"a=b\tc",
        "a=x\u2067y\u2069".encode(),
        "\u2066a=1".encode(),
        b"a=x%00y",
        b"b=%EF%BF%BE",
        b"c=x%0D%0Ay",
        b"d=%C0%AF",
        b"e=%E2%81%A6x",
        b'f="x\\045000y"',
        b'g="\\205"',
        b'h="\\357\\277\\276"',
    ),
)
#: Octal escapes above this are a byte to Werkzeug and a code point to the others.
_ASCII_MAX: Final = 0x7F
#: The length of one octal escape, ``\\ooo``.
_OCTAL_BYTES: Final = 4
#: C0 controls end here (Unicode ch. 23.1); DEL is _ASCII_MAX.
_C0_MAX: Final = 0x1F
#: The forms a lax decoder turns into a character a strict one refuses: C0 AF is
#: "/" to it (CVE-2000-0884), ED A0 80 a surrogate.
_LAX_FORMS: Final = frozenset({Kind.OVERLONG, Kind.SURROGATE, Kind.OUT_OF_RANGE})
#: RFC 2279 §2: sequence length by lead byte (the highest lead of each length);
#: the lax kinds are found at leads C0..FD only.
_LAX_LENGTHS: Final = ((0xDF, 2), (0xEF, 3), (0xF7, 4), (0xFB, 5), (0xFD, 6))


@memoize(16)
def cookie_policy(policy: Policy) -> Policy:
    """``policy`` with NUL and controls refused: no cookie value holds them."""
    return policy.replace(allow_nul=False, allow_controls=False)


def cookie_findings(value: bytes, policy: Policy) -> Iterator[Finding]:
    """Findings in one Cookie header value, offsets counting in it.

    The raw bytes must be valid under ``policy`` with NUL and every control refused,
    and hold no bidi isolate (U+2066..U+2069); every backslash escape is decoded as
    both parser families decode it, and one that yields a control or that they
    decode differently (an octal escape above ``\\177``) is refused. Escapes are
    looked for in quoted and unquoted values alike: a backslash is no cookie-octet,
    and parsers disagree on what is quoted. Each run of percent escapes must decode
    to bytes the raw value may hold (Litestar's reading).
    """
    yield from _text_findings(value, policy)
    if b"\\" in value:
        yield from _escape_findings(value, policy)
    yield from _percent_findings(value, policy)


def _text_findings(value: bytes, policy: Policy) -> Iterator[Finding]:
    """What ``value`` holds that no cookie may: text ``cookie_policy`` refuses, TAB,
    CR, LF, and (under a policy that allows bidi controls) a bidi isolate."""
    for violation in iter_violations(value, cookie_policy(policy)):
        # A repair under ``policy`` replaces only what ``policy`` itself refuses.
        span = value[violation.start : violation.end]
        yield Finding(
            Location.HEADER,
            COOKIE,
            violation.kind,
            violation.start,
            fixable=not is_valid(span, policy),
        )
    for match in _LINE_CONTROL.finditer(value):
        yield Finding(Location.HEADER, COOKIE, Kind.CONTROL, match.start())
    # A policy that refuses bidi controls has found the isolates above.
    if policy.allow_bidi_controls and not value.isascii():
        for match in _BIDI_ISOLATE.finditer(value):
            yield Finding(Location.HEADER, COOKIE, Kind.BIDI_CONTROL, match.start())


def _percent_findings(value: bytes, policy: Policy) -> Iterator[Finding]:
    """The first finding in each run of percent escapes, decoded once, at the run's
    offset (no repair: a repair of the raw value would not change the escapes), in
    the raw value and in the value with its ASCII backslash escapes decoded."""
    seen: set[int] = set()
    for data, offsets in (
        (value, None),
        _ascii_unslashed(value) if b"\\" in value else (b"", None),
    ):
        for match in ESCAPE_RUN.finditer(data):
            offset = match.start() if offsets is None else offsets[match.start()]
            decoded = percent_decode(match.group()).data
            for found in _text_findings(decoded, policy):
                if offset not in seen:
                    seen.add(offset)
                    yield found.replace(offset=offset, fixable=False)
                break


def _ascii_unslashed(value: bytes) -> tuple[bytes, list[int]]:
    """``value`` with each backslash escape that decodes to ASCII decoded, as
    ``http.cookies._unquote`` does, and the raw offset of each byte."""
    data = bytearray()
    offsets: list[int] = []
    last = 0
    for match in _ESCAPE.finditer(value):
        escaped = match.group(1)
        code = int(escaped, 8) if len(escaped) > 1 else escaped[0]
        if code > _ASCII_MAX:
            continue
        data += value[last : match.start()]
        offsets += range(last, match.start())
        data.append(code)
        offsets.append(match.start())
        last = match.end()
    data += value[last:]
    offsets += range(last, len(value))
    return bytes(data), offsets


def _escape_findings(value: bytes, policy: Policy) -> Iterator[Finding]:
    """Octal escapes that decode to a control, and each run of octal escapes above
    ``\\177`` judged by :func:`_run_findings`."""
    run = bytearray()
    starts: list[int] = []
    for match in _ESCAPE.finditer(value):
        escaped = match.group(1)
        if len(escaped) == 1:
            code = -1  # "\c" is "c" to every parser
        else:
            code = int(escaped, 8)
        if starts and not (
            code > _ASCII_MAX and match.start() == starts[-1] + _OCTAL_BYTES
        ):
            yield from _run_findings(bytes(run), starts, policy)
            run.clear()
            starts.clear()
        if code > _ASCII_MAX:
            run.append(code)
            starts.append(match.start())
        elif code == 0:
            yield Finding(Location.HEADER, COOKIE, Kind.NUL, match.start())
        elif 0 < code <= _C0_MAX or code == _ASCII_MAX:
            yield Finding(Location.HEADER, COOKIE, Kind.CONTROL, match.start())
    if starts:
        yield from _run_findings(bytes(run), starts, policy)


def _run_findings(run: bytes, starts: list[int], policy: Policy) -> Iterator[Finding]:
    """Findings in one run of octal escapes above ``\\177``: ``run`` holds their
    bytes, ``starts`` the offset of each escape. Werkzeug's byte reading is judged
    when it is UTF-8 (then ``http.cookies`` reads only its Latin-1 mojibake); else
    ``http.cookies``' code points are (then Werkzeug reads U+FFFD for what is not
    UTF-8), unless a lax decoder reads a form Table 3-7 forbids."""
    found = list(_text_findings(run, policy))
    if not any(finding.kind in ILL_FORMED for finding in found):
        for finding in found:
            yield finding.replace(offset=starts[finding.offset], fixable=False)
        return
    for finding in found:
        if finding.kind in _LAX_FORMS and _is_lax_sequence(run, finding.offset):
            kind = RequestKind.COOKIE_OCTAL_ESCAPE
            yield Finding(Location.HEADER, COOKIE, kind, starts[finding.offset])
            return
    for index, code in enumerate(run):
        for finding in _text_findings(chr(code).encode(), policy):
            yield finding.replace(offset=starts[index], fixable=False)


def _is_lax_sequence(run: bytes, start: int) -> bool:
    """Whether a decoder that reads the lead's bit pattern alone (RFC 2279 §2, as
    naive decoders do) finds a whole sequence at ``start``."""
    lead = run[start]
    length = next(n for top, n in _LAX_LENGTHS if lead <= top)
    tail = run[start + 1 : start + length]
    return len(tail) == length - 1 and all(0x80 <= byte <= 0xBF for byte in tail)
