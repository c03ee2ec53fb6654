"""Utf8GuardMiddleware: a pure ASGI adapter over the engine; it wraps receive/send only.

>>> async def app(scope, receive, send): ...
>>> guarded = Utf8GuardMiddleware(app, mode="block")
"""

from __future__ import annotations

from .adapter._asgi_receive import Replay, StreamingReceive, prepend, read_into
from .adapter._asgi_response import refuse_handshake, send_problem
from .adapter._asgi_scope import (
    ASGIApp,
    Receive,
    Scope,
    Send,
    has_body,
    head_from,
    with_head,
    with_length,
)

# Not in __all__, but imported from here by fuzz harnesses, tests and benchmarks.
from .adapter._asgi_scope import Message as Message
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
from .engine._finding import RequestSummary
from .engine._flow import BodyBuffer, BodyFlow, Route
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .engine._finding import ScopeType

# The ASGI 3 types live in adapter/_asgi_scope.py; they are public here.
__all__ = ["ASGIApp", "Receive", "Scope", "Send", "Utf8GuardMiddleware"]


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
        # Other scopes leave first: the test's jump stays short, which CPython 3.11
        # needs to specialize the comparison (no EXTENDED_ARG after it).
        if scope["type"] != "http":
            return await self._check(scope, receive, send)
        # Loaded as attributes, not methods: CPython 3.11 specializes LOAD_ATTR on an
        # instance attribute, while `self.app(...)` (LOAD_METHOD) searches the type's
        # MRO on every call; and asgi_plan is called directly, not through a partial.
        app = self.app
        plan = (
            self._plan_unless_excluded(scope)
            if self._excludes
            else asgi_plan(self._lane, scope)
        )
        if plan == NO_BODY:
            return await app(scope, receive, send)
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
                return await app(scope, prepend(message, receive), send)
            # Anything else the full check decides, on the same messages.
            receive = prepend(message, receive)
        return await self._check(scope, receive, send)

    async def _check(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The full check of an ``http`` or ``websocket`` scope; others pass."""
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        head = head_from(scope)
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
            scope = with_head(scope, verdict.head)
        if verdict.problem is not None:
            if kind == "http":
                await send_problem(send, verdict.problem)
            else:
                await refuse_handshake(scope, receive, send, verdict.problem)
            return
        if kind == "websocket":
            verdict.report.emit()
            await self.app(scope, receive, send)
            return
        headers = verdict.head.headers
        flow = BodyFlow(
            verdict, self.config, scope_type, has_body=has_body(scope, headers)
        )
        await self._respond(flow, scope, headers, receive, send)

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
        #: Whether an HTTP scope's plan must weigh exclude_paths first.
        self._excludes = bool(self.config.exclude_paths)

    def _plan_unless_excluded(self, scope: Scope) -> Plan:
        path = scope.get("path")
        if not isinstance(path, str) or may_be_excluded(path, self.config):
            return None
        return asgi_plan(self._lane, scope)

    async def _respond(
        self,
        flow: BodyFlow,
        scope: Scope,
        headers: Sequence[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
    ) -> None:
        """Run the app on ``scope`` with the body as the engine routes it."""
        try:
            route = flow.route
            if flow.problem is not None:  # Route.REFUSE
                await send_problem(send, flow.problem)
            elif route is Route.PASS or route is Route.EMPTY:
                # EMPTY: checked as empty without a receive(); the app reads the
                # server's.
                await self.app(scope, receive, send)
            elif route is Route.BUFFER:
                await self._buffered(flow.buffer(), scope, headers, receive, send)
            else:
                streaming = StreamingReceive(flow.gate(), receive, send)
                await self.app(scope, streaming.receive, streaming.send)
        finally:
            flow.close()

    async def _buffered(
        self,
        buffer: BodyBuffer,
        scope: Scope,
        headers: Sequence[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
    ) -> None:
        try:
            more = await read_into(buffer, receive, send)
            if more is None:
                return
            spool = buffer.release()
            if buffer.repaired:
                scope = with_length(scope, headers, spool.size)
            await self.app(scope, Replay(spool.chunks(), receive, more=more), send)
        finally:
            buffer.close()


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
