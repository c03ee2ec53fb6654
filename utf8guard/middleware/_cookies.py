"""The Cookie header, checked as the frameworks decode it; pure.

RFC 6265 §4.2.1 leaves no room for escapes (a cookie-octet is no CTL, whitespace,
DQUOTE, comma, semicolon or backslash), but the frameworks unquote a value in
double quotes and decode its backslash escapes: ``http.cookies._unquote`` (used by
Starlette's ``cookie_parser`` and Django's ``parse_cookie``) and Werkzeug's
``parse_cookie`` (``_cookie_unslash``) both read ``\\ooo`` (first digit 0-3) as an
octal escape and ``\\c`` as ``c``, left to right. They differ on what an octal
escape is: ``http.cookies`` makes it a code point, ``chr(0o303)``; Werkzeug makes it
a byte and decodes the bytes as UTF-8 afterwards. So ``"\\303\\244"`` is ``'Ã¤'`` to
Starlette and Django and ``'ä'`` to Flask, and ``"\\357\\277\\276"`` is U+FFFE to
Flask alone. The raw header bytes are valid UTF-8 either way.

Litestar also percent-decodes every cookie value (issue 25 R5: ``a=x%00y`` is a
NUL to it, ``b=%EF%BF%BE`` U+FFFE), so each run of escapes must decode to text the
raw value would be allowed to hold. A ``%`` that starts no escape (``100%``) is
read as written by every parser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from typing import Final

from .._policy import Policy
from .._scan import is_valid, iter_violations
from .._violation import Kind
from ._finding import Finding, Location, RequestKind
from ._percent import ESCAPE_RUN, percent_decode
from ._trigger import Trigger

__all__ = ["COOKIE_TRIGGER", "cookie_findings", "cookie_policy"]

#: The name findings in a Cookie header carry.
COOKIE: Final = "cookie"
# The escape grammar of both: http.cookies' _unquote_sub and Werkzeug's
# _cookie_unslash_re (sansio/http.py) are this pattern, applied left to right.
_ESCAPE: Final = re.compile(rb"\\([0-3][0-7]{2}|.)")
# Unicode ch. 23.1: TAB, LF and CR, the controls a text policy keeps.
_LINE_CONTROL: Final = re.compile(rb"[\t\n\r]")
# UAX #9 §2.4: LRI, RLI, FSI and PDI (U+2066..U+2069) reorder what they enclose
# when shown (Trojan Source, CVE-2021-42574); none is a cookie-octet (RFC 6265
# §4.1.1). UTF-8 is self-synchronising: the encoded forms match only those.
_BIDI_ISOLATES: Final = tuple(chr(code).encode() for code in range(0x2066, 0x206A))
_BIDI_ISOLATE: Final = re.compile(b"|".join(_BIDI_ISOLATES))
#: What this module's rules need in a value that is valid under cookie_policy and
#: holds no CR or LF (what the lane checks of every header value): a backslash
#: escape, a TAB, a bidi isolate, a percent escape. A rule added here adds its
#: needles and vectors here; the lane reads them from _clean.TRIGGERS.
COOKIE_TRIGGER: Final = Trigger(
    needles=(b"\\", b"\t", b"%", *_BIDI_ISOLATES),
    vectors=(
        b"a=\\001",
        b'a="\\303\\251"',
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
    ),
)
#: Octal escapes above this are a byte to Werkzeug and a code point to the others.
_ASCII_MAX: Final = 0x7F
#: C0 controls end here (Unicode ch. 23.1); DEL is _ASCII_MAX.
_C0_MAX: Final = 0x1F


@lru_cache(maxsize=16)
def cookie_policy(policy: Policy) -> Policy:
    """``policy`` with NUL and controls refused: no cookie value holds them."""
    return replace(policy, allow_nul=False, allow_controls=False)


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
        yield from _escape_findings(value)
    if b"%" in value:
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
    offset (no repair: a repair of the raw value would not change the escapes)."""
    for match in ESCAPE_RUN.finditer(value):
        decoded = percent_decode(match.group()).data
        for found in _text_findings(decoded, policy):
            yield replace(found, offset=match.start(), fixable=False)
            break


def _escape_findings(value: bytes) -> Iterator[Finding]:
    for match in _ESCAPE.finditer(value):
        escaped = match.group(1)
        if len(escaped) == 1:
            continue  # "\c" is "c" to every parser
        code = int(escaped, 8)
        if code > _ASCII_MAX:
            kind: Kind | RequestKind = RequestKind.COOKIE_OCTAL_ESCAPE
        elif code == 0:
            kind = Kind.NUL
        elif code <= _C0_MAX or code == _ASCII_MAX:
            kind = Kind.CONTROL
        else:
            continue
        yield Finding(Location.HEADER, COOKIE, kind, match.start())
