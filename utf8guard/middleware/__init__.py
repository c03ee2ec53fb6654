"""Request guards for web applications: refuse invalid UTF-8 before routing.

``Utf8GuardMiddleware`` wraps any ASGI application (Starlette, FastAPI ...),
``Utf8GuardWSGIMiddleware`` any WSGI application (Flask, Django ...), and
``utf8guard.middleware.django.Utf8GuardMiddleware`` sits in Django's ``MIDDLEWARE``. The
decisions live in a framework-free, sans-I/O engine shared by every adapter; no web
framework is imported here.
"""

from .engine._config import GuardConfig, GuardOptions, Mode
from .engine._finding import (
    Finding,
    Location,
    RequestKind,
    RequestSummary,
    ViolationEvent,
)
from .engine._respond import Refusal

# Each adapter is imported with its first lookup here (PEP 562): an ASGI app does not
# import the WSGI half, nor a WSGI app the ASGI one (issue 28). mypy reads the names
# from the imports below and sees no module __getattr__, so a misspelt name stays an
# error.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .asgi import Utf8GuardMiddleware
    from .wsgi import Utf8GuardWSGIMiddleware
else:

    def __getattr__(name: str) -> object:
        if name == "Utf8GuardMiddleware":
            from .asgi import Utf8GuardMiddleware as adapter
        elif name == "Utf8GuardWSGIMiddleware":
            from .wsgi import Utf8GuardWSGIMiddleware as adapter
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = adapter  # the next lookup is a plain one
        return adapter

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})


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
