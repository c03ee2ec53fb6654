"""What every echo app shares: the echo document, its JSON encoding, the exit timer.

The echo document says what the framework handed the application, in one shape for
every framework (the oracle reads only this shape)::

    {"app": "flask", "path": "/a", "raw_path": "/a" | None,
     "query": [[name, value], ...], "headers": [[name, value], ...],
     "cookies": [[name, value], ...], "form": [[name, value], ...],
     "files": [[field, filename, content_hex], ...],
     "json": <the framework's JSON API>, "json_loads": <json.loads(raw body)>,
     "model": <FastAPI body model, /model only>, "encoding": <Django only>,
     "errors": {"form": "ExceptionName", ...}, "counts": {"form": 123, ...}}

Strings are exactly what the framework gave (WSGI and ASGI header strings stay one
code point per byte); ``raw_path`` is the raw target the server passed, one code
point per byte. File contents and raw bytes go as hex, so binary uploads cannot look
like text. ``ensure_ascii`` escapes every code point, lone surrogates too, so the
test reads back exactly what arrived.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Callable, Iterable
from typing import Final, TypeVar

#: Lists longer than this are cut (a 4 MiB form has two million fields); the full
#: length goes to ``counts``.
MAX_ITEMS: Final = 200
#: File contents echoed, in bytes (as hex).
MAX_FILE_BYTES: Final = 4096
#: Paths under this prefix go to a guard in normalize mode with encoded separators
#: allowed (issue 11 F14); every other path to the default guard (block mode).
NORMALIZE_PREFIX: Final = "/normalize/"
#: Environment: seconds the server lives (set by the tests), and whether to stop a
#: Gunicorn master too.
#: The settings module of the Django echo project.
DJANGO_SETTINGS: Final = "tests.differential.django_settings"
LIFETIME_ENV: Final = "UTF8GUARD_DIFF_LIFETIME"
KILL_PARENT_ENV: Final = "UTF8GUARD_DIFF_KILL_PARENT"

T = TypeVar("T")
Document = dict[str, object]


def new_document(app: str, path: str, raw_path: str | None) -> Document:
    """An echo document with the head fields set and empty error/count maps."""
    return {"app": app, "path": path, "raw_path": raw_path, "errors": {}, "counts": {}}


def attempt(document: Document, key: str, read: Callable[[], T]) -> T | None:
    """``read()``; if the framework raises, record the exception's name under ``key``.

    One parser's refusal must not hide what another parser of the same request gave
    the app, so each piece of the echo is read on its own.
    """
    try:
        return read()
    except Exception as exc:  # recorded in the echo, never dropped
        errors = document["errors"]
        assert isinstance(errors, dict)
        errors[key] = type(exc).__name__
        return None


def put_pairs(
    document: Document, key: str, pairs: Iterable[tuple[str, object]]
) -> None:
    """Store ``[name, value]`` pairs under ``key``, at most MAX_ITEMS of them."""
    items = [[name, value] for name, value in pairs]
    document[key] = items[:MAX_ITEMS]
    if len(items) > MAX_ITEMS:
        counts = document["counts"]
        assert isinstance(counts, dict)
        counts[key] = len(items)


def echo_pairs(
    document: Document, key: str, read: Callable[[], Iterable[tuple[str, object]]]
) -> None:
    """``put_pairs`` of what ``read()`` returns; an exception is recorded (attempt)."""
    attempt(document, key, lambda: put_pairs(document, key, read()))


def file_entry(field: str, filename: str | None, content: bytes) -> list[object]:
    """One uploaded file as ``[field, filename, content_hex]``."""
    return [field, filename, content[:MAX_FILE_BYTES].hex()]


def dumps(document: Document) -> bytes:
    """The document as ASCII JSON: each non-ASCII code point escaped, surrogates too."""
    return json.dumps(document, ensure_ascii=True).encode("ascii")


def latin1(raw: bytes | None) -> str | None:
    """Raw bytes as one code point per byte (PEP 3333's convention), or None."""
    return None if raw is None else raw.decode("latin-1")


def exit_later() -> None:
    """Exit this server after ``$UTF8GUARD_DIFF_LIFETIME`` seconds, if it is set.

    A no-op without the variable, so importing an app (pytest's doctest collection
    does) never arms it in the test process.
    """
    lifetime = os.environ.get(LIFETIME_ENV)
    if lifetime is None:
        return

    def stop() -> None:
        if os.environ.get(KILL_PARENT_ENV):
            os.kill(os.getppid(), signal.SIGTERM)
        os._exit(3)

    timer = threading.Timer(float(lifetime), stop)
    timer.daemon = True
    timer.start()
