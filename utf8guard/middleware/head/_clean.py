"""A one-pass proof that a request head is clean: the per-location checks are skipped.

``scan_head`` says "clean" only when :func:`._request.inspect_head` would find
nothing: it applies the same rules (taken from ``_request``, ``_percent`` and
``_cookies``, not restated) to whole components at once, with substring tests where
a pattern would cost more, and builds no finding. Whatever it cannot settle cheaply
(a head with no raw target, a path the server decoded differently, anything that
looks like a dot segment or an encoded separator, an escape left in a decoded query,
a header pair of the wrong shape, repeated or chunked framing) it leaves to the full
inspection by answering None, which only costs time. Pure.

The C accelerator has the same function (``_speedups.scan_head``), held to this one
by the tests; :data:`scan_head` is whichever is active.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

from ..._accel import IMPLEMENTATION
from ..._policy import Policy
from ..._scan import is_valid
from ..engine._config import GuardConfig
from ._abnf import PRINTABLE, TCHAR
from ._cookies import COOKIE_TRIGGER
from ._percent import strict_unquote
from ._request import (
    FIELD_VALUE_TRIGGER,
    HOST_TRIGGER,
    QUERY_ESCAPE_TRIGGER,
    RequestHead,
)
from ._seen import remember
from ._target import DECODED_PATH_TRIGGER, LOOKALIKE, PATH_TRICK_TRIGGER
from ._trigger import Trigger, gate_of, search_of, second_marks_of

__all__ = [
    "TRIGGERS",
    "VALUE_JOINER",
    "CleanHead",
    "FieldIndexes",
    "NameFacts",
    "OnceFields",
    "Triggers",
    "are_clean_values",
    "clean_head",
    "clean_headers",
    "is_clean_head",
    "is_lookalike_free",
    "name_facts",
    "once_fields",
    "py_scan_head",
    "scan_head",
    "scan_target",
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
_PERCENT: Final = 0x25


class Triggers(NamedTuple):
    """The lane's table: each head rule's :class:`._trigger.Trigger`, by where the
    lane looks for its needles, and the field names the lane leaves to the full
    check. The C lane reads it at its first call (``_speedups_http.c``)."""

    #: Looked for in "/" + the raw path in ASCII lower case.
    raw_path: Trigger
    #: Looked for in the percent-decoded path.
    decoded_path: Trigger
    #: Looked for in the query percent-decoded with "+" as space.
    decoded_query: Trigger
    #: Looked for in every field value.
    values: Trigger
    #: Per once-only field name (of ``once``), looked for in its one value.
    fields: tuple[tuple[bytes, Trigger], ...]
    #: Lower-case names a clean head holds at most once, in this order: Host,
    #: Cookie, Content-Length, Content-Type (what the body's route reads).
    once: tuple[bytes, bytes, bytes, bytes]
    #: Lower-case names a clean head does not hold.
    declined: tuple[bytes, ...]


TRIGGERS: Final = Triggers(
    raw_path=PATH_TRICK_TRIGGER,
    decoded_path=DECODED_PATH_TRIGGER,
    decoded_query=QUERY_ESCAPE_TRIGGER,
    values=FIELD_VALUE_TRIGGER,
    fields=((b"host", HOST_TRIGGER), (b"cookie", COOKIE_TRIGGER)),
    # RFC 9112 §3.2: one Host line. RFC 9113 §8.2.3: HTTP/2 may split Cookie in
    # fields (then the full check). RFC 9112 §6.3: framing the body check must weigh
    # in full (_engine's _framing_finding and body_inspector's repeated
    # Content-Type).
    once=(b"host", b"cookie", b"content-length", b"content-type"),
    # A coded body (RFC 9110 §8.4), body_inspector's to judge in full.
    declined=(b"transfer-encoding", b"content-encoding"),
)
_ONCE: Final = TRIGGERS.once
_DECLINED_NAMES: Final = frozenset(TRIGGERS.declined)

# Each location's needles, compiled once (_trigger.Gate: a translate pass, then a
# search only where a needle may be).
#: Looked for in "/" + the raw path in lower case (so an upper-case needle is never
#: found, as in the C lane).
_RAW_PATH_SEARCH: Final = search_of(TRIGGERS.raw_path.needles)
#: The raw path's gate: its needles' second bytes ("." "2" "5"), rarer in a path than
#: their first ("/" "%"), at which the search would stop (about 3.7k instructions a
#: head, bench_lane).
_RAW_PATH_MARKS: Final = second_marks_of(TRIGGERS.raw_path.needles)
_DECODED_PATH_MARKS, _DECODED_PATH_SEARCH, _ = gate_of(TRIGGERS.decoded_path.needles)
_QUERY_MARKS, _QUERY_SEARCH, _QUERY_BYTE = gate_of(TRIGGERS.decoded_query.needles)
#: Whether a query needle can occur where no "%" is: then every query is decoded.
_QUERY_PLAIN_NEEDLE: Final = any(b"%" not in n for n in TRIGGERS.decoded_query.needles)
_VALUE_MARKS, _VALUE_SEARCH, _ = gate_of(TRIGGERS.values.needles)
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


#: What the body's route needs from a clean head: whether the decoded path holds
#: non-ASCII (then the look-alike separator rule still applies), and the value of the
#: one Content-Length and the one Content-Type field, if any.
CleanHead = tuple[bool, bytes | None, bytes | None]
#: The values of the one Content-Length and the one Content-Type field, if any.
OnceFields = tuple[bytes | None, bytes | None]


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
ScanHead = Callable[
    [bytes | None, bytes | None, bytes, object, Policy, Policy, Policy],
    CleanHead | None,
]


def is_clean_head(head: RequestHead, config: GuardConfig) -> bool:
    """True only when ``inspect_head(head, config)`` yields no finding."""
    return clean_head(head.raw_path, head.app_path, head.query_string, head.headers,
                      config) is not None  # fmt: skip


def clean_head(
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    headers: object,
    config: GuardConfig,
) -> CleanHead | None:
    """:func:`scan_head` with ``config``'s policies and its look-alike rule applied.

    Not None only when ``inspect_head`` would find nothing in a head of these parts
    (``headers`` as the server gave it: pairs of any other shape are not clean).
    """
    found = scan_head(
        raw_path,
        app_path,
        query,
        headers,
        config.effective_path_policy,
        config.policy,
        config.header_policy,
    )
    if found is None or not found[0] or config.allow_lookalike_separators:
        return found
    # raw_path is set: only a head with a raw target is clean.
    return found if is_lookalike_free(raw_path or b"") else None


def is_lookalike_free(raw_path: bytes) -> bool:
    """True when the clean ``raw_path``, decoded, holds no look-alike separator."""
    return LOOKALIKE.search(strict_unquote(raw_path) or b"") is None


def py_scan_head(
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    headers: object,
    path_policy: Policy,
    policy: Policy,
    header_policy: Policy,
) -> CleanHead | None:
    """None unless path, query and headers are clean; then what the body needs.

    ``path_policy``, ``policy`` and ``header_policy`` are the config's
    ``effective_path_policy``, ``policy`` and ``header_policy``. The look-alike rule
    is the caller's (``lookalike_check``). Clean headers also mean at most one
    Content-Length and one Content-Type and no Transfer-Encoding or
    Content-Encoding: those are the full check's.
    """
    decoded = scan_target(raw_path, app_path, query, path_policy, policy)
    if decoded is None:
        return None
    fields = clean_headers(headers, header_policy)
    if fields is None:
        return None
    length_field, content_type = fields
    return not decoded.isascii(), length_field, content_type


def scan_target(
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    path_policy: Policy,
    policy: Policy,
) -> bytes | None:
    """The decoded path when path and query are clean (but for the look-alike rule)."""
    if type(raw_path) is not bytes or type(query) is not bytes:
        return None
    decoded = _clean_path(raw_path, app_path, path_policy)
    if decoded is None or not _is_clean_query(query, policy):
        return None
    return decoded


def _clean_path(raw: bytes, app_path: bytes | None, policy: Policy) -> bytes | None:
    """The decoded path when it is clean but for the look-alike rule, else None."""
    if not raw.isascii():
        return None
    slashed = b"/" + raw
    if 0 in slashed.translate(_RAW_PATH_MARKS) and _RAW_PATH_SEARCH(slashed.lower()):
        return None
    # None: a malformed escape.
    decoded = strict_unquote(raw) if _PERCENT in raw else raw
    if decoded is None:
        return None
    if 0 in decoded.translate(_DECODED_PATH_MARKS) and _DECODED_PATH_SEARCH(decoded):
        return None
    if app_path is not None and app_path != decoded:
        return None
    return decoded if is_valid(decoded, policy) else None


def _is_clean_query(query: bytes, policy: Policy) -> bool:
    if not query.isascii():
        return False
    if _PERCENT not in query and not _QUERY_PLAIN_NEEDLE:
        return is_valid(query, policy)
    # "&", "=" and "+" are ASCII and no sequence spans one, so the whole decoded
    # query is clean exactly when each decoded name and value is.
    decoded = strict_unquote(query.replace(b"+", b" "))
    if decoded is None:
        return False
    # A gate's one byte is looked up with "in": a quarter of a translate pass. Not a
    # helper function: a call costs more than the two tests it would share.
    if _QUERY_BYTE is not None:
        if _QUERY_BYTE in decoded:
            return False
    elif 0 in decoded.translate(_QUERY_MARKS) and _QUERY_SEARCH(decoded):
        return False
    return is_valid(decoded, policy)


def clean_headers(headers: object, policy: Policy) -> OnceFields | None:
    """``(Content-Length, Content-Type)`` of clean headers, else None."""
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
        return None, None
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
        if 0 in values_joined.translate(_VALUE_MARKS) and _VALUE_SEARCH(values_joined):
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
    """``(Content-Length, Content-Type)`` of the one field of each name (None: no
    such field), or None when the Host or Cookie value is for the full check."""
    values = (host, cookie, length, content_type)
    for index, marks, search, byte in _FIELD_GATES:
        value = values[index]
        if value is None:
            continue
        # As in _is_clean_query: a gate's one byte by "in", inline.
        if byte is not None:
            if byte in value:
                return None
        elif 0 in value.translate(marks) and search(value):
            return None
    return length, content_type


#: The active implementation of :func:`py_scan_head`: the C accelerator's when active.
scan_head: ScanHead
if IMPLEMENTATION == "c":
    from ..._speedups import scan_head
else:
    scan_head = py_scan_head
