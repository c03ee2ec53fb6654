"""Request guards for web applications: refuse invalid UTF-8 before routing.

``Utf8GuardMiddleware`` wraps any ASGI application (Starlette, FastAPI ...),
``Utf8GuardWSGIMiddleware`` any WSGI application (Flask, Django ...), and
``utf8guard.middleware.django.Utf8GuardMiddleware`` sits in Django's ``MIDDLEWARE``. The
decisions live in a framework-free, sans-I/O engine shared by every adapter; no web
framework is imported here.
"""

from .engine._config import GuardConfig
from .engine._finding import (
    Finding,
    Location,
    RequestKind,
    RequestSummary,
    ViolationEvent,
)
from .engine._respond import Refusal

# Each adapter is imported with its first lookup here (PEP 562): an ASGI app does not
# import the WSGI half, nor a WSGI app the ASGI one; Mode and GuardOptions need typing,
# so they too are built at their first lookup (issue 28). mypy reads the names from
# the imports below and sees no module __getattr__, so a misspelt name stays an error.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .asgi import Utf8GuardMiddleware
    from .engine._options import GuardOptions, Mode
    from .wsgi import Utf8GuardWSGIMiddleware
else:

    def __getattr__(name: str) -> object:
        value: object
        if name == "Utf8GuardMiddleware":
            from .asgi import Utf8GuardMiddleware as value
        elif name == "Utf8GuardWSGIMiddleware":
            from .wsgi import Utf8GuardWSGIMiddleware as value
        elif name in ("GuardOptions", "Mode"):
            from .engine import _options

            value = getattr(_options, name)
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value  # the next lookup is a plain one
        return value

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
