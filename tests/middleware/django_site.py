"""A minimal Django site for the middleware tests: settings, one URL, one echo view.

``DJANGO_SETTINGS_MODULE=tests.middleware.django_site``. The view answers like
``test_adapters.wsgi_echo`` (path, query, Content-Length and body as the view sees
them, byte-per-code-point), so a guarded Django site and the guarded WSGI echo app
must give identical answers. ``UTF8GUARD`` comes from the environment variable
``UTF8GUARD_E2E_OPTIONS`` (JSON) for the server tests; in-process tests override it.
"""

from __future__ import annotations

import json
import os
from typing import Final

import django.conf
from django.http import HttpRequest, HttpResponse
from django.urls import re_path

SECRET_KEY: Final = "utf8guard-tests-only"  # noqa: S105  # a test site, not a secret
DEBUG: Final = False
ALLOWED_HOSTS: Final = ["*"]
USE_TZ: Final = True
ROOT_URLCONF: Final = __name__
INSTALLED_APPS: Final[list[str]] = []
DATABASES: Final[dict[str, object]] = {}
MIDDLEWARE: Final = ["utf8guard.middleware.django.Utf8GuardMiddleware"]
UTF8GUARD: Final = json.loads(os.environ.get("UTF8GUARD_E2E_OPTIONS", "{}"))
#: The attack table's largest body is 64 KiB; Django's default limit is 2.5 MB.
DATA_UPLOAD_MAX_MEMORY_SIZE: Final = 64 * 1024 * 1024


def echo(request: HttpRequest) -> HttpResponse:
    """What the view saw, as JSON of byte-per-code-point strings."""
    seen = {
        "path": request.path_info.encode("utf-8", "surrogatepass"),
        "query": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "length": request.META.get("CONTENT_LENGTH", "").encode("latin-1"),
        "body": request.body,
    }
    reply = json.dumps({k: v.decode("latin-1") for k, v in seen.items()}).encode()
    # a length, so that servers need no chunked coding (the raw-socket client reads
    # plain bodies only)
    headers = {"Content-Length": str(len(reply))}
    return HttpResponse(reply, content_type="application/json", headers=headers)


urlpatterns: Final = [re_path(r"", echo)]


def configure() -> None:
    """Configure Django from this module's settings, once per process (the
    in-process tests; the servers read ``DJANGO_SETTINGS_MODULE``)."""
    # django.conf.settings, not a module global: pytest's doctest collection reads
    # every global's attributes, and LazySettings raises before it is configured.
    if not django.conf.settings.configured:
        here = globals()
        django.conf.settings.configure(
            **{name: here[name] for name in here if name.isupper()}
        )
        django.setup()
