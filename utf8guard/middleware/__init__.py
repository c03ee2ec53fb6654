"""Request guards for web applications: refuse invalid UTF-8 before routing.

``Utf8GuardMiddleware`` wraps any ASGI application (Starlette, FastAPI ...),
``Utf8GuardWSGIMiddleware`` any WSGI application (Flask, Django ...), and
``utf8guard.middleware.django.Utf8GuardMiddleware`` sits in Django's ``MIDDLEWARE``. The
decisions live in a framework-free, sans-I/O engine shared by every adapter; no web
framework is imported here.
"""

from .asgi import Utf8GuardMiddleware
from .engine._config import GuardConfig
from .engine._finding import (
    Finding,
    Location,
    RequestKind,
    RequestSummary,
    ViolationEvent,
)
from .engine._respond import Refusal
from .wsgi import Utf8GuardWSGIMiddleware

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .engine._options import GuardOptions, Mode
else:

    def __getattr__(name: str) -> object:
        # Mode and GuardOptions need typing: built at their first look-up (issue 28).
        if name in ("GuardOptions", "Mode"):
            from .engine import _options

            return getattr(_options, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
