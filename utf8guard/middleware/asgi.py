"""Utf8GuardMiddleware: a pure ASGI adapter over the engine; it wraps receive/send only.

>>> async def app(scope, receive, send): ...
>>> guarded = Utf8GuardMiddleware(app, mode="block")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, MutableMapping, Sequence
from typing import TYPE_CHECKING, Final

from .._stream import repair_stream
from ._config import GuardConfig, GuardOptions, configure
from ._engine import BodyCheck, HeadVerdict, check_head
from ._exclude import is_excluded
from ._finding import RequestSummary, ScopeType
from ._problem import Problem
from ._report import summarize
from ._request import RequestHead
from ._spool import BodySpool

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["ASGIApp", "Receive", "Scope", "Send", "Utf8GuardMiddleware"]

# The ASGI 3 callable (asgiref's specification), without a framework dependency.
Scope = MutableMapping[str, object]
Message = MutableMapping[str, object]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_DISCONNECT: Final = {"type": "http.disconnect"}
#: A header is a ``[name, value]`` pair (ASGI HTTP connection scope).
_PAIR_LENGTH: Final = 2
#: ASGI websocket spec: the extension that lets a server send an HTTP response to a
#: refused handshake; without it, a close before accept (the server answers 403).
_WS_RESPONSE: Final = "websocket.http.response"
#: RFC 6455 §7.4.1: 1008 "policy violation".
_WS_POLICY_VIOLATION: Final = 1008


class Utf8GuardMiddleware:
    """Refuse requests with invalid UTF-8 before routing (Starlette, FastAPI, any ASGI).

    ``app.add_middleware(Utf8GuardMiddleware)`` or ``Utf8GuardMiddleware(app)``. Checks
    path (strict percent-decoding, traversal tricks), query, headers and the body of
    text, JSON, form and multipart requests; see :class:`GuardConfig` for the options
    and SECURITY.md for what each refusal stops. ``http`` and ``websocket`` scopes are
    checked; ``lifespan`` and other scopes pass through.

    Pass the options as keywords, or one ready :class:`GuardConfig` as ``config``
    (not both). Security-relevant defaults: ``mode="block"`` answers 400
    application/problem+json (413 over ``max_body_size``); the body of an inspected
    type is validated in full before the application sees a byte of it (held in
    memory up to ``memory_body_size``, then in a temporary file). ``stream_body=True``
    instead passes checked bytes on as they arrive and aborts the request at the
    first violation, after the application has seen the valid part before it.
    ``exclude_paths`` routes skip the query, header and body checks.

    Raises:
        ValueError: an unknown mode or a size that is not positive.
        TypeError: an option of the wrong type, or both ``config`` and options.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        config: GuardConfig | None = None,
        **options: Unpack[GuardOptions],
    ) -> None:
        self.app = app
        self.config = configure(config, options)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http" and kind != "websocket":
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
        exchange = _Exchange(self.app, self.config, verdict, scope)
        await exchange.run(receive, send)


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


def _has_no_body(scope: Scope, headers: Sequence[Sequence[bytes]]) -> bool:
    """RFC 9112 §6.3 item 7: an HTTP/1 request with neither Content-Length nor
    Transfer-Encoding has an empty body (HTTP/2 and 3 frame bodies without them)."""
    if scope.get("http_version") not in ("1.0", "1.1"):
        return False
    names = {bytes(pair[0]).lower() for pair in headers}
    return b"content-length" not in names and b"transfer-encoding" not in names


