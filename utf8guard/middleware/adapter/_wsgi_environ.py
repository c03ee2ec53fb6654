"""A WSGI environ as the engine reads it: the request head's parts, as bytes.

PEP 3333: environ strings hold one byte per code point, so ``latin-1`` gives the
bytes back; the headers are the ``HTTP_*`` keys and CGI/1.1's ``CONTENT_TYPE`` and
``CONTENT_LENGTH`` (RFC 3875 §4.1.2, §4.1.3). The translation lives here only: the C
accelerator's ``environ_parts`` reads :data:`ENVIRON_KEYS` at its first call and asks
:func:`header_field` what each environ key it has not met carries.
"""

from __future__ import annotations

from ..._accel import IMPLEMENTATION
from ..._lazy_pattern import lazy_pattern
from ..._memo import memoize
from ..head._request import RequestHead
from ..head._seen import remember

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final, NamedTuple, TypeVar

    from _typeshed.wsgi import WSGIEnvironment

    #: What a cache holds for a tuple of environ keys (:func:`remember_keys`).
    Known = TypeVar("Known")
else:
    from ..._named_tuple import NamedTuple

__all__ = [
    "ABSENT_CGI_VALUE",
    "ENVIRON_KEYS",
    "TARGET_DELIMITERS",
    "EnvironKeys",
    "HeaderField",
    "HeaderKeys",
    "Parts",
    "TargetDelimiters",
    "environ_head",
    "environ_parts",
    "head_from",
    "header_field",
    "header_items",
    "header_keys",
    "latin1",
    "py_environ_parts",
    "remember_keys",
    "target_parts",
    "target_path",
    "wsgi_bytes",
]


class EnvironKeys(NamedTuple):
    """The environ keys of a request head besides its headers. Read by
    :func:`target_parts` and, at its first call, by the C twin."""

    #: The raw request target: ``RAW_URI`` from Gunicorn and Werkzeug ...
    raw_target: str
    #: ... or, when that gives none, ``REQUEST_URI`` from mod_wsgi and uWSGI.
    other_raw_target: str
    #: The path as the server decoded it: these two joined (PEP 3333).
    script_name: str
    path_info: str
    #: The query string (RFC 3875 §4.1.7).
    query: str


ENVIRON_KEYS: Final = EnvironKeys(
    "RAW_URI", "REQUEST_URI", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING"
)


class HeaderField(NamedTuple):
    """What an environ key that carries a header says of it (:func:`header_field`)."""

    #: The field name, in lower case.
    name: bytes
    #: The value that means there is no such field (a CGI key's:
    #: :data:`ABSENT_CGI_VALUE`), or None (any value is the field's).
    absent: str | None


class TargetDelimiters(NamedTuple):
    """The bytes :func:`target_path` splits a request target at (RFC 3986 §3). Read by
    it and, at its first call, by the C twin, which splits an origin-form target
    itself."""

    #: RFC 9112 §3.2.1: an origin-form target starts with its absolute path's "/".
    path: int
    #: RFC 3986 §3.4: the query starts at the first "?".
    query: int
    #: RFC 3986 §3.5: the fragment starts at the first "#" and runs to the end.
    fragment: int


# Single bytes as ints: CPython 3.11's bytes.__contains__ tries a bytes needle as an
# int first, and raising and clearing that TypeError costs far more.
TARGET_DELIMITERS: Final = TargetDelimiters(path=0x2F, query=0x3F, fragment=0x23)
#: RFC 3875 §4.1.2, §4.1.3: a CGI variable of a field the request lacks is NULL (the
#: empty string) or unset, so this value means no such field (:class:`HeaderField`).
ABSENT_CGI_VALUE: Final = ""


