"""Per-request decisions shared by the ASGI and WSGI adapters: pass, fix or refuse.

The adapters move bytes; every choice (which findings block in which mode, when a
body is too large, whether it must be repaired) is made here, without I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ._body import BodyInspector, body_inspector
from ._config import GuardConfig
from ._finding import Action, Finding, RequestSummary, ScopeType
from ._problem import Problem, invalid_request, too_large
from ._report import RequestReport
from ._request import RequestHead, inspect_head, normalize_head
from ._respond import refuse

__all__ = ["MAX_FINDINGS", "BodyCheck", "HeadVerdict", "check_head"]

#: Findings kept and reported per request: enough to explain a refusal, bounded for
#: logs and memory. The rest are counted, not kept; the decision weighs them all.
MAX_FINDINGS: Final = 16


@dataclass(frozen=True, slots=True)
class HeadVerdict:
    """What to do with a request head: refuse it (``problem``) or go on with ``head``.

    ``head`` is the head to pass on: the original, or its normalised form.
    ``findings`` holds the first :data:`MAX_FINDINGS`; ``count`` is how many there
    were in all. ``report`` holds the request's findings until the body is decided
    too: pass it to :class:`BodyCheck`, or ``emit()`` it when no body follows
    (websocket).
    """

    head: RequestHead
    problem: Problem | None
    findings: tuple[Finding, ...]
    report: RequestReport
    count: int = 0


def _act(
    findings: Sequence[Finding],
    config: GuardConfig,
    report: RequestReport,
    *,
    can_fix: bool = True,
    total: int | None = None,
) -> tuple[Action, Problem | None]:
    """Decide on ``findings`` and add them to ``report`` (at most ``MAX_FINDINGS``).

    ``can_fix`` False forces a block in normalize mode (a finding left out of
    ``findings`` was not fixable); ``total`` is the count the problem states, when
    ``findings`` is only the first of them. Returns the action and, when blocking,
    the 400 response (the report is sent).
    """
    fixable = can_fix and all(finding.fixable for finding in findings)
    action: Action
    if config.mode == "report":
        action = "reported"
    elif config.mode == "normalize" and fixable:
        action = "normalized"
    else:
        action = "blocked"
    shown = max(MAX_FINDINGS - report.shown, 0)
    report.add(findings[:shown], action)
    if action != "blocked":
        return action, None
    listed = findings[: max(shown, 1)]
    problem = refuse(
        invalid_request(listed, total=total), listed, report.request, config
    )
    report.refused(problem[0])
    report.emit()
    return action, problem


def check_head(
    head: RequestHead,
    config: GuardConfig,
    scope_type: ScopeType,
    request: RequestSummary | None = None,
) -> HeadVerdict:
    """Inspect path, query and headers; decide per the configured mode.

    Keeps the first :data:`MAX_FINDINGS` findings and counts the rest, so a head
    full of escapes costs O(n) time and O(1) findings; whether all of them are
    fixable is still weighed over every one. ``request`` (see
    ``_report.summarize``) goes into the log record and event.
    """
    summary = RequestSummary(scope_type=scope_type) if request is None else request
    report = RequestReport(config, summary)
    findings: list[Finding] = []
    count = 0
    fixable = True
    for finding in inspect_head(head, config):
        count += 1
        fixable = fixable and finding.fixable
        if count <= MAX_FINDINGS:
            findings.append(finding)
    if not count:
        return HeadVerdict(head, None, (), report, 0)
    action, problem = _act(findings, config, report, can_fix=fixable, total=count)
    if action == "normalized":
        head = normalize_head(head, config)
    return HeadVerdict(head, problem, tuple(findings), report, count)


class BodyCheck:
    """One request body: its inspector, size budget and findings.

    ``refusal`` is set before any byte is read when the headers already decide (a
    refused charset, a declared length over the limit). ``inspected`` is False for a
    body that passes on untouched (binary media types, no Content-Type). Feed each
    chunk; a returned problem means stop reading and send it. A streamed body
    (``stream_body``) cannot be repaired after the app has seen part of it, so in
    normalize mode its findings block.

    ``report`` is the head's (:attr:`HeadVerdict.report`): the request's one record
    is sent when the body is decided (refused, finished, not inspected) or at
    :meth:`close`, whichever comes first.
    """

    def __init__(
        self,
        headers: Sequence[tuple[bytes, bytes]],
        config: GuardConfig,
        scope_type: ScopeType,
        report: RequestReport | None = None,
    ) -> None:
        self._config = config
        self._report = report or RequestReport(
            config, RequestSummary(scope_type=scope_type)
        )
        self._received = 0
        self.refusal: Problem | None = None
        self.needs_repair = False
        inspector = body_inspector(headers, config)
        self._inspector: BodyInspector | None = None
        if isinstance(inspector, Finding):
            self.refusal = self._decide([inspector])
        else:
            self._inspector = inspector
        if self._inspector is not None and self._over_limit(_declared_length(headers)):
            self.refusal = self._too_large()
        if self._inspector is None or self.refusal is not None:
            self._report.emit()

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
            return self._too_large()
        return self._decide(self._inspector.feed(chunk))

    def finish(self) -> Problem | None:
        """Declare the end of the body; a problem means refuse the request."""
        if self._inspector is None:
            return None
        problem = self._decide(self._inspector.finish())
        self._report.emit()
        return problem

    def close(self) -> None:
        """The request is over (the app may not have read all of the body): report."""
        self._report.emit()

    def _too_large(self) -> Problem:
        report = self._report
        problem = refuse(
            too_large(self._config.max_body_size), (), report.request, self._config
        )
        report.refused(problem[0])
        report.emit()
        return problem

    def _over_limit(self, size: int | None) -> bool:
        # Report mode lets every request through unchanged, so it enforces no limit.
        limit = self._config.max_body_size
        return size is not None and size > limit and self._config.mode != "report"

    def _decide(self, findings: list[Finding]) -> Problem | None:
        if not findings:
            return None
        action, problem = _act(
            findings, self._config, self._report, can_fix=not self._config.stream_body
        )
        self.needs_repair = self.needs_repair or action == "normalized"
        return problem


def _declared_length(headers: Sequence[tuple[bytes, bytes]]) -> int | None:
    """The Content-Length, if the request has exactly one that is a number."""
    values = [value for name, value in headers if name.lower() == b"content-length"]
    if len(values) == 1 and values[0].strip().isdigit():
        return int(values[0])
    return None
