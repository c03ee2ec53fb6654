"""Django system checks (``manage.py check``) for the ``UTF8GUARD`` setting and the
guard's place in ``MIDDLEWARE``; registered by ``django.Utf8GuardAppConfig``."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from django.conf import settings
from django.core import checks

from ..engine._config import OPTION_NAMES, configure
from ._guard import ASGI_CLASS, DJANGO_CLASS, WSGI_CLASS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["check_guard"]

#: The setting that holds the options (``django.SETTING``, which imports this).
SETTING: Final = "UTF8GUARD"
#: The ``config`` key takes a ready GuardConfig instead of the options.
KEYS: Final = frozenset(OPTION_NAMES | {"config"})
#: The adapters that are no Django middleware, by every path they import from.
NOT_DJANGO: Final = frozenset(
    {
        ASGI_CLASS,
        WSGI_CLASS,
        "utf8guard.middleware.asgi.Utf8GuardMiddleware",
        "utf8guard.middleware.wsgi.Utf8GuardWSGIMiddleware",
    }
)


def check_guard(**kwargs: object) -> list[checks.CheckMessage]:
    """The setting's mistakes (errors) and the guard's place (warnings)."""
    return _setting_messages(getattr(settings, SETTING, {})) + _middleware_messages(
        list(getattr(settings, "MIDDLEWARE", None) or ())
    )


def _setting_messages(options: object) -> list[checks.CheckMessage]:
    if not isinstance(options, Mapping):
        name = type(options).__name__
        message = f"{SETTING} must be a dict of options, not {name}"
        return [checks.Error(message, id="utf8guard.E001")]
    unknown = sorted(str(key) for key in options if key not in KEYS)
    if unknown:
        near = difflib.get_close_matches(unknown[0], KEYS, n=1)
        guess = f"did you mean {near[0]!r}? " if near else ""
        return [
            checks.Error(
                f"{SETTING} has unknown option {unknown[0]!r}",
                hint=f"{guess}The options are: {', '.join(sorted(KEYS))}",
                id="utf8guard.E002",
            )
        ]
    rest = {key: value for key, value in options.items() if key != "config"}
    try:
        config = configure(options.get("config"), rest)
    except (TypeError, ValueError) as exc:
        return [checks.Error(f"{SETTING}: {exc}", id="utf8guard.E003")]
    if config.stream_body:
        message = f"{SETTING}: stream_body is not supported by the Django middleware"
        return [checks.Error(message, id="utf8guard.E003")]
    return []


def _middleware_messages(middleware: Sequence[object]) -> list[checks.CheckMessage]:
    messages: list[checks.CheckMessage] = [
        checks.Error(
            f"{entry} in MIDDLEWARE is not a Django middleware",
            hint=f"use {DJANGO_CLASS}",
            id="utf8guard.E004",
        )
        for entry in middleware
        if entry in NOT_DJANGO
    ]
    count = middleware.count(DJANGO_CLASS)
    if count == 0:
        hint = f"add {DJANGO_CLASS} first in MIDDLEWARE"
        message = "the utf8guard app is installed but its middleware is not"
        messages.append(checks.Warning(message, hint=hint, id="utf8guard.W001"))
    elif count > 1:
        message = f"{DJANGO_CLASS} is in MIDDLEWARE {count} times"
        messages.append(
            checks.Warning(message, hint="keep the first", id="utf8guard.W002")
        )
    if count and middleware[0] != DJANGO_CLASS:
        before = ", ".join(map(str, middleware[: middleware.index(DJANGO_CLASS)]))
        messages.append(
            checks.Warning(
                f"{DJANGO_CLASS} is not first in MIDDLEWARE",
                hint=f"these see each request before it is checked: {before}",
                id="utf8guard.W003",
            )
        )
    return messages
