"""Utf8GuardWSGIMiddleware: a PEP 3333 adapter over the engine; wraps wsgi.input only.

>>> def app(environ, start_response): ...
>>> guarded = Utf8GuardWSGIMiddleware(app, mode="block")
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from http.client import responses
from itertools import chain
from typing import IO, TYPE_CHECKING, Final

from .._repair import repair
from .._stream import repair_stream
from ._config import GuardConfig, GuardOptions, configure
from ._engine import BodyCheck, check_head
from ._exclude import is_excluded
from ._finding import RequestSummary
from ._problem import Problem
from ._report import summarize
from ._request import RequestHead
from ._spool import REPLAY_BYTES, BodySpool

if TYPE_CHECKING:
    from _typeshed import OptExcInfo, WriteableBuffer
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment
    from typing_extensions import Unpack

__all__ = ["Utf8GuardWSGIMiddleware"]

#: ``ViolationEvent.scope_type`` for findings made by this adapter.
SCOPE_TYPE: Final = "wsgi"
#: RFC 9110 §15.5.14 renamed 413 (``http.client`` still says "Request Entity Too
#: Large"); other statuses (``on_refuse`` may pick any 4xx/5xx) take the stdlib phrase.
_REASONS: Final = {413: "Content Too Large"}
# RFC 9112 §3.2.2: absolute-form; the path starts at the first "/" after the authority.
_ABSOLUTE_FORM: Final = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*")
#: The CGI/1.1 meta-variables (RFC 3875 §4.1.2, §4.1.3) that carry request headers.
_CGI_HEADERS: Final = frozenset(("CONTENT_TYPE", "CONTENT_LENGTH"))
#: The environ keys a request's summary is made of (besides the head).
_SUMMARY_KEYS: Final = ("REQUEST_METHOD", "REMOTE_ADDR", "REMOTE_PORT")


class Utf8GuardWSGIMiddleware:
    """Refuse requests with invalid UTF-8 before routing (Flask, Django, any WSGI app).

    ``app.wsgi_app = Utf8GuardWSGIMiddleware(app.wsgi_app)`` for Flask, or wrap
    ``get_wsgi_application()`` for Django. Makes the same decisions as the ASGI
    :class:`Utf8GuardMiddleware`, with the same options (see :class:`GuardConfig`).
    The path is checked as the client sent it (``RAW_URI`` or ``REQUEST_URI``, when
    the server provides them) and as the server decoded it (``SCRIPT_NAME`` and
    ``PATH_INFO``, whose code points are bytes per PEP 3333); then the query string,
    the ``HTTP_*`` headers and ``CONTENT_TYPE``.

    Pass the options as keywords, or one ready :class:`GuardConfig` as ``config``
    (not both). Security-relevant defaults: ``mode="block"`` answers 400
    application/problem+json (413 over ``max_body_size``); the body of an inspected
    type is read from ``wsgi.input`` and validated in full before the application
    runs (held in memory up to ``memory_body_size``, then in a temporary file), and
    the application reads it back with ``CONTENT_LENGTH`` set to its size.
    ``stream_body=True`` instead checks ``wsgi.input`` as the application reads it,
    handing over only checked bytes; at the first violation the read raises, and the
    response becomes the 400 if the application has not yet sent a body byte.
    ``exclude_paths`` routes skip the query, header and body checks.

    Raises:
        ValueError: an unknown mode or a size that is not positive.
        TypeError: an option of the wrong type, or both ``config`` and options.
    """

    def __init__(
        self,
        app: WSGIApplication,
        *,
        config: GuardConfig | None = None,
        **options: Unpack[GuardOptions],
    ) -> None:
        self.app = app
        self.config = configure(config, options)

    def __call__(
        self, environ: WSGIEnvironment, start_response: StartResponse
    ) -> Iterable[bytes]:
        head = environ_head(environ)
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
        body = BodyCheck(verdict.head.headers, self.config, SCOPE_TYPE, verdict.report)
        if body.refusal is not None:
            return _send_problem(start_response, body.refusal)
        if not body.inspected:
            return self.app(environ, start_response)
        if _content_length(environ) is None and not environ.get(
            "wsgi.input_terminated"
        ):
            # PEP 3333: no body at all. The app gets the empty stream it should read.
            problem = body.finish()
            if problem is not None:
                return _send_problem(start_response, problem)
            environ = dict(environ)
            environ["wsgi.input"] = io.BytesIO(b"")
            return self.app(environ, start_response)
        if self.config.mode == "report":
            stream = _CheckedInput(body, environ, report=True)
            environ = dict(environ)
            environ["wsgi.input"] = _reader(stream)
            return _Closing(self.app(environ, start_response), body.close)
        if self.config.stream_body:
            return _Closing(
                _streamed(self.app, environ, start_response, body), body.close
            )
        return self._buffered(environ, start_response, body)

    def _buffered(
        self, environ: WSGIEnvironment, start_response: StartResponse, body: BodyCheck
    ) -> Iterable[bytes]:
        spool = BodySpool(self.config.memory_body_size)
        try:
            chunks = _input_chunks(environ)
            problem = _read_into(spool, body, chunks)
            if problem is not None:
                spool.close()
                return _send_problem(start_response, problem)
            if body.needs_repair:
                spool = _repaired(spool, self.config)
            environ = dict(environ)
            environ["wsgi.input_terminated"] = True
            if body.inspected:
                environ["wsgi.input"] = _replay(spool, self.config.memory_body_size)
                environ["CONTENT_LENGTH"] = str(spool.size)
            else:
                # Not JSON after all: its first bytes, then the rest as the server
                # gives it (CONTENT_LENGTH unchanged; the stream ends with the body).
                rest = (chunk for chunk, _ in chunks)
                environ["wsgi.input"] = _reader(_Pieces(chain(spool.chunks(), rest)))
            result = self.app(environ, start_response)
        except BaseException:
            spool.close()  # the temporary file, if any; a second close is harmless
            raise
        return _Closing(result, spool.close)


def environ_head(environ: WSGIEnvironment) -> RequestHead:
    """The request head from a WSGI environ; odd types count as empty (then refused).

    PEP 3333: environ strings hold one byte per code point, so ``latin-1`` gives the
    bytes back. The raw target (``RAW_URI`` from Gunicorn and Werkzeug,
    ``REQUEST_URI`` from mod_wsgi and uWSGI) is the path the client sent.
    """
    app_path = _latin1(environ, "SCRIPT_NAME") + _latin1(environ, "PATH_INFO")
    raw = _latin1(environ, "RAW_URI") or _latin1(environ, "REQUEST_URI")
    raw_path = None
    if raw:
        absolute = _ABSOLUTE_FORM.match(raw)
        raw_path = raw[absolute.end() :] if absolute else raw
        raw_path = raw_path.partition(b"?")[0].partition(b"#")[0]
    return RequestHead(
        path=app_path.decode("utf-8", "replace"),
        raw_path=raw_path,
        query_string=_latin1(environ, "QUERY_STRING"),
        headers=tuple([(name, value) for _, name, value in _headers(environ)]),
        app_path=app_path,
    )


def _summary(
    environ: Mapping[str, object], head: RequestHead, config: GuardConfig
) -> RequestSummary:
    """The request's summary for the log; built only when there is one to write.

    ``environ`` holds the :data:`_SUMMARY_KEYS` as the server set them.
    """
    return summarize(
        head,
        method=_latin1(environ, "REQUEST_METHOD"),
        client=_client(environ),
        scope_type=SCOPE_TYPE,
        config=config,
    )


def _client(environ: Mapping[str, object]) -> tuple[object, object | None] | None:
    """The peer as CGI/1.1 gives it (RFC 3875 §4.1.8: ``REMOTE_ADDR``), or None."""
    address = environ.get("REMOTE_ADDR")
    return None if not address else (address, environ.get("REMOTE_PORT"))


def _latin1(environ: Mapping[str, object], key: str) -> bytes:
    value = environ.get(key)
    return _wsgi_bytes(value) if isinstance(value, str) else b""


def _wsgi_bytes(value: str) -> bytes:
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        # A code point over U+00FF breaks PEP 3333; check it as UTF-8, never drop it.
        return value.encode("utf-8", "surrogatepass")


def _headers(environ: WSGIEnvironment) -> list[tuple[str, bytes, bytes]]:
    """``(key, lower-case name, value)`` of each header: ``HTTP_*`` and the CGI two."""
    found = []
    for key, value in environ.items():
        http = key[:5] == "HTTP_"
        # CGI/1.1 (RFC 3875 §4.1.3): an empty CONTENT_TYPE means no such header.
        if isinstance(value, str) and (http or (value and key in _CGI_HEADERS)):
            found.append((key, _field_name(key), _wsgi_bytes(value)))
    return found


@lru_cache(maxsize=256)
def _field_name(key: str) -> bytes:
    """``HTTP_X_FORWARDED_FOR`` → ``x-forwarded-for``; the CGI keys lose no prefix.

    Cached: servers send the same few keys on every request.
    """
    name = key[5:] if key[:5] == "HTTP_" else key
    return _wsgi_bytes(name.replace("_", "-").lower())


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
        fixed = repair(_latin1(environ, key), config.effective_path_policy)
        changed[key] = fixed.decode("latin-1")
    query = head.query_string.decode("latin-1")
    changed["QUERY_STRING"] = query
    # normalize_head re-encodes the path as ASCII, so raw_path is set.
    target = (head.raw_path or b"").decode("ascii") + (f"?{query}" if query else "")
    for key in ("RAW_URI", "REQUEST_URI"):
        if key in changed:
            changed[key] = target
    # normalize_head repairs each header in place, so they pair up with their keys.
    keys = [key for key, _, _ in _headers(environ)]
    for key, (_, value) in zip(keys, head.headers, strict=True):
        changed[key] = value.decode("latin-1")
    return changed


def _send_problem(start_response: StartResponse, problem: Problem) -> list[bytes]:
    status, headers, body = problem
    reason = _REASONS.get(status) or responses.get(status, "Error")
    start_response(
        f"{status} {reason}",
        [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers],
    )
    return [body]


def _content_length(environ: WSGIEnvironment) -> int | None:
    value = environ.get("CONTENT_LENGTH")
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _input_chunks(environ: WSGIEnvironment) -> Iterator[tuple[bytes, bool]]:
    """``(piece, is_last)`` of ``wsgi.input``, never reading past the body's end.

    PEP 3333: read at most ``CONTENT_LENGTH`` bytes; without it, to EOF only when the
    server sets ``wsgi.input_terminated`` (chunked uploads), else the body is empty.
    A body that ends at ``CONTENT_LENGTH`` is known complete with its last piece.
    """
    stream: IO[bytes] = environ["wsgi.input"]
    remaining = _content_length(environ)
    if remaining is None and not environ.get("wsgi.input_terminated"):
        remaining = 0
    return _pieces_of(stream, remaining)


def _pieces_of(
    stream: IO[bytes], remaining: int | None
) -> Iterator[tuple[bytes, bool]]:
    while remaining is None or remaining > 0:
        size = REPLAY_BYTES if remaining is None else min(REPLAY_BYTES, remaining)
        chunk = stream.read(size)
        if not chunk:
            return
        if remaining is not None:
            remaining -= len(chunk)
        yield chunk, remaining == 0


def _read_into(
    spool: BodySpool, body: BodyCheck, chunks: Iterator[tuple[bytes, bool]]
) -> Problem | None:
    """Read and check the body into ``spool``; a problem means refuse.

    Stops early when the body turns out not to need inspection (``body.inspected``
    False): ``chunks`` then holds the rest, unread.
    """
    try:
        for chunk, _ in chunks:
            problem = body.feed(chunk)
            if problem is not None:
                return problem
            spool.append(chunk)
            if not body.inspected:
                return None
    except OSError:
        # The message is never shown: it may quote the body (Werkzeug's chunk errors).
        problem = body.unreadable()
        if problem is None:
            raise  # report mode changes nothing
        return problem
    return body.finish()


def _repaired(spool: BodySpool, config: GuardConfig) -> BodySpool:
    """The body with each invalid sequence replaced (normalize mode)."""
    fixed = BodySpool(config.memory_body_size)
    try:
        for piece in repair_stream(spool.chunks(), config.policy):
            fixed.append(piece)
    finally:
        spool.close()
    return fixed


def _replay(spool: BodySpool, memory_bytes: int) -> IO[bytes]:
    """The checked body as ``wsgi.input``: from memory, or from the spool's file."""
    if spool.size <= memory_bytes:
        # BodySpool keeps bodies up to memory_bytes as chunks; a single chunk is joined
        # without a copy, and BytesIO shares it until written (bench_wsgi: -5 µs).
        return io.BytesIO(b"".join(spool.chunks()))
    return _reader(_Pieces(spool.chunks()))


