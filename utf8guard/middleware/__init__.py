"""Request guards for web applications: refuse invalid UTF-8 before routing.

``Utf8GuardMiddleware`` wraps any ASGI application (Starlette, FastAPI ...),
``Utf8GuardWSGIMiddleware`` any WSGI application (Flask, Django ...), and
``utf8guard.middleware.django.Utf8GuardMiddleware`` sits in Django's ``MIDDLEWARE``. The
decisions live in a framework-free, sans-I/O engine shared by every adapter; no web
framework is imported here.
"""

from .asgi import Utf8GuardMiddleware
from .engine._config import GuardConfig, GuardOptions, Mode
from .engine._finding import (
    Finding,
    Location,
    RequestKind,
    RequestSummary,
    ViolationEvent,
)
from .engine._respond import Refusal
from .wsgi import Utf8GuardWSGIMiddleware

__all__ = [
    "Finding",
    "GuardConfig",
    "GuardOptions",
    "Location",
    "Mode",
    "Refusal",
    "RequestKind",
    "RequestSummary",
    "Utf8GuardMiddleware",
    "Utf8GuardWSGIMiddleware",
    "ViolationEvent",
]
