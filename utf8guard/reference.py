"""The slow oracle: a byte-at-a-time reading of Unicode ch. 3 Table 3-7.

Written to be checked by eye against the standard, not to be fast, and sharing no logic
with the fast path (only the ``Kind``, ``Violation`` and ``Policy`` types). Tests and
fuzzers hold the fast path to it; nothing else should call it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from ._policy import STRICT, Policy
from ._violation import Kind, Violation

__all__ = ["find_violation", "is_valid", "iter_violations", "repair"]

# Table 3-7. Well-Formed UTF-8 Byte Sequences: (code points, first byte, later bytes).
TABLE_3_7: Final = (
    ((0x0000, 0x007F), (0x00, 0x7F), ()),
    ((0x0080, 0x07FF), (0xC2, 0xDF), ((0x80, 0xBF),)),
    ((0x0800, 0x0FFF), (0xE0, 0xE0), ((0xA0, 0xBF), (0x80, 0xBF))),
    ((0x1000, 0xCFFF), (0xE1, 0xEC), ((0x80, 0xBF), (0x80, 0xBF))),
    ((0xD000, 0xD7FF), (0xED, 0xED), ((0x80, 0x9F), (0x80, 0xBF))),
    ((0xE000, 0xFFFF), (0xEE, 0xEF), ((0x80, 0xBF), (0x80, 0xBF))),
    ((0x10000, 0x3FFFF), (0xF0, 0xF0), ((0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF))),
    ((0x40000, 0xFFFFF), (0xF1, 0xF3), ((0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF))),
    ((0x100000, 0x10FFFF), (0xF4, 0xF4), ((0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF))),
)


def _row(byte: int) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]] | None:
    for code_points, (lo, hi), later in TABLE_3_7:
        if lo <= byte <= hi:
            return code_points, later
    return None


def _lone_byte_kind(byte: int) -> Kind:
    """A byte that starts no row of Table 3-7."""
    if 0x80 <= byte <= 0xBF:
        return Kind.UNEXPECTED_CONTINUATION
    if byte in (0xC0, 0xC1):  # would be 2-byte forms of U+0000..U+007F
        return Kind.OVERLONG
    if (
        0xF5 <= byte <= 0xFD
    ):  # 4-, 5- and 6-byte forms of values above U+10FFFF (RFC 2279)
        return Kind.OUT_OF_RANGE
    return Kind.INVALID_BYTE  # FE, FF


def _bad_second_kind(lead: int, second: int) -> Kind:
    """A lead, then a continuation byte outside its row: what would it encode?"""
    length = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    value = ((lead & (0x7F >> length)) << 6 | (second & 0x3F)) << 6 * (length - 2)
    if value < (0x80, 0x800, 0x10000)[length - 2]:
        return Kind.OVERLONG
    if 0xD800 <= value <= 0xDFFF:
        return Kind.SURROGATE
    if value > 0x10FFFF:
        return Kind.OUT_OF_RANGE
    return (
        Kind.TRUNCATED
    )  # pragma: no cover - every row's gap is one of the three above


def _refused(cp: int, policy: Policy) -> Kind | None:
    """The policy rules, restated from the standard's text."""
    if not policy.allow_noncharacters and (
        0xFDD0 <= cp <= 0xFDEF or cp & 0xFFFE == 0xFFFE
    ):
        return Kind.NONCHARACTER
    if not policy.allow_nul and cp == 0:
        return Kind.NUL
    if not policy.allow_controls and (
        (cp < 0x20 and cp not in (0x00, 0x09, 0x0A, 0x0D)) or 0x7F <= cp <= 0x9F
    ):
        return Kind.CONTROL
    bidi = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
    if not policy.allow_bidi_controls and cp in bidi:
        return Kind.BIDI_CONTROL
    private = 0xE000 <= cp <= 0xF8FF or (cp >= 0xF0000 and cp & 0xFFFE != 0xFFFE)
    if not policy.allow_private_use and private:
        return Kind.PRIVATE_USE
    if not policy.allow_bom and cp == 0xFEFF:
        return Kind.BOM
    return None


def _step(data: bytes, i: int, policy: Policy) -> tuple[int, Violation | None]:
    """Read one character or maximal subpart at ``i``; return where the next starts."""
    row = _row(data[i])
    if row is None:
        return i + 1, Violation(_lone_byte_kind(data[i]), i, i + 1)
    _, later = row
    j = i + 1
    for lo, hi in later:
        if j == len(data) or not lo <= data[j] <= hi:
            # Maximal subpart (ch. 3, D93b): the longest prefix of a well-formed
            # sequence.
            kind = Kind.TRUNCATED
            if j == i + 1 and j < len(data) and 0x80 <= data[j] <= 0xBF:
                kind = _bad_second_kind(data[i], data[j])
            return j, Violation(kind, i, j)
        j += 1
    # Table 3-3: the lead keeps 7, 5, 4 or 3 payload bits; each continuation byte 6.
    cp = data[i] & (0x7F, 0x1F, 0x0F, 0x07)[len(later)]
    for byte in data[i + 1 : j]:
        cp = cp << 6 | byte & 0x3F
    refused = _refused(cp, policy)
    return j, None if refused is None else Violation(refused, i, j)


def iter_violations(data: bytes, policy: Policy = STRICT) -> Iterator[Violation]:
    """Every violation in ``data``, in order."""
    i = 0
    while i < len(data):
        i, found = _step(data, i, policy)
        if found is not None:
            yield found


def find_violation(data: bytes, policy: Policy = STRICT) -> Violation | None:
    """The first violation in ``data``, or None."""
    return next(iter_violations(data, policy), None)


def is_valid(data: bytes, policy: Policy = STRICT) -> bool:
    """True when ``data`` has no violation under ``policy``."""
    return find_violation(data, policy) is None


def repair(data: bytes, policy: Policy = STRICT) -> bytes:
    """``data`` with one U+FFFD (EF BF BD) in place of each violation."""
    out = bytearray()
    i = 0
    while i < len(data):
        j, found = _step(data, i, policy)
        out += b"\xef\xbf\xbd" if found else data[i:j]
        i = j
    return bytes(out)