# RFC 9112 §3.2.2: absolute-form; the path starts at the first "/" after the authority.
_ABSOLUTE_FORM: Final = lazy_pattern(rb"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*")
#: RFC 3875 §4.1.18: a header's key is its name after this prefix.
_HEADER_PREFIX: Final = "HTTP_"
#: The CGI/1.1 meta-variables (RFC 3875 §4.1.2, §4.1.3) that carry request headers.
_CGI_HEADERS: Final = frozenset(("CONTENT_TYPE", "CONTENT_LENGTH"))
#: ``(key, field name, absent value)`` of the header keys of an environ.
HeaderKeys = tuple[tuple[str, bytes, str | None], ...]
#: The header keys of environs seen before, by their whole tuple of keys.
_seen_keys: Final[dict[tuple[str, ...], HeaderKeys]] = {}
#: A request head as a WSGI environ gives it: raw path, decoded path, query, headers.
Parts = tuple[bytes | None, bytes, bytes, list[tuple[bytes, bytes]]]


def environ_head(environ: WSGIEnvironment) -> RequestHead:
    """The request head from a WSGI environ; odd types count as empty (then refused)."""
    return head_from(*environ_parts(environ))


def environ_parts(environ: WSGIEnvironment) -> Parts:
    """``(raw_path, app_path, query, headers)`` of a WSGI environ, as bytes.

    PEP 3333: environ strings hold one byte per code point, so ``latin-1`` gives the
    bytes back. The raw target (``RAW_URI`` from Gunicorn and Werkzeug,
    ``REQUEST_URI`` from mod_wsgi and uWSGI) is the path the client sent; the app
    path is ``SCRIPT_NAME + PATH_INFO`` as the server decoded it.
    """
    parts = _compiled_parts(environ)
    if parts is not None:
        return parts
    return py_environ_parts(environ)


def py_environ_parts(environ: WSGIEnvironment) -> Parts:
    """:func:`environ_parts` in Python: the translation for every environ.

    The reference the C accelerator's twin (``_speedups.environ_parts``) is held to
    (``tests/test_speedups_environ.py``, ``fuzz/fuzz_fastlane.py``); environ_parts
    takes it for whatever environ the C function leaves to Python.
    """
    raw_path, app_path, query = target_parts(environ)
    return raw_path, app_path, query, _headers(environ)


def target_parts(environ: WSGIEnvironment) -> tuple[bytes | None, bytes, bytes]:
    """``(raw_path, app_path, query)`` of :func:`py_environ_parts`: all but headers."""
    get = environ.get
    raw_target, other_raw_target, script_name, path_info, query = ENVIRON_KEYS
    target = _str_bytes(get(raw_target)) or _str_bytes(get(other_raw_target))
    app_path = _str_bytes(get(script_name)) + _str_bytes(get(path_info))
    return target_path(target), app_path, _str_bytes(get(query))


def target_path(target: bytes) -> bytes | None:
    """The path component of a request target and its fragment, if one was sent
    (None: there is no target).

    RFC 9112 §3.2 allows no fragment in a request target, but servers pass one on:
    Werkzeug's keeps it in ``RAW_URI`` (the app reads ``/a#\xc0\xaf`` there) while
    ``PATH_INFO`` and ``QUERY_STRING`` drop it, and uvicorn's h11 server leaves it in
    ``raw_path``. So its bytes stay with the path and get the path's rules. RFC 3986
    §3.5: the fragment starts at the first ``#`` and runs to the end, a ``?`` in it
    included; the query (checked as ``QUERY_STRING``) is what lies between.
    """
    if not target:
        return None
    slash, question_mark, number_sign = TARGET_DELIMITERS
    # origin-form (RFC 9112 §3.2.1), the common case, starts with "/".
    absolute = None if target[0] == slash else _ABSOLUTE_FORM.match(target)
    path = target[absolute.end() :] if absolute else target
    fragment = b""
    if number_sign in path:
        at = path.index(number_sign)
        path, fragment = path[:at], path[at:]
    if question_mark in path:
        path = path[: path.index(question_mark)]
    return path + fragment if fragment else path


def head_from(
    raw_path: bytes | None,
    app_path: bytes,
    query: bytes,
    headers: list[tuple[bytes, bytes]],
) -> RequestHead:
    """The engine's :class:`RequestHead` of :func:`environ_parts`' parts."""
    return RequestHead(
        path=app_path.decode("utf-8", "replace"),
        raw_path=raw_path,
        query_string=query,
        headers=tuple(headers),
        app_path=app_path,
    )


