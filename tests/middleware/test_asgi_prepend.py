"""The lane's ``receive`` for the app: the held message first, then the server's.

``adapter._asgi_receive.py_prepend`` is the reference and ``_speedups.prepend`` its C
twin (one object that is the callable and its first call's awaitable); each test runs
on both. The contract (ASGI 3: ``receive`` is an awaitable callable): the first call's
awaitable completes with the held message itself, every later call returns the
server's ``receive()`` itself, so the app meets the server's messages in the server's
order, whatever their type (``more_body`` pieces, ``http.disconnect``).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Awaitable, Callable, Generator
from types import FrameType
from typing import Any

import pytest

from utf8guard.middleware.adapter import _asgi_receive
from utf8guard.middleware.adapter._asgi_receive import py_prepend
from utf8guard.middleware.asgi import Message, Receive

Prepend = Callable[[Message, Receive], Receive]
TWINS: list[Prepend] = [py_prepend]
try:
    from utf8guard import _speedups
except ImportError:  # pragma: no cover - the accelerator is optional
    pass
else:
    TWINS.append(_speedups.prepend)
IDS = ["py", "c"][: len(TWINS)]


def _server(*messages: Message) -> tuple[Receive, list[Message]]:
    """A server's receive handing out ``messages`` in order, and what is left."""
    inbox = list(messages)

    async def receive() -> Message:
        return inbox.pop(0)

    return receive, inbox


def _run(awaitable: Awaitable[Message]) -> Message:
    async def main() -> Message:
        return await awaitable

    return asyncio.run(main())


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_held_message_then_the_servers_in_order(prepend: Prepend) -> None:
    held: Message = {"type": "http.request", "body": b"{}", "more_body": True}
    pieces: list[Message] = [
        {"type": "http.request", "body": b"a", "more_body": True},
        {"type": "http.request", "body": b"", "more_body": False},
        {"type": "http.disconnect"},
    ]
    receive, inbox = _server(*pieces)
    replay = prepend(held, receive)

    async def app() -> list[Message]:
        return [await replay() for _ in range(4)]

    got = asyncio.run(app())
    assert got[0] is held
    assert all(a is b for a, b in zip(got[1:], pieces, strict=True))
    assert inbox == []


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_later_calls_return_the_servers_own_awaitable(prepend: Prepend) -> None:
    made: list[Awaitable[Message]] = []

    def receive() -> Awaitable[Message]:
        made.append(asyncio.sleep(0, {"type": "http.disconnect"}))
        return made[-1]

    replay = prepend({"type": "http.request"}, receive)
    first = replay()
    assert made == []  # the held message needs no call of the server's receive
    second, third = replay(), replay()
    assert made == [second, third]
    assert _run(first) == {"type": "http.request"}
    assert _run(second) == {"type": "http.disconnect"}
    assert _run(third) == {"type": "http.disconnect"}


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_the_first_call_takes_the_message_even_if_awaited_later(
    prepend: Prepend,
) -> None:
    """Calls, not awaits, decide the order (the ASGI app awaits what it calls)."""
    held: Message = {"type": "http.request"}
    receive, _ = _server({"type": "http.disconnect"})
    replay = prepend(held, receive)
    first, second = replay(), replay()
    assert _run(second) == {"type": "http.disconnect"}
    assert _run(first) is held


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_an_awaitable_is_awaited_once(prepend: Prepend) -> None:
    receive, _ = _server()
    first = prepend({"type": "http.request"}, receive)()

    async def twice() -> None:
        await first
        await first

    with pytest.raises(RuntimeError, match="cannot reuse already awaited coroutine"):
        asyncio.run(twice())


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_receive_takes_no_arguments(prepend: Prepend) -> None:
    receive, _ = _server()
    replay: Callable[..., object] = prepend({"type": "http.request"}, receive)
    with pytest.raises(TypeError):
        replay(1)
    with pytest.raises(TypeError):
        replay(timeout=1)


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_the_servers_error_reaches_the_app(prepend: Prepend) -> None:
    async def receive() -> Message:
        raise OSError("connection lost")

    replay = prepend({"type": "http.request"}, receive)
    assert _run(replay()) == {"type": "http.request"}
    with pytest.raises(OSError, match="connection lost"):
        _run(replay())


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_under_a_tracer(prepend: Prepend) -> None:
    """A tracer (coverage, a debugger) makes ``await`` iterate instead of send."""
    held: Message = {"type": "http.request", "body": b"x"}
    receive, _ = _server({"type": "http.disconnect"})
    replay = prepend(held, receive)

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        got = [_run(replay()), _run(replay())]
    finally:
        sys.settrace(previous)
    assert got == [held, {"type": "http.disconnect"}]


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_the_awaitable_by_hand(prepend: Prepend) -> None:
    """``__await__`` as asyncio's ``ensure_future`` drives a non-coroutine."""
    held: Message = {"type": "http.request"}
    receive, _ = _server()
    steps: Generator[Any, None, Message] = prepend(held, receive)().__await__()
    with pytest.raises(StopIteration) as stop:
        next(steps)
    assert stop.value.value is held


class _Holder:
    """A message-like object that refers back to the receive holding it."""

    replay: object = None


@pytest.mark.parametrize("prepend", TWINS, ids=IDS)
def test_a_cycle_through_the_receive_is_collected(prepend: Prepend) -> None:
    holder = _Holder()
    receive, _ = _server()
    holder.replay = prepend(holder, receive)  # type: ignore[arg-type]
    gone = weakref.ref(holder)
    del holder
    gc.collect()
    assert gone() is None


def test_the_active_twin() -> None:
    from utf8guard._accel import IMPLEMENTATION

    expected = TWINS[-1] if IMPLEMENTATION == "c" else py_prepend
    assert _asgi_receive.prepend is expected
