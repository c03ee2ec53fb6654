"""Request guards for web applications: refuse invalid UTF-8 before routing.

``Utf8GuardMiddleware`` wraps any ASGI application (Starlette, FastAPI ...). The
decisions live in a framework-free, sans-I/O engine shared by every adapter; no web
framework is imported here.
"""

from ._config import GuardConfig
from ._finding import Finding, Location, RequestKind, ViolationEvent
from .asgi import Utf8GuardMiddleware

__all__ = [
    "Finding",
    "GuardConfig",
    "Location",
    "RequestKind",
    "Utf8GuardMiddleware",
    "ViolationEvent",
]
