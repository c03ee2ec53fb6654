"""Policy (which well-formed code points to refuse) and the code-point sets it names."""

from __future__ import annotations

from ._violation import Frozen, Kind

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ._ranges import Ranges

__all__ = [
    "FLAGS",
    "IDENTIFIER",
    "STRICT",
    "WELL_FORMED",
    "Policy",
    "not_a_policy",
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


#: Policy's flags in order: its keyword arguments and attributes (the C scanner checks
#: at import that it knows exactly these).
FLAGS: Final = (
    "allow_noncharacters",
    "allow_nul",
    "allow_controls",
    "allow_bidi_controls",
    "allow_private_use",
    "allow_bom",
)


class Policy(Frozen):
    """Which well-formed code points count as violations.

    Ill-formed UTF-8 (overlong forms, surrogates, values above U+10FFFF, stray or
    truncated bytes) is always refused; a policy only adds refusals. ``Policy()`` is
    STRICT: well-formed and no noncharacters. Security-relevant default: NUL, controls,
    bidi controls, private use and the BOM are *allowed* unless a flag says otherwise;
    use :data:`IDENTIFIER` for names, paths and other identifiers. Immutable and
    hashable; :meth:`replace` makes a changed copy.

    >>> Policy(allow_controls=False).allow_controls
    False

    Raises:
        TypeError: a flag is not a bool.
    """

    # _plan: the compiled scanning plan, built on first use by _plan.plan_for, not
    # part of the value.
    _fields = FLAGS
    __slots__ = (*FLAGS, "_flags", "_plan")
    # Keyword-only, as the kw_only dataclass this was: no positional patterns.
    __match_args__ = ()

    #: allow the 66 noncharacters U+FDD0..U+FDEF, U+nFFFE, U+nFFFF (kind
    #: ``noncharacter``)
    allow_noncharacters: bool
    #: allow U+0000 (kind ``nul``); not affected by ``allow_controls``
    allow_nul: bool
    #: allow C0 controls other than TAB, LF, CR; DEL; C1 U+0080..U+009F (kind
    #: ``control``)
    allow_controls: bool
    #: allow U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 (kind
    #: ``bidi_control``)
    allow_bidi_controls: bool
    #: allow U+E000..U+F8FF, U+F0000..U+FFFFD, U+100000..U+10FFFD (kind ``private_use``)
    allow_private_use: bool
    #: allow U+FEFF anywhere (kind ``bom``)
    allow_bom: bool
    _flags: tuple[bool, ...]
    _plan: object

    def __init__(
        self,
        *,
        allow_noncharacters: bool = False,
        allow_nul: bool = True,
        allow_controls: bool = True,
        allow_bidi_controls: bool = True,
        allow_private_use: bool = True,
        allow_bom: bool = True,
    ) -> None:
        flags = (
            allow_noncharacters,
            allow_nul,
            allow_controls,
            allow_bidi_controls,
            allow_private_use,
            allow_bom,
        )
        for name, value in zip(FLAGS, flags, strict=True):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
            object.__setattr__(self, name, value)
        # ==, hash, repr and pickle read the flags from here, a tuple kept ready
        # (policies key caches: hashing one is a hot path).
        object.__setattr__(self, "_flags", flags)
        object.__setattr__(self, "_plan", None)

    def replace(self, **changes: bool) -> Policy:
        """A copy with the flags named changed, as ``dataclasses.replace`` made.

        >>> STRICT.replace(allow_nul=False) == Policy(allow_nul=False)
        True

        Raises:
            TypeError: a name is not a flag, or a value not a bool.
        """
        return type(self)(**{**dict(zip(FLAGS, self._flags, strict=True)), **changes})

    #: ``copy.replace`` (Python 3.13) calls it.
    __replace__ = replace

    def _values(self) -> tuple[bool, ...]:
        return self._flags

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Keyword-only: rebuilt by a function that names the flags.
        return (_from_flags, (type(self), *self._flags))


def _from_flags(cls: type[Policy], *flags: bool) -> Policy:
    """The ``cls`` with ``flags`` in FLAGS order (what a pickled Policy holds)."""
    return cls(**dict(zip(FLAGS, flags, strict=True)))


#: Well-formed UTF-8 and no noncharacters (the default).
STRICT: Final = Policy()
#: Well-formed UTF-8 only, exactly what CPython's strict codec accepts.
WELL_FORMED: Final = Policy(allow_noncharacters=True)
#: For names, paths and identifiers: STRICT plus no NUL, no controls, no bidi controls.
IDENTIFIER: Final = Policy(
    allow_nul=False, allow_controls=False, allow_bidi_controls=False
)


def not_a_policy(value: object, name: str = "policy") -> TypeError:
    """The error for ``name`` given ``value``, which is not a :class:`Policy`.

    Every entry point that takes a policy raises it, the C accelerator's too (its
    text is built the same way there), rather than an ``AttributeError`` from deep
    inside: ``is_valid(data, "strict")`` is a caller's mistake to name plainly.
    """
    return TypeError(f"{name} must be a Policy, not {type(value).__name__}")


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
