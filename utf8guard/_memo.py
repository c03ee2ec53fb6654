"""``memoize(limit)``: a bounded memo of a pure function's results, without functools.

``functools.lru_cache`` would import ``functools`` and with it ``collections``: some
11 M instructions of every cold start (issue 28). Some keys come from requests (a
Content-Type value, an environ key, a file name's characters), so a memo holds at most
``limit`` results and starts over when full: its memory stays bounded whatever a
client sends, and a client that sends new keys only pays the call it would pay with
no memo. A hit costs one dict look-up in a Python frame (no slower than a bounded
``lru_cache`` hit, measured on 3.11).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, ParamSpec, TypeVar

    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["memoize"]

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
            try:
                return results[args]
            except KeyError:
                pass
            result = function(*args, **kwargs)
            if len(results) >= limit:
                results.clear()
            results[args] = result
            return result

        for name in _KEPT:
            setattr(memoized, name, getattr(function, name))
        memoized.__wrapped__ = function  # type: ignore[attr-defined]  # as functools
        return memoized

    return decorate
