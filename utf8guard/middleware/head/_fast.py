"""The fast lane: a clean request reaches the app without the per-location machinery.

A request whose head :func:`._clean.scan_head` proves clean, and whose body is
absent or small enough to be read and checked in one piece, needs no findings, no
report, no spool and no replay: the app gets the request as the server gave it.
Every other request, and every one whose body turns out otherwise (a refusal, more
pieces than one, a short read), takes the full check of :mod:`..engine._engine` and
:mod:`..engine._flow`, which decides the same way; the lane only saves time. Pure.

The adapters take each decision in one call: :func:`asgi_plan` for an ASGI scope,
:func:`head_plan` for a WSGI head, :func:`whole_plain_json` for a JSON body's
message. Inside a server a chain of small Python steps costs two to three times what
it costs in a loop (cold caches), so the C accelerator has each as one function
(``_speedups_lane.c``), held to the ``py_`` twins here by the tests and
``fuzz/fuzz_lane.py``. In pure Python the WSGI adapter takes its plan from the
environ itself (:func:`._wsgi_lane.py_wsgi_plan`, which ends in :func:`body_plan`).
"""

from __future__ import annotations

from ..._accel import IMPLEMENTATION
from ..._policy import Policy
from ..body._body import body_kind, inspector_for
from ..body._json import JsonInspector, is_plain_json, opens_utf8
from ..body._sniff import SniffingInspector
from ..engine._config import GuardConfig
from ..engine._engine import content_length
from ..engine._finding import Finding
from ._clean import OnceFields, clean_headers, is_clean_target

# collections.abc and typing are for type checkers only (issue 28).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Final, NamedTuple
else:
    from ..._named_tuple import NamedTuple

__all__ = [
    "NO_BODY",
    "Lane",
    "Plan",
    "asgi_plan",
    "body_plan",
    "head_plan",
    "is_clean_body",
    "is_clean_json",
    "is_clean_whole",
    "lane_for",
    "py_asgi_plan",
    "py_head_plan",
    "py_whole_plain_json",
    "remember_kind",
    "whole_body",
    "whole_plain_json",
]

#: A plan's answer for a request that carries no body.
NO_BODY: Final = -1
#: The HTTP versions whose framing says when a request has no body (RFC 9112 §6.3).
_HTTP1: Final = ("1.0", "1.1")
#: The largest body a lane reads whole, whatever the config says (the C twin parses
#: Content-Length into 64 bits).
_MAX_LANE_BODY: Final = 2**53
#: Content-Type values a lane remembers the kind of.
_KINDS_REMEMBERED: Final = 64


class Lane(NamedTuple):
    """What the lane needs from a config, built once by :func:`lane_for`. The C twin
    reads it by position, in this order."""

    path_policy: Policy
    #: The query's (and a body's) policy.
    policy: Policy
    header_policy: Policy
    #: Whether the look-alike rule applies.
    lookalike: bool
    #: The largest body read whole (-1: none).
    limit: int
    #: The Content-Type values met so far, True for a JSON type.
    kinds: dict[bytes, bool]


#: A plan (:func:`head_plan`, :func:`asgi_plan`): None (the full check),
#: :data:`NO_BODY`, the length of a JSON body (a type remembered as JSON), or the
#: length and Content-Type.
Plan = int | tuple[int, bytes | None] | None


def lane_for(config: GuardConfig, most: int = _MAX_LANE_BODY) -> Lane:
    """The lane of ``config``, for bodies of at most ``most`` bytes. Report mode and
    ``stream_body`` hand a body to the app as it arrives: then only requests without
    a body take the lane."""
    limit = min(config.memory_body_size, config.max_body_size, most)
    if config.mode == "report" or config.stream_body:
        limit = -1
    return Lane(
        config.effective_path_policy,
        config.policy,
        config.header_policy,
        not config.allow_lookalike_separators,
        limit,
        {},
    )


def py_head_plan(
    lane: Lane,
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    headers: object,
    bodiless: bool,
    /,
) -> Plan:
    """How a request with this head takes the lane: :func:`._clean.scan_head`, then
    the body's route (``exclude_paths`` is the caller's). ``bodiless``: the adapter's
    reading of the framing says a request without Content-Length has no body (RFC
    9112 §6.3 item 7), so the app may run at once when no Content-Type is to weigh.
    A body is for the lane when it declares a length within the lane's limit."""
    if not is_clean_target(
        raw_path, app_path, query, lane.path_policy, lane.policy, lane.lookalike
    ):
        return None
    fields = clean_headers(headers, lane.header_policy)
    return None if fields is None else body_plan(lane, fields, bodiless)


