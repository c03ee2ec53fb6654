"""The stacks: each server with each app it runs, as a subprocess command.

Issue 25 adds thirteen (``MORE_STACKS``): Granian (ASGI, WSGI), Daphne and uvicorn
with Django's ASGI handler (the guard as the ``MIDDLEWARE`` class), Litestar, Falcon
(ASGI, WSGI), Quart, Sanic (as an ASGI app), Bottle (with ``inspect_all_bodies``,
which SECURITY.md asks of it), Pyramid/WebOb, and HTTP/2 with prior knowledge on
Hypercorn and Granian (``h2c.py``). ``BLIND_STACKS`` and ``KNOWN_FAILURES`` say
what each cannot show and why.

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

import sys
from dataclasses import dataclass, field
from typing import Final

from .._servers import HOST, Command, gunicorn, hypercorn, runserver, uvicorn, werkzeug
from .echo import DJANGO_SETTINGS, KILL_PARENT_ENV
from .table_ws import ROWS as WS_ROWS


@dataclass(frozen=True, slots=True)
class Stack:
    """A server and an app: its test id, the modules it needs, how to start it."""

    id: str
    requires: tuple[str, ...]
    #: argv, given an inherited socket's fd (or a port, when ``inherit_socket`` is off)
    command: Command
    inherit_socket: bool = True
    env: dict[str, str] = field(default_factory=dict)
    #: Rows go as HTTP/2 with prior knowledge (h2c.py), those that have an HTTP/2 form.
    h2c: bool = False


def _uvicorn(http: str, factory: str) -> Command:
    return uvicorn(factory, http=http, lifespan="off")


_STARLETTE: Final = "tests.differential.asgi_echo:starlette_app"
_FASTAPI: Final = "tests.differential.asgi_echo:fastapi_app"
# asgi_echo imports both frameworks; Starlette needs python-multipart for forms.
_ASGI: Final = ("starlette", "fastapi", "multipart")
_DJANGO_ENV: Final = {"DJANGO_SETTINGS_MODULE": DJANGO_SETTINGS}


def _granian(interface: str, factory: str) -> Command:
    """Granian (one worker) running the app factory ``factory``; it binds a port.
    Websockets only on the ASGI interface (WSGI has none)."""
    websockets = () if interface == "asgi" else ("--no-ws",)

    def command(port: int) -> list[str]:
        return [
            *(sys.executable, "-m", "granian", "--interface", interface, "--factory"),
            *("--host", HOST, "--port", str(port), "--workers", "1", *websockets),
            *("--log-level", "warning", factory),
        ]

    return command


def _daphne(application: str) -> Command:
    """Daphne serving ``application`` (``module:attribute``) on an inherited socket."""

    def command(fd: int) -> list[str]:
        return [sys.executable, "-m", "daphne", "--fd", str(fd), "-v", "0", application]

    return command


_FALCON: Final = "tests.differential.falcon_echo"
_DJANGO_ASGI_ENV: Final = {
    "DJANGO_SETTINGS_MODULE": "tests.differential.django_asgi_settings"
}
_DJANGO_ASGI: Final = "tests.differential.django_echo:create_asgi"
_GUNICORN_ENV: Final = {KILL_PARENT_ENV: "1"}

#: Issue 25: the stacks Python teams deploy, beyond the ten of issue 11.
MORE_STACKS: Final = (
    Stack("granian-asgi-starlette", ("granian", *_ASGI),
          _granian("asgi", _STARLETTE), inherit_socket=False),
    Stack("granian-wsgi-flask", ("granian", "flask"),
          _granian("wsgi", "tests.differential.flask_echo:create"),
          inherit_socket=False),
    Stack("daphne-django", ("daphne", "django"),
          _daphne("tests.differential.django_echo:asgi_application"),
          env=_DJANGO_ASGI_ENV),
    Stack("uvicorn-django", ("uvicorn", "django"), _uvicorn("h11", _DJANGO_ASGI),
          env=_DJANGO_ASGI_ENV),
    Stack("uvicorn-litestar", ("uvicorn", "litestar"),
          _uvicorn("h11", "tests.differential.litestar_echo:create")),
    Stack("uvicorn-falcon", ("uvicorn", "falcon"),
          _uvicorn("h11", f"{_FALCON}:create_asgi")),
    Stack("gunicorn-falcon", ("gunicorn", "falcon"), gunicorn(f"{_FALCON}:create()"),
          env=_GUNICORN_ENV),
    Stack("uvicorn-quart", ("uvicorn", "quart"),
          _uvicorn("h11", "tests.differential.quart_echo:create")),
    # Sanic under ASGI starts its loop in the lifespan startup event.
    Stack("uvicorn-sanic", ("uvicorn", "sanic"),
          uvicorn("tests.differential.sanic_echo:create", http="h11", lifespan="on")),
    Stack("gunicorn-bottle", ("gunicorn", "bottle"),
          gunicorn("tests.differential.bottle_echo:create()"), env=_GUNICORN_ENV),
    Stack("hypercorn-h2c-starlette", ("hypercorn", "h2", *_ASGI),
          hypercorn(f"{_STARLETTE}()"), h2c=True),
    Stack("granian-h2c-starlette", ("granian", "h2", *_ASGI),
          _granian("asgi", _STARLETTE), inherit_socket=False, h2c=True),
    # HTTP/2 beyond Starlette: Quart on its own server, Litestar on Granian.
    Stack("hypercorn-h2c-quart", ("hypercorn", "h2", "quart"),
          hypercorn("tests.differential.quart_echo:create()"), h2c=True),
    Stack("granian-h2c-litestar", ("granian", "h2", "litestar"),
          _granian("asgi", "tests.differential.litestar_echo:create"),
          inherit_socket=False, h2c=True),
    Stack("gunicorn-pyramid", ("gunicorn", "pyramid", "webob"),
          gunicorn("tests.differential.pyramid_echo:create()"), env=_GUNICORN_ENV),
)  # fmt: skip

ISSUE_11_STACKS: Final = (
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

STACKS: Final = ISSUE_11_STACKS + MORE_STACKS

#: Stacks whose server hides the raw target and blanks non-ASCII header values
#: (Granian's WSGI interface, issue 25 R12): there a head row may pass, never leak.
BLIND_STACKS: Final = frozenset({"granian-wsgi-flask"})
WS_ROW_IDS: Final = tuple(row.id for row in WS_ROWS)
#: (row, stack) pairs that fail for a reason outside the guard, each with it; the
#: tests mark them xfail (strict where the failure is deterministic).
KNOWN_FAILURES: Final[dict[tuple[str, str], tuple[str, bool]]] = {
    **{
        (row, stack): (
            "Django's ASGI handler answers a websocket scope with a 500; the "
            "MIDDLEWARE class never sees websockets",
            True,
        )
        for row in ("probe-websocket-upgrade-path-overlong", *WS_ROW_IDS)
        for stack in ("daphne-django", "uvicorn-django")
        # uvicorn refuses a non-ASCII Sec-WebSocket-Protocol itself (400).
        if not (row.startswith("ws-subprotocol-") and stack == "uvicorn-django")
    },
    **{
        ("probe-target-absolute-userinfo-overlong", stack): (
            "Django's ASGI handler routes the absolute-form target to no view (404)",
            True,
        )
        for stack in ("daphne-django", "uvicorn-django")
    },
    **{
        (row, stack): (
            "the framework drops or cuts a cookie value with non-ASCII bytes "
            "(Granian WSGI blanks the header): nothing invalid reaches the app",
            True,
        )
        for row in (
            "clean-cookie",
            "clean-cookie-rtl",
            "probe-cookie-quoted-escaped-quote",
        )
        for stack in ("granian-wsgi-flask", "gunicorn-bottle", "gunicorn-pyramid")
    },
    **{
        (row, "gunicorn-bottle"): (
            "inspect_all_bodies, which Bottle needs (it reads a form from an "
            "octet-stream body), refuses a binary upload: the cost SECURITY.md states",
            True,
        )
        for row in ("c25-binary-upload", "clean-binary-body")
    },
    **{
        (row, stack): (
            "Werkzeug's router answers 400 to a websocket handshake when no rule "
            "is a websocket rule (WebsocketMismatch): Flask has no websockets",
            True,
        )
        for row in WS_ROW_IDS
        if row.startswith("ws-control-")
        for stack in ("gunicorn-flask", "werkzeug-flask", "granian-wsgi-flask")
    },
    **{
        (row, stack): (
            "Falcon refuses a part with any Content-Transfer-Encoding but binary "
            "(MultipartParseError, a 400): the guard passes the identity codings",
            True,
        )
        for row in ("c25-curl-encoder-8bit", "c25-cte-7bit-field")
        for stack in ("uvicorn-falcon", "gunicorn-falcon")
    },
    ("clean-cookie-rtl", "daphne-django"): (
        "Daphne answers 400 itself to a header value holding byte 0x85 (its "
        "INVALID_HEADER_VALUE_BYTES, str.splitlines' NEL), which Arabic in UTF-8 "
        "holds (U+0645 is D9 85); the guard never sees it",
        True,
    ),
    ("clean-user-agent-latin1", "uvicorn-sanic"): (
        "Sanic reads header values as UTF-8 with surrogateescape (a Latin-1 byte "
        "becomes a lone surrogate), so its guard runs with latin1_headers=()",
        True,
    ),
    ("F7-urlencoded-amp-4mib", "daphne-django"): (
        "Daphne and Django parse 2M fields past the 20 s timeout on a loaded machine",
        False,
    ),
}
