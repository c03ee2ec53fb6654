"""The WSGI adapter's side of the response: a refusal, a held start, a clean-up."""

from __future__ import annotations

from ..._memo import memoize
from ..engine._flow import StreamGate
from ..engine._problem import Problem
from ._wsgi_input import BodyRefused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Final

    from _typeshed import OptExcInfo
    from _typeshed.wsgi import StartResponse

__all__ = ["Closing", "Deferred", "send_problem"]

#: RFC 9110 §15.5.14 renamed 413 (``http.client`` still says "Request Entity Too
#: Large"); other statuses (``on_refuse`` may pick any 4xx/5xx) take the stdlib phrase,
#: from ``http.HTTPStatus`` (``http.client.responses`` is the same table, but importing
#: it loads ssl, socket and email: a third of the middleware's import time).
_REASONS: Final = {413: "Content Too Large"}


@memoize(1)
def _phrases() -> dict[int, str]:
    """Reason phrases by status code, read at the first refusal: ``http`` costs
    more at import than this module."""
    from http import HTTPStatus

    return {status.value: status.phrase for status in HTTPStatus}


def send_problem(start_response: StartResponse, problem: Problem) -> list[bytes]:
    """Answer with ``problem``: status line, latin-1 headers (PEP 3333), body."""
    status, headers, body = problem
    reason = _REASONS.get(status) or _phrases().get(status, "Error")
    start_response(
        f"{status} {reason}",
        [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers],
    )
    return [body]


class Deferred:
    """Holds the app's status and headers until its first body byte (PEP 3333 allows
    it), so that a refusal the gate makes meanwhile can still become the response.
    """

    def __init__(self, start_response: StartResponse, gate: StreamGate) -> None:
        self._start = start_response
        self._gate = gate
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
            if self._gate.problem is not None:
                raise BodyRefused("request body refused by utf8guard")
            if self._pending is None:
                raise ValueError("the application did not call start_response")
            self._write = self._start(*self._pending)
        return self._write

    def relay(self, result: Iterable[bytes]) -> Iterator[bytes]:
        """The app's body; the refusal instead if it came before the body began."""
        try:
            for chunk in result:
                if self._write is not None and self._gate.problem is not None:
                    return  # refused after the response began: drop the rest
                if chunk:
                    self._begin()
                    yield chunk
            self._begin()
        except BodyRefused:
            if self._write is not None or self._gate.problem is None:
                raise
            yield from send_problem(self._start, self._gate.problem)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()


class Closing:
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
