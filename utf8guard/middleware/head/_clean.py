"""A one-pass proof that a request head is clean: the per-location checks are skipped.

``scan_head`` says "clean" only when :func:`._request.inspect_head` would find
nothing: it applies the same rules (taken from ``_request``, ``_target``,
``_percent`` and ``_cookies``, not restated) to whole components at once, with
substring tests where a pattern would cost more, and builds no finding. Whatever it
cannot settle cheaply (a head with no raw target, a path the server decoded
differently, anything that looks like a dot segment or an encoded separator, an
escape left in a decoded query, a header pair of the wrong shape, repeated or
chunked framing) it leaves to the full inspection by answering None, which only
costs time. Pure.

The C accelerator has the same function (``_speedups.scan_head``), held to this one
by the tests; :data:`scan_head` is whichever is active.
"""

from __future__ import annotations

from ..._accel import IMPLEMENTATION
from ..._policy import Policy
from ..._scan import is_valid
from ..engine._config import GuardConfig
from ._clean_fields import (
    VALUE_JOINER,
    FieldIndexes,
    NameFacts,
    OnceFields,
    are_clean_values,
    clean_headers,
    name_facts,
    once_fields,
)
from ._lane_table import TRIGGERS, Triggers
from ._percent import strict_unquote
from ._request import RequestHead
from ._target import LOOKALIKE
from ._trigger import gate_of, pattern_of, second_marks_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final

    ScanHead = Callable[
        [bytes | None, bytes | None, bytes, object, Policy, Policy, Policy, bool],
        OnceFields | None,
    ]

# The header half (_clean_fields) and the table (_lane_table) are re-exported: the
# lanes and the C loader know this module as the lane's entry.
__all__ = [
    "TRIGGERS",
    "VALUE_JOINER",
    "FieldIndexes",
    "NameFacts",
    "OnceFields",
    "Triggers",
    "are_clean_values",
    "clean_headers",
    "is_clean_head",
    "is_clean_target",
    "name_facts",
    "once_fields",
    "py_scan_head",
    "scan_head",
]

# Single bytes are looked up as ints: CPython 3.11's bytes.__contains__ first tries
# a bytes needle as an int, and raising and clearing that TypeError costs several
# times the search itself.
_PERCENT: Final = 0x25

# Each location's needles, compiled at their first search (_trigger.Gate: a translate
# pass, then a search only where a needle may be).
#: Looked for in "/" + the raw path in lower case (so an upper-case needle is never
#: found, as in the C lane).
_RAW_PATH_PATTERN: Final = pattern_of(TRIGGERS.raw_path.needles)
#: The raw path's gate: its needles' second bytes ("." "2" "5"), rarer in a path than
#: their first ("/" "%"), at which the search would stop (about 3.7k instructions a
#: head, bench_lane).
_RAW_PATH_MARKS: Final = second_marks_of(TRIGGERS.raw_path.needles)
_DECODED_PATH_MARKS, _DECODED_PATH_PATTERN, _ = gate_of(TRIGGERS.decoded_path.needles)
_QUERY_MARKS, _QUERY_PATTERN, _QUERY_BYTE = gate_of(TRIGGERS.decoded_query.needles)
#: Whether a query needle can occur where no "%" is: then every query is decoded.
_QUERY_PLAIN_NEEDLE: Final = any(b"%" not in n for n in TRIGGERS.decoded_query.needles)


def is_clean_head(head: RequestHead, config: GuardConfig) -> bool:
    """True only when ``inspect_head(head, config)`` yields no finding."""
    return (
        scan_head(
            head.raw_path,
            head.app_path,
            head.query_string,
            head.headers,
            config.effective_path_policy,
            config.policy,
            config.header_policy,
            not config.allow_lookalike_separators,
        )
        is not None
    )


def py_scan_head(
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    headers: object,
    path_policy: Policy,
    policy: Policy,
    header_policy: Policy,
    lookalike: bool,
) -> OnceFields | None:
    """None unless path, query and headers are clean; then what the body needs.

    ``path_policy``, ``policy`` and ``header_policy`` are the config's
    ``effective_path_policy``, ``policy`` and ``header_policy``; ``lookalike``:
    whether the look-alike separator rule applies (``not
    allow_lookalike_separators``). Clean headers also mean at most one
    Content-Length and one Content-Type and no Transfer-Encoding or
    Content-Encoding: those are the full check's.
    """
    if not is_clean_target(raw_path, app_path, query, path_policy, policy, lookalike):
        return None
    return clean_headers(headers, header_policy)


def is_clean_target(
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    path_policy: Policy,
    policy: Policy,
    lookalike: bool,
) -> bool:
    """Whether path and query are clean (:func:`py_scan_head`'s first half)."""
    if type(raw_path) is not bytes or type(query) is not bytes:
        return False
    return _is_clean_path(raw_path, app_path, path_policy, lookalike) and (
        _is_clean_query(query, policy)
    )


def _is_clean_path(
    raw: bytes, app_path: bytes | None, policy: Policy, lookalike: bool
) -> bool:
    if not raw.isascii():
        return False
    slashed = b"/" + raw
    if 0 in slashed.translate(_RAW_PATH_MARKS) and _RAW_PATH_PATTERN.search(
        slashed.lower()
    ):
        return False
    # None: a malformed escape.
    decoded = strict_unquote(raw) if _PERCENT in raw else raw
    if decoded is None:
        return False
    if 0 in decoded.translate(_DECODED_PATH_MARKS) and _DECODED_PATH_PATTERN.search(
        decoded
    ):
        return False
    if app_path is not None and app_path != decoded:
        return False
    if not is_valid(decoded, policy):
        return False
    # The look-alike separators (_target.LOOKALIKE), in the path decoded once: an
    # ASCII one holds none.
    return not lookalike or decoded.isascii() or LOOKALIKE.search(decoded) is None


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
    elif 0 in decoded.translate(_QUERY_MARKS) and _QUERY_PATTERN.search(decoded):
        return False
    return is_valid(decoded, policy)


#: The active implementation of :func:`py_scan_head`: the C accelerator's when active.
scan_head: ScanHead
if IMPLEMENTATION == "c":
    from ..._speedups import scan_head
else:
    scan_head = py_scan_head
