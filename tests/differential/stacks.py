"""The stacks: each server with each app it runs, as a subprocess command.

Seven servers (uvicorn with h11 and with httptools, Hypercorn, Gunicorn's sync
worker twice, Werkzeug's development server, Django's ``runserver``); the three ASGI
servers run the Starlette and the FastAPI app each, so ten stacks in all. Each is one
worker process with the framework's defaults, as a user would start it.

What each server refuses by itself, before any app (observed on the pinned versions;
the suite prints it after every run, and counts it as refused):

- uvicorn (h11 and httptools) and Hypercorn: raw non-ASCII bytes in the request
  target, valid UTF-8 included (400); conflicting Content-Length (400); a repeated
  Transfer-Encoding (400; Hypercorn 501, RFC 9112 §6.1). httptools also refuses a
  repeated identical Content-Length and Transfer-Encoding with Content-Length.
- Gunicorn: request lines over 4094 bytes (414, so F1 never reaches the guard there),
  raw non-ASCII targets, repeated Content-Length, Transfer-Encoding or Content-Type.
- Werkzeug's server: takes raw bytes in the target (decoded as Latin-1, handed on
  as UTF-8: issue 11 §8) but refuses raw ``ED A0 80``; a chunk extension or trailer
  ends in a 500 under the guard today (F11).
- ``runserver`` (wsgiref): takes raw bytes in the target; passes no raw target
  (``raw_path`` is None), so the guard sees only the decoded ``PATH_INFO``: ``%2F``
  arrives as ``/``, ``%252e`` as ``%2e``, ``%2e%2e`` as ``..``. It does not de-chunk,
  so Django reads an empty body for a chunked request.
- FastAPI's ``/model`` answers 422 to a body that does not validate (F9 rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .._servers import Command, gunicorn, hypercorn, runserver, uvicorn, werkzeug
from .echo import DJANGO_SETTINGS, KILL_PARENT_ENV


@dataclass(frozen=True, slots=True)
class Stack:
    """A server and an app: its test id, the modules it needs, how to start it."""

    id: str
    requires: tuple[str, ...]
    #: argv, given an inherited socket's fd (or a port, when ``inherit_socket`` is off)
    command: Command
    inherit_socket: bool = True
    env: dict[str, str] = field(default_factory=dict)


def _uvicorn(http: str, factory: str) -> Command:
    return uvicorn(factory, http=http, lifespan="off")


_STARLETTE: Final = "tests.differential.asgi_echo:starlette_app"
_FASTAPI: Final = "tests.differential.asgi_echo:fastapi_app"
# asgi_echo imports both frameworks; Starlette needs python-multipart for forms.
_ASGI: Final = ("starlette", "fastapi", "multipart")
_DJANGO_ENV: Final = {"DJANGO_SETTINGS_MODULE": DJANGO_SETTINGS}

STACKS: Final = (
    Stack("uvicorn-h11-starlette", ("uvicorn", "h11", *_ASGI),
          _uvicorn("h11", _STARLETTE)),
    Stack("uvicorn-h11-fastapi", ("uvicorn", "h11", *_ASGI),
          _uvicorn("h11", _FASTAPI)),
    Stack("uvicorn-httptools-starlette", ("uvicorn", "httptools", *_ASGI),
          _uvicorn("httptools", _STARLETTE)),
    Stack("uvicorn-httptools-fastapi", ("uvicorn", "httptools", *_ASGI),
          _uvicorn("httptools", _FASTAPI)),
    Stack("hypercorn-starlette", ("hypercorn", *_ASGI),
          hypercorn(f"{_STARLETTE}()")),
    Stack("hypercorn-fastapi", ("hypercorn", *_ASGI),
          hypercorn(f"{_FASTAPI}()")),
    Stack("gunicorn-flask", ("gunicorn", "flask"),
          gunicorn("tests.differential.flask_echo:create()"),
          env={KILL_PARENT_ENV: "1"}),
    Stack("werkzeug-flask", ("werkzeug", "flask"),
          werkzeug("tests.differential.flask_echo")),
    Stack("gunicorn-django", ("gunicorn", "django"),
          gunicorn("tests.differential.django_echo:create()"),
          env={KILL_PARENT_ENV: "1", **_DJANGO_ENV}),
    Stack("runserver-django", ("django",), runserver, inherit_socket=False,
          env=_DJANGO_ENV),
)  # fmt: skip
