"""Utf8GuardWSGIMiddleware: a PEP 3333 adapter over the engine; wraps wsgi.input only.

>>> def app(environ, start_response): ...
>>> guarded = Utf8GuardWSGIMiddleware(app, mode="block")
"""

from __future__ import annotations

import io
from itertools import chain

from .._accel import IMPLEMENTATION
from .._repair import repair
from .adapter._guard import (
    ASGI_CLASS,
    DJANGO_CLASS,
    Guard,
    app_name,
    is_async_callable,
    takes_one_argument,
)
from .adapter._wsgi_environ import (
    Parts,
    environ_parts,
    head_from,
    header_items,
    latin1,
    target_parts,
)
from .adapter._wsgi_input import (
    BodyRefused,
    CheckedInput,
    Pieces,
    has_body,
    input_chunks,
    read_into,
    read_whole,
    reader,
    replay,
)
from .adapter._wsgi_response import Closing, Deferred
from .adapter._wsgi_response import send_problem as _send_problem
from .engine._config import GuardConfig
from .engine._engine import check_head
from .engine._exclude import is_excluded, may_be_excluded
from .engine._finding import RequestSummary
from .engine._flow import BodyBuffer, BodyFlow, Route
from .engine._report import summarize
from .engine._spool import REPLAY_BYTES
from .head._fast import NO_BODY, Lane, Plan, head_plan, is_clean_whole, lane_for
from .head._request import RequestHead
from .head._wsgi_lane import py_wsgi_plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Final

    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

__all__ = ["Utf8GuardWSGIMiddleware"]

#: ``ViolationEvent.scope_type`` for findings made by this adapter.
SCOPE_TYPE: Final = "wsgi"
#: Issue 25 R12: a server that passes no raw target (Django's runserver, Granian's
#: WSGI mode) has decoded the path before the guard sees it, so an encoded "/"
#: (%2F) or a double encoding (%252e) is invisible and exclude_paths matches the
#: decoded path. Said once per middleware, at its first request, on this logger
#: (``logging`` is imported then: it costs more at import than this module).
SETUP_LOGGER_NAME: Final = "utf8guard.setup"
BLIND_SERVER_WARNING: Final = (
    "this WSGI server passes no raw request target (RAW_URI or REQUEST_URI): "
    "the path is checked only as the server decoded it, so %2F and double "
    "encodings it decoded are invisible to the guard and exclude_paths matches "
    "the decoded path; serve with Gunicorn, uWSGI or Werkzeug to check the path "
    "as sent (SECURITY.md, supported stacks)"
)
#: Whether the lane starts from the environ's parts (the C accelerator's
#: ``environ_parts`` and ``head_plan``), not from the environ (``py_wsgi_plan``).
_PARTS_FIRST: Final = IMPLEMENTATION == "c"
#: The environ keys a request's summary is made of (besides the head).
_SUMMARY_KEYS: Final = ("REQUEST_METHOD", "REMOTE_ADDR", "REMOTE_PORT")


