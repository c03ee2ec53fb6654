"""A Starlette app that echoes the multipart form it parsed, behind the guard.

For ``test_e2e_multipart.py``: uvicorn runs it in a subprocess; each response lists
the fields and files Starlette (python-multipart) read. The process exits by itself
after ``UTF8GUARD_E2E_LIFETIME`` seconds (default 120).
"""

from __future__ import annotations

import os
import threading

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from utf8guard.middleware import Utf8GuardMiddleware


async def echo(request: Request) -> JSONResponse:
    parts: list[list[str | None]] = []
    async with request.form() as form:
        for name, value in form.multi_items():
            if isinstance(value, UploadFile):
                data = (await value.read()).decode("latin-1")
                parts.append([name, value.filename, data])
            else:
                parts.append([name, None, value])
    return JSONResponse({"parts": parts})


def create() -> Utf8GuardMiddleware:
    """The uvicorn factory (``--factory``): the guarded app, and the exit timer."""
    lifetime = float(os.environ.get("UTF8GUARD_E2E_LIFETIME", "120"))
    timer = threading.Timer(lifetime, os._exit, args=(3,))
    timer.daemon = True
    timer.start()
    app = Starlette(routes=[Route("/form", echo, methods=["POST"])])
    return Utf8GuardMiddleware(app)
