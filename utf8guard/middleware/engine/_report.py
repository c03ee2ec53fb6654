"""One log record and one ``on_violation`` event per reported request; no raw bytes."""

from __future__ import annotations

from ..._lazy_pattern import lazy_pattern
from ..head._request import RequestHead
from ._config import GuardConfig
from ._finding import Finding, RequestSummary, ViolationEvent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Final

    from ._finding import Action, ScopeType

__all__ = ["LOGGER_NAME", "RequestReport", "escape", "summarize"]

#: The logger each reported request goes to, at WARNING. ``logging`` is imported
#: at the first record: it costs more at import than the rest of the engine.
LOGGER_NAME: Final = "utf8guard"
#: Longest escaped value kept from a request field (path, method, request id).
MAX_SHOWN_BYTES: Final = 256
# Printable ASCII but the backslash stays as is; anything else becomes \xNN, so a
# record can hold neither a control (log injection, RFC 5424 §8.2) nor raw bytes.
_UNSAFE: Final = lazy_pattern(rb"[^\x21-\x5b\x5d-\x7e]")


def escape(raw: bytes | str) -> str:
    """``raw`` (text: its UTF-8) as printable ASCII: other bytes as ``\\xNN``, cut.

    >>> escape(b"/etc\\xc0\\xafpasswd\\r\\n")
    '/etc\\\\xc0\\\\xafpasswd\\\\x0d\\\\x0a'
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    cut = raw[:MAX_SHOWN_BYTES]
    shown = _UNSAFE.sub(lambda m: b"\\x%02x" % m.group()[0], cut).decode("ascii")
    return shown + "..." if len(raw) > MAX_SHOWN_BYTES else shown


def summarize(
    head: RequestHead,
    *,
    method: bytes,
    client: object,
    scope_type: ScopeType,
    config: GuardConfig,
) -> RequestSummary:
    """The request's :class:`RequestSummary`, from its head and what the server says.

    ``client`` is the peer's ``(host, port)`` (port None if unknown); anything else
    (None, a server's odd value) counts as unknown.
    """
    request_id = None
    if config.request_id_header is not None:
        wanted = config.request_id_header.encode("ascii")
        for name, value in head.headers:
            if name.lower() == wanted:
                request_id = escape(value)
                break
    if head.raw_path is not None:
        path = head.raw_path
    elif head.app_path is not None:
        path = head.app_path
    else:
        path = head.path.encode("utf-8", "surrogatepass")
    peer = None
    if isinstance(client, tuple | list) and len(client) == 2:
        host, port = client
        peer = escape(f"{host}" if port is None else f"{host}:{port}")
    return RequestSummary(
        method=escape(method),
        path=escape(path),
        client=peer,
        request_id=request_id,
        scope_type=scope_type,
    )


class RequestReport:
    """The findings of one request, emitted once: one record, one event.

    The head's findings wait for the body's when a body is inspected, so that a
    request yields a single record whatever parts it fails in. ``emit`` is
    idempotent; findings added after it are dropped (the request is decided).
    ``request`` may be given as a function that builds it (``summarize`` with its
    arguments bound): it is called once, when there is something to report, so a
    clean request pays nothing for it.
    """

    def __init__(
        self,
        config: GuardConfig,
        request: RequestSummary | Callable[[], RequestSummary],
    ) -> None:
        self.config = config
        self._request = request
        self._findings: list[Finding] = []
        self._action: Action | None = None
        self._status: int | None = None
        self._done = False

    @property
    def request(self) -> RequestSummary:
        """The request's summary, built on first use."""
        request = self._request
        if not isinstance(request, RequestSummary):
            request = self._request = request()
        return request

    @property
    def shown(self) -> int:
        """How many findings this report holds so far."""
        return len(self._findings)

    def add(self, findings: Sequence[Finding], action: Action) -> None:
        """Keep ``findings`` (already capped); ``action`` is the latest decision.

        A block ends the request (the report is sent), so no decision follows it.
        """
        self._findings.extend(findings)
        self._action = action

    def refused(self, status: int) -> None:
        """The request is refused with ``status`` (a 413 has no findings)."""
        self._action = "blocked"
        self._status = status

    def emit(self) -> None:
        """Log the request once and call ``on_violation`` (only with findings)."""
        if self._done or self._action is None:
            return
        self._done = True
        findings = tuple(self._findings)
        listed = [
            {"location": f.location.value, "name": f.name, "kind": f.kind.value}
            | {"offset": f.offset}
            for f in findings
        ]
        request = self.request
        import logging  # at the first record: see LOGGER_NAME

        logging.getLogger(LOGGER_NAME).warning(
            "utf8guard %s %s %s %s from %s%s: %s",
            self._action,
            request.scope_type,
            request.method,
            request.path,
            request.client or "-",
            "" if request.request_id is None else f" [{request.request_id}]",
            ", ".join(_describe(f) for f in findings) or "body over max_body_size",
            extra={
                "utf8guard_action": self._action,
                "utf8guard_status": self._status,
                "utf8guard_method": request.method,
                "utf8guard_path": request.path,
                "utf8guard_client": request.client,
                "utf8guard_request_id": request.request_id,
                "utf8guard_scope_type": request.scope_type,
                "utf8guard_findings": listed,
            },
        )
        if findings and self.config.on_violation is not None:
            event = ViolationEvent(
                findings[0], self._action, request.scope_type, request, findings
            )
            self.config.on_violation(event)


def _describe(finding: Finding) -> str:
    where = finding.location.value
    if finding.name is not None:
        where += f" ({finding.name})"
    return f"{finding.kind.value} at offset {finding.offset} in {where}"
