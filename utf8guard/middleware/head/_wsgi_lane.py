"""The pure-Python WSGI lane: an environ's plan in one pass, its parts left unbuilt.

:func:`py_wsgi_plan` answers what ``py_head_plan(lane, *py_environ_parts(environ),
bodiless)`` answers, or None (the full check, which then builds the parts). The
field names of an environ depend only on its keys, which a server repeats request
after request: what :mod:`._clean` decides of the names (tokens, repeats, codings,
where Host, Cookie, Content-Length and Content-Type are) is decided once per tuple
of keys, by ``_clean.name_facts``, and remembered (bounded, as
:func:`..adapter._wsgi_environ.header_keys` is). Per request only the values are read:
all joined in one str, encoded once (PEP 3333: one byte per code point) and held to
``_clean``'s value rules. A value that is no str, or holds a code point over
U+00FF, leaves the request to the full check. Pure.

The C accelerator's WSGI lane is ``_speedups.environ_parts`` then
``_speedups.head_plan``; this module is for the pure-Python implementation.
"""

from __future__ import annotations

from ..._policy import Policy
from ..adapter._wsgi_environ import HeaderKeys, header_keys, remember_keys, target_parts
from ._clean import (
    VALUE_JOINER,
    FieldIndexes,
    OnceFields,
    are_clean_values,
    is_clean_target,
    name_facts,
    once_fields,
)
from ._fast import Lane, Plan, body_plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, NamedTuple

    from _typeshed.wsgi import WSGIEnvironment
else:
    from ..._named_tuple import NamedTuple

__all__ = ["py_wsgi_plan"]

#: :data:`._clean.VALUE_JOINER` as a PEP 3333 string.
_VALUE_JOINER: Final = VALUE_JOINER.decode("latin-1")


class KeysPlan(NamedTuple):
    """What the lane knows of a tuple of environ keys."""

    #: The getter of its header values (a tuple, in environ order).
    values_of: Callable[[WSGIEnvironment], tuple[object, ...]]
    #: ``(str, ...)``, as long.
    types: tuple[type, ...]
    #: ``(position, mask bit, value)`` of each key among them that has a value
    #: meaning no such field (``header_field``'s ``absent``: the CGI keys).
    cgi: tuple[tuple[int, int, str], ...]
    #: By the mask of those keys whose value is empty: where the once-only fields
    #: are (positions in the values), or None when the names are the full check's.
    variants: tuple[FieldIndexes | None, ...]


#: The plans of the key tuples seen before (bounded: :func:`remember_keys`).
_seen_plans: Final[dict[tuple[str, ...], KeysPlan]] = {}


def py_wsgi_plan(lane: Lane, environ: WSGIEnvironment, bodiless: bool, /) -> Plan:
    """``py_head_plan(lane, *py_environ_parts(environ), bodiless)``, or None.

    None (the full check) also where that composition has a plan, but only for an
    environ whose header values are not all str of code points up to U+00FF.
    """
    fields = _clean_fields(environ, lane.header_policy)
    if fields is None:
        return None
    raw_path, app_path, query = target_parts(environ)
    if not is_clean_target(
        raw_path, app_path, query, lane.path_policy, lane.policy, lane.lookalike
    ):
        return None
    return body_plan(lane, fields, bodiless)


def _clean_fields(environ: WSGIEnvironment, policy: Policy) -> OnceFields | None:
    """``_clean``'s header verdict on the environ's fields, read from the environ."""
    keys = tuple(environ)
    plan = _seen_plans.get(keys)
    if plan is None:
        plan = _keys_plan(keys)
    values_of, types, cgi, variants = plan
    texts: tuple[str, ...] = values_of(environ)  # type: ignore[assignment]  # next
    # PEP 3333: values are str. Any other type (a subclass too, which may encode
    # otherwise) is left to the full check, as is reading which keys are fields.
    if tuple(map(type, texts)) != types:
        return None
    mask = 0
    for position, bit, absent in cgi:
        # No such field (_wsgi_environ.header_field, RFC 3875 §4.1.2-3).
        if texts[position] == absent:
            mask |= bit
    found = variants[mask]
    if found is None:
        return None
    # An absent CGI value is joined too: its bytes can only make the lane decline.
    try:
        joined = _VALUE_JOINER.join(texts).encode("latin-1")
    except UnicodeEncodeError:
        return None  # over U+00FF: the full check reads such a value as UTF-8
    if not are_clean_values(joined, policy):
        return None
    host, cookie, length, content_type = found
    return once_fields(
        None if host is None else texts[host].encode("latin-1"),
        None if cookie is None else texts[cookie].encode("latin-1"),
        None if length is None else texts[length].encode("latin-1"),
        None if content_type is None else texts[content_type].encode("latin-1"),
    )


def _keys_plan(keys: tuple[str, ...]) -> KeysPlan:
    """The :data:`KeysPlan` of an environ's keys, remembered when within bounds."""
    fields = header_keys(keys)
    cgi_fields = [
        (n, absent) for n, (_, _, absent) in enumerate(fields) if absent is not None
    ]
    cgi = tuple((n, 1 << bit, absent) for bit, (n, absent) in enumerate(cgi_fields))
    variants = tuple(_indexes(fields, cgi, mask) for mask in range(1 << len(cgi)))
    plan = KeysPlan(
        _getter(tuple(key for key, _, _ in fields)), (str,) * len(fields), cgi, variants
    )
    remember_keys(_seen_plans, keys, plan)
    return plan


def _indexes(
    fields: HeaderKeys, cgi: tuple[tuple[int, int, str], ...], mask: int
) -> FieldIndexes | None:
    """Where ``_clean.name_facts`` finds the once-only fields among ``fields`` but
    the CGI keys in ``mask`` (positions among all ``fields``); None when the names
    are the full check's."""
    dropped = {position for position, bit, _ in cgi if mask & bit}
    kept = [n for n in range(len(fields)) if n not in dropped]
    count, found = name_facts([fields[n][1] for n in kept])
    if count != len(kept) or found is None:
        return None
    return FieldIndexes._make(None if index is None else kept[index] for index in found)


def _getter(keys: tuple[str, ...]) -> Callable[[WSGIEnvironment], tuple[object, ...]]:
    """A function giving the values of ``keys`` as a tuple (``itemgetter`` gives a
    tuple for two keys or more)."""
    if len(keys) > 1:
        from operator import itemgetter  # once per environ shape (issue 28: start-up)

        return itemgetter(*keys)
    return lambda environ: tuple(environ[key] for key in keys)
