"""The adapters' one constructor: the wrapped app and its options, checked once."""

from __future__ import annotations

import sys
import types

from ..engine._config import GuardConfig, configure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from functools import partial, partialmethod
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
    partials = _partials()
    while partials is not None and isinstance(app, partials[0]):
        app = app.func
    call = getattr(app, "__call__", None)  # noqa: B004  # the method, not callable()
    if _is_async_def(app) or _is_async_def(call):
        return True  # what inspect says too: an ASGI app is built without it
    if _surely_sync(app) and _surely_sync(call):
        return False  # and a WSGI app or Django's handler without it too
    import inspect  # at construction: with ast, dis, tokenize, a third of the import

    return inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(call)


#: The code flags of an ``async def`` function and of one with ``*args``
#: (``inspect.CO_COROUTINE``, ``inspect.CO_VARARGS``).
_CO_COROUTINE: Final = 0x80
_CO_VARARGS: Final = 0x04


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


def _surely_sync(function: object) -> bool:
    """True only where ``inspect.iscoroutinefunction(function)`` is False: it reads
    the code flag of functions, of methods and partials of them and of function-like
    objects (a ``__code__``), and on Python 3.12+ ``markcoroutinefunction``'s mark;
    False says nothing."""
    if hasattr(function, "_is_coroutine_marker"):
        return False  # marked (a method forwards the lookup to its function)
    if isinstance(function, types.MethodType):
        function = function.__func__
    if isinstance(function, types.FunctionType):
        return not function.__code__.co_flags & _CO_COROUTINE
    partials = _partials()
    if partials is not None and isinstance(function, partials):
        return False
    return not hasattr(function, "__code__")


def _partials() -> tuple[type[partial[object]], type[partialmethod[object]]] | None:
    """``functools.partial`` and ``partialmethod``, or None when nothing has imported
    ``functools`` (then no partial exists): constructing an adapter does not import
    it (issue 28: with ``collections``, some 11 M instructions)."""
    loaded = sys.modules.get("functools")
    return None if loaded is None else (loaded.partial, loaded.partialmethod)


def takes_one_argument(app: object) -> bool:
    """Whether ``app`` can only be called with one positional argument, as Django's
    ``get_response`` (a request) and unlike a WSGI app (environ, start_response);
    False when its signature does not say."""
    # asgiref's AsyncToSync (how Django hands a sync middleware its async handler)
    # takes *args; the function it wraps is its ``awaitable``.
    app = getattr(app, "awaitable", app)
    binds = _binds_two(app)
    if binds is not None:
        return not binds
    import inspect  # see is_async_callable

    try:
        signature = inspect.signature(app)  # type: ignore[arg-type]  # any callable
    except (TypeError, ValueError):
        return False  # not callable, or a builtin without a signature
    try:
        signature.bind(None, None)
    except TypeError:
        return True
    return False


def _binds_two(app: object) -> bool | None:
    """Whether ``inspect.signature(app).bind(None, None)`` succeeds, read from the
    code object of a plain function, of a method of one, or of an instance's
    ``__call__`` (the common WSGI apps: Flask's, Django's); None where the answer
    takes ``inspect`` (wrappers, ``__signature__``, partials, classes, builtins)."""
    bound = 1
    if isinstance(app, types.FunctionType):
        function: object = app
        bound = 0
    elif isinstance(app, types.MethodType):
        function = app.__func__
    elif isinstance(app, type) or _signed(app):
        return None
    else:
        function = getattr(type(app), "__call__", None)  # noqa: B004
    if not isinstance(function, types.FunctionType) or _signed(function):
        return None
    code = function.__code__
    positional = code.co_argcount - bound
    if positional < 0:
        return None  # a method without self: inspect's ValueError
    required = positional - min(len(function.__defaults__ or ()), positional)
    keywords = code.co_varnames[code.co_argcount :][: code.co_kwonlyargcount]
    defaults = function.__kwdefaults__ or {}
    return (
        (positional >= 2 or bool(code.co_flags & _CO_VARARGS))
        and required <= 2
        and all(name in defaults for name in keywords)
    )


#: What ``inspect.signature`` reads before a function's code or a class's ``__call__``.
_SIGNATURE_SOURCES: Final = (
    "__wrapped__",
    "__signature__",
    "__text_signature__",
    "_partialmethod",
    "__partialmethod__",
)


def _signed(function: object) -> bool:
    """Whether ``inspect.signature`` reads ``function`` otherwise than from its code
    or its class's ``__call__``: a wrapper chain, an own signature, a partial method
    or a function-like object."""
    if any(hasattr(function, name) for name in _SIGNATURE_SOURCES):
        return True
    return not isinstance(function, types.FunctionType) and hasattr(
        function, "__code__"
    )


def app_name(app: object) -> str:
    """A short name of ``app`` for a message (never its repr, which may be long)."""
    return getattr(app, "__qualname__", None) or type(app).__qualname__
