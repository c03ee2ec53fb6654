"""Utf8GuardMiddleware: a pure ASGI adapter over the engine; it wraps receive/send only.

>>> async def app(scope, receive, send): ...
>>> guarded = Utf8GuardMiddleware(app, mode="block")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, MutableMapping, Sequence
from functools import partial
from typing import Final

from .adapter._guard import (
    DJANGO_CLASS,
    WSGI_CLASS,
    Guard,
    app_name,
    is_async_callable,
)
from .engine._config import GuardConfig
from .engine._engine import check_head
from .engine._exclude import is_excluded, may_be_excluded
from .engine._finding import RequestSummary, ScopeType
from .engine._flow import BodyBuffer, BodyFlow, Route, StreamGate
from .engine._problem import Problem
from .engine._report import summarize
from .head._fast import (
    NO_BODY,
    Lane,
    Plan,
    asgi_plan,
    is_clean_whole,
    lane_for,
    whole_body,
    whole_plain_json,
)
from .head._request import RequestHead

__all__ = ["ASGIApp", "Receive", "Scope", "Send", "Utf8GuardMiddleware"]

# The ASGI 3 callable (asgiref's specification), without a framework dependency.
Scope = MutableMapping[str, object]
Message = MutableMapping[str, object]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_DISCONNECT: Final = {"type": "http.disconnect"}
#: The HTTP versions whose framing says when a request has no body (RFC 9112 §6.3).
_HTTP1: Final = ("1.0", "1.1")
#: A header is a ``[name, value]`` pair (ASGI HTTP connection scope).
_PAIR_LENGTH: Final = 2
#: ASGI websocket spec: the extension that lets a server send an HTTP response to a
#: refused handshake; without it, a close before accept (the server answers 403).
_WS_RESPONSE: Final = "websocket.http.response"
#: RFC 6455 §7.4.1: 1008 "policy violation".
_WS_POLICY_VIOLATION: Final = 1008


class Utf8GuardMiddleware(Guard[ASGIApp]):
    """Refuse requests with invalid UTF-8 before routing (Starlette, FastAPI, any ASGI).

    ``app.add_middleware(Utf8GuardMiddleware)`` or ``Utf8GuardMiddleware(app)``. Checks
    path (strict percent-decoding, traversal tricks), query, headers and the body of
    text, JSON, form and multipart requests; see :class:`GuardConfig` for the options
    (keywords, or one ``config``) and SECURITY.md for what each refusal stops.
    ``http`` and ``websocket`` scopes are checked; ``lifespan`` and other scopes pass
    through; ``exclude_paths`` routes skip the query, header and body checks.

    Security-relevant defaults: ``mode="block"`` answers 400 application/problem+json
    (413 over ``max_body_size``). An inspected body is received and validated in full
    before the application sees a byte of it (held in memory up to
    ``memory_body_size``, then in a temporary file). ``stream_body=True`` instead
    passes checked bytes on as they arrive and aborts the request at the first
    violation, after the application has seen the valid part before it.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The lane: a clean request in two C calls (or their Python twins). A small
        # frame (cold on every request in a server); the full check's is _check's.
        if scope["type"] == "http":
            plan = self._plan(scope)
            if plan == NO_BODY:
                return await self.app(scope, receive, send)
            if plan is not None:
                message = await receive()
                # A JSON type's length: one call for the common body.
                if (
                    type(plan) is int and whole_plain_json(self._lane, message, plan)
                ) or is_clean_whole(
                    whole_body(message, plan if isinstance(plan, int) else plan[0]),
                    plan,
                    self._lane,
                    self.config,
                ):
                    return await self.app(scope, _prepend(message, receive), send)
                # Anything else the full check decides, on the same messages.
                receive = _prepend(message, receive)
        return await self._check(scope, receive, send)

    async def _check(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The full check of an ``http`` or ``websocket`` scope; others pass."""
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        head = _head(scope)
        if is_excluded(head, self.config):
            await self.app(scope, receive, send)
            return
        scope_type: ScopeType = "http" if kind == "http" else "websocket"
        # What the server said, taken now: the app may rewrite its scope (a proxy
        # headers middleware sets "client") before a body finding is reported.
        method, peer = scope.get("method", "GET"), scope.get("client")
        verdict = check_head(
            head,
            self.config,
            scope_type,
            lambda: _summary(head, method, peer, scope_type, self.config),
        )
        if verdict.head is not head:
            scope = _with_head(scope, verdict.head)
        if verdict.problem is not None:
            if kind == "http":
                await _send_problem(send, verdict.problem)
            else:
                await _refuse_handshake(scope, receive, send, verdict.problem)
            return
        if kind == "websocket":
            verdict.report.emit()
            await self.app(scope, receive, send)
            return
        has_body = _has_body(scope, verdict.head.headers)
        flow = BodyFlow(verdict, self.config, scope_type, has_body=has_body)
        await _Exchange(self.app, flow, scope, verdict.head.headers).run(receive, send)

    def _misuse(self, app: object) -> str | None:
        if is_async_callable(app):
            return None
        return (
            f"Utf8GuardMiddleware wraps an ASGI app (an async callable), not "
            f"{app_name(app)}: for a WSGI app use {WSGI_CLASS}, in Django's "
            f"MIDDLEWARE {DJANGO_CLASS}"
        )

    def _ready(self) -> None:
        # Plain attributes, read through the interpreter's per-site cache; a
        # cached_property on the class sends every read through the type's MRO.
        self._lane: Lane = lane_for(self.config)
        #: asgi_plan for an HTTP scope (None: the full check).
        self._plan: Callable[[Scope], Plan] = (
            self._plan_unless_excluded
            if self.config.exclude_paths
            else partial(asgi_plan, self._lane)
        )

    def _plan_unless_excluded(self, scope: Scope) -> Plan:
        path = scope.get("path")
        if not isinstance(path, str) or may_be_excluded(path, self.config):
            return None
        return asgi_plan(self._lane, scope)


def _prepend(message: Message, receive: Receive) -> Receive:
    """``receive`` that gives ``message`` first, then the server's messages (a
    closure: the interpreter calls it without an object's ``__call__`` lookup)."""
    first: Message | None = message

    async def replay() -> Message:
        nonlocal first
        if first is None:
            return await receive()
        message, first = first, None
        return message

    return replay


def _summary(
    head: RequestHead,
    method: object,
    client: object,
    scope_type: ScopeType,
    config: GuardConfig,
) -> RequestSummary:
    """The request's summary for the log; built only when there is one to write."""
    return summarize(
        head,
        method=method.encode() if isinstance(method, str) else b"",
        client=client,
        scope_type=scope_type,
        config=config,
    )


def _head(scope: Scope) -> RequestHead:
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


def _with_head(scope: Scope, head: RequestHead) -> Scope:
    """A copy of ``scope`` carrying the normalised head (the server's stays intact)."""
    changed = dict(scope)
    changed["path"] = head.path
    changed["raw_path"] = head.raw_path
    changed["query_string"] = head.query_string
    changed["headers"] = [list(pair) for pair in head.headers]
    return changed


async def _send_problem(send: Send, problem: Problem) -> None:
    status, headers, body = problem
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _refuse_handshake(
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


def _body_of(message: Message) -> bytes:
    body = message.get("body", b"")
    if not isinstance(body, bytes):
        raise TypeError(f"ASGI message body must be bytes, not {type(body).__name__}")
    return body


def _has_body(scope: Scope, headers: Sequence[tuple[bytes, bytes]]) -> bool:
    """False when RFC 9112 §6.3 item 7 says there is no body: an HTTP/1 request with
    neither Content-Length nor Transfer-Encoding (HTTP/2 and 3 frame bodies without
    them)."""
    if scope.get("http_version") not in _HTTP1:
        return True
    names = {name.lower() for name, _ in headers}
    return b"content-length" in names or b"transfer-encoding" in names


class _Exchange:
    """One HTTP request/response: takes the body the engine's way, then runs the app."""

    def __init__(
        self,
        app: ASGIApp,
        flow: BodyFlow,
        scope: Scope,
        headers: Sequence[tuple[bytes, bytes]],
    ) -> None:
        self.app = app
        self.flow = flow
        self.scope = scope
        self.headers = headers

    async def run(self, receive: Receive, send: Send) -> None:
        try:
            await self._run(receive, send)
        finally:
            self.flow.close()

    async def _run(self, receive: Receive, send: Send) -> None:
        route = self.flow.route
        if self.flow.problem is not None:  # Route.REFUSE
            await _send_problem(send, self.flow.problem)
        elif route is Route.PASS or route is Route.EMPTY:
            # EMPTY: checked as empty without a receive(); the app reads the server's.
            await self.app(self.scope, receive, send)
        elif route is Route.BUFFER:
            await self._buffered(receive, send)
        else:
            streaming = _StreamingReceive(self.flow.gate(), receive, send)
            await self.app(self.scope, streaming.receive, streaming.send)

    async def _buffered(self, receive: Receive, send: Send) -> None:
        buffer = self.flow.buffer()
        try:
            more = await _read_into(buffer, receive, send)
            if more is None:
                return
            spool = buffer.release()
            if buffer.repaired:
                self.scope = _with_length(self.scope, self.headers, spool.size)
            replay = _Replay(spool.chunks(), receive, more=more)
            await self.app(self.scope, replay, send)
        finally:
            buffer.close()


async def _read_into(buffer: BodyBuffer, receive: Receive, send: Send) -> bool | None:
    """Receive the body into ``buffer``; on a refusal, send it.

    None if it was refused or the client left; else whether more body messages
    follow unread (a body of a binary type that turned out not to be JSON).
    """
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        more = bool(message.get("more_body", False))
        problem = buffer.feed(_body_of(message), last=not more)
        if problem is not None:
            await _send_problem(send, problem)
            return None
        if not more or buffer.passing:
            return more


def _with_length(
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


class _Replay:
    """``receive`` for the app: the checked body again, then the server's receive.

    ``more``: the server has more body messages after the replayed ones.
    """

    def __init__(
        self, pieces: Iterator[bytes], receive: Receive, *, more: bool
    ) -> None:
        self._pieces = pieces
        self._next = next(pieces, None)
        self._receive = receive
        self._more = more
        self._done = False

    async def __call__(self) -> Message:
        if self._done:
            return await self._receive()
        piece, self._next = self._next, next(self._pieces, None)
        self._done = self._next is None
        return {
            "type": "http.request",
            "body": b"" if piece is None else piece,
            "more_body": self._more or not self._done,
        }


class _StreamingReceive:
    """``receive`` and ``send`` for the app while the gate checks the body.

    Each body message carries the bytes the gate releases. At a refusal (block and
    normalize modes) the request ends: a 400 if the app has not started its
    response, and in any case a ``http.disconnect`` to the app, whose further
    messages are dropped.
    """

    def __init__(self, gate: StreamGate, receive: Receive, send: Send) -> None:
        self._gate = gate
        self._receive = receive
        self._send = send
        self._started = False
        self._aborted = False

    async def receive(self) -> Message:
        if self._aborted:
            return dict(_DISCONNECT)
        message = await self._receive()
        if message["type"] != "http.request":
            return message
        more = bool(message.get("more_body", False))
        released = self._gate.feed(_body_of(message), last=not more)
        problem = self._gate.problem
        if problem is None:
            return {"type": "http.request", "body": released, "more_body": more}
        self._aborted = True
        if not self._started:
            self._started = True
            await _send_problem(self._send, problem)
        return dict(_DISCONNECT)

    async def send(self, message: Message) -> None:
        if self._aborted:
            return
        if message["type"] == "http.response.start":
            self._started = True
        await self._send(message)
