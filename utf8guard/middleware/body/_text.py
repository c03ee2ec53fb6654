"""The body inspector protocol, and ``text/*``: raw bytes valid UTF-8 under the policy.

Each inspector takes the body chunk by chunk, holds O(chunk) bytes at most, and returns
findings with offsets absolute in the body stream. ``checked`` tells how many bytes
are known clean, so a streaming adapter never forwards a byte not yet checked.
"""

from __future__ import annotations

from ..._policy import Policy
from ..._stream import IncrementalValidator
from ..._violation import Utf8Error
from ..engine._finding import Finding, Location, RequestKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Protocol

    # For type checkers only (issue 28: typing at import): no run-time check uses it.
    class BodyInspector(Protocol):
        """A streaming check of one body; findings carry absolute body offsets."""

        @property
        def checked(self) -> int:
            """Bytes from the start of the body known to be clean."""
            ...

        def feed(self, chunk: bytes) -> list[Finding]:
            """Check the next chunk; return the new findings."""
            ...

        def finish(self) -> list[Finding]:
            """Declare the end of the body; return what that end reveals."""
            ...


__all__ = [
    "MAX_BODY_FINDINGS",
    "TextInspector",
    "Utf8Check",
    "body_finding",
]

#: Findings one inspector reports per body, then it stops looking: the engine's
#: MAX_FINDINGS (a test ties them), so a body with a million bad fields costs one
#: linear scan and a bounded list, not a million findings.
MAX_BODY_FINDINGS: Final = 16


def body_finding(kind: RequestKind, offset: int = 0) -> Finding:
    return Finding(Location.BODY, None, kind, offset)


class Utf8Check:
    """An IncrementalValidator whose first error becomes a finding; then it stops."""

    def __init__(self, policy: Policy, base: int, name: str | None, fix: bool) -> None:
        self._validator = IncrementalValidator(policy)
        self._base = base
        self._name = name
        self._fixable = fix
        self.failed = False

    @property
    def position(self) -> int:
        return self._base + self._validator.position

    def feed(self, data: bytes) -> list[Finding]:
        if self.failed:
            return []
        try:
            self._validator.feed(data)
        except Utf8Error as exc:
            return [self._finding(exc)]
        return []

    def finish(self) -> list[Finding]:
        if self.failed:
            return []
        try:
            self._validator.finish()
        except Utf8Error as exc:
            return [self._finding(exc)]
        return []

    def _finding(self, exc: Utf8Error) -> Finding:
        self.failed = True
        kind, offset = exc.violation.kind, self._base + exc.violation.start
        return Finding(Location.BODY, self._name, kind, offset, fixable=self._fixable)


class TextInspector:
    """``text/*``: the raw bytes must be valid UTF-8 under the policy."""

    def __init__(
        self,
        policy: Policy,
        *,
        base: int = 0,
        name: str | None = None,
        fixable: bool = True,
    ) -> None:
        self._utf8 = Utf8Check(policy, base, name, fix=fixable)

    @property
    def checked(self) -> int:
        return self._utf8.position

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._utf8.feed(chunk)

    def finish(self) -> list[Finding]:
        return self._utf8.finish()
