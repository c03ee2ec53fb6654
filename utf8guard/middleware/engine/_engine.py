"""Per-request decisions shared by the ASGI and WSGI adapters: pass, fix or refuse.

The adapters move bytes; every choice (which findings block in which mode, when a
body is too large, whether it must be repaired) is made here, without I/O.
"""

from __future__ import annotations

from ..._record import Record
from ..body._body import body_inspector, decoding_of, uploads_of
from ..body._sniff import SniffingInspector
from ..body._text import body_finding
from ..head._clean import is_clean_head
from ..head._request import RequestHead, inspect_head, normalize_head
from ._config import GuardConfig
from ._finding import Finding, RequestKind, RequestSummary
from ._problem import Problem, invalid_request, too_large
from ._report import RequestReport
from ._respond import refuse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Final

    from ..body._text import BodyInspector
    from ._finding import Action, ScopeType

__all__ = [
    "DIGIT",
    "LENGTH_DIGITS",
    "MAX_CONTENT_LENGTH",
    "MAX_FINDINGS",
    "OWS",
    "BodyCheck",
    "HeadVerdict",
    "check_head",
    "content_length",
]

#: Findings kept and reported per request: enough to explain a refusal, bounded for
#: logs and memory. The rest are counted, not kept; the decision weighs them all.
MAX_FINDINGS: Final = 16
# content_length's grammar, which the C lane (_speedups_lane.c) reads at its first call.
#: RFC 9110 §5.6.3: OWS = *( SP / HTAB ), stripped around a field value.
OWS: Final = b" \t"
#: RFC 5234 B.1: DIGIT = %x30-39, ASCII only (no sign, no other script's digits).
DIGIT: Final = b"0123456789"
#: Content-Length digits read as a number; longer values (an exabyte and more, past
#: every body limit) read as MAX_CONTENT_LENGTH.
LENGTH_DIGITS: Final = 18
MAX_CONTENT_LENGTH: Final = 10**LENGTH_DIGITS


class HeadVerdict(Record):
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
    request: RequestSummary | Callable[[], RequestSummary] | None = None,
) -> HeadVerdict:
    """Inspect path, query and headers; decide per the configured mode.

    A head proven clean in one pass (``is_clean_head``) skips the per-location
    inspection. Otherwise keeps the first :data:`MAX_FINDINGS` findings and counts
    the rest, so a head full of escapes costs O(n) time and O(1) findings; whether
    all of them are fixable is still weighed over every one. ``request`` (see
    ``_report.summarize``), or a function that builds it, goes into the log record
    and event; the function is called only when there is something to report.
    """
    summary = RequestSummary(scope_type=scope_type) if request is None else request
    report = RequestReport(config, summary)
    if is_clean_head(head, config):
        return HeadVerdict(head, None, (), report, 0)
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
    body that passes on untouched (a binary media type, once the body's first bytes
    show it is not JSON). Feed each
    chunk; a returned problem means stop reading and send it. A streamed body
    (``stream_body``) cannot be repaired after the app has seen part of it, so in
    normalize mode its findings block.

    ``report`` is the head's (:attr:`HeadVerdict.report`): the request's one record
    is sent when the body is decided (refused, finished, not inspected) or at
    :meth:`close`, whichever comes first. Which bytes may reach the app, and when,
    is :mod:`._flow`'s business.
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
        self._finished = False
        self.refusal: Problem | None = None
        self.needs_repair = False
        self._inspector: BodyInspector | None = None
        framing = _framing_finding(headers)
        inspector = framing or body_inspector(headers, config)
        if isinstance(inspector, Finding):
            self.refusal = self._decide([inspector])
        else:
            self._inspector = inspector
        self._uploads = uploads_of(self._inspector)
        self._decoding = decoding_of(self._inspector)
        may_pass = isinstance(inspector, SniffingInspector) and inspector.binary
        limit = self._declared_limit()
        if (
            self._inspector is not None
            and not may_pass
            and limit is not None
            and self._over_limit(_declared_length(headers), limit)
        ):
            self.refusal = self._too_large(limit)
        if self._inspector is None or self.refusal is not None:
            self._report.emit()

    @property
    def inspected(self) -> bool:
        """Whether the body is being checked; turns False when a body of a binary
        type turns out not to be JSON: the rest passes on unread."""
        return self._inspector is not None

    @property
    def checked(self) -> int:
        """Body bytes known clean; all received bytes when not inspected."""
        if self._inspector is None:
            return self._received
        return self._inspector.checked

    def feed(self, chunk: bytes, *, last: bool = False) -> Problem | None:
        """Check the next chunk (``last``: then the end); a problem means refuse now."""
        self._received += len(chunk)
        inspector = self._inspector
        if inspector is None:
            return None
        findings = inspector.feed(chunk)
        if isinstance(inspector, SniffingInspector) and inspector.passed:
            self._inspector = None
            self._report.emit()  # decided: the rest passes unread
            return None
        files = 0 if self._uploads is None else self._uploads.file_bytes
        if self._over_limit(self._received - files, self._config.max_body_size):
            return self._too_large(self._config.max_body_size)
        # Decoded past the limit or the ratio cap (report mode: the check stopped).
        decoded = self._decoding is not None and self._decoding.too_large
        if decoded and self._config.mode != "report":
            return self._too_large(self._config.max_body_size)
        uploads = self._config.max_upload_size
        if uploads is not None and self._over_limit(files, uploads):
            return self._too_large(uploads)
        return self._decide(findings) or (self.finish() if last else None)

    def finish(self) -> Problem | None:
        """Declare the end of the body (once; again is a no-op); a problem: refuse."""
        if self._inspector is None or self._finished:
            return None
        self._finished = True
        problem = self._decide(self._inspector.finish())
        self._report.emit()
        return problem

    def close(self) -> None:
        """The request is over (the app may not have read all of the body): report."""
        self._report.emit()

    def unreadable(self) -> Problem | None:
        """The server failed to deliver the body (PEP 3333: ``wsgi.input`` raised
        ``OSError``, as Werkzeug's server does on a chunk extension): a 400 rather
        than a 500 whose traceback may quote the bytes. None in report mode.
        """
        finding = body_finding(RequestKind.UNREADABLE_BODY, self._received)
        return self._decide([finding])

    def _too_large(self, limit: int) -> Problem:
        """The 413 for a body over ``limit`` bytes."""
        report = self._report
        problem = refuse(too_large(limit), (), report.request, self._config)
        report.refused(problem[0])
        report.emit()
        return problem

    def _over_limit(self, size: int | None, limit: int) -> bool:
        # Report mode lets every request through unchanged, so it enforces no limit.
        return size is not None and size > limit and self._config.mode != "report"

    def _declared_limit(self) -> int | None:
        """The most a Content-Length may say: ``max_body_size``, plus
        ``max_upload_size`` for a multipart body (None: no limit)."""
        limit = self._config.max_body_size
        if self._uploads is None:
            return limit
        uploads = self._config.max_upload_size
        return None if uploads is None else limit + uploads

    def _decide(self, findings: list[Finding]) -> Problem | None:
        if not findings:
            return None
        action, problem = _act(
            findings, self._config, self._report, can_fix=not self._config.stream_body
        )
        self.needs_repair = self.needs_repair or action == "normalized"
        return problem