def _reader(raw: io.RawIOBase) -> io.BufferedReader:
    """``wsgi.input`` for the app: read, readline, readlines, iteration (PEP 3333)."""
    return io.BufferedReader(raw, buffer_size=REPLAY_BYTES)


class _Pieces(io.RawIOBase):
    """A raw stream over an iterator of byte strings (the checked body, replayed)."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        super().__init__()
        self._pieces = pieces
        self._current = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._current:
            piece = next(self._pieces, None)
            if piece is None:
                return 0
            self._current = memoryview(piece)
        with memoryview(buffer) as view:
            count = min(len(view), len(self._current))
            view[:count] = self._current[:count]
        self._current = self._current[count:]
        return count


class _CheckedInput(_Pieces):
    """``wsgi.input`` checked as the application reads it (stream_body, report mode).

    Only bytes known clean are handed over; an unfinished sequence at a chunk's end
    waits for the next chunk. At the first violation (block and normalize modes) the
    read raises ``ValueError`` and so does every later one: the app must not take a
    cut-off body for a whole one. Report mode hands over every byte unchanged.
    """

    def __init__(
        self, body: BodyCheck, environ: WSGIEnvironment, *, report: bool
    ) -> None:
        super().__init__(self._checked())
        self._body = body
        self._chunks = _input_chunks(environ)
        self._report = report
        self.problem: Problem | None = None

    def _checked(self) -> Iterator[bytes]:
        held = b""
        forwarded = 0
        finished = False
        for chunk, last in self._readable(self._chunks):
            self._fail(self._body.feed(chunk))
            if last:
                finished = True
                self._fail(self._body.finish())
            if self._report:
                yield chunk
                continue
            data = held + chunk if held else chunk
            ready = len(data) if last else self._body.checked - forwarded
            held = data[ready:]
            forwarded += ready
            if ready:
                yield data[:ready]
        if not finished:
            self._fail(self._body.finish())
        yield held  # whatever finish() has now cleared; an empty piece is skipped

    def _readable(
        self, chunks: Iterator[tuple[bytes, bool]]
    ) -> Iterator[tuple[bytes, bool]]:
        """``chunks``; a read error refuses the body (report mode: re-raised)."""
        try:
            yield from chunks
        except OSError:
            problem = self._body.unreadable()
            if problem is None:
                raise
            self._fail(problem)

    def _fail(self, problem: Problem | None) -> None:
        if problem is not None and not self._report:
            self.problem = problem
        if self.problem is not None:
            raise ValueError("request body refused by utf8guard")

    def readinto(self, buffer: WriteableBuffer) -> int:
        if self.problem is not None:
            self._fail(None)
        return super().readinto(buffer)


def _streamed(
    app: WSGIApplication,
    environ: WSGIEnvironment,
    start_response: StartResponse,
    body: BodyCheck,
) -> Iterable[bytes]:
    """Run the app on a checked ``wsgi.input``; a refusal replaces its response."""
    stream = _CheckedInput(body, environ, report=False)
    environ = dict(environ)
    environ["wsgi.input"] = _reader(stream)
    response = _Deferred(start_response, stream)
    try:
        result = app(environ, response.start_response)
    except ValueError:
        if stream.problem is None:
            raise
        return _send_problem(start_response, stream.problem)
    return response.relay(result)


class _Deferred:
    """Holds the app's status and headers until its first body byte (PEP 3333 allows
    it), so that a refusal found meanwhile can still become the response.
    """

    def __init__(self, start_response: StartResponse, stream: _CheckedInput) -> None:
        self._start = start_response
        self._stream = stream
        self._pending: tuple[str, list[tuple[str, str]]] | None = None
        self._write: Callable[[bytes], object] | None = None

    def start_response(
        self,
        status: str,
        headers: list[tuple[str, str]],
        exc_info: OptExcInfo | None = None,
    ) -> Callable[[bytes], object]:
        if exc_info is not None and exc_info[1] is not None and self._write is not None:
            # PEP 3333: too late to change the status; re-raise the app's error.
            raise exc_info[1].with_traceback(exc_info[2])
        self._pending = (status, headers)
        return self.write

    def write(self, data: bytes) -> None:
        """The legacy ``write()`` callable; refused once the body is."""
        self._begin()(data)

    def _begin(self) -> Callable[[bytes], object]:
        """Send the app's status and headers once; the server's ``write``."""
        if self._write is None:
            if self._stream.problem is not None:
                raise ValueError("request body refused by utf8guard")
            if self._pending is None:
                raise ValueError("the application did not call start_response")
            self._write = self._start(*self._pending)
        return self._write

    def relay(self, result: Iterable[bytes]) -> Iterator[bytes]:
        """The app's body; the 400 instead if the body was refused before it began."""
        try:
            for chunk in result:
                if self._write is not None and self._stream.problem is not None:
                    return  # refused after the response began: drop the rest
                if chunk:
                    self._begin()
                    yield chunk
            self._begin()
        except ValueError:
            if self._write is not None or self._stream.problem is None:
                raise
            yield from _send_problem(self._start, self._stream.problem)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()


class _Closing:
    """The app's response iterable, plus a clean-up when the server closes it."""

    def __init__(self, result: Iterable[bytes], cleanup: Callable[[], None]) -> None:
        self._result = result
        self._cleanup = cleanup

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._result)

    def close(self) -> None:
        try:
            close = getattr(self._result, "close", None)
            if close is not None:
                close()
        finally:
            self._cleanup()
