"""A request body's way through the guard, without I/O: pass, stream or buffer.

:class:`~._engine.BodyCheck` weighs what the body holds; this module decides what
happens to its bytes. :class:`BodyFlow` picks the route once the head has passed,
:class:`StreamGate` says which bytes the app may have while it reads, and
:class:`BodyBuffer` holds a body checked in full before the app runs, repaired in
normalize mode. The adapters only translate: ASGI messages, or WSGI's ``environ`` and
``wsgi.input``.
"""

from __future__ import annotations

from ..._constant import Constant
from ..._stream import repair_stream
from ._config import GuardConfig
from ._engine import BodyCheck, HeadVerdict
from ._problem import Problem
from ._spool import BodySpool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._finding import ScopeType

__all__ = ["BodyBuffer", "BodyFlow", "Route", "StreamGate"]


class Route(Constant):
    """What an adapter does with a request's body."""

    #: Refused before a byte is read: :attr:`BodyFlow.problem` is the response.
    REFUSE = 1
    #: Not inspected (a binary type): the app reads the server's body untouched.
    PASS = 2
    #: RFC 9112 §6.3 item 7, PEP 3333: the request has no body; checked as empty.
    EMPTY = 3
    #: Report mode: the app reads every byte as sent; the findings are only reported.
    OBSERVE = 4
    #: ``stream_body``: checked bytes reach the app as it reads; a violation ends it.
    STREAM = 5
    #: Read and checked in full (repaired in normalize mode) before the app runs.
    BUFFER = 6


class BodyFlow:
    """One request body: its check, and the route its bytes take to the app.

    ``route`` is :attr:`Route.REFUSE` exactly when ``problem`` is set: framing, a
    refused charset, a declared size over the limit, or an empty body that fails.
    ``has_body`` is the adapter's reading of the framing: False when the request
    carries no body at all.
    """

    def __init__(
        self,
        verdict: HeadVerdict,
        config: GuardConfig,
        scope_type: ScopeType,
        *,
        has_body: bool,
    ) -> None:
        self._config = config
        self.check = BodyCheck(verdict.head.headers, config, scope_type, verdict.report)
        self.problem: Problem | None = self.check.refusal
        self.route = self._route(has_body=has_body)

    def _route(self, *, has_body: bool) -> Route:
        if self.problem is not None:
            return Route.REFUSE
        if not self.check.inspected:
            return Route.PASS
        if not has_body:
            self.problem = self.check.finish()
            return Route.EMPTY if self.problem is None else Route.REFUSE
        if self._config.mode == "report":
            return Route.OBSERVE
        return Route.STREAM if self._config.stream_body else Route.BUFFER

    def gate(self) -> StreamGate:
        """The gate for :attr:`Route.OBSERVE` and :attr:`Route.STREAM`."""
        return StreamGate(self.check, observe=self.route is Route.OBSERVE)

    def buffer(self) -> BodyBuffer:
        """The buffer for :attr:`Route.BUFFER`; close it when the app is done."""
        return BodyBuffer(self.check, self._config)

    def close(self) -> None:
        """The request is over: send its report if the body has not yet."""
        self.check.close()


class StreamGate:
    """Which body bytes the app may have as they arrive (``stream_body``, report mode).

    Only bytes known clean are released; an unfinished sequence at a chunk's end
    waits for the next chunk, and the last chunk releases all. A refusal sets
    ``problem`` and releases nothing more: the app must not take a cut-off body for
    a whole one. ``observe`` (report mode) releases every byte unchanged.
    """

    def __init__(self, check: BodyCheck, *, observe: bool) -> None:
        self._check = check
        self._observe = observe
        self._held = b""
        self._released = 0
        self.problem: Problem | None = None

    def feed(self, chunk: bytes, *, last: bool) -> bytes:
        """Check ``chunk`` (``last``: the body ends with it); the bytes to release."""
        if self._refused(self._check.feed(chunk, last=last)):
            return b""
        if self._observe:
            return chunk
        data = self._held + chunk if self._held else chunk
        ready = len(data) if last else self._check.checked - self._released
        self._held = data[ready:]
        self._released += ready
        return data if ready == len(data) else data[:ready]

    def end(self) -> bytes:
        """The input ended without a last chunk: check the end; release what is held."""
        held, self._held = self._held, b""
        return b"" if self._refused(self._check.finish()) else held

    def unreadable(self) -> bool:
        """The server failed to deliver the body; whether that refuses it (not in
        report mode, where the read error stands)."""
        return self._refused(self._check.unreadable())

    def _refused(self, problem: Problem | None) -> bool:
        if problem is not None:
            self.problem = problem
        return self.problem is not None


class BodyBuffer:
    """A body read and checked in full before the app runs, kept in a spool.

    Feed the chunks until one is refused, the last is in, or :attr:`passing` turns
    True (a binary type whose first bytes are not JSON: the rest passes unread).
    Then :meth:`release` gives the body for the app.
    """

    def __init__(self, check: BodyCheck, config: GuardConfig) -> None:
        self._check = check
        self._config = config
        self.spool = BodySpool(config.memory_body_size)

    @property
    def passing(self) -> bool:
        """Whether the rest of the body passes unread (not inspected after all)."""
        return not self._check.inspected

    @property
    def repaired(self) -> bool:
        """Whether :meth:`release` repairs the body (normalize mode): a new size."""
        return self._check.needs_repair

    def feed(self, chunk: bytes, *, last: bool = False) -> Problem | None:
        """Check ``chunk`` and keep it; a problem means refuse the request."""
        problem = self._check.feed(chunk, last=last)
        if problem is None:
            self.spool.append(chunk)
        return problem

    def end(self) -> Problem | None:
        """The input ended (unless the last chunk said so): check the end."""
        return self._check.finish()

    def unreadable(self) -> Problem | None:
        """The server failed to deliver the body: the refusal (None in report mode)."""
        return self._check.unreadable()

    def release(self) -> BodySpool:
        """The checked body; in normalize mode each invalid sequence replaced."""
        if self._check.needs_repair:
            fixed = BodySpool(self._config.memory_body_size)
            try:
                for piece in repair_stream(self.spool.chunks(), self._config.policy):
                    fixed.append(piece)
            finally:
                self.spool.close()
            self.spool = fixed
        return self.spool

    def close(self) -> None:
        """The request is over: drop the body (its temporary file, if any) and send
        the report if not yet sent; a second close is harmless."""
        self.spool.close()
        self._check.close()
