"""The enumerations on ``utf8guard._constant.Constant`` behave as the ``enum.Enum``
classes they were.

Issue 28: ``enum`` (with ``functools`` and ``collections``) was a third of ``import
utf8guard``. The oracle for each class is a real ``enum.Enum`` twin built here from
the class's member names and values (and its own ``__str__``), as the class was
declared before: ``repr``, ``str``, ``format``, ``==``, ``hash``, ``json``, lookup by
value and by name and their errors, iteration, ``len``, ``in``, ``__members__``,
immutability, subclassing, pickling in every protocol, ``copy`` and ``match``. The
documented differences (``_constant``'s docstring) are tested as such.
"""

from __future__ import annotations

import copy
import enum
import functools
import json
import pickle
import sys
from typing import Any, Final, Literal

import pytest

from utf8guard import Kind
from utf8guard._constant import Constant, ConstantType
from utf8guard.middleware import Location, RequestKind
from utf8guard.middleware.body._multipart import _State
from utf8guard.middleware.engine._flow import Route
from utf8guard.paths import PathKind

#: Every enumeration of the package (``str`` ones first).
CLASSES: Final[list[Any]] = [Kind, Location, RequestKind, PathKind, Route, _State]
#: Format specifications tried on each member.
SPECS: Final = ("", "s", ">40", "<40", "^41", ".3")


@functools.cache
def twin(ours: Any) -> Any:
    """A real ``enum.Enum`` declared as ``ours`` is (mixin, members, ``__str__``)."""
    bases = (str, enum.Enum) if issubclass(ours, str) else (enum.Enum,)
    namespace = enum.EnumMeta.__prepare__(ours.__name__, bases)
    namespace["__module__"] = "tests.test_constant"
    for name, value in ((member.name, member.value) for member in ours):
        namespace[name] = value
    if "__str__" in vars(ours):
        namespace["__str__"] = vars(ours)["__str__"]
    return enum.EnumMeta(ours.__name__, bases, namespace)


def members(ours: Any) -> list[tuple[Any, Any]]:
    """(our member, the twin's member of the same name) pairs, in definition order."""
    other = twin(ours)
    return [(member, other[member.name]) for member in ours]


@pytest.fixture(params=CLASSES, ids=lambda cls: cls.__name__)
def ours(request: pytest.FixtureRequest) -> Any:
    return request.param


def test_classes_keep_their_members_in_definition_order(ours: Any) -> None:
    other = twin(ours)
    assert [(m.name, m.value) for m in ours] == [(m.name, m.value) for m in other]
    assert [m.name for m in reversed(ours)] == [m.name for m in reversed(other)]
    assert len(ours) == len(other) > 0
    assert list(ours.__members__) == list(other.__members__)
    assert list(ours.__members__.values()) == list(ours)
    assert type(ours.__members__) is type(other.__members__)  # a read-only view
    with pytest.raises(TypeError):
        ours.__members__["EXTRA"] = "extra"
    assert repr(ours) == repr(other) == f"<enum {ours.__name__!r}>"


def test_members_read_and_print_as_the_twins(ours: Any) -> None:
    for member, real in members(ours):
        assert type(member) is ours
        assert isinstance(member, ours)
        assert isinstance(member, str) is isinstance(real, str)
        assert (member.name, member.value) == (real.name, real.value)
        assert repr(member) == repr(real)
        assert str(member) == str(real)
        assert f"{member}" == f"{real}"
        assert f"{member}|{member!s}|{member!r}" == f"{real}|{real!s}|{real!r}"
        for spec in SPECS:
            assert format(member, spec) == format(real, spec), spec


def test_members_compare_and_hash_as_the_twins(ours: Any) -> None:
    for member, real in members(ours):
        assert hash(member) == hash(real)
        assert (member == member.value) is (real == real.value)
        assert member == member
        assert all(member != other for other in ours if other is not member)
        if isinstance(member, str):
            assert member == real  # both are equal to the value, as a str
            assert {real.value: 1}[member] == 1
            assert json.dumps([member]) == json.dumps([real])
            assert json.dumps({member: 1}) == json.dumps({real: 1})


def test_lookup_by_value_and_by_name(ours: Any) -> None:
    other = twin(ours)
    for member, real in members(ours):
        assert ours(member.value) is member
        assert ours(member) is member
        assert ours[member.name] is member
        assert getattr(ours, member.name) is member
        assert other(real.value) is real


@pytest.mark.parametrize("value", ["nope", 0, None, (1,), ["unhashable"]])
def test_lookup_errors_are_the_twins(ours: Any, value: object) -> None:
    other = twin(ours)
    with pytest.raises(ValueError, match=r" is not a valid ") as found:
        ours(value)
    with pytest.raises(ValueError, match=r" is not a valid ") as expected:
        other(value)
    assert str(found.value) == str(expected.value)
    with pytest.raises(KeyError) as found_key:
        ours["NOPE"]
    with pytest.raises(KeyError) as expected_key:
        other["NOPE"]
    assert found_key.value.args == expected_key.value.args


