"""Bodies whose Content-Type does not say JSON, inspected as JSON when they are JSON.

Starlette's ``request.json()``, ``json.loads(request.body)`` in Django and FastAPI's
body models parse a body as JSON whatever its Content-Type says, and
``json.loads(bytes)`` even picks UTF-16 or UTF-32 from the first bytes (RFC 4627 §3,
``json.detect_encoding``). So a body with no Content-Type, a ``text/*`` body and a
body of a binary type are looked at the way ``json.loads`` would look at them.
"""

from __future__ import annotations

import codecs

from ..._lazy_pattern import lazy_pattern
from ..._policy import Policy
from ..engine._finding import Finding, RequestKind
from ._json import JsonInspector, detect_encoding
from ._text import TextInspector, body_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from ._text import BodyInspector

__all__ = ["SniffingInspector"]

#: Bytes json.detect_encoding looks at.
_DETECT_BYTES: Final = 4
#: Bytes of a UTF-16/32 body decoded to find its first character.
_HEAD_BYTES: Final = 64
_UTF8_ENCODINGS: Final = ("utf-8", "utf-8-sig")
#: RFC 8259 §2: ws = *( %x20 / %x09 / %x0A / %x0D ).
_NOT_WHITESPACE: Final = lazy_pattern(rb"[^ \t\n\r]")
_WHITESPACE: Final = " \t\n\r\ufeff"
#: RFC 8259 §3: the values that can hold a string, and so an escape.
_JSON_STARTS: Final = frozenset(b'{["')
_FILLER_BYTES: Final = 64 * 1024


class SniffingInspector:
    """A body checked as JSON if ``json.loads`` would read it as JSON, else as text.

    The first byte that is not JSON whitespace (after a UTF-8 byte order mark, which
    ``json.loads`` skips) decides: ``{``, ``[`` or ``"`` gets the JSON checks
    (malformed escapes aside: the parser refuses those itself, and ``C:\\users`` is
    fine text). Anything else is checked as UTF-8 text when ``binary`` is False, and
    passes untouched when it is True (``passed`` then turns True). A body that
    ``json.loads`` would decode as UTF-16 or UTF-32 and that starts like JSON is
    refused as ``non_utf8_json``. Until the first byte decides, only whitespace is
    counted: O(1) memory, and ``checked`` covers it.
    """

    def __init__(self, policy: Policy, *, binary: bool) -> None:
        self._policy = policy
        self.binary = binary
        self.passed = False
        self._head = b""  # the first _HEAD_BYTES bytes
        self._seen = 0  # bytes received
        self._scanned = 0  # bytes known to be whitespace (or the UTF-8 BOM)
        self._encoding: str | None = None
        self._delegate: BodyInspector | None = None
        self._refused = False

    @property
    def checked(self) -> int:
        if self._delegate is not None:
            return self._delegate.checked
        return self._seen if self.passed or self._refused else self._scanned

    def feed(self, chunk: bytes) -> list[Finding]:
        if self._delegate is not None:
            return self._delegate.feed(chunk)
        if self.passed or self._refused:
            self._seen += len(chunk)
            return []
        return self._sniff(chunk, final=False)

    def finish(self) -> list[Finding]:
        findings: list[Finding] = []
        if self._delegate is None and not self.passed and not self._refused:
            findings = self._sniff(b"", final=True)
        if self._delegate is not None:
            findings += self._delegate.finish()
        return findings

    def _sniff(self, chunk: bytes, *, final: bool) -> list[Finding]:
        start, self._seen = self._seen, self._seen + len(chunk)
        self._head += chunk[: _HEAD_BYTES - len(self._head)]
        if self._encoding is None:
            self._encoding = _encoding(self._head, final=final)
            if self._encoding is None:
                return []
            self._scanned = len(codecs.BOM_UTF8) if self._encoding == "utf-8-sig" else 0
        if self._encoding not in _UTF8_ENCODINGS:
            if len(self._head) < _HEAD_BYTES and not final:
                return []
            whole = final and self._seen == len(self._head)
            is_json = _utf16_json(self._head, self._encoding, whole=whole)
            return self._decide(is_json, chunk, start, utf8=False)
        # The bytes from _scanned on: in the head (before this chunk) or the chunk.
        window = (
            self._head[self._scanned : start] + chunk[max(self._scanned - start, 0) :]
        )
        first = _NOT_WHITESPACE.search(window)
        if first is None:
            self._scanned = self._seen
            return self._decide(False, chunk, start, utf8=True) if final else []
        return self._decide(
            window[first.start()] in _JSON_STARTS, chunk, start, utf8=True
        )

    def _decide(
        self, is_json: bool, chunk: bytes, start: int, *, utf8: bool
    ) -> list[Finding]:
        if is_json and not utf8:
            self._refused = True
            return [body_finding(RequestKind.NON_UTF8_JSON)]
        if is_json:
            self._delegate = JsonInspector(self._policy, malformed=False)
        elif not self.binary:
            self._delegate = TextInspector(self._policy)
        else:
            self.passed = True
            return []
        # Replay what came so far: the head, whitespace (as spaces), this chunk.
        findings = self._delegate.feed(self._head[:start])
        for done in range(len(self._head), start, _FILLER_BYTES):
            findings += self._delegate.feed(b" " * min(_FILLER_BYTES, start - done))
        return findings + self._delegate.feed(chunk)


def _encoding(head: bytes, *, final: bool) -> str | None:
    """What ``json.detect_encoding`` says of the body, once ``head`` decides it.

    It reads at most 4 bytes, but RFC 4627 §3 needs fewer to rule UTF-16/32 out: a
    first byte that is neither NUL nor the start of a UTF-16 BOM and a second that
    is not NUL mean UTF-8 (with a BOM if EF BB BF) whatever the length.
    """
    if len(head) >= _DETECT_BYTES or final:
        return detect_encoding(head[:_DETECT_BYTES])
    if len(head) < 2 or head[0] in (0x00, 0xFE, 0xFF) or head[1] == 0x00:
        return None
    if head == codecs.BOM_UTF8[:2]:
        return None  # a UTF-8 BOM, or not: the third byte tells
    return "utf-8-sig" if head.startswith(codecs.BOM_UTF8) else "utf-8"


def _utf16_json(head: bytes, encoding: str, *, whole: bool) -> bool:
    """Whether a UTF-16/32 head starts like JSON.

    A head of whitespace only counts as JSON unless it is the whole body: what
    follows it is unseen (fail closed).
    """
    text = head.decode(encoding, "replace").lstrip(_WHITESPACE)
    return ord(text[0]) in _JSON_STARTS if text else not whole