def latin1(environ: Mapping[str, object], key: str) -> bytes:
    """The bytes of ``environ[key]``; empty when it is missing or no str."""
    return _str_bytes(environ.get(key))


def _str_bytes(value: object) -> bytes:
    if not isinstance(value, str):
        return b""
    # wsgi_bytes, inlined for the common string (a second call costs a third).
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return wsgi_bytes(value)


def wsgi_bytes(value: str) -> bytes:
    """A PEP 3333 string's bytes (one per code point)."""
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        # A code point over U+00FF breaks PEP 3333; check it as UTF-8, never drop it.
        return value.encode("utf-8", "surrogatepass")


def header_items(environ: WSGIEnvironment) -> list[tuple[str, bytes, bytes]]:
    """``(key, lower-case name, value)`` of each header: ``HTTP_*`` and the CGI two."""
    keys: list[str] = []
    pairs = _headers(environ, keys)
    return [(key, *pair) for key, pair in zip(keys, pairs, strict=True)]


def _headers(
    environ: WSGIEnvironment, keys: list[str] | None = None
) -> list[tuple[bytes, bytes]]:
    """The ``(name, value)`` of each header, in environ order; their environ keys
    are appended to ``keys`` if given."""
    pairs: list[tuple[bytes, bytes]] = []
    add_pair = pairs.append
    for key, name, absent in header_keys(tuple(environ)):
        value = environ[key]
        if isinstance(value, str) and value != absent:
            # wsgi_bytes, inlined: a call per header costs a fifth of this loop.
            try:
                add_pair((name, value.encode("latin-1")))
            except UnicodeEncodeError:
                add_pair((name, wsgi_bytes(value)))
            if keys is not None:
                keys.append(key)
    return pairs


def header_keys(keys: tuple[str, ...]) -> HeaderKeys:
    """``(key, field name, absent value)`` of each key that carries a header
    (:func:`header_field`).

    Remembered by the whole tuple of keys (:data:`_seen_keys`, bounded by
    :func:`..head._seen.remember`): a server sends the same keys request after request,
    and a Python loop over every key costs more than the rest of the translation.
    """
    found = _seen_keys.get(keys)
    if found is None:
        found = tuple(
            (key, *field) for key in keys if (field := header_field(key)) is not None
        )
        remember_keys(_seen_keys, keys, found)
    return found


def remember_keys(
    seen: dict[tuple[str, ...], Known], keys: tuple[str, ...], known: Known
) -> None:
    """:func:`..head._seen.remember` ``known`` for an environ's ``keys`` if all are str
    (PEP 3333; any other key type may hash and compare as it likes)."""
    if all(type(key) is str for key in keys):
        remember(seen, keys, known, sum(map(len, keys)))


if IMPLEMENTATION == "c":
    # environ_parts' answer in one C call for the common environ (ASCII
    # keys, Latin-1 values); None leaves any other to py_environ_parts
    # (tests/test_speedups_environ.py holds the two together).
    from ..._speedups import environ_parts as _compiled_parts
else:

    def _compiled_parts(environ: object, /) -> Parts | None:
        return None  # pure Python: environ_parts translates every environ


@memoize(256)
def header_field(key: str) -> HeaderField | None:
    """The header an environ key carries, or None: ``HTTP_X_FORWARDED_FOR`` is
    ``x-forwarded-for`` (RFC 3875 §4.1.18: "_" for "-", upper case), and
    ``CONTENT_TYPE`` and ``CONTENT_LENGTH`` carry theirs unless they hold
    :data:`ABSENT_CGI_VALUE` (§4.1.2, §4.1.3).

    Cached: servers send the same few keys on every request. The C twin asks it too,
    for each key it has not met, so that this stays the one translation.
    """
    if key[: len(_HEADER_PREFIX)] == _HEADER_PREFIX:
        name, absent = key[len(_HEADER_PREFIX) :], None
    elif key in _CGI_HEADERS:
        name, absent = key, ABSENT_CGI_VALUE
    else:
        return None
    return HeaderField(wsgi_bytes(name.replace("_", "-").lower()), absent)
