"""Refusal: the response a refused request gets, and the ``on_refuse`` hook over it."""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern
from ..._record import Record
from ._config import GuardConfig
from ._finding import Finding, RequestSummary
from ._problem import Problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final

__all__ = ["Refusal", "refuse"]

# RFC 9110 §5.1 field-name = token; §5.5 field-value: no CR, LF or NUL (RFC 9110
# §5.5: "MUST either reject ... or replace" them), so a hook cannot split a response.
_FIELD_NAME: Final = lazy_pattern(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FIELD_VALUE_BAD: Final = lazy_pattern(rb"[\r\n\x00]")


class Refusal(Record, kw_only=True):
    """The response for a refused request, as ``on_refuse`` receives and returns it.

    By default ``status`` is 400 (or 413 for a body over ``max_body_size``) with an
    RFC 9457 ``application/problem+json`` ``body``. ``findings`` (empty for a 413)
    and ``request`` say what was refused and whose request it was. A hook returns a
    Refusal, typically ``refusal.replace(headers=...)``; the guard sets
    ``Content-Length`` itself. The same hook runs under ASGI, WSGI and Django.

    >>> def cors(refusal: Refusal) -> Refusal:
    ...     extra = ((b"access-control-allow-origin", b"https://app.example"),)
    ...     return refusal.replace(headers=refusal.headers + extra)
    """

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    findings: tuple[Finding, ...] = ()
    request: RequestSummary = RequestSummary()


def refuse(
    problem: Problem,
    findings: Sequence[Finding],
    request: RequestSummary,
    config: GuardConfig,
) -> Problem:
    """``problem`` as sent: through ``config.on_refuse`` when set.

    Raises:
        TypeError: the hook returned something other than a valid Refusal.
        ValueError: the hook's status is not 4xx/5xx (a refusal must stay one), or
            a header is not a valid field.
    """
    status, headers, body = problem
    if config.on_refuse is None:
        return problem
    default = Refusal(
        status=status,
        headers=tuple(pair for pair in headers if pair[0] != b"content-length"),
        body=body,
        findings=tuple(findings),
        request=request,
    )
    shaped = config.on_refuse(default)
    return _checked(shaped)


def _checked(refusal: object) -> Problem:
    if not isinstance(refusal, Refusal):
        raise TypeError(
            f"on_refuse must return a Refusal, not {type(refusal).__name__}"
        )
    status, headers, body = refusal.status, refusal.headers, refusal.body
    if not isinstance(status, int) or isinstance(status, bool):
        raise TypeError("on_refuse: status must be an int")
    if not 400 <= status <= 599:
        raise ValueError(f"on_refuse: status must be 4xx or 5xx, not {status}")
    if not isinstance(body, bytes):
        raise TypeError("on_refuse: body must be bytes")
    sent: list[tuple[bytes, bytes]] = []
    for pair in headers:
        if not (
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(isinstance(part, bytes) for part in pair)
        ):
            raise TypeError("on_refuse: headers must be (bytes, bytes) pairs")
        name, value = pair
        if not _FIELD_NAME.fullmatch(name) or _FIELD_VALUE_BAD.search(value):
            raise ValueError("on_refuse: invalid header field")
        if name.lower() != b"content-length":
            sent.append((name.lower(), value))
    sent.append((b"content-length", str(len(body)).encode("ascii")))
    return Problem(status, sent, body)
