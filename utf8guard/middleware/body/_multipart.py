"""``multipart/form-data`` bodies (RFC 7578, RFC 2046 §5.1): the streaming framing.

This module finds delimiters and follows the grammar's states; :mod:`._multipart_block`
finds where a part's header block ends, :mod:`._multipart_part` decides what one
part's headers allow.
"""

from __future__ import annotations

from ..._constant import Constant
from ..engine._config import GuardConfig
from ..engine._finding import Finding, RequestKind
from ._multipart_block import BlockRefusal, header_block_end
from ._multipart_fields import whole_fields
from ._multipart_part import (
    CANONICAL_FIELD_HEAD,
    PartPlan,
    content_inspector,
    content_is_clean,
    field_plan,
    part_plan,
    plan_rules,
)
from ._text import body_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ._text import BodyInspector

__all__ = ["MultipartInspector"]

#: Findings one body returns (one per bad field, so a form of many bad fields would
#: make many); the rest are counted in ``dropped``. Equal to the engine's
#: MAX_FINDINGS, which caps what is reported per request.
MAX_KEPT_FINDINGS: Final = 16


class _State(Constant):
    """Where the parser stands in RFC 2046 §5.1.1's ``multipart-body`` grammar."""

    #: before the first delimiter
    PREAMBLE = "preamble"
    #: at ``--boundary``: then CRLF opens a part, ``--`` closes the body
    DELIMITER = "delimiter"
    #: a part's header block, up to the empty line
    HEADERS = "headers"
    #: a part's content, up to the next delimiter
    CONTENT = "content"
    #: after the close delimiter
    EPILOGUE = "epilogue"
    #: refused; later bytes are ignored
    FAILED = "failed"


# The states as module names: the parser reads or sets a state several times per
# part, and a global costs less than ``_State.X`` (an enum's member was a descriptor
# call in CPython 3.11, about 65 ns).
_PREAMBLE, _DELIMITER, _HEADERS, _CONTENT, _EPILOGUE, _FAILED = _State


