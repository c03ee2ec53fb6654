"""Violation and Policy keep every behaviour of the frozen dataclasses they were.

Issue 28: they are hand-written slotted classes now, as importing ``dataclasses`` cost
more than the rest of ``import utf8guard``. The oracle is a real frozen dataclass with
the documented fields and defaults (docs/core.md), built here: construction, defaults,
``repr`` text, ``==``, ``hash``, immutability (the same ``FrozenInstanceError``, an
``AttributeError``), no ordering, ``__match_args__``, pickling in every protocol and
``copy``. Violations come from the active build's scanner too (C or pure Python).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any, Final

import pytest

from utf8guard import STRICT, Kind, Policy, Violation, find_violation

#: docs/core.md's flag table: each flag and its default, in the documented order.
DOCUMENTED_FLAGS: Final = {
    "allow_noncharacters": False,
    "allow_nul": True,
    "allow_controls": True,
    "allow_bidi_controls": True,
    "allow_private_use": True,
    "allow_bom": True,
}


TwinViolation: Final = dataclasses.make_dataclass(
    "Violation", [("kind", Kind), ("start", int), ("end", int)], frozen=True, slots=True
)
TwinPolicy: Final = dataclasses.make_dataclass(
    "Policy",
    [(name, bool, default) for name, default in DOCUMENTED_FLAGS.items()],
    frozen=True,
    slots=True,
    kw_only=True,
)

#: (ours, the dataclass twin) pairs with equal field values.
PAIRS: Final = [
    pytest.param(
        Violation(Kind.OVERLONG, 4, 5), TwinViolation(Kind.OVERLONG, 4, 5), id="v"
    ),
    pytest.param(
        Violation(kind=Kind.NUL, start=0, end=1),
        TwinViolation(kind=Kind.NUL, start=0, end=1),
        id="v-keywords",
    ),
    pytest.param(Policy(), TwinPolicy(), id="policy-default"),
    pytest.param(
        Policy(allow_nul=False, allow_bom=False),
        TwinPolicy(allow_nul=False, allow_bom=False),
        id="policy-flags",
    ),
]


@pytest.mark.parametrize(("ours", "twin"), PAIRS)
def test_repr_hash_and_match_args_are_the_dataclass_ones(ours: Any, twin: Any) -> None:
    assert repr(ours) == repr(twin)
    assert hash(ours) == hash(twin)
    assert type(ours).__match_args__ == type(twin).__match_args__


@pytest.mark.parametrize(("ours", "twin"), PAIRS)
def test_signature_is_the_dataclass_one(ours: Any, twin: Any) -> None:
    def shape(cls: type[Any]) -> list[tuple[str, object, object]]:
        parameters = inspect.signature(cls).parameters.values()
        return [(p.name, p.kind, p.default) for p in parameters]

    assert shape(type(ours)) == shape(type(twin))


@pytest.mark.parametrize(("ours", "twin"), PAIRS)
def test_frozen_as_the_dataclass_was(ours: Any, twin: Any) -> None:
    name = dataclasses.fields(twin)[0].name
    for target in (ours, twin):
        with pytest.raises(dataclasses.FrozenInstanceError) as assigned:
            setattr(target, name, getattr(target, name))
        with pytest.raises(dataclasses.FrozenInstanceError) as deleted:
            delattr(target, name)
        assert isinstance(assigned.value, AttributeError)
        assert str(assigned.value) == f"cannot assign to field {name!r}"
        assert str(deleted.value) == f"cannot delete field {name!r}"
    # No new attributes either (the slotted dataclass raised a TypeError here, from
    # its __setattr__'s super() call, a CPython bug in slotted dataclasses).
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.unknown = 1


@pytest.mark.parametrize(("ours", "twin"), PAIRS)
def test_no_ordering(ours: Any, twin: Any) -> None:
    for target in (ours, twin):
        with pytest.raises(TypeError):
            _ = target < target


def test_equality_is_by_value_and_class() -> None:
    assert Violation(Kind.NUL, 1, 2) == Violation(Kind.NUL, 1, 2)
    assert Violation(Kind.NUL, 1, 2) != Violation(Kind.NUL, 1, 3)
    assert Violation(Kind.NUL, 1, 2) != Violation(Kind.CONTROL, 1, 2)
    assert Violation(Kind.NUL, 1, 2) != TwinViolation(Kind.NUL, 1, 2)
    assert Violation(Kind.NUL, 1, 2) != (Kind.NUL, 1, 2)
    assert Policy(allow_bom=False) == Policy(allow_bom=False)
    assert Policy(allow_bom=False) != Policy()
    assert Policy() != TwinPolicy()
    assert len({Policy(), Policy(), STRICT, Policy(allow_nul=False)}) == 2


def test_subclass_instances_are_not_equal_to_the_base() -> None:
    # A dataclass compares only instances of exactly the same class.
    class Marked(Violation):
        __slots__ = ()

    assert Marked(Kind.NUL, 1, 2) != Violation(Kind.NUL, 1, 2)
    assert Marked(Kind.NUL, 1, 2) == Marked(Kind.NUL, 1, 2)
    assert repr(Marked(Kind.NUL, 1, 2)).startswith("test_subclass_instances")


class Marked(Policy):
    """A subclass at module level, where pickle finds it."""

    __slots__ = ()


def test_a_subclass_pickles_as_itself() -> None:
    marked = Marked(allow_bom=False)
    back = pickle.loads(pickle.dumps(marked))  # noqa: S301 (own bytes)
    assert (type(back), back._values()) == (Marked, marked._values())
    assert type(copy.copy(marked)) is Marked
    assert type(marked.replace(allow_nul=False)) is Marked


def _scanned() -> Violation:
    found = find_violation(b"ab\xed\xa0\x80")
    assert found is not None
    return found


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(_scanned(), id="scanned-violation"),
        pytest.param(Violation(Kind.BOM, 7, 10), id="violation"),
        pytest.param(STRICT, id="strict"),
        pytest.param(
            Policy(allow_noncharacters=True, allow_controls=False), id="policy"
        ),
    ],
)
def test_pickle_and_copy_give_an_equal_record(record: Any) -> None:
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(record, protocol))  # noqa: S301 (own bytes)
        assert (type(back), back, repr(back)) == (type(record), record, repr(record))
    for made in (copy.copy(record), copy.deepcopy(record)):
        assert (type(made), made, repr(made)) == (type(record), record, repr(record))


def test_scanned_violation_is_the_public_record() -> None:
    found = _scanned()
    assert type(found) is Violation
    assert found == Violation(Kind.SURROGATE, 2, 3)
    match found:
        case Violation(kind, start, end):
            assert (kind, start, end) == (Kind.SURROGATE, 2, 3)


def test_policy_defaults_and_keywords_are_the_documented_ones() -> None:
    assert {name: getattr(Policy(), name) for name in DOCUMENTED_FLAGS} == (
        DOCUMENTED_FLAGS
    )
    for name, default in DOCUMENTED_FLAGS.items():
        flipped = Policy(**{name: not default})
        assert getattr(flipped, name) is (not default)
        assert flipped != STRICT
    with pytest.raises(TypeError):
        Policy(True)  # type: ignore[call-arg]  # keyword-only on purpose
    with pytest.raises(TypeError):
        Policy(allow_everything=True)  # type: ignore[call-arg]  # no such flag


@pytest.mark.parametrize("name", list(DOCUMENTED_FLAGS))
def test_policy_refuses_a_non_bool_flag(name: str) -> None:
    with pytest.raises(TypeError, match=f"^{name} must be a bool, not int$"):
        Policy(**{name: 1})  # type: ignore[arg-type]  # on purpose


def test_replace_is_what_dataclasses_replace_gave() -> None:
    twin = dataclasses.replace(TwinPolicy(), allow_nul=False, allow_bom=False)
    ours = STRICT.replace(allow_nul=False, allow_bom=False)
    assert repr(ours) == repr(twin)
    assert STRICT.replace() == STRICT
    assert STRICT == Policy()  # unchanged
    assert STRICT.__replace__(allow_controls=False) == Policy(allow_controls=False)
    with pytest.raises(TypeError, match="allow_nul must be a bool, not str"):
        STRICT.replace(allow_nul="no")  # type: ignore[arg-type]  # on purpose
    with pytest.raises(TypeError):
        STRICT.replace(allow_everything=True)
    replace = getattr(copy, "replace", None)  # Python 3.13
    if replace is not None:
        assert replace(STRICT, allow_bom=False) == Policy(allow_bom=False)


def test_policy_plan_cache_is_not_part_of_the_value() -> None:
    used = Policy(allow_bom=False)
    find_violation(b"\xef\xbb\xbf", used)  # compiles and caches its plan
    assert used == Policy(allow_bom=False)
    assert hash(used) == hash(Policy(allow_bom=False))
    assert "_plan" not in repr(used)