@pytest.mark.parametrize("value", ["nope", 0, None, ["unhashable"]])
def test_membership_answers_for_any_value(ours: Any, value: object) -> None:
    # Python 3.12's enum (3.11's raises TypeError for a value that is not a member).
    assert all(member in ours for member in ours)
    assert all(member.value in ours for member in ours)
    assert value not in ours
    # A twin's member is in by value only where it is a str equal to one.
    assert all((real in ours) is isinstance(real, str) for real in twin(ours))
    if sys.version_info >= (3, 12):
        other = twin(ours)
        assert (value in ours) is (value in other)


def test_members_are_constant(ours: Any) -> None:
    other = twin(ours)
    member, real = members(ours)[0]
    for name in ("name", "value"):
        with pytest.raises(AttributeError):
            setattr(real, name, "changed")
        with pytest.raises(AttributeError, match="is constant: cannot set"):
            setattr(member, name, "changed")
        with pytest.raises(AttributeError, match="is constant: cannot delete"):
            delattr(member, name)
    # A difference: an enum member takes a new attribute, a shared constant does not.
    with pytest.raises(AttributeError):
        member.extra = 1
    for cls in (ours, other):  # Python 3.10's enum words these otherwise
        with pytest.raises(AttributeError, match=r"(?i)cannot reassign member"):
            setattr(cls, member.name, "changed")
        with pytest.raises(AttributeError, match=r"(?i)cannot delete .*member"):
            delattr(cls, member.name)
    assert getattr(ours, member.name) is member
    assert (member.name, member.value) == (real.name, real.value)


def test_reassigning_or_deleting_a_member_says_so_as_enum_does() -> None:
    # Python 3.11's enum's messages.
    with pytest.raises(AttributeError, match=r"^cannot reassign member 'OVERLONG'$"):
        setattr(Kind, "OVERLONG", Kind.TRUNCATED)  # noqa: B010 - mypy refuses it plain
    with pytest.raises(AttributeError, match=r"^'Kind' cannot delete member 'NUL'\.$"):
        delattr(Kind, "NUL")
    assert Kind("overlong") is Kind.OVERLONG
    assert Kind.NUL.value == "nul"


def test_other_class_attributes_set_and_delete_as_on_an_enum(ours: Any) -> None:
    for cls in (ours, twin(ours)):
        cls.extra = 1
        assert cls.extra == 1
        del cls.extra
        assert not hasattr(cls, "extra")


def test_a_class_with_members_cannot_be_subclassed(ours: Any) -> None:
    with pytest.raises(TypeError, match="cannot extend") as found:
        ConstantType("Sub", (ours,), {})
    with pytest.raises(TypeError, match="cannot extend") as expected:
        enum.EnumMeta("Sub", (twin(ours),), enum.EnumMeta.__prepare__("Sub", ()))
    if sys.version_info >= (3, 11):  # 3.10 words it otherwise
        assert str(found.value) == str(expected.value)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_members_pickle_and_copy_as_themselves(ours: Any, protocol: int) -> None:
    for member in ours:
        assert pickle.loads(pickle.dumps(member, protocol)) is member  # noqa: S301
        # By name: a pickle of the name alone unpickles, whatever the value.
        assert member.name.encode() in pickle.dumps(member, protocol)
        assert copy.copy(member) is member
        assert copy.deepcopy([member])[0] is member


class _PickledByValue:
    """What Python 3.11's enum pickled for ``Kind.OVERLONG``: ``Kind("overlong")``."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Kind, ("overlong",))


def test_a_member_pickled_by_value_still_unpickles() -> None:
    assert pickle.loads(pickle.dumps(_PickledByValue())) is Kind.OVERLONG  # noqa: S301


def _family(kind: Location) -> str:
    # mypy checks this match as exhaustive: it reads Location as an enum.
    match kind:
        case Location.PATH | Location.QUERY:
            return "target"
        case Location.HEADER:
            return "head"
        case Location.BODY:
            return "body"


def test_match_on_members_and_literal_types() -> None:
    assert [_family(location) for location in Location] == [
        "target",
        "target",
        "head",
        "body",
    ]
    ill: Literal[Kind.OVERLONG] = Kind.OVERLONG
    assert ill is Kind("overlong")


def test_members_are_not_enum_instances() -> None:
    # The one difference users can see: the type checker's view is enum.Enum.
    assert not isinstance(Kind.OVERLONG, enum.Enum)
    assert type(Kind) is ConstantType


def test_methods_and_private_names_are_not_members() -> None:
    class Sample(Constant):
        ONE = 1
        _private = 2

        def method(self) -> int:
            return int(self.value) + 1

        @property
        def twice(self) -> int:
            return int(self.value) * 2

    assert [member.name for member in Sample] == ["ONE"]
    assert Sample.ONE.method() == 2
    assert Sample.ONE.twice == 2
    assert vars(Sample)["_private"] == 2


def test_two_names_for_one_value_are_refused() -> None:
    with pytest.raises(ValueError, match=r"Twice\.B: the value 'a' is taken"):
        ConstantType("Twice", (str, Constant), {"A": "a", "B": "a"})
