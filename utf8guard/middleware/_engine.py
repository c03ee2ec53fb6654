"""Per-request decisions shared by the ASGI and WSGI adapters: pass, fix or refuse.

The adapters move bytes; every choice (which findings block in which mode, when a
body is too large, whether it must be repaired) is made here, without I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._body import BodyInspector, body_inspector
from ._config import GuardConfig
from ._finding import Finding
from ._problem import Problem, invalid_request, too_large
from ._request import MAX_FINDINGS, RequestHead, inspect_head, normalize_head

__all__ = ["BodyCheck", "HeadVerdict", "check_head"]


@dataclass(frozen=True, slots=True)
class HeadVerdict:
    """What to do with a request head: refuse it (``problem``) or go on with ``head``.

    ``head`` is the head to pass on: the original, or its normalised form.
    """

    head: RequestHead
    problem: Problem | None
    findings: tuple[Finding, ...]


def _act(
    findings: Sequence[Finding], config: GuardConfig, scope_type: str
) -> tuple[str, Problem | None]:
    """Report ``findings``; return the action and, when blocking, the 400 problem."""
    if config.mode == "report":
        action = "reported"
    elif config.mode == "normalize" and all(f.fixable for f in findings):
        action = "normalized"
    else:
        action = "blocked"
    config.report(findings, action, scope_type)
    return action, invalid_request(findings) if action == "blocked" else None


def check_head(head: RequestHead, config: GuardConfig, scope_type: str) -> HeadVerdict:
    """Inspect path, query and headers; decide per the configured mode."""
    findings = inspect_head(head, config)
    if not findings:
        return HeadVerdict(head, None, ())
    action, problem = _act(findings, config, scope_type)
    if action == "normalized":
        head = normalize_head(head, config)
    return HeadVerdict(head, problem, tuple(findings))


class BodyCheck:
    """One request body: its inspector, size budget and findings.

    ``refusal`` is set before any byte is read when the headers already decide (a
    refused charset, a declared length over the limit). ``inspected`` is False for a
    body that passes on untouched (binary media types, no Content-Type). Feed each
    chunk; a returned problem means stop reading and send it.
    """

    def __init__(
        self,
        headers: Sequence[tuple[bytes, bytes]],
        config: GuardConfig,
        scope_type: str,
    ) -> None:
        self._config = config
        self._scope_type = scope_type
        self._received = 0
        self._findings: list[Finding] = []
        self.refusal: Problem | None = None
        self.needs_repair = False
        inspector = body_inspector(headers, config)
        self._inspector: BodyInspector | None = None
        if isinstance(inspector, Finding):
            self.refusal = self._decide([inspector])
        else:
            self._inspector = inspector
        if self._inspector is not None and self._over_limit(_declared_length(headers)):
            self.refusal = too_large(config.max_body_size)

    @property
    def inspected(self) -> bool:
        return self._inspector is not None

    @property
    def checked(self) -> int:
        """Body bytes known clean; all received bytes when not inspected."""
        if self._inspector is None:
            return self._received
        return self._inspector.checked

    def feed(self, chunk: bytes) -> Problem | None:
        """Check the next chunk; a problem means refuse the request now."""
        self._received += len(chunk)
        if self._inspector is None:
            return None
        if self._over_limit(self._received):
            return too_large(self._config.max_body_size)
        return self._decide(self._inspector.feed(chunk))

    def finish(self) -> Problem | None:
        """Declare the end of the body; a problem means refuse the request."""
        if self._inspector is None:
            return None
        return self._decide(self._inspector.finish())

    def _over_limit(self, size: int | None) -> bool:
        # Report mode lets every request through unchanged, so it enforces no limit.
        limit = self._config.max_body_size
        return size is not None and size > limit and self._config.mode != "report"

    def _decide(self, findings: list[Finding]) -> Problem | None:
        room = MAX_FINDINGS - len(self._findings)
        if not findings or room <= 0:
            return None
        self._findings += findings[:room]
        action, problem = _act(findings[:room], self._config, self._scope_type)
        self.needs_repair = self.needs_repair or action == "normalized"
        return problem


def _declared_length(headers: Sequence[tuple[bytes, bytes]]) -> int | None:
    """The Content-Length, if the request has exactly one that is a number."""
    values = [value for name, value in headers if name.lower() == b"content-length"]
    if len(values) == 1 and values[0].strip().isdigit():
        return int(values[0])
    return None
