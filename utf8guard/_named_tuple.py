"""NamedTuple: ``typing.NamedTuple``'s class syntax at run time, without ``typing``
and without compiling code per class (issue 28).

``typing.NamedTuple`` calls ``collections.namedtuple``, which writes each class's
``__new__`` as source and compiles it; with ``typing`` itself that was a tenth of
the middleware's import. Here one metaclass turns the annotations of
``class C(NamedTuple)`` into a slotted direct subclass of ``tuple``, as
``collections.namedtuple``'s are, with a read-only accessor per field (CPython's
``_tuplegetter``, the one ``collections.namedtuple`` uses), ``_fields`` and
``__match_args__``; ``__new__`` (the fields by position or keyword), ``_make``,
``_replace`` and ``repr`` are :class:`NamedTuple`'s, shared by every class. A
module uses it in place of the real one at run time only, so that type checkers
still see ``typing.NamedTuple``::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from ..._named_tuple import NamedTuple

The classes are tuples, so C code may read or build them as ``tuple.__new__`` does.
Fields take no defaults (none of ours has one): a default is a ``TypeError`` at
class creation, not a silent accessor over it.
"""

from __future__ import annotations

# CPython's C accessor of collections.namedtuple (no stub: a private module).
from _collections import _tuplegetter  # type: ignore[import-not-found]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["NamedTuple"]


class NamedTupleType(type):
    """Builds each direct subclass of :class:`NamedTuple` from its annotations.

    The defining module must use ``from __future__ import annotations`` (every module
    here does), so that reading ``__annotations__`` evaluates nothing.
    """

    def __new__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]
    ) -> NamedTupleType:
        namespace["__slots__"] = ()
        if not any(isinstance(base, NamedTupleType) for base in bases):
            return super().__new__(cls, name, bases, namespace)  # NamedTuple itself
        if bases != (NamedTuple,):
            raise TypeError(f"{name}: a named tuple class cannot be subclassed")
        fields: tuple[str, ...] = tuple(namespace.get("__annotations__", {}))
        for index, field in enumerate(fields):
            if field.startswith("_") or field in namespace:
                raise TypeError(f"{name}: field {field!r} is private or has a default")
            namespace[field] = _tuplegetter(index, f"Alias for field number {index}")
        namespace["_fields"] = fields
        namespace["__match_args__"] = fields
        # NamedTuple's methods, on a direct subclass of tuple (as namedtuple's
        # classes are): a deeper class costs each instance's deallocation a level.
        for key, value in vars(NamedTuple).items():
            if key in _SHARED:
                namespace.setdefault(key, value)
        return super().__new__(cls, name, (tuple,), namespace)


#: What each class takes from :class:`NamedTuple`.
_SHARED = frozenset(("__new__", "_make", "_replace", "__getnewargs__", "__repr__"))


class NamedTuple(tuple[object, ...], metaclass=NamedTupleType):
    """Base of the run-time named tuples: see the module docstring."""

    _fields: tuple[str, ...]

    def __new__(cls, *args: object, **kwargs: object) -> NamedTuple:
        if kwargs:
            rest = [name for name in cls._fields[len(args) :] if name in kwargs]
            args = (*args, *(kwargs.pop(name) for name in rest))
            if kwargs:
                raise TypeError(
                    f"{cls.__name__}() got an unexpected keyword argument "
                    f"{next(iter(kwargs))!r}"
                )
        if len(args) != len(cls._fields):
            raise TypeError(
                f"{cls.__name__}() takes {len(cls._fields)} arguments, not {len(args)}"
            )
        return tuple.__new__(cls, args)

    @classmethod
    def _make(cls, iterable: Iterable[object]) -> NamedTuple:
        """An instance from the values of ``iterable``, in field order."""
        return cls(*iterable)

    def _replace(self, **changes: object) -> NamedTuple:
        """A copy with the fields named changed, as ``collections.namedtuple``'s.

        Raises:
            ValueError: a name that is not a field.
        """
        made = self._make(
            changes.pop(name, old) for name, old in zip(self._fields, self, strict=True)
        )
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return made

    def __getnewargs__(self) -> tuple[object, ...]:
        # What copy and pickle pass back to __new__ (a plain tuple's is one tuple).
        return tuple(self)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)
        )
        return f"{type(self).__qualname__}({shown})"
