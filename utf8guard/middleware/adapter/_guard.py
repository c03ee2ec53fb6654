"""The adapters' one constructor: the wrapped app and its options, checked once."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable

from ..engine._config import GuardConfig, configure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Generic, TypeVar

    from typing_extensions import Unpack

    from ..engine._config import GuardOptions

    App = TypeVar("App")
else:
    App = object

    class Generic:
        """``typing.Generic`` as the adapters use it at run time, without importing
        ``typing`` (issue 28): ``Guard[ASGIApp]`` is :class:`Guard` itself."""

        __slots__ = ()

        def __class_getitem__(cls, _: object) -> type:
            return cls


__all__ = [
    "ASGI_CLASS",
    "DJANGO_CLASS",
    "WSGI_CLASS",
    "Guard",
    "app_name",
    "is_async_callable",
    "takes_one_argument",
]


class Guard(Generic[App]):
    """An application and the guard's configuration; no per-request state.

    Each request gets its own state in ``__call__`` (Starlette's ``GZipMiddleware``
    and its responder): the object holds the app and a frozen :class:`GuardConfig`.
    """

    def __init__(
        self,
        app: App,
        *,
        config: GuardConfig | None = None,
        **options: Unpack[GuardOptions],
    ) -> None:
        """Wrap ``app``; the options as keywords, or one ready ``config`` (not both).

        Raises:
            ValueError: an unknown mode or a size that is not positive.
            TypeError: an option of the wrong type, or both ``config`` and options;
                or ``app`` is of the other kind (WSGI for the ASGI class, ASGI for
                the WSGI class, Django's ``get_response`` for either), naming the
                class to use.
        """
        misuse = self._misuse(app)
        if misuse is not None:
            raise TypeError(misuse)
        self.app = app
        self.config = configure(config, options)
        self._ready()

    #: Why ``app`` cannot be what this adapter wraps, or None (issue 26: say so where
    #: the middleware is added, not as a traceback on every request); each adapter's.
    _misuse: Callable[[object], str | None]

    def _ready(self) -> None:
        """Work done once per middleware, after ``config`` is set (the adapters')."""


#: The class to use in each setting, for the misuse messages.
ASGI_CLASS: Final = "utf8guard.middleware.Utf8GuardMiddleware"
WSGI_CLASS: Final = "utf8guard.middleware.Utf8GuardWSGIMiddleware"
DJANGO_CLASS: Final = "utf8guard.middleware.django.Utf8GuardMiddleware"


def is_async_callable(app: object) -> bool:
    """Whether ``app`` is an ASGI 3 application: a coroutine function, or an object
    whose ``__call__`` is one (through ``functools.partial``, as Starlette's
    ``is_async_callable`` reads it; uvicorn takes any other app for ASGI 2)."""
    while isinstance(app, functools.partial):
        app = app.func
    call = getattr(app, "__call__", None)  # noqa: B004  # the method, not callable()
    if _is_async_def(app) or _is_async_def(call):
        return True  # what inspect says too: an ASGI app is built without it
    import inspect  # at construction: with ast, dis, tokenize, a third of the import

    return inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(call)


#: The code flag of an ``async def`` function (``inspect.CO_COROUTINE``).
_CO_COROUTINE: Final = 0x80


def _is_async_def(function: object) -> bool:
    """Whether ``function`` is an ``async def`` function or a bound method of one.

    True only where ``inspect.iscoroutinefunction`` reads the same code flag; False
    says nothing (it also reads partials, markers and function-like objects).
    """
    if isinstance(function, types.MethodType):
        function = function.__func__
    return isinstance(function, types.FunctionType) and bool(
        function.__code__.co_flags & _CO_COROUTINE
    )


def takes_one_argument(app: object) -> bool:
    """Whether ``app`` can only be called with one positional argument, as Django's
    ``get_response`` (a request) and unlike a WSGI app (environ, start_response);
    False when its signature does not say."""
    # asgiref's AsyncToSync (how Django hands a sync middleware its async handler)
    # takes *args; the function it wraps is its ``awaitable``.
    import inspect  # see is_async_callable

    app = getattr(app, "awaitable", app)
    try:
        signature = inspect.signature(app)  # type: ignore[arg-type]  # any callable
    except (TypeError, ValueError):
        return False  # not callable, or a builtin without a signature
    try:
        signature.bind(None, None)
    except TypeError:
        return True
    return False


def app_name(app: object) -> str:
    """A short name of ``app`` for a message (never its repr, which may be long)."""
    return getattr(app, "__qualname__", None) or type(app).__qualname__
