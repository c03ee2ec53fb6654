"""The records keep every behaviour of the frozen dataclasses they were.

Issue 28: importing ``dataclasses`` cost more than the rest of ``import utf8guard``,
and a third of ``import utf8guard.middleware``. The core's ``Violation`` and ``Policy``
are hand-written slotted classes; the middleware's and ``utf8guard.paths``' records
are declared on ``utf8guard._record.Record``. The oracle is a real frozen dataclass
with the documented fields and defaults (docs/core.md, docs/configuration.md,
docs/logging.md), built here: construction, defaults, ``repr`` text, ``==``,
``hash``, immutability (the same ``FrozenInstanceError``, an ``AttributeError``), no
ordering, ``__match_args__``, pickling in every protocol, ``copy`` and ``replace``
(``dataclasses.replace`` on the twin). Violations come from the active build's
scanner too (C or pure Python).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any, Final

import pytest

from utf8guard import IDENTIFIER, STRICT, Kind, Policy, Violation, find_violation
from utf8guard._record import Record, RecordType, field, fields
from utf8guard.middleware import (
    Finding,
    GuardConfig,
    Location,
    Refusal,
    RequestKind,
    RequestSummary,
    ViolationEvent,
)
from utf8guard.middleware.engine._config import (
    MAX_BODY_BYTES,
    MAX_MULTIPART_PARTS,
    MAX_UPLOAD_BYTES,
    MEMORY_BODY_BYTES,
)
from utf8guard.middleware.head._latin1 import DEFAULT_LATIN1_HEADERS
from utf8guard.middleware.head._request import RequestHead
from utf8guard.paths import PathKind, PathViolation


def twin(name: str, fields: list[Any], *, kw_only: bool = False) -> Any:
    """The frozen slotted dataclass a record was declared as: the oracle."""
    return dataclasses.make_dataclass(
        name, fields, frozen=True, slots=True, kw_only=kw_only
    )


#: docs/core.md's flag table: each flag and its default, in the documented order.
DOCUMENTED_FLAGS: Final = {
    "allow_noncharacters": False,
    "allow_nul": True,
    "allow_controls": True,
    "allow_bidi_controls": True,
    "allow_private_use": True,
    "allow_bom": True,
}


TwinViolation: Final = twin("Violation", [("kind", Kind), ("start", int), ("end", int)])
TwinPolicy: Final = twin(
    "Policy",
    [(name, bool, default) for name, default in DOCUMENTED_FLAGS.items()],
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

# The middleware's and paths' records, as their dataclass declarations and the docs
# give them.
TwinFinding: Final = twin(
    "Finding",
    [
        ("location", Location),
        ("name", "str | None"),
        ("kind", object),
        ("offset", int),
        ("fixable", bool, False),
    ],
)
TwinSummary: Final = twin(
    "RequestSummary",
    [
        ("method", str, ""),
        ("path", str, ""),
        ("client", "str | None", None),
        ("request_id", "str | None", None),
        ("scope_type", str, "http"),
    ],
    kw_only=True,
)
TwinEvent: Final = twin(
    "ViolationEvent",
    [
        ("finding", object),
        ("action", str),
        ("scope_type", str),
        # The dataclass built a new empty summary per event (default_factory); the
        # record shares one, which is equal and immutable.
        ("request", object, dataclasses.field(default=RequestSummary())),
        ("findings", tuple, ()),
    ],
)
TwinRefusal: Final = twin(
    "Refusal",
    [
        ("status", int),
        ("headers", tuple),
        ("body", bytes),
        ("findings", tuple, ()),
        ("request", object, dataclasses.field(default=RequestSummary())),
    ],
    kw_only=True,
)
TwinPathViolation: Final = twin(
    "PathViolation", [("kind", PathKind), ("start", int), ("end", int)]
)
TwinHead: Final = twin(
    "RequestHead",
    [
        ("path", str),
        ("raw_path", "bytes | None"),
        ("query_string", bytes),
        ("headers", tuple),
        ("app_path", "bytes | None", None),
    ],
)
#: docs/configuration.md's options and defaults, in GuardConfig's order; the derived
#: fields (init=False, not in repr) are left out of the twin.
CONFIG_OPTIONS: Final[dict[str, Any]] = {
    "mode": "block",
    "policy": STRICT,
    "path_policy": None,
    "max_body_size": MAX_BODY_BYTES,
    "max_upload_size": MAX_UPLOAD_BYTES,
    "memory_body_size": MEMORY_BODY_BYTES,
    "max_multipart_parts": MAX_MULTIPART_PARTS,
    "windows_upload_names": False,
    "stream_body": False,
    "skip_headers": (),
    "latin1_headers": DEFAULT_LATIN1_HEADERS,
    "allow_encoded_separators": False,
    "allow_lookalike_separators": False,
    "inspect_all_bodies": False,
    "on_violation": None,
    "on_refuse": None,
    "exclude_paths": (),
    "request_id_header": None,
}
TwinConfig: Final = twin(
    "GuardConfig",
    [(name, object, default) for name, default in CONFIG_OPTIONS.items()],
    kw_only=True,
)

_FINDING: Final = Finding(Location.QUERY, "q", Kind.OVERLONG, 3)
_SUMMARY: Final[dict[str, Any]] = {
    "method": "GET",
    "path": "/a",
    "client": "127.0.0.1:9",
}
#: GuardConfig's options as __post_init__ keeps them (frozensets, a tuple), so that
#: the twin, which checks nothing, holds the same values.
_OPTIONS: Final[dict[str, Any]] = {
    "mode": "report",
    "policy": IDENTIFIER,
    "skip_headers": frozenset({"x-raw"}),
    "latin1_headers": frozenset(),
    "exclude_paths": ("/hooks",),
    "request_id_header": "x-request-id",
}
_REFUSAL: Final[dict[str, Any]] = {
    "status": 400,
    "headers": ((b"a", b"b"),),
    "body": b"{}",
}
MIDDLEWARE_PAIRS: Final = [
    pytest.param(_FINDING, TwinFinding(Location.QUERY, "q", Kind.OVERLONG, 3), id="f"),
    pytest.param(
        Finding(Location.PATH, None, RequestKind.MALFORMED_ESCAPE, 0, fixable=True),
        TwinFinding(Location.PATH, None, RequestKind.MALFORMED_ESCAPE, 0, True),
        id="finding-fixable",
    ),
    pytest.param(RequestSummary(), TwinSummary(), id="summary-default"),
    pytest.param(RequestSummary(**_SUMMARY), TwinSummary(**_SUMMARY), id="summary"),
    pytest.param(
        ViolationEvent(_FINDING, "blocked", "http"),
        TwinEvent(_FINDING, "blocked", "http"),
        id="event-default",
    ),
    pytest.param(
        ViolationEvent(_FINDING, "reported", "wsgi", RequestSummary(), (_FINDING,)),
        TwinEvent(_FINDING, "reported", "wsgi", RequestSummary(), (_FINDING,)),
        id="event",
    ),
    pytest.param(Refusal(**_REFUSAL), TwinRefusal(**_REFUSAL), id="refusal"),
    pytest.param(
        PathViolation(PathKind.RESERVED_NAME, 0, 3),
        TwinPathViolation(PathKind.RESERVED_NAME, 0, 3),
        id="path-violation",
    ),
    pytest.param(
        RequestHead("/a", b"/a", b"q=1", ((b"host", b"x"),)),
        TwinHead("/a", b"/a", b"q=1", ((b"host", b"x"),)),
        id="request-head",
    ),
]
#: GuardConfig has fields the twin lacks (the derived ones), so no equal hash.
CONFIG_PAIRS: Final = [
    pytest.param(
        GuardConfig(),
        TwinConfig(
            skip_headers=frozenset(), latin1_headers=frozenset(DEFAULT_LATIN1_HEADERS)
        ),
        id="config-default",
    ),
    pytest.param(GuardConfig(**_OPTIONS), TwinConfig(**_OPTIONS), id="config"),
]
ALL_PAIRS: Final = [*PAIRS, *MIDDLEWARE_PAIRS, *CONFIG_PAIRS]


@pytest.mark.parametrize(("ours", "twin"), ALL_PAIRS)
def test_repr_and_match_args_are_the_dataclass_ones(ours: Any, twin: Any) -> None:
    assert repr(ours) == repr(twin)
    assert type(ours).__match_args__ == type(twin).__match_args__


@pytest.mark.parametrize(("ours", "twin"), [*PAIRS, *MIDDLEWARE_PAIRS])
def test_hash_is_the_dataclass_one(ours: Any, twin: Any) -> None:
    assert hash(ours) == hash(twin)


@pytest.mark.parametrize(("ours", "twin"), ALL_PAIRS)
def test_signature_is_the_dataclass_one(ours: Any, twin: Any) -> None:
    def shape(cls: type[Any]) -> list[tuple[str, object, object]]:
        parameters = inspect.signature(cls).parameters.values()
        return [(p.name, p.kind, p.default) for p in parameters]

    assert shape(type(ours)) == shape(type(twin))


@pytest.mark.parametrize(("ours", "twin"), ALL_PAIRS)
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


@pytest.mark.parametrize(("ours", "twin"), ALL_PAIRS)
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
        *(pytest.param(pair.values[0], id=pair.id) for pair in MIDDLEWARE_PAIRS),
        *(pytest.param(pair.values[0], id=pair.id) for pair in CONFIG_PAIRS),
    ],
)
def test_pickle_and_copy_give_an_equal_record(record: Any) -> None:
    made = [copy.copy(record), copy.deepcopy(record)]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        made.append(pickle.loads(pickle.dumps(record, protocol)))  # noqa: S301 (own)
    for back in made:
        assert (type(back), back) == (type(record), record)
        # A non-empty set prints in the order of its insertion history, which a
        # pickle round trip may change (PYTHONHASHSEED=6 shows it): such reprs differ
        # in order only.
        if "frozenset({" not in repr(record):
            assert repr(back) == repr(record)
        else:
            assert sorted(repr(back)) == sorted(repr(record))


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


@pytest.mark.parametrize(
    ("ours", "twin", "changes"),
    [
        pytest.param(_FINDING, TwinFinding(*_FINDING._values()), {"offset": 9}, id="f"),
        pytest.param(
            Refusal(**_REFUSAL),
            TwinRefusal(**_REFUSAL),
            {"status": 499, "headers": ()},
            id="refusal",
        ),
        pytest.param(
            GuardConfig(**_OPTIONS),
            TwinConfig(**_OPTIONS),
            {"mode": "block", "max_body_size": 10},
            id="config",
        ),
    ],
)
def test_record_replace_is_what_dataclasses_replace_gave(
    ours: Any, twin: Any, changes: dict[str, object]
) -> None:
    assert repr(ours.replace(**changes)) == repr(dataclasses.replace(twin, **changes))
    assert ours.__replace__(**changes) == ours.replace(**changes)
    assert type(ours.replace()) is type(ours)
    assert ours.replace() == ours
    with pytest.raises(TypeError):
        ours.replace(no_such_field=1)
    replace = getattr(copy, "replace", None)  # Python 3.13
    if replace is not None:
        assert replace(ours, **changes) == ours.replace(**changes)


def test_config_replace_checks_and_derives_again() -> None:
    # As dataclasses.replace: through __init__, so __post_init__ runs again.
    with pytest.raises(ValueError, match=r"^max_body_size must be > 0, not 0$"):
        GuardConfig().replace(max_body_size=0)
    changed = GuardConfig().replace(policy=IDENTIFIER, skip_headers=["X-Raw"])
    assert changed.skip_headers == frozenset({"x-raw"})
    assert changed.header_policy == GuardConfig(policy=IDENTIFIER).header_policy
    assert changed.header_policy != GuardConfig().header_policy
    # init=False fields are not replace()'s: __init__ does not take them.
    with pytest.raises(TypeError):
        GuardConfig().replace(header_policy=STRICT)


def test_config_fields_are_the_documented_options_then_the_derived_ones() -> None:
    listed = [(spec.name, spec.init, spec.repr) for spec in fields(GuardConfig)]
    assert listed[: len(CONFIG_OPTIONS)] == [
        (name, True, True) for name in CONFIG_OPTIONS
    ]
    assert {name for name, init, _ in listed if not init} == {
        "effective_path_policy",
        "header_policy",
        "ascii_refused",
        "path_ascii_refused",
    }
    assert all(not shown for _, init, shown in listed if not init)


def test_record_subclass_adds_fields_after_its_base() -> None:
    class Tagged(Finding):
        tag: str = "t"

    tagged = Tagged(Location.BODY, "b", Kind.NUL, 1, True, "x")
    assert repr(tagged).endswith(
        "Tagged(location=<Location.BODY: 'body'>, "
        "name='b', kind=<Kind.NUL: 'nul'>, offset=1, fixable=True, tag='x')"
    )
    assert Tagged.__match_args__ == (*Finding.__match_args__, "tag")
    assert Tagged.__dict__["__slots__"] == ("tag",)
    assert not hasattr(tagged, "__dict__")
    assert tagged != Finding(Location.BODY, "b", Kind.NUL, 1, True)
    assert Tagged(Location.BODY, "b", Kind.NUL, 1).tag == "t"


def test_record_subclass_keeps_keyword_only_fields() -> None:
    # As a dataclass subclass does (its inherited __init__ stays keyword-only).
    class Marked(Refusal):
        pass

    marked = Marked(**_REFUSAL)
    assert repr(marked).endswith("Marked(" + repr(Refusal(**_REFUSAL)).split("(", 1)[1])
    assert Marked.__match_args__ == ()
    with pytest.raises(TypeError):
        Marked(400, (), b"")  # type: ignore[call-arg]  # keyword-only on purpose


def test_record_refuses_a_required_field_after_a_default_one() -> None:
    # As a dataclass does (its positional __init__ could not take it).
    with pytest.raises(TypeError, match="a field without a default follows one with"):

        class Wrong(Record):
            first: int = 0
            second: int  # type: ignore[misc]  # on purpose

    class Fine(Record, kw_only=True):
        first: int = 0
        second: int

    assert Fine(second=2) == Fine(first=0, second=2)
    assert Fine.__match_args__ == ()
    with pytest.raises(TypeError):
        Fine(0, 2)  # type: ignore[call-arg]  # keyword-only on purpose


def test_record_fields_need_their_annotations_in_the_namespace() -> None:
    # Python 3.14 without ``from __future__ import annotations`` gives the class
    # body an ``__annotate__`` function instead of ``__annotations__``.
    def annotate(format: int) -> dict[str, object]:
        return {"x": int}

    with pytest.raises(TypeError, match="from __future__ import annotations"):
        RecordType("Late", (Record,), {"__annotate__": annotate})


def test_record_without_fields_and_field_settings() -> None:
    class Empty(Record, kw_only=True):
        pass

    assert Empty() == Empty()
    assert (
        repr(Empty())
        == "test_record_without_fields_and_field_settings.<locals>.Empty()"
    )

    class Hidden(Record):
        shown: int
        hidden: int = field(default=2, repr=False)

    assert repr(Hidden(1)).endswith("Hidden(shown=1)")
    assert Hidden(1) != Hidden(1, 3)
    assert [spec.default for spec in fields(Hidden)][1] == 2
