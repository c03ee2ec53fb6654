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
import sys
from collections.abc import Callable

import pytest

from utf8guard.middleware.adapter._guard import (
    _CO_COROUTINE,
    _CO_VARARGS,
    _binds_two,
    _is_async_def,
    _surely_sync,
    is_async_callable,
    takes_one_argument,
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
    # The shortcuts only ever say what inspect says.
    if _is_async_def(app):
        assert inspect.iscoroutinefunction(app)
    if _surely_sync(app):
        assert not inspect.iscoroutinefunction(app)


def test_the_flags_are_inspects() -> None:
    assert _CO_COROUTINE == inspect.CO_COROUTINE
    assert _CO_VARARGS == inspect.CO_VARARGS


# A WSGI app and Django's get_response are recognised without inspect too (issue
# 28: inspect was 40 M instructions of the WSGI adapter's cold start). The oracle is
# the reading takes_one_argument made with inspect alone.


def _inspect_takes_one(app: object) -> bool:
    app = getattr(app, "awaitable", app)
    try:
        signature = inspect.signature(app)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    try:
        signature.bind(None, None)
    except TypeError:
        return True
    return False


def _wrapped(function: Callable[..., object]) -> Callable[..., object]:
    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> object:
        return function(*args, **kwargs)

    return wrapper


class Signatures:
    """Methods and ``__call__``s of every shape bind(None, None) can meet."""

    def two(self, environ: object, start_response: object) -> None: ...
    def one(self, request: object) -> None: ...
    def three(self, a: object, b: object, c: object) -> None: ...
    def three_with_default(self, a: object, b: object, c: object = 1) -> None: ...
    def star(self, *args: object) -> None: ...
    def defaults_for_self(self: object = None, a: object = None) -> None: ...
    @staticmethod
    def static_two(environ: object, start_response: object) -> None: ...
    @classmethod
    def class_two(cls, environ: object, start_response: object) -> None: ...


def _no_self() -> None: ...


class NoSelfCall:
    __call__ = _no_self


class StarOnlyCall:
    def __call__(*args: object) -> None: ...


class OneCall:
    def __call__(self, request: object) -> None: ...


class SignedCall:
    __signature__ = inspect.signature(lambda request: None)

    def __call__(self, environ: object, start_response: object) -> None: ...


class FunctionLike:
    """Has a ``__code__``: inspect reads it as a function."""

    __code__ = plain_function.__code__

    def __call__(self, *args: object) -> None: ...


class Awaitable:
    """asgiref's AsyncToSync: takes *args, wraps its ``awaitable``."""

    def __init__(self, awaitable: object) -> None:
        self.awaitable = awaitable

    def __call__(self, *args: object) -> None: ...


def _marked() -> Callable[..., object]:
    def function(environ: object, start_response: object) -> None: ...

    function._is_coroutine_marker = object()  # type: ignore[attr-defined]
    return function


SIGNED: dict[str, object] = {
    "wsgi": plain_function,
    "one": lambda request: None,
    "none": lambda: None,
    "three": lambda a, b, c: None,
    "three-default": lambda a, b, c=1: None,
    "two-defaults-of-three": lambda a, b=1, c=2: None,
    "one-default-only": lambda a=1: None,
    "star": lambda *args: None,
    "one-and-star": lambda a, *args: None,
    "kwargs": lambda **kw: None,
    "two-and-kwargs": lambda a, b, **kw: None,
    "keyword-only-required": lambda a, b, *, k: None,
    "keyword-only-default": lambda a, b, *, k=1: None,
    "positional-only": eval("lambda a, b, /: None"),  # noqa: S307 - a literal
    "method-two": Signatures().two,
    "method-one": Signatures().one,
    "method-three": Signatures().three,
    "method-three-default": Signatures().three_with_default,
    "method-star": Signatures().star,
    "method-defaults-for-self": Signatures().defaults_for_self,  # type: ignore[misc]
    "static": Signatures.static_two,
    "classmethod": Signatures.class_two,
    "unbound-two": Signatures.two,
    "call-two": SyncCall(),
    "call-one": OneCall(),
    "call-no-self": NoSelfCall(),
    "call-star-only": StarOnlyCall(),
    "call-signed": SignedCall(),
    "function-like": FunctionLike(),
    "wrapped-one": _wrapped(lambda request: None),
    "wrapped-two": _wrapped(plain_function),
    "partial-to-one": functools.partial(plain_function, {}),
    "partial-two": functools.partial(plain_function),
    "awaitable-one": Awaitable(lambda request: None),
    "awaitable-two": Awaitable(plain_function),
    "class": SyncCall,
    "builtin": len,
    "builtin-method": [].append,
    "not-callable": 42,
    "marked": _marked(),
}

#: The shapes of real WSGI apps and Django handlers, read without inspect.
FROM_CODE: frozenset[str] = frozenset(
    (
        "wsgi",
        "one",
        "three",
        "star",
        "keyword-only-required",
        "method-two",
        "method-one",
        "classmethod",
        "call-two",
        "call-one",
        "awaitable-one",
        "awaitable-two",
    )
)


@pytest.mark.parametrize("name", sorted(SIGNED))
def test_takes_one_argument_agrees_with_inspect(name: str) -> None:
    app = SIGNED[name]
    assert takes_one_argument(app) is _inspect_takes_one(app)
    answer = _binds_two(getattr(app, "awaitable", app))
    assert answer is None or answer is not _inspect_takes_one(app)
    if name in FROM_CODE:
        assert answer is not None  # read without inspect


@pytest.mark.parametrize("name", sorted(SIGNED))
def test_is_async_callable_agrees_with_inspect_on_sync_shapes(name: str) -> None:
    app = SIGNED[name]
    assert is_async_callable(app) is _inspect_reading(app)
    # The shortcut only ever says what inspect says.
    if _surely_sync(app):
        assert not inspect.iscoroutinefunction(app)


@pytest.mark.parametrize(
    "name", sorted(name for name in CALLABLES if not name.startswith("partial"))
)
def test_is_async_callable_without_functools_loaded(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 28: the partial types are read from sys.modules (no partial exists
    # before functools is imported), so building an adapter imports no functools;
    # every other app gets inspect's answer as before.
    app = CALLABLES[name]
    expected = _inspect_reading(app)
    monkeypatch.delitem(sys.modules, "functools")
    assert is_async_callable(app) is expected
    assert "functools" not in sys.modules
