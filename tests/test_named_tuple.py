"""utf8guard._named_tuple: ``typing.NamedTuple``'s behaviour without ``typing``.

The oracle is ``typing.NamedTuple`` itself: the same class declared on both must
construct, compare, index, unpack, match, copy and pickle the same, and refuse the
same calls. The C extension builds and reads some of these classes as tuples
(``tuple.__new__``, ``PyTuple_GET_ITEM``), so each must be a slotted tuple subclass.
"""

from __future__ import annotations

import copy
import pickle
import typing

import pytest

from utf8guard._named_tuple import NamedTupleType
from utf8guard.middleware.head._clean_fields import OnceFields

# As the package's modules use it: type checkers see typing's, the run time ours.
if typing.TYPE_CHECKING:
    from typing import NamedTuple
else:
    from utf8guard._named_tuple import NamedTuple


class Ours(NamedTuple):
    """A field pair, as the middleware's records hold them."""

    at: int
    name: str | None


class Theirs(typing.NamedTuple):
    at: int
    name: str | None


def test_the_class_at_run_time_is_ours() -> None:
    assert type(Ours) is NamedTupleType
    assert type(Theirs) is not NamedTupleType


def test_construction_and_reading_match_typing() -> None:
    ours, theirs = Ours(4, "x"), Theirs(4, "x")
    assert tuple(ours) == tuple(theirs) == (4, "x")
    assert Ours(at=4, name="x") == Ours(4, name="x") == ours
    assert hash(ours) == hash(theirs)
    assert (ours.at, ours.name) == (theirs.at, theirs.name)
    assert ours == (4, "x")
    assert (ours[0], ours[-1], ours[:1]) == (theirs[0], theirs[-1], theirs[:1])
    at, name = ours
    assert (at, name) == (4, "x")
    assert Ours._fields == Theirs._fields == ("at", "name")
    assert Ours.__match_args__ == Theirs.__match_args__
    assert tuple(Ours._make(iter([5, None]))) == tuple(Theirs._make(iter([5, None])))
    assert type(Ours._make([5, None])) is Ours
    assert repr(ours) == repr(theirs).replace("Theirs", "Ours")
    match ours:
        case Ours(seen, None):
            pytest.fail(f"matched {seen} against None")
        case Ours(seen, "x"):
            assert seen == 4
        case _:
            pytest.fail("no case matched")


def test_immutable_and_slotted_as_typing() -> None:
    ours = Ours(4, "x")
    with pytest.raises(AttributeError):
        ours.at = 5  # type: ignore[misc]  # the point: read-only
    with pytest.raises(AttributeError):
        ours.other = 5  # type: ignore[attr-defined]  # no __dict__
    assert not hasattr(ours, "__dict__")
    assert isinstance(ours, tuple)
    assert Ours.__doc__ == "A field pair, as the middleware's records hold them."


@pytest.mark.parametrize(
    "args",
    [(4,), (4, "x", 5)],
    ids=["too-few", "too-many"],
)
def test_wrong_positional_count_is_a_type_error(args: tuple[typing.Any, ...]) -> None:
    with pytest.raises(TypeError):
        Theirs(*args)
    with pytest.raises(TypeError, match=r"Ours\(\) takes 2 arguments, not"):
        Ours(*args)


def test_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        Theirs(4, nmae="x")  # type: ignore[call-arg]  # the misspelling tested
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        Ours(4, nmae="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'at'"):
        Ours(4, "x", at=5)  # type: ignore[misc]  # given twice


def test_copy_and_pickle_round_trip() -> None:
    ours = Ours(4, "x")
    for made in (
        copy.copy(ours),
        copy.deepcopy(ours),
        pickle.loads(pickle.dumps(ours)),  # noqa: S301 - our own bytes,
    ):
        assert made == ours
        assert type(made) is Ours


def test_declarations_it_cannot_honour_are_refused() -> None:
    # A default would be hidden under the field's accessor; a subclass's new
    # fields would not be tuple items; "_" names are namedtuple's own.
    with pytest.raises(TypeError, match="'at' is private or has a default"):

        class WithDefault(NamedTuple):
            at: int = 0

    with pytest.raises(TypeError, match="'_at' is private"):

        class Private(NamedTuple):
            _at: int  # type: ignore[misc]  # refused by mypy too

    with pytest.raises(TypeError, match="cannot be subclassed"):

        class Sub(Ours):
            more: int


def test_c_built_class_is_a_plain_tuple_subclass() -> None:
    # _speedups_http.c allocates OnceFields as a tuple of two and sets its items.
    # A direct subclass, as namedtuple's: deallocation walks no extra level.
    assert OnceFields.__mro__ == (OnceFields, tuple, object)
    assert OnceFields.__itemsize__ == tuple.__itemsize__
    made = tuple.__new__(OnceFields, (b"12", None))
    assert (made.content_length, made.content_type) == (b"12", None)
    assert made == OnceFields(content_length=b"12", content_type=None)


def test_replace_matches_typing() -> None:
    ours, theirs = Ours(4, "x"), Theirs(4, "x")
    assert tuple(ours._replace(name=None)) == tuple(theirs._replace(name=None))
    assert type(ours._replace(at=5)) is Ours
    with pytest.raises(ValueError, match="unexpected field names"):
        theirs._replace(nmae=None)  # type: ignore[call-arg]  # the misspelling tested
    with pytest.raises(ValueError, match=r"unexpected field names: \['nmae'\]"):
        ours._replace(nmae=None)  # type: ignore[call-arg]
