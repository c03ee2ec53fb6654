"""Free-text header fields that old clients send in Latin-1 (issue 26); pure.

RFC 9110 §5.5 lets a field value carry obs-text (0x80-0xFF) as opaque bytes, and
every framework decodes header values as Latin-1 (the ASGI spec and PEP 3333 do), so
``User-Agent: Mozilla Caf\\xe9`` reaches the app as ``Mozilla Café``: no parser reads
it differently, and refusing it turns away old clients. Sanic is the exception met:
it decodes header values as UTF-8 with surrogateescape, so a Sanic app sets
``latin1_headers=()``. In the fields of
``GuardConfig.latin1_headers`` a byte that is not UTF-8 therefore passes when it is
printable Latin-1 text (0xA0-0xFF). What could still deceive stays refused: a C1
control (0x80-0x9F, ISO/IEC 6429), and the forms a lenient UTF-8 decoder turns into
another character (overlong, surrogate and past-U+10FFFF sequences, Table 3-7), as
does everything the policy refuses in valid UTF-8 (noncharacters, bidi controls ...).
"""

from __future__ import annotations

from ..._violation import Kind, Violation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Final

__all__ = ["DEFAULT_LATIN1_HEADERS", "deceptive"]

#: Free-text fields clients fill with what they have (a product name, a URL a
#: browser may not escape); issue 26's benign corpus met Latin-1 in both.
DEFAULT_LATIN1_HEADERS: Final = ("user-agent", "referer")
#: Ill-formed UTF-8 that Latin-1 text makes: a lone lead byte or one cut short by
#: ASCII, a byte 0xA0-0xBF, a lone 0xF5-0xFF.
_LATIN1_KINDS: Final = frozenset(
    (Kind.TRUNCATED, Kind.UNEXPECTED_CONTINUATION, Kind.INVALID_BYTE, Kind.OUT_OF_RANGE)
)
#: Latin-1's printable range starts after the C1 controls (0x80-0x9F).
_FIRST_PRINTABLE: Final = 0xA0
#: Leads that Table 3-7 never allows: alone, Latin-1's "õ" to "ÿ".
_FIRST_NEVER_LEAD: Final = 0xF5
_CONTINUATION: Final = range(0x80, 0xC0)


def deceptive(value: bytes, violations: Iterable[Violation]) -> Iterator[Violation]:
    """The ``violations`` of ``value`` that are not printable Latin-1 text."""
    for violation in violations:
        if violation.kind not in _LATIN1_KINDS or not _is_latin1(value, violation):
            yield violation


def _is_latin1(value: bytes, violation: Violation) -> bool:
    span = value[violation.start : violation.end]
    if min(span) < _FIRST_PRINTABLE:
        return False
    if violation.kind is not Kind.OUT_OF_RANGE:
        return True
    # F4 90.., or F5..F7 with continuations: a legacy form past U+10FFFF, not text.
    after = value[violation.end : violation.end + 1]
    return span[0] >= _FIRST_NEVER_LEAD and not (after and after[0] in _CONTINUATION)
