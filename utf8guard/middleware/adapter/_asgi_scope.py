"""The ASGI scope: its types, the head read from it and put back, whether a body comes.

The types are the ASGI 3 callable of asgiref's specification, without a framework
dependency. A scope's values are the server's: odd types are read as empty, so the
engine refuses them rather than the adapter raising.
"""

from __future__ import annotations

# collections.abc's classes are _collections_abc's, which os imported at start-up;
# collections itself would cost the ASGI cold start 7 M instructions (issue 28).
from _collections_abc import Awaitable, Callable, MutableMapping, Sequence

from ..head._request import RequestHead

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "ASGIApp",
    "Message",
    "Receive",
    "Scope",
    "Send",
    "has_body",
    "head_from",
    "with_head",
    "with_length",
]

Scope = MutableMapping[str, object]
Message = MutableMapping[str, object]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The HTTP versions whose framing says when a request has no body (RFC 9112 §6.3).
_HTTP1: Final = ("1.0", "1.1")
#: A header is a ``[name, value]`` pair (ASGI HTTP connection scope).
_PAIR_LENGTH: Final = 2


def head_from(scope: Scope) -> RequestHead:
    """The request head from an ASGI scope; odd types count as empty (then refused)."""
    path = scope.get("path")
    raw_path = scope.get("raw_path")
    # raw_path is the path component. A server that leaves the query on it gets it
    # checked as path, strictly: the app sees those bytes too.
    raw_path = raw_path if isinstance(raw_path, bytes) else None
    query = scope.get("query_string")
    headers = scope.get("headers")
    return RequestHead(
        path=path if isinstance(path, str) else "",
        raw_path=raw_path,
        query_string=query if isinstance(query, bytes) else b"",
        headers=tuple(map(_header_pair, headers))
        if isinstance(headers, list | tuple)
        else (),
    )


def _header_pair(pair: object) -> tuple[bytes, bytes]:
    """A ``[name, value]`` pair of bytes (ASGI spec); anything else, an empty name.

    An empty name is no RFC 9110 token, so a malformed pair from a server is
    refused (``invalid_header_name``) rather than raising.
    """
    if isinstance(pair, list | tuple) and len(pair) == _PAIR_LENGTH:
        name, value = pair
        if isinstance(name, bytes) and isinstance(value, bytes):
            return name, value
    return b"", b""


def with_head(scope: Scope, head: RequestHead) -> Scope:
    """A copy of ``scope`` carrying the normalised head (the server's stays intact)."""
    changed = dict(scope)
    changed["path"] = head.path
    changed["raw_path"] = head.raw_path
    changed["query_string"] = head.query_string
    changed["headers"] = [list(pair) for pair in head.headers]
    return changed


def with_length(
    scope: Scope, headers: Sequence[tuple[bytes, bytes]], size: int
) -> Scope:
    """A copy of ``scope`` with ``headers``, Content-Length set to ``size``."""
    length = str(size).encode("ascii")
    changed = dict(scope)
    changed["headers"] = [
        [name, length if name.lower() == b"content-length" else value]
        for name, value in headers
    ]
    return changed


def has_body(scope: Scope, headers: Sequence[tuple[bytes, bytes]]) -> bool:
    """False when RFC 9112 §6.3 item 7 says there is no body: an HTTP/1 request with
    neither Content-Length nor Transfer-Encoding (HTTP/2 and 3 frame bodies without
    them)."""
    if scope.get("http_version") not in _HTTP1:
        return True
    names = {name.lower() for name, _ in headers}
    return b"content-length" in names or b"transfer-encoding" in names
