"""The header half of the one-pass proof (``_clean.py_scan_head``): clean field
names and values, and the one value of each once-only field.

Shared by the ASGI lane (``_clean``, ``_fast``) and the WSGI one (``_wsgi_lane``);
every needle comes from ``_lane_table.TRIGGERS``. Pure.
"""

from __future__ import annotations

from ..._policy import Policy
from ..._scan import is_valid
from ._abnf import PRINTABLE, TCHAR
from ._lane_table import TRIGGERS
from ._seen import remember
from ._trigger import gate_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple
else:
    from ..._named_tuple import NamedTuple

__all__ = [
    "VALUE_JOINER",
    "FieldIndexes",
    "NameFacts",
    "OnceFields",
    "are_clean_values",
    "clean_headers",
    "name_facts",
    "once_fields",
]

#: Joins header names for one token check: "\n" is no tchar (RFC 9110 §5.6.2).
_NAME_JOINER: Final = b"\n"
#: Joins header values for one UTF-8 check. UTF-8 is self-synchronising and every
#: policy rule is per code point, so the join is valid exactly when every value is;
#: SP is allowed by every policy and is none of the bytes RFC 9110 §5.5 forbids.
VALUE_JOINER: Final = b" "
#: A header is a ``[name, value]`` pair (ASGI HTTP connection scope).
_PAIR_LENGTH: Final = 2
#: What a header list and each pair may be (``isinstance``; a tuple, not ``list |
#: tuple``, which builds a union object at every test). Tuple first: servers give
#: the pairs as tuples, and each type tried costs a few percent of the header loop.
_SEQUENCES: Final = (tuple, list)
#: tchar bytes lower-cased (RFC 9110 §5.1: field names are case-insensitive), the
#: joiner kept, every other byte NUL (no tchar).
_LOWER_TCHAR: Final = bytes(
    byte
    if byte == _NAME_JOINER[0]
    else bytes([byte]).lower()[0]
    if byte in TCHAR
    else 0
    for byte in range(256)
)
# Single bytes are looked up as ints: CPython 3.11's bytes.__contains__ first tries
# a bytes needle as an int, and raising and clearing that TypeError costs several
# times the search itself.
_NUL: Final = 0x00
_ONCE: Final = TRIGGERS.once
_DECLINED_NAMES: Final = frozenset(TRIGGERS.declined)

_VALUE_MARKS, _VALUE_PATTERN, _ = gate_of(TRIGGERS.values.needles)
#: Printable ASCII but the bytes of value needles: values of only these hold none.
_VALUE_PLAIN: Final = bytes(
    byte
    for byte in PRINTABLE
    if not any(byte in needle for needle in TRIGGERS.values.needles)
)
#: The once-only fields with a trigger: their place in _ONCE, and its gate.
_FIELD_GATES: Final = tuple(
    (_ONCE.index(name), *gate_of(trigger.needles)) for name, trigger in TRIGGERS.fields
)


class OnceFields(NamedTuple):
    """What the body's route needs from a clean head: the value of its one
    Content-Length and its one Content-Type field (None: no such field)."""

    content_length: bytes | None
    content_type: bytes | None


#: The fields of a head with neither (a GET's): built once.
_NO_FIELDS: Final = OnceFields(None, None)
#: Builds a :class:`OnceFields` from a pair without the class call's Python
#: ``__new__`` (about 1.1k instructions less a head, callgrind).
_new_tuple: Final = tuple.__new__


class FieldIndexes(NamedTuple):
    """Where the once-only fields (:data:`_ONCE`) are among a head's fields; None
    for one that is absent."""

    host: int | None
    cookie: int | None
    content_length: int | None
    content_type: int | None


class NameFacts(NamedTuple):
    """What the name rules say of a head's names (:func:`name_facts`)."""

    #: The number of names, when every one is a token; else 0.
    name_count: int
    #: Where the once-only fields are, or None when the names are the full check's.
    found: FieldIndexes | None


_NO_NAMES: Final = NameFacts(0, FieldIndexes(None, None, None, None))
#: The names of heads seen before, joined by _NAME_JOINER: their :func:`name_facts`.
_seen_names: Final[dict[bytes, NameFacts]] = {}


