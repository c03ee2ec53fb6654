"""Violation kinds, the Violation record and Utf8Error: data only."""

from __future__ import annotations

from ._constant import Constant

# typing costs a tenth of ``import utf8guard`` (issue 28); only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["Frozen", "Kind", "Utf8Error", "Violation"]


class Kind(str, Constant):
    """What is wrong with a span of bytes.

    The first six are ill-formed UTF-8 (Unicode ch. 3, Table 3-7; RFC 3629 §4); the rest
    are well-formed code points that a :class:`~utf8guard.Policy` refuses.
    """

    #: C0, C1 as lead; E0 80..9F; F0 80..8F (an encoding longer than needed, e.g. C0 AF
    #: for "/")
    OVERLONG = "overlong"
    #: ED A0..BF: a UTF-16 surrogate U+D800..U+DFFF (also each half of a CESU-8 pair)
    SURROGATE = "surrogate"
    #: F4 90..BF and the legacy leads F5..FD: beyond U+10FFFF
    OUT_OF_RANGE = "out_of_range"
    #: FE, FF: never part of any UTF-8 form
    INVALID_BYTE = "invalid_byte"
    #: 80..BF where a lead byte is expected
    UNEXPECTED_CONTINUATION = "unexpected_continuation"
    #: a valid prefix cut short by a non-continuation byte or by the end of input
    TRUNCATED = "truncated"
    #: U+FDD0..U+FDEF and U+nFFFE, U+nFFFF (Unicode ch. 23.7, "Noncharacters")
    NONCHARACTER = "noncharacter"
    #: U+0000
    NUL = "nul"
    #: C0 controls other than TAB, LF, CR; DEL; C1 controls U+0080..U+009F (the
    #: middleware also reports TAB, LF and CR in a path, and CR, LF in a header value
    #: or cookie, with this kind)
    CONTROL = "control"
    #: bidirectional formatting characters (UAX #9 §2)
    BIDI_CONTROL = "bidi_control"
    #: private use code points (Unicode ch. 23.5)
    PRIVATE_USE = "private_use"
    #: U+FEFF ZERO WIDTH NO-BREAK SPACE / byte order mark
    BOM = "bom"

    def __str__(self) -> str:
        return self.value


#: The kinds of bytes that are not UTF-8 at all (Unicode ch. 3, Table 3-7; RFC 3629
#: §4), as opposed to well-formed code points that a policy refuses.
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


def _frozen_error(message: str) -> AttributeError:
    # The exception the frozen dataclasses these records were raised (an
    # AttributeError); dataclasses is imported only here, as it costs more than the
    # rest of ``import utf8guard`` (issue 28).
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


class Frozen:
    """Base of the core's immutable records: what ``@dataclass(frozen=True,
    slots=True)`` gave them, without importing ``dataclasses``. The middleware's
    records subclass ``_record.Record``, which writes ``__init__`` from annotations.

    A subclass names its fields in ``_fields``, in ``__init__``'s order, has them in
    ``__slots__`` and sets them in ``__init__`` with ``object.__setattr__``; ``==``
    (same class only), ``hash``, ``repr`` and pickling (through ``__init__``) use
    ``_values()``, the fields' values in that order.
    """

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen_error(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen_error(f"cannot delete field {name!r}")

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={value!r}"
            for name, value in zip(self._fields, self._values(), strict=True)
        )
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frozen) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Rebuilt through __init__: pickle and copy would otherwise set the slots,
        # which __setattr__ refuses.
        return (type(self), self._values())


class Violation(Frozen):
    """One violation: its kind and the byte span ``[start, end)`` it covers.

    For ill-formed input the span is the maximal subpart (Unicode ch. 3, "U+FFFD
    Substitution of Maximal Subparts"): exactly the bytes one U+FFFD replaces. For a
    well-formed code point refused by policy it is the whole encoded sequence. Offsets
    are absolute in the input or stream, as in CPython's
    ``UnicodeDecodeError.start``/``end``. Immutable and hashable.
    """

    _fields = __match_args__ = ("kind", "start", "end")
    __slots__ = _fields

    kind: Kind
    start: int
    end: int

    def __init__(self, kind: Kind, start: int, end: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    def _values(self) -> tuple[Kind, int, int]:
        # Written out: ==, hash and repr of violations are frequent enough (sets of
        # findings, test oracles) to want no loop here.
        return (self.kind, self.start, self.end)


def describe(violation: Violation, data: bytes | None = None) -> str:
    """Message text: kind, offsets and a short hex snippet of the offending bytes."""
    text = f"{violation.kind.value} at bytes [{violation.start}, {violation.end})"
    if data:
        text += f": {data[:8].hex(' ')}"
    return text


class Utf8Error(ValueError):
    """Input is not valid UTF-8 under the policy in force.

    ``violation`` holds the first :class:`Violation`. The message gives its kind,
    offsets and a hex snippet of at most 8 bytes; it never contains the raw input.
    """

    # Issue 26: tracebacks name the public import, not this private module (pickle
    # finds the class there too).
    __module__ = "utf8guard"

    def __init__(self, violation: Violation, data: bytes | None = None) -> None:
        super().__init__(describe(violation, data))
        self.violation = violation
        self._snippet = data[:8] if data else None

    def __reduce__(self) -> tuple[type[Utf8Error], tuple[Violation, bytes | None]]:
        # BaseException pickles ``args`` (the message), which __init__ cannot take
        # back: rebuild from the violation and the snippet the message shows, so an
        # error crosses a process pool or a multiprocessing queue intact.
        return (type(self), (self.violation, self._snippet))