def content_length(value: bytes) -> int | None:
    """A Content-Length field value as a number, or None when it is not one.

    RFC 9110 §8.6: ``Content-Length = 1*DIGIT``, ASCII digits only (no sign, no list,
    no other script's digits), after the OWS around a field value (§5.5). The Python
    parser of the field: the framing check, the declared size, WSGI's
    ``CONTENT_LENGTH``, and the C lane's (``_speedups_lane.c`` reads :data:`OWS`,
    :data:`DIGIT` and :data:`LENGTH_DIGITS`). §8.6: a recipient "MUST
    anticipate potentially large decimal numerals and prevent parsing errors due to
    integer conversion overflows": CPython's ``int()`` raises past 4300 digits
    (CVE-2020-10735), so a value of more than 18 significant digits reads as
    ``MAX_CONTENT_LENGTH``, above every limit.
    """
    digits = value.strip(OWS)
    if not digits or digits.strip(DIGIT):
        return None
    significant = digits.lstrip(b"0")
    if len(significant) > LENGTH_DIGITS:
        return MAX_CONTENT_LENGTH
    return int(significant or b"0")


def _declared_length(headers: Sequence[tuple[bytes, bytes]]) -> int | None:
    """The Content-Length, if the request has exactly one that is a number."""
    values = [value for name, value in headers if name.lower() == b"content-length"]
    return content_length(values[0]) if len(values) == 1 else None


def _framing_finding(headers: Sequence[tuple[bytes, bytes]]) -> Finding | None:
    """A refusal when the body's length is ambiguous (RFC 9112 §6.3).

    Two Content-Length fields, even equal ones (§6.3 item 5 lets a recipient merge
    them, others refuse or take one), a value that is not ``1*DIGIT`` (RFC 9110
    §8.6: ``5, 5``, ``+5``, ``0x5``), or Content-Length with Transfer-Encoding (§6.3
    item 3: the classic request-smuggling pair). ASGI servers hand over the raw field
    list; WSGI servers fold or drop repeated fields before the guard sees them.
    """
    lengths = [value for name, value in headers if name.lower() == b"content-length"]
    if not lengths:
        return None
    chunked = any(name.lower() == b"transfer-encoding" for name, _ in headers)
    if len(lengths) > 1 or chunked or content_length(lengths[0]) is None:
        return body_finding(RequestKind.AMBIGUOUS_FRAMING)
    return None
