"""Bounded memos of a pure function's results, without functools.

``functools.lru_cache`` would import ``functools`` and with it ``collections``: some
11 M instructions of every cold start (issue 28). Some keys come from requests (a
Content-Type value, an environ key, a file name's characters), so a memo holds at most
``limit`` results and starts over when full: its memory stays bounded whatever a
client sends, and a client that sends new keys only pays the call it would pay with
no memo.

:func:`memoize` decorates a function; a hit costs a Python frame, some 100 ns more
than an ``lru_cache`` hit (3.11). A call site that runs for every request, body part
or name character reads its memo dict inline instead (``try: memo[key]``, no frame,
a hit as cheap as ``lru_cache``'s) and stores a miss with :func:`remember`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, ParamSpec, TypeVar

    K = TypeVar("K")
    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["memoize", "remember"]

#: What a memoized function keeps of the function it wraps (``update_wrapper``'s
#: list): doctest and the documentation read them.
_KEPT: Final = ("__module__", "__name__", "__qualname__", "__doc__")


def memoize(limit: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function of hashable positional arguments with a memo of at most
    ``limit`` results (emptied when full); treat the results as read-only."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        results: dict[tuple[object, ...], R] = {}

        def memoized(*args: P.args, **kwargs: P.kwargs) -> R:
            if kwargs:  # a key of its own each; no caller needs them
                raise TypeError(f"{function.__qualname__}() takes no keyword arguments")
            key: tuple[object, ...] = args
            try:
                return results[key]
            except KeyError:
                pass
            return remember(results, key, function(*args, **kwargs), limit)

        for name in _KEPT:
            setattr(memoized, name, getattr(function, name))
        memoized.__wrapped__ = function  # type: ignore[attr-defined]  # as functools
        return memoized

    return decorate


def remember(memo: dict[K, R], key: K, result: R, limit: int) -> R:
    """Keep ``result`` for ``key`` in ``memo``, which is emptied first if it holds
    ``limit`` results; return ``result``."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = result
    return result
