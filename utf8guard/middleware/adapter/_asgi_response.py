"""The ASGI adapter's side of the response: a refusal, over HTTP or to a websocket."""

from __future__ import annotations

from ..engine._problem import Problem
from ._asgi_scope import Receive, Scope, Send

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["refuse_handshake", "send_problem"]

#: ASGI websocket spec: the extension that lets a server send an HTTP response to a
#: refused handshake; without it, a close before accept (the server answers 403).
_WS_RESPONSE: Final = "websocket.http.response"
#: RFC 6455 §7.4.1: 1008 "policy violation".
_WS_POLICY_VIOLATION: Final = 1008


async def send_problem(send: Send, problem: Problem) -> None:
    """Answer with ``problem``: ``http.response.start``, then its body."""
    status, headers, body = problem
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def refuse_handshake(
    scope: Scope, receive: Receive, send: Send, problem: Problem
) -> None:
    """Refuse a websocket handshake: a 400 problem where the server can, else 1008."""
    await receive()  # websocket.connect
    extensions = scope.get("extensions")
    if isinstance(extensions, dict) and _WS_RESPONSE in extensions:
        status, headers, body = problem
        start = {"type": "websocket.http.response.start", "status": status}
        await send(start | {"headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
        return
    await send({"type": "websocket.close", "code": _WS_POLICY_VIOLATION})