class _Exchange:
    """One HTTP request/response: reads and checks the body, then runs the app."""

    def __init__(
        self, app: ASGIApp, config: GuardConfig, verdict: HeadVerdict, scope: Scope
    ) -> None:
        self.app = app
        self.config = config
        self.head = verdict.head
        self.scope = scope
        self.body = BodyCheck(verdict.head.headers, config, "http", verdict.report)

    async def run(self, receive: Receive, send: Send) -> None:
        try:
            await self._run(receive, send)
        finally:
            self.body.close()

    async def _run(self, receive: Receive, send: Send) -> None:
        problem = self.body.refusal
        no_body = _has_no_body(self.scope, self.head.headers)
        if problem is None and self.body.inspected and no_body:
            problem = self.body.finish()  # checked as empty, without a receive()
            if problem is None:
                await self.app(self.scope, receive, send)
                return
        if problem is not None:
            await _send_problem(send, problem)
        elif not self.body.inspected:
            await self.app(self.scope, receive, send)
        elif self.config.stream_body or self.config.mode == "report":
            streaming = _StreamingReceive(self.body, receive, send, self.config.mode)
            await self.app(self.scope, streaming.receive, streaming.send)
        else:
            await self._buffered(receive, send)

    async def _buffered(self, receive: Receive, send: Send) -> None:
        spool = BodySpool(self.config.memory_body_size)
        try:
            more = await self._read_into(spool, receive, send)
            if more is None:
                return
            if self.body.needs_repair:
                spool = self._repaired(spool)
            replay = _Replay(spool.chunks(), receive, more=more)
            await self.app(self.scope, replay, send)
        finally:
            spool.close()

    async def _read_into(
        self, spool: BodySpool, receive: Receive, send: Send
    ) -> bool | None:
        """Read and check the body into ``spool``.

        None if it was refused or the client left; else whether more body messages
        follow unread (a body of a binary type that turned out not to be JSON).
        """
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = _body_of(message)
            more = bool(message.get("more_body", False))
            problem = self.body.feed(chunk) or (None if more else self.body.finish())
            if problem is not None:
                await _send_problem(send, problem)
                return None
            spool.append(chunk)
            if not self.body.inspected:
                return more
        return False

    def _repaired(self, spool: BodySpool) -> BodySpool:
        """The body with each invalid sequence replaced; Content-Length to match."""
        fixed = BodySpool(self.config.memory_body_size)
        for piece in repair_stream(spool.chunks(), self.config.policy):
            fixed.append(piece)
        spool.close()
        length = str(fixed.size).encode("ascii")
        self.scope = dict(self.scope)
        self.scope["headers"] = [
            [name, length if name.lower() == b"content-length" else value]
            for name, value in self.head.headers
        ]
        return fixed


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
    """Checks each body message as the app receives it (stream_body, report mode).

    Only bytes known clean are passed on; an unfinished sequence at a chunk's end
    waits for the next chunk. In block and normalize modes the first violation ends
    the request: a 400 if the app has not started its response, and in any case a
    ``http.disconnect`` to the app, whose further messages are dropped.
    """

    def __init__(
        self, body: BodyCheck, receive: Receive, send: Send, mode: str
    ) -> None:
        self._body = body
        self._receive = receive
        self._send = send
        self._report_only = mode == "report"
        self._held = b""
        self._forwarded = 0
        self._started = False
        self._aborted = False

    async def receive(self) -> Message:
        if self._aborted:
            return dict(_DISCONNECT)
        message = await self._receive()
        if message["type"] != "http.request":
            return message
        chunk = _body_of(message)
        more = bool(message.get("more_body", False))
        problem = self._body.feed(chunk) or (None if more else self._body.finish())
        if self._report_only:
            return message
        if problem is not None:
            self._aborted = True
            if not self._started:
                self._started = True
                await _send_problem(self._send, problem)
            return dict(_DISCONNECT)
        data = self._held + chunk if self._held else chunk
        ready = len(data) if not more else self._body.checked - self._forwarded
        self._held = data[ready:]
        self._forwarded += ready
        forward = data if ready == len(data) else data[:ready]
        return {"type": "http.request", "body": forward, "more_body": more}

    async def send(self, message: Message) -> None:
        if self._aborted:
            return
        if message["type"] == "http.response.start":
            self._started = True
        await self._send(message)
