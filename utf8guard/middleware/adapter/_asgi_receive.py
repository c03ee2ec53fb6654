"""The body's messages for the ASGI adapter: read, replay, checked streaming.

ASGI hands a body over in ``http.request`` messages, each saying whether more
follow (``more_body``). What may be handed over, and when, is the engine's
(:mod:`..engine._flow`); this module only receives the server's messages and gives
the app the messages it should receive.
"""

from __future__ import annotations

from ..._accel import IMPLEMENTATION
from ..engine._flow import BodyBuffer, StreamGate
from ._asgi_response import send_problem
from ._asgi_scope import Message, Receive, Send

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterator
    from typing import Final

__all__ = ["Replay", "StreamingReceive", "prepend", "py_prepend", "read_into"]

_DISCONNECT: Final = {"type": "http.disconnect"}


def py_prepend(message: Message, receive: Receive) -> Receive:
    """``receive`` that gives ``message`` first, then the server's messages.

    Its first call returns an awaitable that completes at once with ``message``;
    every later call returns ``receive()`` itself, so the app awaits the server's
    own. The C twin (``_speedups.prepend``) does the same without a Python frame.
    """
    held = [message]

    def replay() -> Awaitable[Message]:
        return _ready(held.pop()) if held else receive()

    return replay


async def _ready(message: Message) -> Message:
    return message


#: The active implementation: the C accelerator's when active.
prepend: Callable[[Message, Receive], Receive]
if IMPLEMENTATION == "c":
    from ..._speedups import prepend
else:
    prepend = py_prepend


def _body_of(message: Message) -> bytes:
    body = message.get("body", b"")
    if not isinstance(body, bytes):
        raise TypeError(f"ASGI message body must be bytes, not {type(body).__name__}")
    return body


async def read_into(buffer: BodyBuffer, receive: Receive, send: Send) -> bool | None:
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
            await send_problem(send, problem)
            return None
        if not more or buffer.passing:
            return more


class Replay:
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


class StreamingReceive:
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
            await send_problem(self._send, problem)
        return dict(_DISCONNECT)

    async def send(self, message: Message) -> None:
        if self._aborted:
            return
        if message["type"] == "http.response.start":
            self._started = True
        await self._send(message)
