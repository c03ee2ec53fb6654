"""The Django echo view and URLconf, behind the guard, for Gunicorn and ``runserver``.

Gunicorn loads ``create()``; ``runserver`` loads ``application`` through the
``WSGI_APPLICATION`` setting (django_settings.py). ``application`` is built on first
access (PEP 562), so importing this module sets nothing up.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from django.http import (
    HttpRequest,
    HttpResponse,
    QueryDict,
)
from django.urls import re_path

from .echo import (
    DJANGO_SETTINGS,
    Document,
    attempt,
    dumps,
    echo_pairs,
    file_entry,
    new_document,
    put_pairs,
)
from .wsgi_dispatch import guarded

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication


def _flat(query: QueryDict) -> list[tuple[str, object]]:
    return [(name, value) for name, values in query.lists() for value in values]


def _read_form(request: HttpRequest, document: Document) -> None:
    put_pairs(document, "form", _flat(request.POST))
    document["files"] = [
        file_entry(name, upload.name, upload.read())
        for name, uploads in request.FILES.lists()
        for upload in uploads
    ]


def echo(request: HttpRequest) -> HttpResponse:
    """What Django parsed, read through its API (echo.py has the shape)."""
    meta = request.META
    # The raw target (Gunicorn; runserver has none); its path, as ASGI's raw_path has.
    raw = meta.get("RAW_URI") or meta.get("REQUEST_URI") or ""
    document = new_document("django", request.path, raw.partition("?")[0] or None)
    # The body first: Django then parses POST and FILES from the cached bytes.
    body = attempt(document, "data", lambda: bytes(request.body)) or b""
    echo_pairs(document, "query", lambda: _flat(request.GET))
    echo_pairs(document, "headers", request.headers.items)
    echo_pairs(document, "cookies", request.COOKIES.items)
    attempt(document, "form", lambda: _read_form(request, document))
    document["json_loads"] = attempt(document, "json_loads", lambda: json.loads(body))
    document["encoding"] = request.encoding
    return HttpResponse(dumps(document), content_type="application/json")


urlpatterns = [re_path(r"", echo)]


def create() -> WSGIApplication:
    """Django's WSGI application behind the guard."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", DJANGO_SETTINGS)
    from django.core.wsgi import get_wsgi_application

    return guarded(get_wsgi_application())


def __getattr__(name: str) -> object:
    if name == "application":
        return create()
    if name == "asgi_application":
        return create_asgi()
    raise AttributeError(name)


def create_asgi() -> object:
    """Django's ASGI handler; the guard is in ``MIDDLEWARE`` (django_asgi_settings)."""
    from .echo import exit_later

    exit_later()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", DJANGO_SETTINGS)
    from django.core.asgi import get_asgi_application

    return get_asgi_application()
