"""The guard around a WSGI echo app: block mode, and normalize mode under a prefix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from utf8guard.middleware import Utf8GuardWSGIMiddleware

from .echo import NORMALIZE_PREFIX, exit_later

if TYPE_CHECKING:
    from collections.abc import Iterable

    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


def guarded(
    app: WSGIApplication, *, inspect_all_bodies: bool = False
) -> WSGIApplication:
    """``app`` behind the default guard; ``/normalize/…`` behind a normalize-mode guard.

    ``inspect_all_bodies``: the setting SECURITY.md asks of Bottle. Also arms the
    server's exit timer (echo.exit_later).
    """
    exit_later()
    block = Utf8GuardWSGIMiddleware(app, inspect_all_bodies=inspect_all_bodies)
    normalize = Utf8GuardWSGIMiddleware(
        app,
        mode="normalize",
        allow_encoded_separators=True,
        inspect_all_bodies=inspect_all_bodies,
    )

    def dispatch(
        environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if isinstance(path, str) and path.startswith(NORMALIZE_PREFIX):
            return normalize(environ, start_response)
        return block(environ, start_response)

    return dispatch
