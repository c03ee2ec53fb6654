"""The smallest Django project the echo app needs: no database, no apps, no middleware.

No CSRF middleware, so a POST reaches the view; no ``CommonMiddleware``, so no slash
redirect hides a path. Upload limits stay Django's defaults, except the one on
``request.body``, raised to the guard's own default (4 MiB) so the echo can read what
the guard lets through.
"""

from __future__ import annotations

SECRET_KEY = "utf8guard differential tests, not a secret"  # noqa: S105
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = "tests.differential.django_echo"
WSGI_APPLICATION = "tests.differential.django_echo.application"
INSTALLED_APPS: list[str] = []
MIDDLEWARE: list[str] = []
DATABASES: dict[str, object] = {}
USE_TZ = True
DATA_UPLOAD_MAX_MEMORY_SIZE = 4 * 1024 * 1024 + 1024
