"""Constant: what utf8guard's enumerations use of ``enum.Enum``, without importing
``enum`` (with ``functools``, ``collections``, ``operator``, ``types`` and
``reprlib``, about a third of ``import utf8guard``; issue 28).

A subclass is declared as an ``enum.Enum`` would be, ``class Kind(str, Constant)``
with ``NAME = value`` lines, and mypy reads it as one (:data:`Constant` *is*
``enum.Enum`` to a type checker: exhaustive ``match``, ``Literal[Kind.X]``). At run
time :class:`ConstantType` turns each public class attribute that is not a
descriptor (a method, a property) into a member, once, at class creation. Each
member is an instance of its class (and of ``str`` for a ``str`` class) with
``name`` and ``value``; the class gives ``Kind("overlong")``, ``Kind["OVERLONG"]``,
iteration in definition order, ``len``, ``in``, ``__members__``; ``repr``, ``str``,
``format``, ``hash`` and ``==`` are an enum's (Python 3.11's: ``format`` shows
``str``); members pickle and copy by name; members cannot be reassigned or deleted,
a class with members cannot be subclassed. ``tests/test_constant.py`` holds each
class to a real ``enum.Enum`` twin.

Differences from ``enum.Enum``: members are not ``enum.Enum`` instances; a member
takes no new attribute (an enum member does); ``value in Kind`` answers for any
value, as Python 3.12's enum does (3.11's raises ``TypeError``); no aliases (two
names with one value are refused) and no ``auto()``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Final, TypeVar

    _C = TypeVar("_C", bound="ConstantType")

__all__ = ["Constant", "ConstantType"]

#: ``type(type.__dict__)``: a read-only view of a dict, without importing ``types``.
_MappingProxy = type(type.__dict__)


def _is_descriptor(value: object) -> bool:
    # enum's rule: methods, properties and the like stay class attributes.
    kind = type(value)
    return (
        hasattr(kind, "__get__")
        or hasattr(kind, "__set__")
        or hasattr(kind, "__delete__")
    )


def _repr(member: Any) -> str:
    return f"<{type(member).__name__}.{member.name}: {member.value!r}>"


def _str(member: Any) -> str:
    return f"{type(member).__name__}.{member.name}"


def _format(member: Any, spec: str) -> str:
    return format(str(member), spec)


#: A member's text, set on each class (a ``str`` class's own would win otherwise).
_MEMBER_TEXT: Final = {"__repr__": _repr, "__str__": _str, "__format__": _format}


class ConstantType(type):
    """The metaclass that makes a :class:`Constant` subclass's members."""

    _member_map_: dict[str, Any]
    _value2member_map_: dict[object, Any]

    def __new__(
        mcs: type[_C], name: str, bases: tuple[type, ...], namespace: dict[str, Any]
    ) -> _C:
        for base in bases:
            if getattr(base, "_member_map_", None):
                raise TypeError(f"<enum {name!r}> cannot extend {base!r}")
        values = {
            key: namespace.pop(key)
            for key, value in list(namespace.items())
            if not key.startswith("_") and not _is_descriptor(value)
        }
        for method, function in _MEMBER_TEXT.items():
            # Ahead of str's own, as EnumType does; a class's own wins.
            namespace.setdefault(method, function)
        namespace["_member_map_"] = {}
        namespace["_value2member_map_"] = {}
        made = super().__new__(mcs, name, bases, namespace)
        cls: Any = made  # a class: mypy reads _C as the metaclass
        for key, value in values.items():
            if value in made._value2member_map_:
                raise ValueError(f"{name}.{key}: the value {value!r} is taken")
            member = (
                str.__new__(cls, value) if str in cls.__mro__ else object.__new__(cls)
            )
            member.__dict__.update(name=key, value=value)
            made._member_map_[key] = made._value2member_map_[value] = member
            type.__setattr__(made, key, member)
        return made

    def __call__(cls, value: object) -> Any:
        """The member whose value is ``value`` (or ``value`` itself, a member).

        Raises:
            ValueError: no member has that value.
        """
        if isinstance(value, cls):
            return value
        try:
            return cls._value2member_map_[value]
        except (KeyError, TypeError):  # TypeError: an unhashable value
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}") from None

    def __getitem__(cls, name: str) -> Any:
        return cls._member_map_[name]

    def __iter__(cls) -> Iterator[Any]:
        return iter(cls._member_map_.values())

    def __reversed__(cls) -> Iterator[Any]:
        return reversed(cls._member_map_.values())

    def __len__(cls) -> int:
        return len(cls._member_map_)

    def __contains__(cls, value: object) -> bool:
        if isinstance(value, cls):
            return True
        try:
            return value in cls._value2member_map_
        except TypeError:  # an unhashable value is no member's
            return False

    @property
    def __members__(cls) -> Any:
        return _MappingProxy(cls._member_map_)

    def __repr__(cls) -> str:
        return f"<enum {cls.__name__!r}>"

    def __setattr__(cls, name: str, value: object) -> None:
        if name in cls._member_map_:
            raise AttributeError(f"cannot reassign member {name!r}")
        super().__setattr__(name, value)

    def __delattr__(cls, name: str) -> None:
        if name in cls._member_map_:
            raise AttributeError(f"{cls.__name__!r} cannot delete member {name!r}.")
        super().__delattr__(name)


class _Constant(metaclass=ConstantType):
    """Base of the enumerations; see the module docstring."""

    name: str
    value: Any

    def __hash__(self) -> int:
        # enum's: a str class keeps str's (equal to its value's), as under enum.
        return hash(self.name)

    def __reduce_ex__(self, protocol: object) -> tuple[object, tuple[object, str]]:
        # By name (enum's pickle_by_enum_name): a changed value still unpickles.
        return (getattr, (type(self), self.name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{self!r} is constant: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self!r} is constant: cannot delete {name!r}")


if TYPE_CHECKING:
    from enum import Enum as Constant
else:
    Constant = _Constant