class Utf8GuardWSGIMiddleware(Guard["WSGIApplication"]):
    """Refuse requests with invalid UTF-8 before routing (Flask, Django, any WSGI app).

    ``app.wsgi_app = Utf8GuardWSGIMiddleware(app.wsgi_app)`` for Flask, or wrap
    ``get_wsgi_application()`` for Django. Makes the same decisions as the ASGI
    :class:`Utf8GuardMiddleware`, with the same options (see :class:`GuardConfig`).
    The path is checked as the client sent it (``RAW_URI`` or ``REQUEST_URI``, when
    the server provides them) and as the server decoded it (``SCRIPT_NAME`` and
    ``PATH_INFO``, whose code points are bytes per PEP 3333); then the query string,
    the ``HTTP_*`` headers and ``CONTENT_TYPE``; ``exclude_paths`` routes skip all
    but the path.

    Security-relevant defaults: ``mode="block"`` answers 400 or 413 as
    application/problem+json. An inspected body is read from ``wsgi.input`` and
    validated in full before the application runs (spooled to a temporary file
    beyond ``memory_body_size``); the application reads it back with
    ``CONTENT_LENGTH`` set to its size. ``stream_body=True`` instead checks
    ``wsgi.input`` as the application reads it, handing over only checked bytes; at
    the first violation the read raises ``ValueError``, and the response becomes the
    400 if the application has not yet sent a body byte.
    """

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        if not self._server_known:
            self._know_server(environ)
        # C: the parts in one call, then the plan of them. Pure Python: the plan in
        # one pass (py_wsgi_plan), the parts only for the full check.
        parts = environ_parts(environ) if _PARTS_FIRST else None
        plan = self._plan(environ, parts)
        if plan is not None:
            environ = dict(environ)
            if plan == NO_BODY:
                # PEP 3333: no body at all. The app gets the empty stream it should
                # read, as in the full check's Route.EMPTY.
                environ["wsgi.input"] = io.BytesIO(b"")
                return self.app(environ, start_response)
            body = read_whole(environ, plan if isinstance(plan, int) else plan[0])
            if body is not None:
                environ["wsgi.input"] = io.BytesIO(body)
                if is_clean_whole(body, plan, self._lane, self.config):
                    environ["wsgi.input_terminated"] = True
                    return self.app(environ, start_response)
            # Anything else the full check decides, on the same bytes.
        return self._check(environ, start_response, parts)

    def _check(
        self,
        environ: WSGIEnvironment,
        start_response: StartResponse,
        parts: Parts | None,
    ) -> Iterable[bytes]:
        """The full check (the lane's frame stays small: no closure cells there)."""
        head = head_from(*(environ_parts(environ) if parts is None else parts))
        if is_excluded(head, self.config):
            return self.app(environ, start_response)
        # What the server said, taken now: the app may rewrite its environ (ProxyFix
        # sets REMOTE_ADDR) before a body finding is reported.
        server = {key: environ.get(key) for key in _SUMMARY_KEYS}
        verdict = check_head(
            head, self.config, SCOPE_TYPE, lambda: _summary(server, head, self.config)
        )
        if verdict.problem is not None:
            return _send_problem(start_response, verdict.problem)
        if verdict.head is not head:
            environ = _with_head(environ, verdict.head, self.config)
        flow = BodyFlow(verdict, self.config, SCOPE_TYPE, has_body=has_body(environ))
        return self._respond(flow, environ, start_response)

    def _misuse(self, app: object) -> str | None:
        if is_async_callable(app):
            return (
                f"Utf8GuardWSGIMiddleware wraps a WSGI app, not the ASGI app "
                f"{app_name(app)}: use {ASGI_CLASS}"
            )
        if takes_one_argument(app):
            return (
                f"Utf8GuardWSGIMiddleware wraps a WSGI app (environ, start_response), "
                f"not {app_name(app)}, which takes one argument: in Django's "
                f"MIDDLEWARE use {DJANGO_CLASS}"
            )
        return None

    def _ready(self) -> None:
        # A body read in one call, as the full check's first read would take it.
        self._lane: Lane = lane_for(self.config, REPLAY_BYTES)
        #: Whether the first request has shown what the server passes (R12).
        self._server_known = False

    def _know_server(self, environ: WSGIEnvironment) -> None:
        """Warn, once, when the server passes no raw target (R12)."""
        self._server_known = True
        if "RAW_URI" not in environ and "REQUEST_URI" not in environ:
            import logging  # at the first warning: see SETUP_LOGGER_NAME

            logging.getLogger(SETUP_LOGGER_NAME).warning(BLIND_SERVER_WARNING)

    def _plan(self, environ: WSGIEnvironment, parts: Parts | None) -> Plan:
        """:func:`.head._fast.head_plan` for a WSGI request (None: the full check), of
        ``parts`` when given, else of the environ
        (:func:`.head._wsgi_lane.py_wsgi_plan`)."""
        config = self.config
        if config.exclude_paths:
            app_path = target_parts(environ)[1] if parts is None else parts[1]
            if may_be_excluded(app_path.decode("utf-8", "replace"), config):
                return None
        # Whether there is no body matters to the plan only without a Content-Length
        # field, and a set CONTENT_LENGTH is that field (environ_parts reads it), so
        # has_body's parse is skipped then; False never skips the body check.
        bodiless = not environ.get("CONTENT_LENGTH") and not has_body(environ)
        if parts is None:
            return py_wsgi_plan(self._lane, environ, bodiless)
        raw_path, app_path, query, headers = parts
        return head_plan(self._lane, raw_path, app_path, query, headers, bodiless)

    def _respond(
        self, flow: BodyFlow, environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        """Run the app on ``environ`` with the body as the engine routes it."""
        route = flow.route
        if flow.problem is not None:  # Route.REFUSE
            return _send_problem(start_response, flow.problem)
        if route is Route.PASS:
            return self.app(environ, start_response)
        environ = dict(environ)
        if route is Route.EMPTY:
            # PEP 3333: no body at all. The app gets the empty stream it should read.
            environ["wsgi.input"] = io.BytesIO(b"")
            return self.app(environ, start_response)
        if route is Route.BUFFER:
            return self._buffered(flow.buffer(), environ, start_response)
        stream = CheckedInput(flow.gate(), input_chunks(environ))
        environ["wsgi.input"] = reader(stream)
        if route is Route.OBSERVE:
            result = self.app(environ, start_response)
        else:
            result = _streamed(self.app, environ, start_response, stream)
        return Closing(result, flow.close)

    def _buffered(
        self,
        buffer: BodyBuffer,
        environ: WSGIEnvironment,
        start_response: StartResponse,
    ) -> Iterable[bytes]:
        try:
            chunks = input_chunks(environ)
            problem = read_into(buffer, chunks)
            if problem is not None:
                buffer.close()
                return _send_problem(start_response, problem)
            spool = buffer.release()
            environ["wsgi.input_terminated"] = True
            if buffer.passing:
                # Not JSON after all: its first bytes, then the rest as the server
                # gives it (CONTENT_LENGTH unchanged; the stream ends with the body).
                rest = (chunk for chunk, _ in chunks)
                environ["wsgi.input"] = reader(Pieces(chain(spool.chunks(), rest)))
            else:
                environ["wsgi.input"] = replay(spool, self.config.memory_body_size)
                environ["CONTENT_LENGTH"] = str(spool.size)
            result = self.app(environ, start_response)
        except BaseException:
            buffer.close()  # the temporary file, if any; a second close is harmless
            raise
        return Closing(result, buffer.close)


def _summary(
    environ: Mapping[str, object], head: RequestHead, config: GuardConfig
) -> RequestSummary:
    """The request's summary for the log; built only when there is one to write.

    ``environ`` holds the :data:`_SUMMARY_KEYS` as the server set them.
    """
    return summarize(
        head,
        method=latin1(environ, "REQUEST_METHOD"),
        client=_client(environ),
        scope_type=SCOPE_TYPE,
        config=config,
    )


def _client(environ: Mapping[str, object]) -> tuple[object, object | None] | None:
    """The peer as CGI/1.1 gives it (RFC 3875 §4.1.8: ``REMOTE_ADDR``), or None."""
    address = environ.get("REMOTE_ADDR")
    return None if not address else (address, environ.get("REMOTE_PORT"))


def _with_head(
    environ: WSGIEnvironment, head: RequestHead, config: GuardConfig
) -> WSGIEnvironment:
    """A copy of ``environ`` carrying the normalised head (the server's stays intact).

    ``SCRIPT_NAME`` and ``PATH_INFO`` are repaired each in place (the same repair as
    the engine's, so a mount point set by the server or a proxy fix stays where it
    is); the raw target keys are rewritten to the engine's re-encoded path.
    """
    changed = dict(environ)
    for key in ("SCRIPT_NAME", "PATH_INFO"):
        fixed = repair(latin1(environ, key), config.effective_path_policy)
        changed[key] = fixed.decode("latin-1")
    query = head.query_string.decode("latin-1")
    changed["QUERY_STRING"] = query
    # normalize_head re-encodes the path as ASCII, so raw_path is set.
    target = (head.raw_path or b"").decode("ascii") + (f"?{query}" if query else "")
    for key in ("RAW_URI", "REQUEST_URI"):
        if key in changed:
            changed[key] = target
    # normalize_head repairs each header in place, so they pair up with their keys.
    keys = [key for key, _, _ in header_items(environ)]
    for key, (_, value) in zip(keys, head.headers, strict=True):
        changed[key] = value.decode("latin-1")
    return changed


def _streamed(
    app: WSGIApplication,
    environ: WSGIEnvironment,
    start_response: StartResponse,
    stream: CheckedInput,
) -> Iterable[bytes]:
    """Run the app on a checked ``wsgi.input``; a refusal replaces its response."""
    response = Deferred(start_response, stream.gate)
    try:
        result = app(environ, response.start_response)
    except BodyRefused:
        # The guard's own refusal, escaped from the app; any other error is the app's.
        problem = stream.gate.problem
        if problem is None:
            raise
        return _send_problem(start_response, problem)
    return response.relay(result)
