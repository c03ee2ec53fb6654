"""A guarded FastAPI app with a body model, for the F10 end-to-end test.

``POST /model`` parses the body as JSON into a model whatever its Content-Type, as
FastAPI does; ``POST /json`` echoes Starlette's ``request.json()``. Either answers
with what the framework parsed, escaped as ASCII. Served by ``uvicorn --factory
tests.middleware.e2e_fastapi_app:create``; exits by itself after
``UTF8GUARD_E2E_LIFETIME`` seconds.
"""

from __future__ import annotations

import os
import threading

from fastapi import FastAPI, Request
from pydantic import BaseModel

from utf8guard.middleware import Utf8GuardMiddleware


class Item(BaseModel):
    a: str


def create() -> Utf8GuardMiddleware:
    """The app behind the guard, as the README shows for ASGI."""
    lifetime = float(os.environ.get("UTF8GUARD_E2E_LIFETIME", "120"))
    timer = threading.Timer(lifetime, lambda: os._exit(3))
    timer.daemon = True
    timer.start()
    app = FastAPI()

    @app.post("/model")
    async def model(item: Item) -> dict[str, str]:
        return {"a": ascii(item.a)}

    @app.post("/json")
    async def parsed(request: Request) -> dict[str, str]:
        return {"json": ascii(await request.json())}

    return Utf8GuardMiddleware(app)
