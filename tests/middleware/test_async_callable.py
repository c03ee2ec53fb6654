"""is_async_callable answers as ``inspect`` does, and builds an ASGI guard without it.

The oracle is the reading Starlette's ``is_async_callable`` makes with ``inspect``:
``functools.partial`` unwrapped, then ``inspect.iscoroutinefunction`` of the object
or of its ``__call__``. Issue 28: ``inspect`` (with ``ast``, ``dis``, ``tokenize``)
costs a cold start about as much as the middleware's own modules, so the common
ASGI apps (an ``async def`` function, an object whose ``__call__`` is one) are
recognised from their code flag alone.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import pytest

from utf8guard.middleware.adapter._guard import (
    _CO_COROUTINE,
    _is_async_def,
    is_async_callable,
)


async def coroutine_function(scope: object, receive: object, send: object) -> None:
    """An ASGI 3 app."""


def plain_function(environ: object, start_response: object) -> list[bytes]:
    return []


async def async_generator() -> object:
    yield None


class AsyncCall:
    async def __call__(self, scope: object, receive: object, send: object) -> None:
        """An ASGI 3 app as an object (Starlette's)."""

    async def method(self) -> None:
        """A bound coroutine method."""

    def sync_method(self) -> None:
        """A bound plain method."""


class SyncCall:
    def __call__(self, environ: object, start_response: object) -> list[bytes]:
        return []


def _inspect_reading(app: object) -> bool:
    while isinstance(app, functools.partial):
        app = app.func
    call = getattr(app, "__call__", None)  # noqa: B004  # the method, as Starlette's
    return inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(call)


CALLABLES: dict[str, Callable[..., object]] = {
    "async-def": coroutine_function,
    "def": plain_function,
    "async-generator": async_generator,
    "async-call-object": AsyncCall(),
    "sync-call-object": SyncCall(),
    "bound-async-method": AsyncCall().method,
    "bound-sync-method": AsyncCall().sync_method,
    "partial-async": functools.partial(coroutine_function, {}),
    "partial-of-partial-async": functools.partial(
        functools.partial(coroutine_function)
    ),
    "partial-sync": functools.partial(plain_function),
    "lambda": lambda environ, start_response: [],
    "builtin": len,
    "class": AsyncCall,
}


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_is_async_callable_agrees_with_inspect(name: str) -> None:
    app = CALLABLES[name]
    assert is_async_callable(app) is _inspect_reading(app)
    # The shortcut only ever says what inspect says.
    if _is_async_def(app):
        assert inspect.iscoroutinefunction(app)


def test_the_flag_is_inspects() -> None:
    assert _CO_COROUTINE == inspect.CO_COROUTINE
