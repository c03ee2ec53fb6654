"""Utf8GuardMiddleware for Django's ``MIDDLEWARE``, on the WSGI adapter's engine.

Settings (``settings.py``)::

    MIDDLEWARE = ["utf8guard.middleware.django.Utf8GuardMiddleware", ...]
    UTF8GUARD = {"mode": "block", "request_id_header": "x-request-id"}
    # optional: system checks of both in ``manage.py check``
    INSTALLED_APPS = [..., "utf8guard.middleware.django.Utf8GuardAppConfig"]

Imports Django; the rest of ``utf8guard.middleware`` does not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping

# Django imports typing and urllib.parse itself: they cost this module nothing.
from typing import cast
from urllib.parse import unquote_to_bytes

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async

# Django ships no type information, and django-stubs is no dependency of ours.
from django.apps import AppConfig
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
)
from django.utils.encoding import repercent_broken_unicode

from .._record import Record
from .engine._config import configure
from .wsgi import Utf8GuardWSGIMiddleware

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from _typeshed.wsgi import StartResponse, WSGIEnvironment

__all__ = ["SETTING", "Utf8GuardAppConfig", "Utf8GuardMiddleware"]

#: The Django setting that holds the options: the adapters' keywords, or ``config``.
SETTING: Final = "UTF8GUARD"
# The environ key through which the guard's app hands back the environ it passed on.
_REACHED: Final = "utf8guard.django.reached"
# The environ keys the decoded path lives in; Django keeps them as text.
_PATH_KEYS: Final = ("SCRIPT_NAME", "PATH_INFO")

GetResponse = Callable[[HttpRequest], HttpResponseBase]
AsyncGetResponse = Callable[[HttpRequest], Awaitable[HttpResponseBase]]


class Utf8GuardMiddleware:
    """Refuse requests with invalid UTF-8 before Django routes them (WSGI and ASGI).

    Put it first in ``MIDDLEWARE``; configure it with the ``UTF8GUARD`` setting, a
    dict of the same options the ASGI and WSGI adapters take as keywords (or
    ``{"config": GuardConfig(...)}``). Each request goes through the WSGI adapter's
    engine, so the verdicts are the same as wrapping ``wsgi.py``: under WSGI it
    reads ``request.META`` (the server's environ, with ``RAW_URI`` or
    ``REQUEST_URI`` where the server sets them); under Django's ASGI handler the
    path, raw path and query come from ``request.scope``.

    The body of an inspected type is read from Django's request stream before any
    view runs and validated in full (up to ``max_body_size``, spooled to a temporary
    file beyond ``memory_body_size``); the request's stream is then replaced by the
    checked copy, so ``request.body``, ``request.POST`` and uploads read it as usual.
    Binary bodies are not read.

    Raises:
        TypeError: ``UTF8GUARD`` is not a dict, or an option has the wrong type.
        ValueError: a bad option value, or ``stream_body=True`` (Django buffers a
            request body itself; wrap the WSGI application to stream).
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: GetResponse | AsyncGetResponse) -> None:
        # Imported here: a module-level LazySettings breaks doctest collection (it
        # asks the object for __wrapped__) wherever no settings are configured.
        from django.conf import settings

        options = getattr(settings, SETTING, {})
        if not isinstance(options, Mapping):
            name = type(options).__name__
            raise TypeError(f"{SETTING} must be a dict of options, not {name}")
        rest = {key: value for key, value in options.items() if key != "config"}
        try:
            self.config = configure(options.get("config"), rest)
        except (TypeError, ValueError) as exc:
            # Issue 26: a server that dies at boot names the setting to fix.
            raise type(exc)(f"{SETTING} setting: {exc}") from exc
        if self.config.stream_body:
            raise ValueError(
                f"{SETTING} setting: stream_body is not supported by the Django "
                "middleware"
            )
        self.get_response = get_response
        self._is_async = iscoroutinefunction(get_response)
        if self._is_async:
            markcoroutinefunction(self)
        # One WSGI adapter per middleware: its lane's memories outlive a request.
        self._guard = Utf8GuardWSGIMiddleware(_reached, config=self.config)

    def __call__(
        self, request: HttpRequest
    ) -> HttpResponseBase | Awaitable[HttpResponseBase]:
        if self._is_async:
            return self.__acall__(request)
        outcome = _check(request, self._guard)
        if outcome.refusal is not None:
            return outcome.refusal
        try:
            return cast(GetResponse, self.get_response)(request)
        finally:
            outcome.close()

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        # Reading and checking the body blocks: off the event loop, as Django's own
        # request.body reads are.
        outcome = await sync_to_async(_check, thread_sensitive=False)(
            request, self._guard
        )
        if outcome.refusal is not None:
            return outcome.refusal
        try:
            return await cast(AsyncGetResponse, self.get_response)(request)
        finally:
            outcome.close()


class _Outcome(Record):
    """The guard's answer: a refusal to return, or a clean-up once the view ran."""

    refusal: HttpResponse | None = None
    result: Iterable[bytes] = ()

    def close(self) -> None:
        """Close the adapter's response: the spooled body, the pending report."""
        close = getattr(self.result, "close", None)
        if close is not None:
            close()


def _reached(checked: WSGIEnvironment, start: StartResponse) -> list[bytes]:
    """The guard's app: records the environ it passed on (copies keep the list)."""
    checked[_REACHED].append(checked)
    return []


