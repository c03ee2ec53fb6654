"""The guarded Django site (``django_site``) as Gunicorn and uvicorn load it.

Gunicorn loads ``create_wsgi()``, uvicorn the factory ``create_asgi``. Either process
exits by itself after ``UTF8GUARD_E2E_LIFETIME`` seconds (as ``e2e_wsgi_app``), so a
test run that dies cannot leave a server behind.
"""

from __future__ import annotations

import os

from .e2e_wsgi_app import _exit_later

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.middleware.django_site")


def create_wsgi() -> object:
    """Django's WSGI handler, the guard first in MIDDLEWARE."""
    from django.core.wsgi import get_wsgi_application

    _exit_later()
    return get_wsgi_application()


def create_asgi() -> object:
    """Django's ASGI handler, the guard first in MIDDLEWARE."""
    from django.core.asgi import get_asgi_application

    _exit_later()
    return get_asgi_application()
