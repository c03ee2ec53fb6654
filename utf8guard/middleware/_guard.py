"""The adapters' one constructor: the wrapped app and its options, checked once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from ._config import GuardConfig, configure

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._config import GuardOptions

__all__ = ["Guard"]

App = TypeVar("App")


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
            TypeError: an option of the wrong type, or both ``config`` and options.
        """
        self.app = app
        self.config = configure(config, options)
        self._ready()

    def _ready(self) -> None:
        """Work done once per middleware, after ``config`` is set (the adapters')."""
