"""Regular expressions compiled at their first use instead of at import (issue 28).

Compiling the middleware's forty-odd patterns was a quarter of its import, and most
requests use none of them. A module writes ``NAME: Final = lazy_pattern(rb"...")``
where it wrote ``re.compile``; the first attribute looked up compiles the pattern,
and from then on the object's slots hold the compiled pattern's bound methods: a
call is one slot read and the compiled method, no Python frame in between.

Building a pattern needs no ``re`` either (issue 28: ``re`` brings ``enum``,
``functools`` and ``collections``): :func:`literal` escapes a literal, and the flags
the package passes are named here by their values (``tests/test_lazy_pattern.py``
checks them against ``re``'s).
"""

from __future__ import annotations

# typing costs a tenth of ``import utf8guard``; only mypy needs it (and ``re`` here).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import AnyStr, Final

__all__ = ["DOTALL", "IGNORECASE", "lazy_pattern", "literal"]

#: ``re.IGNORECASE`` and ``re.DOTALL``, without importing ``re``.
IGNORECASE: Final = 2
DOTALL: Final = 16

#: What the first use of a pattern fills in from the compiled one.
_COMPILED_ATTRIBUTES = (
    "search",
    "match",
    "fullmatch",
    "finditer",
    "findall",
    "sub",
    "subn",
    "split",
    "flags",
    "groups",
    "groupindex",
)


class _Compiled:
    """A pattern after its first use: its slots hold the compiled pattern's methods.

    No ``__getattr__``, so an attribute lookup is a plain slot read.
    """

    __slots__ = ("pattern", "_flags", *_COMPILED_ATTRIBUTES)
    pattern: str | bytes
    _flags: int

    # As re.Pattern's: equal when source and flags are, compiled or not, and pickled
    # or copied as the source and flags (a GuardConfig holds patterns).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Compiled):
            return NotImplemented
        return (self.pattern, self._flags) == (other.pattern, other._flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self._flags))

    def __reduce__(self) -> tuple[object, tuple[str | bytes, int]]:
        return lazy_pattern, (self.pattern, self._flags)


class _Lazy(_Compiled):
    """A pattern not compiled yet; the first attribute looked up compiles it.

    The same slots as :class:`_Compiled` (none of its own), so that it can become one.
    """

    __slots__ = ()

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> object:
        # Only for a slot not filled yet (or a name no pattern has): compile, fill
        # every slot, then become a _Compiled. Two threads racing here both compile
        # an equal pattern; the class changes only after the slots are filled.
        import re

        compiled = re.compile(self.pattern, self._flags)
        for attribute in _COMPILED_ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        # The point of the class: its instances turn into the parent class.
        self.__class__ = _Compiled  # type: ignore[assignment]
        return getattr(self, name)


def lazy_pattern(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, done at the first use of the result.

    ``.pattern`` reads without compiling; any other attribute compiles first. A
    pattern that does not compile raises ``re.error`` there, so each module's
    patterns are compiled once by the tests (``tests/test_lazy_pattern.py``).
    """
    # The object offers the compiled pattern's attributes (_COMPILED_ATTRIBUTES):
    # typed as one so that call sites read as they did with re.compile.
    return _Lazy(pattern, flags)  # type: ignore[return-value]


def literal(data: bytes) -> bytes:
    r"""``data`` as a pattern that matches it alone, in or out of a character class:
    each byte as ``\xHH`` (``re.escape`` would import ``re``).

    >>> literal(b"a.")
    b'\\x61\\x2e'
    """
    return b"".join(b"\\x%02x" % byte for byte in data)
