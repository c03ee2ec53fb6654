"""Record: a frozen slotted dataclass's behaviour, declared the same way, without
importing ``dataclasses`` (with ``inspect``, ``ast``, ``dis`` and ``tokenize``, it
cost the middleware's import more than its own modules did; issue 28).

A subclass of :class:`Record` lists its fields as annotations, in ``__init__``'s
order, each with an optional default or :func:`field`, as under
``@dataclass(frozen=True, slots=True)``; ``class C(Record, kw_only=True)`` makes
every field keyword-only (its subclasses too). :class:`RecordType` reads them once,
at class creation: it turns them into ``__slots__``, writes ``__init__`` (which
calls ``__post_init__`` when the class has one) and sets ``__match_args__``. ``==``,
``hash``, immutability and ``repr`` are :class:`~utf8guard._violation.Frozen`'s,
the base of the core's hand-written records; ``replace()`` (also
``__replace__``, which ``copy.replace`` calls on Python 3.13) makes a changed copy
through ``__init__``, as ``dataclasses.replace`` did.

The defining module must use ``from __future__ import annotations`` (as every
module here does): the annotations are then strings in the class namespace, on
3.14 too (PEP 749 keeps PEP 563's behaviour).
"""

from __future__ import annotations

from ._violation import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from typing_extensions import Self, dataclass_transform
else:

    def dataclass_transform(**_: object) -> object:
        # Typing only: tells mypy that RecordType's classes work as dataclasses.
        return lambda metaclass: metaclass


__all__ = ["Field", "Record", "RecordType", "field", "fields"]


class Field:
    """A field's settings: its default (``_MISSING``: none), whether ``__init__``
    takes it (``init=False``: ``__post_init__`` sets it) and whether ``repr`` shows
    it. Every field counts for ``==`` and ``hash``, as in a dataclass."""

    __slots__ = ("default", "init", "name", "repr")

    def __init__(self, default: object, *, init: bool, repr: bool) -> None:
        self.name = ""
        self.default = default
        self.init = init
        self.repr = repr


#: No default: the field is required (or set by ``__post_init__``).
_MISSING = object()


def field(*, default: object = _MISSING, init: bool = True, repr: bool = True) -> Any:
    """A field with settings, as ``dataclasses.field``: ``x: int = field(init=False)``.

    Typed ``Any`` so that it can stand for any field's default (as in typeshed).
    """
    return Field(default, init=init, repr=repr)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class RecordType(type):
    """The metaclass that builds each record class from its annotations."""

    _specs: dict[str, Field]
    _kw_only: bool

    def __new__(
        cls,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        *,
        kw_only: bool | None = None,
    ) -> RecordType:
        if "__annotations__" not in namespace and any(
            key.startswith("__annotate") for key in namespace
        ):
            # Python 3.14 without the __future__ import: the annotations are a
            # function of the finished class, too late for __slots__.
            raise TypeError(
                f"{name}: a record needs 'from __future__ import annotations'"
            )
        specs: dict[str, Field] = {}
        for base in reversed(bases):
            specs.update(getattr(base, "_specs", {}))
        annotated = namespace.get("__annotations__", {})
        namespace["__slots__"] = tuple(key for key in annotated if key not in specs)
        for key in annotated:
            value = namespace.pop(key, _MISSING)
            spec = (
                value
                if isinstance(value, Field)
                else Field(value, init=True, repr=True)
            )
            spec.name = key
            specs[key] = spec
        namespace["_fields"] = tuple(specs)
        if kw_only is None:
            kw_only = any(getattr(base, "_kw_only", False) for base in bases)
        init = [spec for spec in specs.values() if spec.init]
        namespace.setdefault(
            "__match_args__", () if kw_only else tuple(spec.name for spec in init)
        )
        made = super().__new__(cls, name, bases, namespace)
        made._specs = specs
        made._kw_only = kw_only
        # mypy takes the generated __init__ from the annotations (dataclass_transform).
        made.__init__ = _init_for(made, init, kw_only=kw_only)  # type: ignore[misc]
        return made


def _init_for(record: type, fields: list[Field], *, kw_only: bool) -> Any:
    """``__init__`` for ``fields``: each argument set in its slot, then
    ``__post_init__`` if ``record`` has one; written as source and compiled, as
    ``dataclasses`` and ``collections.namedtuple`` do, so that it costs what a
    hand-written one does on every call (some records are built per request)."""
    names = [spec.name for spec in fields]
    defaults = [spec.default for spec in fields if spec.default is not _MISSING]
    if not kw_only and any(
        spec.default is _MISSING for spec in fields[len(fields) - len(defaults) :]
    ):
        raise TypeError(
            f"{record.__name__}: a field without a default follows one with"
        )
    params = ["self", *(["*"] if kw_only and names else []), *names]
    body = [f"    _set(self, {name!r}, {name})" for name in names]
    if hasattr(record, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + "\n".join(body or ["    pass"])
    scope: dict[str, Any] = {}
    exec(source, {"_set": object.__setattr__}, scope)  # noqa: S102 - field names only
    made = scope["__init__"]
    made.__qualname__ = f"{record.__qualname__}.__init__"
    if kw_only:
        made.__kwdefaults__ = {
            spec.name: spec.default for spec in fields if spec.default is not _MISSING
        }
    else:
        made.__defaults__ = tuple(defaults)
    return made


def fields(record: type[Record]) -> tuple[Field, ...]:
    """The fields of ``record``, in order, as ``dataclasses.fields`` (with the
    ``init=False`` ones)."""
    return tuple(record._specs.values())


def _rebuild(record: type[Record], values: tuple[object, ...]) -> Record:
    """A pickled record: its slots set again, without ``__init__`` (as a pickled
    dataclass was: its fields need no second check)."""
    made = object.__new__(record)
    for name, value in zip(record._fields, values, strict=True):
        object.__setattr__(made, name, value)
    return made


class Record(Frozen, metaclass=RecordType):
    """Base of the immutable records: see the module docstring."""

    def replace(self, **changes: object) -> Self:
        """A copy with the fields named changed, checked again by ``__init__``.

        Raises:
            TypeError: a name that ``__init__`` does not take.
        """
        specs = type(self)._specs.values()
        kept = {spec.name: getattr(self, spec.name) for spec in specs if spec.init}
        return type(self)(**{**kept, **changes})

    #: ``copy.replace`` (Python 3.13) calls it.
    __replace__ = replace

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{spec.name}={getattr(self, spec.name)!r}"
            for spec in type(self)._specs.values()
            if spec.repr
        )
        return f"{type(self).__qualname__}({shown})"

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_rebuild, (type(self), self._values()))