def _check(request: HttpRequest, guard: Utf8GuardWSGIMiddleware) -> _Outcome:
    """Run ``request`` through the WSGI adapter; apply what it passes on."""
    environ = _environ(request)
    seen: list[WSGIEnvironment] = []
    environ[_REACHED] = seen
    answer: list[tuple[str, list[tuple[str, str]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], *_: object) -> None:
        answer.append((status, headers))

    result = guard(
        environ,
        start_response,  # type: ignore[arg-type]  # returns no write(); never used
    )
    if not seen:
        try:
            body = b"".join(result)
        finally:
            _Outcome(result=result).close()
        status, headers = answer[0]
        refusal = HttpResponse(body, status=int(status[:3]), headers=dict(headers))
        return _Outcome(refusal=refusal)
    _apply(request, environ, seen[0])
    return _Outcome(result=result)


def _environ(request: HttpRequest) -> WSGIEnvironment:
    """A WSGI environ for ``request``: ``META``, and the ASGI scope's raw parts."""
    environ = dict(request.META)
    # The stream Django's request reads from (a LimitedStream over wsgi.input, or the
    # ASGI handler's spooled body): bounded, so read it to its end.
    environ["wsgi.input"] = request._stream
    environ["wsgi.input_terminated"] = True
    # Django has replaced META's PATH_INFO and SCRIPT_NAME with text (invalid bytes
    # re-percent-encoded); as PEP 3333 strings they are that text's UTF-8.
    environ["SCRIPT_NAME"] = _wsgi_str(request.META.get("SCRIPT_NAME", ""))
    environ["PATH_INFO"] = _server_path_info(request, environ["SCRIPT_NAME"])
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict):
        # ASGIRequest.META has the query decoded as UTF-8 and no raw target; the scope
        # has what the server received (ASGI spec: raw_path and query_string, bytes).
        query = scope.get("query_string")
        if isinstance(query, bytes):
            environ["QUERY_STRING"] = query.decode("latin-1")
        else:
            environ["QUERY_STRING"] = _wsgi_str(request.META.get("QUERY_STRING", ""))
        raw_path = scope.get("raw_path")
        if isinstance(raw_path, bytes):
            environ["RAW_URI"] = raw_path.decode("latin-1")
    return environ


def _server_path_info(request: HttpRequest, script_name: str) -> str:
    """PATH_INFO as the server gave it, as far as the request shows it.

    Django re-percent-encodes the bytes of PATH_INFO that are not UTF-8
    (``repercent_broken_unicode``): ``/%C0%AF`` reads as the text ``/%C0%AF``,
    which the guard would see as a second escape (issue 26: two spurious
    ``double_encoding`` findings the WSGI adapter does not make). When the server
    kept the raw target (``RAW_URI``, ``REQUEST_URI``: Gunicorn, uWSGI, Werkzeug),
    its decoded path is used, if Django's text is exactly Django's reading of it.
    """
    path_info = _wsgi_str(request.path_info)
    raw = request.META.get("RAW_URI") or request.META.get("REQUEST_URI")
    if not isinstance(raw, str) or not raw.startswith("/"):
        return path_info
    decoded = unquote_to_bytes(raw.partition("?")[0])
    script = script_name.encode("latin-1")
    if not decoded.startswith(script):
        return path_info
    server = decoded[len(script) :] or b"/"
    if repercent_broken_unicode(server) != request.path_info.encode():
        return path_info
    return server.decode("latin-1")


def _wsgi_str(text: str) -> str:
    # PEP 3333: native strings carry one byte per code point.
    return text.encode("utf-8", "surrogatepass").decode("latin-1")


def _apply(
    request: HttpRequest, environ: WSGIEnvironment, checked: WSGIEnvironment
) -> None:
    """Give ``request`` what the guard passed on: the checked body, a repaired head."""
    if checked["wsgi.input"] is not environ["wsgi.input"]:
        request._stream = checked["wsgi.input"]
        request._read_started = False
    changed = {
        key: value
        for key, value in checked.items()
        if isinstance(value, str) and environ.get(key) != value
    }
    for key, value in changed.items():
        # Headers, query, CONTENT_LENGTH of a checked body, the raw target keys a WSGI
        # server set; under ASGI META has no RAW_URI (the guard's came from the scope).
        if key not in _PATH_KEYS and key in request.META:
            request.META[key] = value
    if "SCRIPT_NAME" in changed or "PATH_INFO" in changed:
        _set_path(request, checked)


def _set_path(request: HttpRequest, checked: WSGIEnvironment) -> None:
    """The repaired path (normalize mode) on ``request.path`` and ``path_info``."""
    script = checked["SCRIPT_NAME"].encode("latin-1").decode()
    path_info = checked["PATH_INFO"].encode("latin-1").decode()
    # As WSGIRequest.__init__ joins them.
    request.path = "{}/{}".format(script.rstrip("/"), path_info.replace("/", "", 1))
    request.path_info = path_info
    request.META["SCRIPT_NAME"] = script
    request.META["PATH_INFO"] = path_info


class Utf8GuardAppConfig(AppConfig):  # type: ignore[misc]  # Django ships no types
    """Optional: in ``INSTALLED_APPS``, ``manage.py check`` checks the ``UTF8GUARD``
    setting (unknown keys, with the valid ones listed; types and values) and the
    guard's place in ``MIDDLEWARE`` (first, once, the Django class)."""

    name = "utf8guard.middleware"
    label = "utf8guard"
    verbose_name = "utf8guard"

    def ready(self) -> None:
        from django.core import checks

        from .adapter._django_checks import check_guard

        checks.register(check_guard)
