"""Policy (which well-formed code points to refuse) and the code-point sets it names."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Final

from ._ranges import Ranges
from ._violation import Kind

__all__ = [
    "IDENTIFIER",
    "STRICT",
    "WELL_FORMED",
    "Policy",
    "refused_ranges",
]

# Unicode ch. 23.7 "Noncharacters" (and Corrigendum #9): U+FDD0..U+FDEF and the last two
# code points of each of the 17 planes, 66 in all.
NONCHARACTERS: Final[Ranges] = (
    (0xFDD0, 0xFDEF),
    *((plane << 16 | 0xFFFE, plane << 16 | 0xFFFF) for plane in range(17)),
)
NUL: Final[Ranges] = ((0x0000, 0x0000),)
# Unicode ch. 23.1 "Control Codes": C0 (less TAB U+0009, LF U+000A, CR U+000D, which
# text needs), DEL, and C1. U+0000 is governed by allow_nul alone.
CONTROLS: Final[Ranges] = (
    (0x0001, 0x0008),
    (0x000B, 0x000C),
    (0x000E, 0x001F),
    (0x007F, 0x009F),
)
# UAX #9 §2 "Directional Formatting Characters": ALM, LRM, RLM, LRE..RLO, LRI..PDI.
BIDI_CONTROLS: Final[Ranges] = (
    (0x061C, 0x061C),
    (0x200E, 0x200F),
    (0x202A, 0x202E),
    (0x2066, 0x2069),
)
# Unicode ch. 23.5 "Private-Use Characters": the BMP area and planes 15 and 16 (whose
# last two code points are noncharacters, not private use).
PRIVATE_USE: Final[Ranges] = (
    (0xE000, 0xF8FF),
    (0xF0000, 0xFFFFD),
    (0x100000, 0x10FFFD),
)
# U+FEFF ZERO WIDTH NO-BREAK SPACE, the byte order mark (Unicode ch. 23.8).
BOM: Final[Ranges] = ((0xFEFF, 0xFEFF),)


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """Which well-formed code points count as violations.

    Ill-formed UTF-8 (overlong forms, surrogates, values above U+10FFFF, stray or
    truncated bytes) is always refused; a policy only adds refusals. ``Policy()`` is
    STRICT: well-formed and no noncharacters. Security-relevant default: NUL, controls,
    bidi controls, private use and the BOM are *allowed* unless a flag says otherwise;
    use :data:`IDENTIFIER` for names, paths and other identifiers.

    >>> Policy(allow_controls=False).allow_controls
    False
    """

    #: allow the 66 noncharacters U+FDD0..U+FDEF, U+nFFFE, U+nFFFF (kind
    #: ``noncharacter``)
    allow_noncharacters: bool = False
    #: allow U+0000 (kind ``nul``); not affected by ``allow_controls``
    allow_nul: bool = True
    #: allow C0 controls other than TAB, LF, CR; DEL; C1 U+0080..U+009F (kind
    #: ``control``)
    allow_controls: bool = True
    #: allow U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 (kind
    #: ``bidi_control``)
    allow_bidi_controls: bool = True
    #: allow U+E000..U+F8FF, U+F0000..U+FFFFD, U+100000..U+10FFFD (kind ``private_use``)
    allow_private_use: bool = True
    #: allow U+FEFF anywhere (kind ``bom``)
    allow_bom: bool = True
    # Compiled scanning plan, built on first use by _scan; not part of the value.
    _plan: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.init and not isinstance(value, bool):
                raise TypeError(f"{f.name} must be a bool, not {type(value).__name__}")


#: Well-formed UTF-8 and no noncharacters (the default).
STRICT: Final = Policy()
#: Well-formed UTF-8 only, exactly what CPython's strict codec accepts.
WELL_FORMED: Final = Policy(allow_noncharacters=True)
#: For names, paths and identifiers: STRICT plus no NUL, no controls, no bidi controls.
IDENTIFIER: Final = Policy(
    allow_nul=False, allow_controls=False, allow_bidi_controls=False
)


def refused_ranges(policy: Policy) -> tuple[tuple[Kind, Ranges], ...]:
    """The code-point sets ``policy`` refuses, each with its kind."""
    table = (
        (policy.allow_noncharacters, Kind.NONCHARACTER, NONCHARACTERS),
        (policy.allow_nul, Kind.NUL, NUL),
        (policy.allow_controls, Kind.CONTROL, CONTROLS),
        (policy.allow_bidi_controls, Kind.BIDI_CONTROL, BIDI_CONTROLS),
        (policy.allow_private_use, Kind.PRIVATE_USE, PRIVATE_USE),
        (policy.allow_bom, Kind.BOM, BOM),
    )
    return tuple((kind, ranges) for allowed, kind, ranges in table if not allowed)