class MultipartInspector:
    """``multipart/form-data`` (RFC 7578): framing, part headers, names, contents.

    Security-relevant default: only the subset of RFC 2046 §5.1 that python-multipart,
    Werkzeug and Django read alike passes; each departure is refused under its own
    kind (see :class:`RequestKind`, ``multipart_*``), so the guard never inspects one
    reading of a body while the application gets another. The body must open with
    the first delimiter (one CRLF before it is allowed), every ``--boundary`` must
    be a whole delimiter line, lines end in CRLF, and nothing but one CRLF may
    follow the close delimiter.

    Each part's header block must be valid under the policy, with token names, no
    field twice, no folding; its ``form-data`` parameters may not repeat, continue
    (RFC 2231) or be both plain and extended. ``name*`` and ``filename*`` must say
    UTF-8; ``filename`` and ``filename*`` get the name rules of
    :mod:`utf8guard.paths`. A part without a (non-empty) ``filename`` is a form
    field and is checked as text, or as JSON when so typed, whatever else its
    Content-Type says; a file's content is bytes and is not checked (issue 26).

    A body of more than ``config.max_multipart_parts`` parts is refused at the
    delimiter that opens the first part too many: each part costs a fixed amount,
    so the count bounds what a body of tiny parts costs (Werkzeug's
    ``max_form_parts``).

    Linear time: each chunk is appended once and the consumed prefix dropped once per
    ``feed`` (never per part); searches resume where the last one stopped. The buffer
    holds at most a delimiter line of content, or one part's header block. A part
    whole in the buffer costs one step: its content is checked in one call, and only
    content with a finding, or cut by a chunk, gets the streaming check.
    """

    def __init__(self, boundary: bytes, config: GuardConfig) -> None:
        self._boundary = boundary
        self._dash = b"--" + boundary
        self._max_parts = config.max_multipart_parts
        self._policy = config.policy
        self._rules = plan_rules(
            config.policy, config.effective_path_policy, config.windows_upload_names
        )
        self._buf = b""
        self._pos = 0  # index in _buf of the first byte not yet consumed
        self._base = 0  # stream offset of _buf[0]
        self._scan = 0  # index in _buf where the pending search resumes
        self._state = _PREAMBLE
        # The part whose content is being read: its plan until a byte of the content
        # is fed, then its inspector; both None when the content passes unchecked.
        self._plan: PartPlan | None = None
        self._part: BodyInspector | None = None
        # The last accepted non-empty header block and the empty line, and its plan.
        self._last_head = b""
        self._last_plan: PartPlan | None = None
        self._received = 0
        self._found = 0
        self._parts = 0  # parts opened so far
        #: Content bytes of file parts so far, which no check reads (issue 26): the
        #: body limit leaves them to ``max_upload_size``.
        self.file_bytes = 0

    @property
    def _offset(self) -> int:
        """Stream offset of the first byte not yet consumed."""
        return self._base + self._pos

    @property
    def checked(self) -> int:
        # A plan is a part with no content byte fed: checked up to the content.
        done = self._offset
        return done if self._part is None else min(done, self._part.checked)

    def feed(self, chunk: bytes) -> list[Finding]:
        if self._state is _FAILED:
            return []
        self._received += len(chunk)
        # One compaction per chunk: dropping the prefix per part would be quadratic.
        self._buf = self._buf[self._pos :] + chunk
        self._base += self._pos
        self._scan -= self._pos
        self._pos = 0
        findings: list[Finding] = []
        while self._step(findings):
            pass
        return self._keep(findings)

    @property
    def dropped(self) -> int:
        """Findings past the first :data:`MAX_KEPT_FINDINGS`, counted, not returned."""
        return max(self._found - MAX_KEPT_FINDINGS, 0)

    def finish(self) -> list[Finding]:
        state = self._state
        self._state = _FAILED
        if state is _FAILED:
            return []
        if state is _EPILOGUE:
            # A lone CR after the close delimiter: a line break cut short.
            if self._buf[self._pos :] == b"\r":
                return self._keep(
                    [body_finding(RequestKind.MULTIPART_EPILOGUE, self._offset)]
                )
            return []
        # Unterminated: the close delimiter never came; point at the body's end.
        return self._keep(
            [body_finding(RequestKind.MALFORMED_MULTIPART, self._received)]
        )

    def _keep(self, findings: list[Finding]) -> list[Finding]:
        """The findings still under the cap; the rest are only counted."""
        room = max(MAX_KEPT_FINDINGS - self._found, 0)
        self._found += len(findings)
        return findings[:room]

    def _consume(self, count: int) -> bytes:
        taken = self._buf[self._pos : self._pos + count]
        self._pos += count
        self._scan = max(self._scan, self._pos)
        return taken

    def _inspector(self) -> BodyInspector | None:
        """The part's inspector, built from its plan before a byte of content is fed."""
        if self._plan is not None:
            self._part = content_inspector(self._plan, self._offset, self._policy)
            self._plan = None
        return self._part

    def _fail(
        self,
        findings: list[Finding],
        kind: RequestKind = RequestKind.MALFORMED_MULTIPART,
        index: int | None = None,
    ) -> bool:
        """Refuse at ``index`` in the buffer (default: the first unconsumed byte)."""
        at = self._base + (self._pos if index is None else index)
        findings.append(body_finding(kind, at))
        self._state = _FAILED
        return False

    def _step(self, findings: list[Finding]) -> bool:
        """Advance the parser by one state if the buffer allows; True on progress."""
        state = self._state
        if state is _DELIMITER:
            self._whole_fields()
            return self._after_delimiter(findings)
        if state is _CONTENT:
            return self._content(findings)
        if state is _HEADERS:
            return self._headers(findings)
        if state is _PREAMBLE:
            return self._preamble(findings)
        # EPILOGUE: FAILED never gets here, as a failing step returns False.
        return self._epilogue(findings)

    def _preamble(self, findings: list[Finding]) -> bool:
        """The body opens with ``--boundary``, or CRLF and ``--boundary``.

        RFC 2046 §5.1.1 allows a preamble, but no client sends one and parsers skip
        it differently (python-multipart jumps from a leading CR/LF to the first
        ``-``); one CRLF is kept, as Werkzeug's test client sends it and every
        parser skips it alike.
        """
        opening = self._dash
        if self._buf.startswith(b"\r", self._pos):
            opening = b"\r\n" + self._dash
        head = self._buf[self._pos : self._pos + len(opening)]
        if not opening.startswith(head):
            return self._fail(findings, RequestKind.MULTIPART_PREAMBLE)
        if len(head) < len(opening):
            return False
        self._consume(len(opening) - len(self._dash))
        self._state = _DELIMITER
        return True

    def _content(self, findings: list[Finding]) -> bool:
        """A part's content, up to a delimiter line ``CRLF --boundary``."""
        # The boundary, dashes or not: Sanic splits at every occurrence (issue 25
        # R3), and RFC 2046 §5.1.1 lets no part hold it.
        found = self._buf.find(self._boundary, self._scan)
        if found < 0:
            # The last len(boundary) - 1 bytes may start a boundary; the four
            # before that may be its CRLF and dashes.
            count = len(self._buf) - len(self._dash) - 1 - self._pos
            if count > 0:
                part = self._inspector()
                data = self._consume(count)
                if part is not None:
                    findings += part.feed(data)
                else:
                    self.file_bytes += count
            self._scan = max(self._scan, len(self._buf) - len(self._boundary) + 1)
            return False
        if found < self._pos + 2 or not self._buf.startswith(b"--", found - 2):
            return self._stray_delimiter(findings, found, dashed=False)
        found -= 2
        # RFC 2046 §5.1.1: delimiter := CRLF dash-boundary; the CRLF is not content,
        # and is in the content's bytes, not the header block's blank line.
        if found - 2 < self._pos or not self._buf.startswith(b"\r\n", found - 2):
            return self._stray_delimiter(findings, found)
        # The whole content is here: one check over it, and the streaming one only
        # to find what that one refuses, so the findings are the streaming check's.
        plan, end = self._plan, found - 2
        if plan is None or not content_is_clean(
            plan, self._buf[self._pos : end], self._policy
        ):
            part = self._inspector()
            if part is None:
                self.file_bytes += end - self._pos
            else:
                data = self._buf[self._pos : end]
                findings += part.feed(data) + part.finish()
        self._plan = self._part = None
        # Each state's search starts where the state does.
        self._pos = self._scan = found
        self._state = _DELIMITER
        return True

    def _stray_delimiter(
        self, findings: list[Finding], found: int, *, dashed: bool = True
    ) -> bool:
        """Refuse ``--boundary`` found in content but not after CRLF, or the
        boundary without its dashes (``dashed=False``)."""
        bare = dashed and found > self._pos and self._buf[found - 1] in b"\r\n"
        kind = RequestKind.MULTIPART_BARE_LINE_BREAK
        if not bare:
            kind = RequestKind.MULTIPART_BOUNDARY_IN_PART
        at = found - 1 if bare else found
        # The bytes before are content to every parser: checked first, so the
        # findings are the same however the body arrives in chunks.
        part = self._inspector()
        if part is not None:
            findings += part.feed(self._consume(at - self._pos))
        return self._fail(findings, kind, at)

    def _whole_fields(self) -> None:
        """Pass the text fields whole in the buffer that the steps would pass."""
        plan, head = self._last_plan, self._last_head
        if plan is None or plan.check != "text":
            head = b""
        room = self._max_parts - self._parts
        pos, passed = whole_fields(
            self._buf, self._pos, self._dash, head, self._policy, room
        )
        self._pos = self._scan = pos
        self._parts += passed

    def _after_delimiter(self, findings: list[Finding]) -> bool:
        """At ``--boundary``: then CRLF opens a part, ``--`` closes the body.

        The boundary stays unconsumed until its line is known good, so ``checked``
        never covers a refused delimiter. Transport padding (RFC 2046 §5.1.1) is
        refused: no client sends it, and each parser bounds it differently
        (Werkzeug: any horizontal space).
        """
        end = self._pos + len(self._dash)
        suffix = self._buf[end : end + 2]
        if suffix == b"\r\n":
            self._parts += 1
            if self._parts > self._max_parts:
                return self._fail(findings, RequestKind.MULTIPART_TOO_MANY_PARTS)
            self._pos = self._scan = end + 2
            self._state = _HEADERS
            return self._headers(findings)
        if len(suffix) < 2:
            return False
        if suffix == b"--":
            self._consume(end + 2 - self._pos)
            self._state = _EPILOGUE
            return True
        if suffix[0] in b"\r\n":
            return self._fail(findings, RequestKind.MULTIPART_BARE_LINE_BREAK, end)
        # The boundary was not a whole line: report where it starts.
        return self._fail(findings, RequestKind.MULTIPART_BOUNDARY_IN_PART)

    def _epilogue(self, findings: list[Finding]) -> bool:
        """After the close delimiter: nothing, or one CRLF."""
        tail = self._buf[self._pos :]
        if len(tail) <= 2 and b"\r\n".startswith(tail):
            return False
        return self._fail(findings, RequestKind.MULTIPART_EPILOGUE)

    def _headers(self, findings: list[Finding]) -> bool:
        """A part's header block, up to the empty line that ends it."""
        start = self._pos
        # Tiny parts repeat one header block. The bytes of the last accepted block
        # and the empty line are that block: it has no bare CR or LF, so no
        # "\r\n\r\n" in or across its end ends it sooner. Its verdicts depend
        # on its bytes alone, so they stand.
        head = self._last_head
        if head and self._buf.startswith(head, start):
            return self._open(findings, start + len(head), self._last_plan)
        # A text field's block as browsers send it: whole, no CR or LF but its end,
        # so the full path's block; its verdict, unless it holds the boundary.
        field = CANONICAL_FIELD_HEAD.match(self._buf, start)
        if field is not None and self._buf.find(self._boundary, start, field.end()) < 0:
            self._last_head, self._last_plan = field[0], field_plan(field[1])
            return self._open(findings, field.end(), self._last_plan)
        end = header_block_end(self._buf, start, self._scan, self._boundary)
        if end is None:
            self._scan = len(self._buf)
            return False
        if isinstance(end, BlockRefusal):
            return self._fail(findings, end.kind, end.at)
        return self._accept(findings, self._buf[start:end], end)

    def _accept(self, findings: list[Finding], block: bytes, block_end: int) -> bool:
        """The header block ``block`` is whole and well framed: its verdict."""
        plan = part_plan(block, self._base + self._pos, self._rules)
        if isinstance(plan, Finding):
            findings.append(plan)
            self._state = _FAILED
            return False
        # No memo of an empty block (which RFC 7578 §4.2 refuses anyway): its
        # content follows one CRLF, not two.
        self._last_head = block and block + b"\r\n\r\n"
        self._last_plan = plan
        # RFC 2046 §5.1.1: the header block ends with its last CRLF, then CRLF.
        return self._open(findings, block_end + (4 if block else 2), plan)

    def _open(self, findings: list[Finding], at: int, plan: PartPlan | None) -> bool:
        """Read a part's content from index ``at``, to be checked by ``plan``."""
        self._pos = self._scan = at
        self._plan = plan
        self._state = _CONTENT
        return self._content(findings)
