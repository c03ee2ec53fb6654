"""The echo project under ASGI, the guard as the ``MIDDLEWARE`` class (README)."""

from __future__ import annotations

from .django_settings import *  # noqa: F403  # the same project, one setting more

MIDDLEWARE = ["utf8guard.middleware.django.Utf8GuardMiddleware"]