def body_plan(lane: Lane, fields: OnceFields, bodiless: bool, /) -> Plan:
    """:func:`py_head_plan` of a head whose path, query and fields are clean, of
    these :class:`._clean.OnceFields`."""
    length_field, content_type = fields
    if length_field is None:
        return NO_BODY if bodiless and content_type is None else None
    length = content_length(length_field)
    if length is None or length > lane.limit:
        return None
    if content_type is not None and lane.kinds.get(content_type) is True:
        return length
    return length, content_type


def py_asgi_plan(lane: Lane, scope: object, /) -> Plan:
    """:func:`py_head_plan` of an ASGI HTTP ``scope``: an HTTP/1 request with neither
    Content-Length nor Transfer-Encoding (a clean head has none) has no body."""
    if type(scope) is not dict:
        return None
    version = scope.get("http_version")
    return py_head_plan(
        lane,
        scope.get("raw_path"),
        None,
        scope.get("query_string"),  # type: ignore[arg-type]
        scope.get("headers"),
        type(version) is str and version in _HTTP1,
    )


def py_whole_plain_json(lane: Lane, message: object, length: int, /) -> bool:
    """True only when the ASGI ``message`` is the whole body (one ``http.request``
    of ``length`` bytes, no more to come) and :func:`..body._json.is_plain_json` passes
    it under the lane's policy as an object or array; False decides nothing
    (:func:`is_clean_json` does)."""
    if type(message) is not dict:
        return False
    kind, body = message.get("type"), message.get("body")
    return (
        type(kind) is str
        and kind == "http.request"
        and message.get("more_body", False) is False
        and type(body) is bytes
        and len(body) == length
        and opens_utf8(body)
        and is_plain_json(body, lane.policy)
    )


#: The active implementations: the C accelerator's when active.
head_plan: Callable[[Lane, bytes | None, bytes | None, bytes, object, bool], Plan]
asgi_plan: Callable[[Lane, object], Plan]
whole_plain_json: Callable[[Lane, object, int], bool]
if IMPLEMENTATION == "c":
    from ..._speedups import asgi_plan, head_plan, whole_plain_json
else:
    head_plan, asgi_plan = py_head_plan, py_asgi_plan
    whole_plain_json = py_whole_plain_json


def remember_kind(lane: Lane, content_type: bytes, config: GuardConfig) -> None:
    """Note whether ``content_type`` is a JSON type, for :func:`asgi_plan`."""
    kinds = lane.kinds
    if content_type not in kinds and len(kinds) < _KINDS_REMEMBERED:
        kinds[content_type] = body_kind(content_type, config) == "json"


def is_clean_whole(
    body: bytes | None,
    plan: int | tuple[int, bytes | None],
    lane: Lane,
    config: GuardConfig,
) -> bool:
    """Whether ``body``, all of the body ``plan`` announced (None: it was not), is
    clean: a type remembered as JSON by its inspector, else by
    :func:`is_clean_body`, remembering the Content-Type's kind for next time."""
    if body is None:
        return False
    if isinstance(plan, int):
        return is_clean_json(body, config.policy)
    content_type = plan[1]
    if content_type is not None:
        remember_kind(lane, content_type, config)
    return is_clean_body(body, content_type, config)


def is_clean_body(body: bytes, content_type: bytes | None, config: GuardConfig) -> bool:
    """True only when the full check finds nothing in this whole body.

    ``content_type`` is the clean head's one Content-Type, if any (framing settled,
    no Content-Encoding): the body gets the same inspector as in the full check,
    fed once; a JSON body with no escape needs only its bytes checked.
    """
    if body_kind(content_type, config) == "json":
        return is_clean_json(body, config.policy)
    inspector = inspector_for(content_type, config)
    if isinstance(inspector, Finding) or inspector.feed(body):
        return False
    if isinstance(inspector, SniffingInspector) and inspector.passed:
        return True  # a binary type that is not JSON: it passes unread
    return not inspector.finish()


def is_clean_json(body: bytes, policy: Policy) -> bool:
    """:func:`is_clean_body` for a body of a JSON type: what its inspector says."""
    if is_plain_json(body, policy):
        return True
    inspector = JsonInspector(policy)
    return not inspector.feed(body) and not inspector.finish()


def whole_body(message: Mapping[str, object], length: int) -> bytes | None:
    """The body when ``message`` is all of it, of the declared ``length``."""
    body = message.get("body", b"")
    if (
        message.get("type") == "http.request"
        and not message.get("more_body", False)
        and isinstance(body, bytes)
        and len(body) == length
    ):
        return body
    return None
