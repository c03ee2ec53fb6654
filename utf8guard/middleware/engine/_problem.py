"""application/problem+json (RFC 9457) for 400 and 413; never echoes request bytes."""

from __future__ import annotations

from ._finding import Finding, title

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final, NamedTuple
else:
    from ..._named_tuple import NamedTuple

__all__ = [
    "INVALID_TYPE",
    "KIND_TYPE",
    "TOO_LARGE_TYPE",
    "Problem",
    "invalid_request",
    "too_large",
]

#: RFC 9457 §3.1.1: a type URI "SHOULD" resolve to documentation of the problem
#: (issue 26): one page per kind, ``kinds/<kind>/``, its RequestKind, Kind or
#: PathKind value.
KIND_TYPE: Final = "https://utf8guard.readthedocs.io/en/stable/kinds/{kind}/"
#: The 400 type when no finding is listed (a hook may drop them; never by default).
INVALID_TYPE: Final = "https://utf8guard.readthedocs.io/en/stable/kinds/"
TOO_LARGE_TYPE: Final = (
    "https://utf8guard.readthedocs.io/en/stable/kinds/body_too_large/"
)
#: RFC 9457 §3: the media type of a problem document.
MEDIA_TYPE: Final = b"application/problem+json"


class Problem(NamedTuple):
    """A refusal's response, ready to send."""

    status: int
    #: lower-case names, Content-Length last
    headers: list[tuple[bytes, bytes]]
    body: bytes


def _problem(status: int, document: dict[str, object]) -> Problem:
    # json and its regexes are 2% of the middleware's import: the first refusal pays.
    import json

    # ensure_ascii: the document is plain ASCII whatever a name holds.
    body = json.dumps(document, ensure_ascii=True, separators=(",", ":")).encode()
    headers = [
        (b"content-type", MEDIA_TYPE),
        (b"content-length", str(len(body)).encode("ascii")),
    ]
    return Problem(status, headers, body)


def invalid_request(
    findings: Sequence[Finding], *, total: int | None = None
) -> Problem:
    """The 400 problem for ``findings``: location, name (when known), kind, offset.

    ``count`` (an RFC 9457 §3.2 extension member) says how many findings there were
    in all: ``total`` when the caller listed only the first of them, else as many as
    are listed.

    >>> import json
    >>> from utf8guard.middleware.engine._finding import Finding, Location, RequestKind
    >>> status, _, body = invalid_request(
    ...     [Finding(Location.PATH, None, RequestKind.ENCODED_SEPARATOR, 4)])
    >>> status, json.loads(body)["violations"]
    (400, [{'location': 'path', 'kind': 'encoded_separator', 'offset': 4}])
    """
    violations: list[dict[str, object]] = []
    for finding in findings:
        entry: dict[str, object] = {"location": finding.location.value}
        if finding.name is not None:
            entry["name"] = finding.name
        entry |= {"kind": finding.kind.value, "offset": finding.offset}
        violations.append(entry)
    first = findings[0].kind if findings else None
    return _problem(
        400,
        {
            "type": INVALID_TYPE if first is None else KIND_TYPE.format(kind=first),
            "title": title(first),
            "status": 400,
            "detail": "The request holds bytes that are not valid UTF-8 or that the "
            "server refuses; see violations for where.",
            "violations": violations,
            "count": len(violations) if total is None else total,
        },
    )


def too_large(limit_bytes: int) -> Problem:
    """The 413 problem for a body over ``limit_bytes``."""
    return _problem(
        413,
        {
            "type": TOO_LARGE_TYPE,
            "title": "Request body too large",
            "status": 413,
            "detail": f"The body exceeds the limit of {limit_bytes} bytes for its "
            "content type.",
        },
    )
