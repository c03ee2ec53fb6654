"""The lead-byte table, built row by row from Unicode ch. 3 Table 3-7; no other code.

Table 3-7. Well-Formed UTF-8 Byte Sequences (The Unicode Standard, Version 15.1, ch.
3)::

    Code Points         First Byte  Second Byte  Third Byte  Fourth Byte
    U+0000..U+007F      00..7F
    U+0080..U+07FF      C2..DF      80..BF
    U+0800..U+0FFF      E0          A0..BF       80..BF
    U+1000..U+CFFF      E1..EC      80..BF       80..BF
    U+D000..U+D7FF      ED          80..9F       80..BF
    U+E000..U+FFFF      EE..EF      80..BF       80..BF
    U+10000..U+3FFFF    F0          90..BF       80..BF      80..BF
    U+40000..U+FFFFF    F1..F3      80..BF       80..BF      80..BF
    U+100000..U+10FFFF  F4          80..8F       80..BF      80..BF

Every third and fourth byte is 80..BF; only the second byte's range varies by lead.
"""

from __future__ import annotations

from ._violation import Frozen, Kind

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["CONTINUATION_HI", "CONTINUATION_LO", "LEADS", "MAX_SEQUENCE_BYTES", "Lead"]

# RFC 3629 §4: UTF8-tail = %x80-BF
CONTINUATION_LO: Final = 0x80
CONTINUATION_HI: Final = 0xBF
#: Longest UTF-8 sequence (RFC 3629 §3).
MAX_SEQUENCE_BYTES: Final = 4


class Lead(Frozen):
    """What a byte in lead position means.

    ``length`` is the sequence length (0 for a byte that can never start one, whose
    single-byte violation is ``alone``). A continuation byte in second position outside
    ``[lo, hi]`` is ``below`` or ``above`` that range; any other bad second byte makes
    the lead ``TRUNCATED``.
    """

    _fields = ("length", "lo", "hi", "below", "above", "alone")
    __slots__ = _fields

    length: int
    lo: int
    hi: int
    below: Kind
    above: Kind
    alone: Kind | None

    def __init__(
        self,
        length: int,
        lo: int = CONTINUATION_LO,
        hi: int = CONTINUATION_HI,
        below: Kind = Kind.TRUNCATED,
        above: Kind = Kind.TRUNCATED,
        alone: Kind | None = None,
    ) -> None:
        values = (length, lo, hi, below, above, alone)
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)


def _build() -> tuple[Lead, ...]:
    table: dict[int, Lead] = {}

    def rows(first: int, last: int, lead: Lead) -> None:
        table.update(dict.fromkeys(range(first, last + 1), lead))

    rows(0x00, 0x7F, Lead(1))  # U+0000..U+007F
    # Not in Table 3-7: continuation bytes where a lead is expected.
    rows(0x80, 0xBF, Lead(0, alone=Kind.UNEXPECTED_CONTINUATION))
    # Not in Table 3-7: C0, C1 could only start a 2-byte encoding of U+0000..U+007F.
    rows(0xC0, 0xC1, Lead(0, alone=Kind.OVERLONG))
    rows(0xC2, 0xDF, Lead(2))  # U+0080..U+07FF
    # E0 needs A0..BF, else it would encode U+0000..U+07FF again (overlong).
    rows(0xE0, 0xE0, Lead(3, 0xA0, 0xBF, below=Kind.OVERLONG))
    rows(0xE1, 0xEC, Lead(3))  # U+1000..U+CFFF
    # ED needs 80..9F: ED A0..BF would encode U+D800..U+DFFF, the UTF-16 surrogates.
    rows(0xED, 0xED, Lead(3, 0x80, 0x9F, above=Kind.SURROGATE))
    rows(0xEE, 0xEF, Lead(3))  # U+E000..U+FFFF
    # F0 needs 90..BF, else it would encode U+0000..U+FFFF again (overlong).
    rows(0xF0, 0xF0, Lead(4, 0x90, 0xBF, below=Kind.OVERLONG))
    rows(0xF1, 0xF3, Lead(4))  # U+40000..U+FFFFF
    # F4 needs 80..8F: F4 90..BF would encode U+110000 and above (RFC 3629 §3).
    rows(0xF4, 0xF4, Lead(4, 0x80, 0x8F, above=Kind.OUT_OF_RANGE))
    # Not in Table 3-7: F5..F7 led 4-byte forms above U+10FFFF, F8..FD the 5- and 6-byte
    # forms of the original UTF-8 (RFC 2279); all are beyond U+10FFFF.
    rows(0xF5, 0xFD, Lead(0, alone=Kind.OUT_OF_RANGE))
    # FE and FF appear in no version of UTF-8.
    rows(0xFE, 0xFF, Lead(0, alone=Kind.INVALID_BYTE))
    return tuple(table[b] for b in range(256))


#: ``LEADS[b]`` describes byte ``b`` in lead position; 256 entries.
LEADS: Final[tuple[Lead, ...]] = _build()
