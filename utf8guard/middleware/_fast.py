"""The fast lane: a clean request reaches the app without the per-location machinery.

A request whose head :func:`._clean.clean_head` proves clean, and whose body is
absent or small enough to be read and checked in one piece, needs no findings, no
report, no spool and no replay: the app gets the request as the server gave it.
Every other request, and every one whose body turns out otherwise (a refusal, more
pieces than one, a short read), takes the full check of :mod:`._engine` and
:mod:`._flow`, which decides the same way; the lane only saves time. Pure.
"""

from __future__ import annotations

from typing import Final

from ._body import body_kind, inspector_for
from ._clean import CleanHead
from ._config import GuardConfig
from ._engine import content_length
from ._finding import Finding
from ._json import is_plain_json
from ._sniff import SniffingInspector

__all__ = ["NO_BODY", "body_plan", "is_clean_body"]

#: :func:`body_plan`'s answer for a request that carries no body.
NO_BODY: Final = -1


def body_plan(
    found: CleanHead | None, config: GuardConfig, *, bodiless: bool
) -> tuple[int, bytes | None] | None:
    """How a request whose head scanned as ``found`` takes the fast lane.

    None: the full check. Else ``(length, content_type)``: a length of
    :data:`NO_BODY` when the request has no body and no Content-Type to weigh
    (``bodiless``: the adapter's reading of the framing says a request without
    Content-Length has no body, RFC 9112 §6.3 item 7), so the app may run at once;
    else the body's declared length, within both size limits, to be read
    whole and checked by :func:`is_clean_body` with the Content-Type. Report mode
    and ``stream_body`` hand the body to the app as it arrives: the full check.
    """
    if found is None:
        return None
    _, length_field, content_type = found
    if length_field is None:
        return (NO_BODY, None) if bodiless and content_type is None else None
    length = content_length(length_field)
    if (
        length is None
        or config.mode == "report"
        or config.stream_body
        or length > config.memory_body_size
        or length > config.max_body_size
    ):
        return None
    return length, content_type


def is_clean_body(body: bytes, content_type: bytes | None, config: GuardConfig) -> bool:
    """True only when the full check finds nothing in this whole body.

    ``content_type`` is the clean head's one Content-Type, if any (framing settled,
    no Content-Encoding): the body gets the same inspector as in the full check,
    fed once; a JSON body with no escape needs only its bytes checked.
    """
    kind = body_kind(content_type, config)
    if kind == "json" and is_plain_json(body, config.policy):
        return True
    inspector = inspector_for(content_type, config)
    if isinstance(inspector, Finding) or inspector.feed(body):
        return False
    if isinstance(inspector, SniffingInspector) and inspector.passed:
        return True  # a binary type that is not JSON: it passes unread
    return not inspector.finish()
