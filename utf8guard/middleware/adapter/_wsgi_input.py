"""``wsgi.input`` for the WSGI adapter: bounded reads, replay, checked streaming.

PEP 3333 bounds a body by ``CONTENT_LENGTH``, or by the end of the stream when the
server sets ``wsgi.input_terminated`` (chunked uploads); with neither there is no body.
What may be handed over, and when, is the engine's (:mod:`..engine._flow`); this module
only reads the server's stream and presents the result as one the app can read.
"""

from __future__ import annotations

import io
from itertools import chain

from ..engine._engine import content_length
from ..engine._flow import BodyBuffer, StreamGate
from ..engine._problem import Problem
from ..engine._spool import REPLAY_BYTES, BodySpool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import IO, Final

    from _typeshed import WriteableBuffer
    from _typeshed.wsgi import WSGIEnvironment

__all__ = [
    "BodyRefused",
    "CheckedInput",
    "Pieces",
    "has_body",
    "input_chunks",
    "read_into",
    "read_whole",
    "reader",
    "replay",
]


#: The protocols whose framing says when a request has no body (RFC 9112 §6.3).
_HTTP1: Final = ("HTTP/1.0", "HTTP/1.1")


class BodyRefused(ValueError):
    """A checked ``wsgi.input`` read after the guard refused the body.

    A ValueError, as a read from a closed file raises, so an app's error handling
    treats it as a failed read; the adapter catches this class only, never an app's
    own ValueError.
    """


def _declared_length(environ: WSGIEnvironment) -> int | None:
    """``CONTENT_LENGTH`` (CGI/1.1's key for the field) as a number, or None."""
    value = environ.get("CONTENT_LENGTH")
    if not isinstance(value, str):
        return None
    # One code point per byte (PEP 3333); any other is no digit either.
    return content_length(value.encode("latin-1", "replace"))


def has_body(environ: WSGIEnvironment) -> bool:
    """PEP 3333: a body has a ``CONTENT_LENGTH`` or a terminated input; RFC 9112
    §6.3 item 7: not an HTTP/1 request with neither Content-Length nor
    Transfer-Encoding (Gunicorn marks every input terminated, bodies or not)."""
    if _declared_length(environ) is not None:
        return True
    if not environ.get("wsgi.input_terminated"):
        return False
    http1 = environ.get("SERVER_PROTOCOL") in _HTTP1
    return not http1 or "HTTP_TRANSFER_ENCODING" in environ


def input_chunks(environ: WSGIEnvironment) -> Iterator[tuple[bytes, bool]]:
    """``(piece, is_last)`` of ``wsgi.input``, never reading past the body's end.

    PEP 3333: read at most ``CONTENT_LENGTH`` bytes; without it, to EOF only when the
    server sets ``wsgi.input_terminated``, else the body is empty. A body that ends
    at ``CONTENT_LENGTH`` is known complete with its last piece.
    """
    stream: IO[bytes] = environ["wsgi.input"]
    remaining = _declared_length(environ)
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


def reader(raw: io.RawIOBase) -> io.BufferedReader:
    """``wsgi.input`` for the app: read, readline, readlines, iteration (PEP 3333)."""
    return io.BufferedReader(raw, buffer_size=REPLAY_BYTES)


def replay(spool: BodySpool, memory_bytes: int) -> IO[bytes]:
    """The checked body as ``wsgi.input``: from memory, or from the spool's file."""
    if spool.size <= memory_bytes:
        # BodySpool keeps bodies up to memory_bytes as chunks; a single chunk is joined
        # without a copy, and BytesIO shares it until written (about 5 µs a request).
        return io.BytesIO(b"".join(spool.chunks()))
    return reader(Pieces(spool.chunks()))


class Pieces(io.RawIOBase):
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


class CheckedInput(Pieces):
    """``wsgi.input`` read through a :class:`StreamGate` as the application reads it.

    It hands over what the gate releases. Once the gate refuses the body, this read
    and every later one raise :class:`BodyRefused`. A read error from the server
    refuses the body too (report mode: the error stands).
    """

    def __init__(self, gate: StreamGate, chunks: Iterator[tuple[bytes, bool]]) -> None:
        super().__init__(self._checked(chunks))
        self.gate = gate

    def _checked(self, chunks: Iterator[tuple[bytes, bool]]) -> Iterator[bytes]:
        for chunk, last in self._readable(chunks):
            released = self.gate.feed(chunk, last=last)
            self._raise_if_refused()
            yield released
        released = self.gate.end()
        self._raise_if_refused()
        yield released  # an empty piece is skipped

    def _readable(
        self, chunks: Iterator[tuple[bytes, bool]]
    ) -> Iterator[tuple[bytes, bool]]:
        try:
            yield from chunks
        except OSError:
            if not self.gate.unreadable():
                raise  # report mode changes nothing
            self._raise_if_refused()

    def _raise_if_refused(self) -> None:
        if self.gate.problem is not None:
            raise BodyRefused("request body refused by utf8guard")

    def readinto(self, buffer: WriteableBuffer) -> int:
        self._raise_if_refused()
        return super().readinto(buffer)


def read_into(
    buffer: BodyBuffer, chunks: Iterator[tuple[bytes, bool]]
) -> Problem | None:
    """Read and check the body into ``buffer``; a problem means refuse.

    Stops early when the rest of the body passes unread (``buffer.passing``):
    ``chunks`` then holds the rest, unread.
    """
    try:
        for chunk, last in chunks:
            problem = buffer.feed(chunk, last=last)
            if problem is not None or buffer.passing:
                return problem
    except OSError:
        # The message is never shown: it may quote the body (Werkzeug's chunk errors).
        problem = buffer.unreadable()
        if problem is None:
            raise  # report mode changes nothing
        return problem
    return buffer.end()


def read_whole(environ: WSGIEnvironment, length: int) -> bytes | None:
    """The body of declared ``length`` (``CONTENT_LENGTH``, at most
    :data:`REPLAY_BYTES`: one read, as :func:`input_chunks` makes it) read in one
    call, or None; then ``environ["wsgi.input"]`` gives the full check the same
    bytes: what was read, then the rest (never past ``length``), or the read's
    error again."""
    stream: IO[bytes] = environ["wsgi.input"]
    try:
        data = stream.read(length)
    except OSError as error:
        environ["wsgi.input"] = _Failed(error)
        return None
    if len(data) == length:
        return data
    rest = (piece for piece, _ in _pieces_of(stream, length - len(data)))
    # Unbuffered: each read gives one piece as the server gave it, so the full check
    # meets the body in the same chunks as without this first read.
    environ["wsgi.input"] = Pieces(chain([data], rest))
    return None


class _Failed(io.RawIOBase):
    """A stream whose reads raise ``error``: a server's read error, kept."""

    def __init__(self, error: OSError) -> None:
        super().__init__()
        self._error = error

    def readinto(self, buffer: WriteableBuffer) -> int:
        raise self._error