def clean_headers(headers: object, policy: Policy) -> OnceFields | None:
    """The :class:`OnceFields` of clean headers, else None."""
    if not isinstance(headers, _SEQUENCES):
        return None
    names: list[bytes] = []
    values: list[bytes] = []
    add_name, add_value = names.append, values.append
    for pair in headers:
        # The shapes _request.RequestHead takes; anything else the full check refuses.
        if not isinstance(pair, _SEQUENCES) or len(pair) != _PAIR_LENGTH:
            return None
        name, value = pair
        if not isinstance(name, bytes) or not isinstance(value, bytes):
            return None
        add_name(name)
        add_value(value)
    if not names:
        return _NO_FIELDS
    # The names first, all before the policy is read, as in the C twin.
    count, found = name_facts(names)
    if count != len(names):
        return None
    if not are_clean_values(VALUE_JOINER.join(values), policy) or found is None:
        return None
    host, cookie, length, content_type = found
    return once_fields(
        None if host is None else values[host],
        None if cookie is None else values[cookie],
        None if length is None else values[length],
        None if content_type is None else values[content_type],
    )


def name_facts(names: list[bytes]) -> NameFacts:
    """What the name rules say of a head's field ``names``: ``(name_count, found)``.

    ``name_count`` is ``len(names)`` exactly when every name is a token (RFC 9110 §5.1);
    ``found`` is :func:`_field_indexes` of them. Remembered by the joined names
    (bounded, :func:`._seen.remember`): servers repeat them request after request.
    """
    if not names:
        return _NO_NAMES
    joined = _NAME_JOINER.join(names)
    facts = _seen_names.get(joined)
    if facts is None:
        facts = _name_facts(joined)
        remember(_seen_names, joined, facts, len(joined))
    return facts


def _name_facts(joined: bytes) -> NameFacts:
    """:func:`name_facts` of names joined by :data:`_NAME_JOINER` (count 0: some
    name is no token)."""
    # Every name a token (1*tchar), all lower-cased in one call: a byte that is
    # neither tchar nor the joiner becomes NUL, a name holding the joiner splits in
    # two (then the count differs), an empty one is b"".
    lowered_joined = joined.translate(_LOWER_TCHAR)
    lowered = lowered_joined.split(_NAME_JOINER)
    if _NUL in lowered_joined or b"" in lowered:
        return NameFacts(0, None)
    return NameFacts(len(lowered), _field_indexes(lowered))


def are_clean_values(values_joined: bytes, policy: Policy) -> bool:
    """Whether field values joined by :data:`VALUE_JOINER` are clean under ``policy``
    (the header policy): the value rules the names do not change."""
    # The values' trigger (RFC 9110 §5.5: no CTL but HTAB), then UTF-8 under the
    # header policy. Printable ASCII, what a header value usually is, every Policy
    # allows (each refuses only NUL, controls, DEL or non-ASCII): values of
    # _VALUE_PLAIN need no other look; any other policy object is read as before.
    if values_joined.translate(None, _VALUE_PLAIN) or type(policy) is not Policy:
        if 0 in values_joined.translate(_VALUE_MARKS) and _VALUE_PATTERN.search(
            values_joined
        ):
            return False
        return is_valid(values_joined, policy)
    return True


def _field_indexes(names: list[bytes]) -> FieldIndexes | None:
    """Where Host, Cookie, Content-Length and Content-Type are in ``names`` (the
    lower-case names of a head, all tokens), or None for a field the full check
    weighs: a repeated once-only field, a coding."""
    present = set(names)
    if len(present) < len(names) and any(names.count(name) > 1 for name in _ONCE):
        return None
    if not present.isdisjoint(_DECLINED_NAMES):
        return None
    return FieldIndexes._make(
        names.index(name) if name in present else None for name in _ONCE
    )


def once_fields(
    host: bytes | None,
    cookie: bytes | None,
    length: bytes | None,
    content_type: bytes | None,
) -> OnceFields | None:
    """The :class:`OnceFields` of the one field of each name (None: no such
    field), or None when the Host or Cookie value is for the full check."""
    values = (host, cookie, length, content_type)
    for index, marks, pattern, byte in _FIELD_GATES:
        value = values[index]
        if value is None:
            continue
        # As in _clean._is_clean_query: a gate's one byte by "in", inline.
        if byte is not None:
            if byte in value:
                return None
        elif 0 in value.translate(marks) and pattern.search(value):
            return None
    if length is None and content_type is None:
        return _NO_FIELDS
    return _new_tuple(OnceFields, (length, content_type))
