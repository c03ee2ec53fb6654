"""A second oracle built from CPython alone: its UTF-8 codec and ``unicodedata``.

CPython's decoder reports each ill-formed span exactly as Unicode ch. 3 defines the
maximal subpart (``UnicodeDecodeError.start``/``end``), but not which rule it broke, so
this oracle names ill-formed spans only as such (kind ``None``). The policy's sets are
restated from Unicode character data rather than from utf8guard's tables: controls are
general category Cc, private use is Co, the bidi controls are PropList.txt's
Bidi_Control, and the noncharacter rule is ch. 23.7's.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections.abc import Iterator
from typing import Final

from utf8guard import Kind, Policy

__all__ = ["ILL_FORMED", "Span", "repaired", "violations"]

#: Kinds for bytes that are not UTF-8 at all (Unicode ch. 3, Table 3-7).
ILL_FORMED: Final = frozenset(
    {
        Kind.OVERLONG,
        Kind.SURROGATE,
        Kind.OUT_OF_RANGE,
        Kind.INVALID_BYTE,
        Kind.UNEXPECTED_CONTINUATION,
        Kind.TRUNCATED,
    }
)
# PropList.txt, Bidi_Control: ALM, LRM, RLM, LRE..RLO, LRI..PDI (12 code points).
_BIDI_CONTROLS: Final = frozenset(
    {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202E + 1), *range(0x2066, 0x2069 + 1)}
)
# Text needs these C0 controls; U+0000 has its own flag (see Policy).
_TEXT_CONTROLS: Final = "\x00\t\n\r"
# Decoded text never holds a lone surrogate, so these mark ill-formed bytes: one mark
# per byte, the first of each span distinct so that adjacent spans stay apart.
_SPAN_FIRST: Final = "\ud800"
_SPAN_MORE: Final = "\udc00"
_MARK_HANDLER: Final = "utf8guard-fuzz-mark"

#: (start, end, kind); kind is None for an ill-formed span.
Span = tuple[int, int, Kind | None]


def _mark(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return _SPAN_FIRST + _SPAN_MORE * (exc.end - exc.start - 1), exc.end


codecs.register_error(_MARK_HANDLER, _mark)


def refused_kind(char: str, policy: Policy) -> Kind | None:
    """The kind ``policy`` refuses ``char`` as, from Unicode character data."""
    cp = ord(char)
    if not policy.allow_noncharacters and (
        0xFDD0 <= cp <= 0xFDEF or cp & 0xFFFE == 0xFFFE
    ):
        return Kind.NONCHARACTER
    if not policy.allow_nul and cp == 0:
        return Kind.NUL
    if (
        not policy.allow_controls
        and char not in _TEXT_CONTROLS
        and unicodedata.category(char) == "Cc"
    ):
        return Kind.CONTROL
    if not policy.allow_bidi_controls and cp in _BIDI_CONTROLS:
        return Kind.BIDI_CONTROL
    if not policy.allow_private_use and unicodedata.category(char) == "Co":
        return Kind.PRIVATE_USE
    if not policy.allow_bom and cp == 0xFEFF:
        return Kind.BOM
    return None


def _walk(data: bytes) -> Iterator[tuple[int, int, str | None]]:
    """Each character (start, end, char) and ill-formed span (start, end, None)."""
    text = data.decode("utf-8", _MARK_HANDLER)
    pos = i = 0
    while i < len(text):
        if text[i] == _SPAN_FIRST:
            length = 1
            while text[i + length : i + length + 1] == _SPAN_MORE:
                length += 1
            yield pos, pos + length, None
            i += length
        else:
            length = len(text[i].encode())
            yield pos, pos + length, text[i]
            i += 1
        pos += length


def violations(data: bytes, policy: Policy) -> list[Span]:
    """Every violation in order: ill-formed spans and refused characters."""
    found: list[Span] = []
    for start, end, char in _walk(data):
        kind = None if char is None else refused_kind(char, policy)
        if char is None or kind is not None:
            found.append((start, end, kind))
    return found


def repaired(data: bytes, policy: Policy) -> bytes:
    """``data.decode("utf-8", "replace")`` with each refused character replaced too."""
    return "".join(
        "\ufffd" if char is None or refused_kind(char, policy) else char
        for _, _, char in _walk(data)
    ).encode()
