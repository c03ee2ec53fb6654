"""Streaming body inspectors by content type (text, JSON, urlencoded, multipart).

Each inspector takes the body chunk by chunk, holds O(chunk) bytes at most, and returns
findings with offsets absolute in the body stream. ``checked`` tells how many bytes
are known clean, so a streaming adapter never forwards a byte not yet checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final, Protocol

from .._policy import Policy
from .._scan import find_violation
from .._stream import IncrementalValidator
from .._violation import Kind, Utf8Error
from ._config import GuardConfig
from ._finding import Finding, Location, RequestKind, safe_name
from ._percent import incomplete_escape_start, percent_decode

__all__ = [
    "BodyInspector",
    "FormInspector",
    "JsonInspector",
    "MultipartInspector",
    "TextInspector",
    "body_inspector",
    "parse_media_type",
]

# RFC 9110 §8.3.1: media-type = type "/" subtype parameters; §5.6.6 parameters.
_TOKEN: Final = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_MEDIA_TYPE: Final = re.compile(rb"\s*(" + _TOKEN + rb"/" + _TOKEN + rb")\s*")
_PARAMETER: Final = re.compile(
    rb";\s*(" + _TOKEN + rb')\s*=\s*("(?:[^"\\]|\\.)*"|' + _TOKEN + rb")\s*",
    re.DOTALL,
)
#: Charsets whose bytes are UTF-8 (US-ASCII is a subset); RFC 8259 §8.1 for JSON.
_UTF8_CHARSETS: Final = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})
#: RFC 2046 §5.1.1: a boundary is 1 to 70 characters.
MAX_BOUNDARY_BYTES: Final = 70
#: Longest header block of one multipart part; more is refused, not truncated.
MAX_PART_HEADER_BYTES: Final = 16 * 1024
#: Longest JSON escape the scanner waits for: a surrogate pair, "\\uD83D\\uDE00".
_PAIR_BYTES: Final = 12
_HEX4: Final = re.compile(rb"[0-9A-Fa-f]{4}")
_FORM_DELIMITER: Final = re.compile(rb"[&=]")
_SAFE_NAME_BYTES: Final = 65


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


@lru_cache(maxsize=256)
def parse_media_type(value: bytes) -> tuple[str, dict[str, str]] | None:
    """``(type/subtype, parameters)``, names in lower case; None if malformed.

    Cached, as a few Content-Type values recur on every request: treat the result as
    read-only.

    >>> parse_media_type(b'Text/Plain; charset="UTF-8"')
    ('text/plain', {'charset': 'UTF-8'})
    """
    match = _MEDIA_TYPE.match(value)
    params = None if match is None else _parameters(value, match.end())
    if match is None or params is None:
        return None
    decoded = {name: raw.decode("latin-1") for name, raw in params.items()}
    return match.group(1).decode("ascii").lower(), decoded


def _parameters(value: bytes, pos: int) -> dict[str, bytes] | None:
    """The ``; name=value`` parameters of a header from ``pos``; None if malformed."""
    params: dict[str, bytes] = {}
    while pos < len(value):
        param = _PARAMETER.match(value, pos)
        if param is None:
            return None
        raw = param.group(2)
        if raw.startswith(b'"'):
            # RFC 9110 §5.6.4: quoted-pair = "\\" ( HTAB / SP / VCHAR / obs-text )
            raw = re.sub(rb"\\(.)", rb"\1", raw[1:-1], flags=re.DOTALL)
        params[param.group(1).decode("ascii").lower()] = raw
        pos = param.end()
    return params


def body_inspector(
    headers: Iterable[tuple[bytes, bytes]], config: GuardConfig
) -> BodyInspector | Finding | None:
    """The inspector for a body with these headers, a refusal, or None to pass it on.

    Binary media types, and bodies without a Content-Type (RFC 9110 §8.3: the
    recipient may treat them as application/octet-stream), pass on uninspected.
    """
    types: list[bytes] = []
    codings: list[bytes] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"content-type":
            types.append(value)
        elif lowered == b"content-encoding":
            codings.append(value)
    if len(types) > 1 or len(codings) > 1:
        return _body_finding(RequestKind.DUPLICATE_HEADER)
    if not types:
        return None
    parsed = parse_media_type(types[0])
    if parsed is None:
        return _body_finding(RequestKind.UNSUPPORTED_CHARSET)
    media_type, params = parsed
    inspector = _inspector_for(media_type, params, config, 0)
    if inspector is None or isinstance(inspector, Finding):
        return inspector
    if codings and codings[0].strip().lower() not in (b"", b"identity"):
        return _body_finding(RequestKind.UNSUPPORTED_CONTENT_ENCODING)
    return inspector


def _body_finding(kind: RequestKind, offset: int = 0) -> Finding:
    return Finding(Location.BODY, None, kind, offset)


def _media_kind(media_type: str) -> str | None:
    """Which inspector a media type gets: json, text, form, multipart or None."""
    main, _, sub = media_type.partition("/")
    if media_type == "application/json" or sub.endswith("+json"):
        return "json"
    if main == "text":
        return "text"
    if media_type == "application/x-www-form-urlencoded":
        return "form"
    if media_type == "multipart/form-data":
        return "multipart"
    return None


def _inspector_for(
    media_type: str, params: dict[str, str], config: GuardConfig, base: int
) -> BodyInspector | Finding | None:
    kind = _media_kind(media_type)
    if kind is None:
        return None
    if params.get("charset", "utf-8").lower() not in _UTF8_CHARSETS:
        return _body_finding(RequestKind.UNSUPPORTED_CHARSET, base)
    if kind == "json":
        return JsonInspector(config.policy, base=base)
    if kind == "text":
        return TextInspector(config.policy, base=base)
    if kind == "form":
        return FormInspector(config.policy)
    boundary = params.get("boundary", "").encode("latin-1")
    if not 1 <= len(boundary) <= MAX_BOUNDARY_BYTES:
        return _body_finding(RequestKind.MALFORMED_MULTIPART)
    return MultipartInspector(boundary, config)


class _Utf8Check:
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
        self._utf8 = _Utf8Check(policy, base, name, fix=fixable)

    @property
    def checked(self) -> int:
        return self._utf8.position

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._utf8.feed(chunk)

    def finish(self) -> list[Finding]:
        return self._utf8.finish()


class JsonInspector:
    """JSON: valid raw bytes, and no ``\\u`` escape of a lone surrogate (RFC 8259 §8.2).

    ``"\\ud800"`` is refused, ``"\\ud83d\\ude00"`` (a pair) passes, and ``"\\\\ud800"``
    is an escaped backslash followed by text, which passes. Escaped code points are
    also held to the policy (``"\\uffff"`` is a noncharacter). An escape split across
    chunks waits for its end: at most 11 bytes are held.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        base: int = 0,
        name: str | None = None,
        fixable: bool = True,
    ) -> None:
        self._policy = policy
        self._name = name
        self._utf8 = _Utf8Check(policy, base, name, fix=fixable)
        self._carry = b""
        self._offset = base  # stream offset of _carry[0]
        self._verdicts: dict[int, Kind | None] = {}  # the policy on escaped code points

    @property
    def checked(self) -> int:
        return min(self._utf8.position, self._offset)

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._utf8.feed(chunk) + self._escapes(chunk, final=False)

    def finish(self) -> list[Finding]:
        return self._utf8.finish() + self._escapes(b"", final=True)

    def _escapes(self, chunk: bytes, *, final: bool) -> list[Finding]:
        buf = self._carry + chunk if self._carry else chunk
        if not final and b"\\u" not in buf:
            # No \u escape in here; an odd run of backslashes at the end may start one.
            plain = len(buf)
            while plain and buf[plain - 1] == 0x5C:
                plain -= 1
            cut = len(buf) - (len(buf) - plain) % 2
            self._carry = bytes(buf[cut:])
            self._offset += cut
            return []
        findings: list[Finding] = []
        pos = 0
        while (start := buf.find(b"\\", pos)) >= 0:
            end = self._escape_end(buf, start, final)
            if end is None:
                break
            kind = self._refusal(buf, start, end)
            if kind is not None:
                offset = self._offset + start
                findings.append(Finding(Location.BODY, self._name, kind, offset))
            pos = end
        else:
            start = len(buf)
        self._carry = bytes(buf[start:])
        self._offset += start
        return findings

    @staticmethod
    def _escape_end(buf: bytes, start: int, final: bool) -> int | None:
        """Where the escape at ``start`` ends, or None to wait for more bytes."""
        available = len(buf) - start
        if available < 2 or (buf[start + 1] == 0x75 and available < 6):
            return len(buf) if final else None
        if buf[start + 1] != 0x75 or not _HEX4.fullmatch(buf, start + 2, start + 6):
            return start + 2
        if 0xD800 <= int(buf[start + 2 : start + 6], 16) <= 0xDBFF:
            if available < _PAIR_BYTES and not final:
                return None
            if _low_surrogate(buf, start + 6) is not None:
                return start + _PAIR_BYTES
        return start + 6

    def _refusal(self, buf: bytes, start: int, end: int) -> Kind | RequestKind | None:
        """The refusal for the complete escape ``buf[start:end]``, if any."""
        if end - start < 2:
            return RequestKind.MALFORMED_JSON_ESCAPE
        if buf[start + 1] != 0x75:
            return None
        if end - start < 6 or not _HEX4.fullmatch(buf, start + 2, start + 6):
            return RequestKind.MALFORMED_JSON_ESCAPE
        code = int(buf[start + 2 : start + 6], 16)
        low = _low_surrogate(buf, start + 6) if 0xD800 <= code <= 0xDBFF else None
        if low is not None:
            # RFC 8259 §7: a pair of escapes encodes one supplementary code point.
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        elif 0xD800 <= code <= 0xDFFF:
            return RequestKind.JSON_SURROGATE_ESCAPE
        if code not in self._verdicts:
            found = find_violation(chr(code).encode(), self._policy)
            self._verdicts[code] = None if found is None else found.kind
        return self._verdicts[code]


def _low_surrogate(buf: bytes, pos: int) -> int | None:
    """The low surrogate escaped at ``buf[pos:pos + 6]``, if one is there."""
    if buf[pos : pos + 2] != b"\\u" or not _HEX4.fullmatch(buf, pos + 2, pos + 6):
        return None
    code = int(buf[pos + 2 : pos + 6], 16)
    return code if 0xDC00 <= code <= 0xDFFF else None


class FormInspector:
    """``application/x-www-form-urlencoded``: every decoded name and value.

    Each name and value is percent-decoded strictly (``+`` is a space) and validated
    as its own stream, so memory stays O(chunk) however long a value is. A ``%``
    escape split across chunks waits for its end (at most 2 bytes held). Findings here
    are never fixable: normalize mode cannot re-encode a form safely, so it blocks.
    """

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        self._carry = b""
        self._offset = 0  # stream offset of _carry[0]: everything before is processed
        self._in_value = False
        self._name: str | None = None
        self._name_head = bytearray()
        self._start_piece()

    def _start_piece(self) -> None:
        self._utf8 = IncrementalValidator(self._policy)
        self._decoded = 0  # decoded bytes of this name or value fed so far
        self._tail: list[int] = []  # raw offsets of its last <= 3 decoded bytes
        self._failed = False

    @property
    def checked(self) -> int:
        pending = self._decoded - self._utf8.position
        if pending == 0 or self._failed:
            return self._offset
        return self._tail[-pending]

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._process(chunk, final=False)

    def finish(self) -> list[Finding]:
        return self._process(b"", final=True) + self._end_piece()

    def _process(self, chunk: bytes, *, final: bool) -> list[Finding]:
        buf = self._carry + chunk if self._carry else chunk
        cut = len(buf) if final else incomplete_escape_start(buf)
        findings: list[Finding] = []
        pos = 0
        for match in _FORM_DELIMITER.finditer(buf, 0, cut):
            findings += self._run(buf, pos, match.start())
            pos = match.end()
            if match.group() == b"&":
                findings += self._end_piece()
                self._in_value, self._name = False, None
                self._name_head.clear()
            elif not self._in_value:
                findings += self._end_piece()
                self._in_value = True
                self._name = safe_name(bytes(self._name_head))
            else:
                # WHATWG: only the first "=" splits; later ones belong to the value.
                findings += self._run(buf, match.start(), pos)
        findings += self._run(buf, pos, cut)
        self._carry = bytes(buf[cut:])
        self._offset += cut
        return findings

    def _run(self, buf: bytes, start: int, end: int) -> list[Finding]:
        """Decode and check ``buf[start:end]``, a stretch of one name or value."""
        if start == end:
            return []
        decoded = percent_decode(buf[start:end], plus_is_space=True)
        raw_base = self._offset + start
        findings = [
            Finding(Location.BODY, self._name, kind, raw_base + offset)
            for kind, offset in decoded.errors
        ]
        data = decoded.data
        if not self._in_value:
            self._name_head += data[: _SAFE_NAME_BYTES - len(self._name_head)]
        if self._failed:
            return findings
        first = self._decoded
        try:
            self._utf8.feed(data)
        except Utf8Error as exc:
            index = exc.violation.start - first
            offset = raw_base + decoded.raw_offset(index) if index >= 0 else None
            findings.append(self._failure(exc, offset))
        self._decoded += len(data)
        tail = range(max(len(data) - 3, 0), len(data))
        self._tail += [raw_base + decoded.raw_offset(i) for i in tail]
        del self._tail[:-3]
        return findings

    def _end_piece(self) -> list[Finding]:
        findings = []
        if not self._failed:
            try:
                self._utf8.finish()
            except Utf8Error as exc:
                findings.append(self._failure(exc, None))
        self._start_piece()
        return findings

    def _failure(self, exc: Utf8Error, offset: int | None) -> Finding:
        """A finding for ``exc``; an offset of None lies in the held tail bytes."""
        self._failed = True
        if offset is None:
            offset = self._tail[exc.violation.start - self._decoded]
        return Finding(Location.BODY, self._name, exc.violation.kind, offset)


class MultipartInspector:
    """``multipart/form-data`` (RFC 7578): part headers, names, filenames, text parts.

    Each part's header block must be valid under the policy; ``filename`` and the
    percent-decoded ``filename*`` (RFC 8187, which must say UTF-8) are held to the path
    policy too (no controls, no bidi controls: U+202E is the classic "txt.exe" trick).
    A part whose Content-Type is text or JSON, or that has none (RFC 7578 §4.4:
    text/plain), is inspected like a body of that type; other parts pass. Anything the
    parser cannot follow is refused as ``malformed_multipart`` (fail closed).
    """

    def __init__(self, boundary: bytes, config: GuardConfig) -> None:
        self._delimiter = b"\r\n--" + boundary
        self._config = config
        # RFC 2046 §5.1.1: the first delimiter may open the body; a virtual CRLF in
        # front lets one search find every delimiter.
        self._buf = bytearray(b"\r\n")
        self._offset = -2  # stream offset of _buf[0]
        self._state = "preamble"
        self._part: BodyInspector | None = None
        self._received = 0

    @property
    def checked(self) -> int:
        done = max(self._offset, 0)
        return done if self._part is None else min(done, self._part.checked)

    def feed(self, chunk: bytes) -> list[Finding]:
        if self._state == "failed":
            return []
        self._received += len(chunk)
        self._buf += chunk
        findings: list[Finding] = []
        progress = True
        while progress and self._state not in ("end", "failed"):
            progress = self._step(findings)
        if self._state == "end":
            self._consume(len(self._buf))  # RFC 2046: the epilogue is ignored
        return findings

    def finish(self) -> list[Finding]:
        if self._state in ("end", "failed"):
            return []
        self._state = "failed"
        # Unterminated: the close delimiter never came; point at the body's end.
        return [_body_finding(RequestKind.MALFORMED_MULTIPART, self._received)]

    def _consume(self, count: int) -> bytes:
        taken = bytes(self._buf[:count])
        del self._buf[:count]
        self._offset += count
        return taken

    def _fail(self, findings: list[Finding], offset: int | None = None) -> bool:
        at = self._offset if offset is None else offset
        findings.append(_body_finding(RequestKind.MALFORMED_MULTIPART, max(at, 0)))
        self._state = "failed"
        return False

    def _step(self, findings: list[Finding]) -> bool:
        """Advance the parser by one state if the buffer allows; True on progress."""
        if self._state == "headers":
            return self._headers(findings)
        found = self._buf.find(self._delimiter)
        if self._state == "after":
            return self._after_delimiter(findings)
        if found < 0:
            keep = len(self._delimiter) - 1
            data = self._consume(max(len(self._buf) - keep, 0))
            if self._state == "body" and self._part is not None:
                findings += self._part.feed(data)
            return False
        data = self._consume(found)
        if self._state == "body" and self._part is not None:
            findings += self._part.feed(data) + self._part.finish()
        self._part = None
        self._consume(len(self._delimiter))
        self._state = "after"
        return True

    def _after_delimiter(self, findings: list[Finding]) -> bool:
        if len(self._buf) < 2:
            return False
        if self._buf.startswith(b"--"):
            self._state = "end"
            return True
        line_end = self._buf.find(b"\r\n")
        if line_end < 0:
            # Waiting for the line end; padding longer than a boundary is refused.
            return len(self._buf) > MAX_BOUNDARY_BYTES and self._fail(findings)
        # RFC 2046 §5.1.1: transport-padding (LWSP) may follow a delimiter.
        if self._buf[:line_end].strip(b" \t"):
            return self._fail(findings)
        self._consume(line_end + 2)
        self._state = "headers"
        return True

    def _headers(self, findings: list[Finding]) -> bool:
        if self._buf.startswith(b"\r\n"):
            block_end, block = 0, b""
        else:
            block_end = self._buf.find(b"\r\n\r\n")
            if block_end < 0:
                too_big = len(self._buf) > MAX_PART_HEADER_BYTES
                return too_big and self._fail(findings)
            block = bytes(self._buf[:block_end])
        base = self._offset
        self._consume(block_end + 2 if block_end == 0 else block_end + 4)
        part = _part_inspector(block, base, self._offset, self._config)
        if isinstance(part, Finding):
            findings.append(part)
            self._state = "failed"
            return False
        self._part = part
        self._state = "body"
        return True


def _part_inspector(
    block: bytes, base: int, body_start: int, config: GuardConfig
) -> BodyInspector | Finding | None:
    """The inspector for a part's content, from its header block at offset ``base``."""
    found = find_violation(block, config.policy)
    if found is not None:
        return Finding(Location.BODY, None, found.kind, base + found.start)
    fields: dict[str, bytes] = {}
    for line in block.split(b"\r\n") if block else ():
        field, colon, value = line.partition(b":")
        if not colon or not re.fullmatch(_TOKEN, field):
            return _body_finding(RequestKind.MALFORMED_MULTIPART, base)
        fields[field.lower().decode("ascii")] = value.strip()
    disposition = fields.get("content-disposition", b"")
    head = re.match(rb"\s*form-data\s*", disposition, re.IGNORECASE)
    params = _parameters(disposition, head.end()) if head is not None else None
    if params is None:
        return _body_finding(RequestKind.MALFORMED_MULTIPART, base)
    name = safe_name(params.get("name", b""))
    refusal = _filename_refusal(params, config.effective_path_policy)
    if refusal is not None:
        refused, parameter = refusal
        offset = base + max(block.find(parameter), 0)
        return Finding(Location.BODY, name, refused, offset)
    # RFC 7578 §4.7: Content-Transfer-Encoding is deprecated; a base64 or
    # quoted-printable part would hide its bytes from the check. Fail closed.
    coding = fields.get("content-transfer-encoding", b"binary").lower()
    if coding not in (b"7bit", b"8bit", b"binary"):
        kind = RequestKind.UNSUPPORTED_CONTENT_ENCODING
        return Finding(Location.BODY, name, kind, base)
    parsed = parse_media_type(fields.get("content-type", b"text/plain"))
    if parsed is None:
        return _body_finding(RequestKind.MALFORMED_MULTIPART, base)
    media_type, type_params = parsed
    content = _media_kind(media_type)
    if content not in ("text", "json"):
        return None
    if type_params.get("charset", "utf-8").lower() not in _UTF8_CHARSETS:
        return Finding(Location.BODY, name, RequestKind.UNSUPPORTED_CHARSET, base)
    if content == "json":
        return JsonInspector(config.policy, base=body_start, name=name, fixable=False)
    return TextInspector(config.policy, base=body_start, name=name, fixable=False)


def _filename_refusal(
    params: dict[str, bytes], policy: Policy
) -> tuple[Kind | RequestKind, bytes] | None:
    """The first refusal in ``filename`` or ``filename*``, and that parameter's name.

    Findings point at the parameter, not into its value: the value may be quoted or
    percent-encoded, and the parameter is what a reader looks for.
    """
    plain = params.get("filename")
    if plain is not None:
        found = find_violation(plain, policy)
        if found is not None:
            return found.kind, b"filename="
    extended = params.get("filename*")
    if extended is None:
        return None
    # RFC 8187 §3.2.1: ext-value = charset "'" [ language ] "'" value-chars
    charset, _, rest = extended.partition(b"'")
    _, quote, value = rest.partition(b"'")
    if not quote or charset.lower() not in (b"utf-8", b"us-ascii"):
        return RequestKind.UNSUPPORTED_CHARSET, b"filename*"
    decoded = percent_decode(value)
    if decoded.errors:
        return decoded.errors[0][0], b"filename*"
    found = find_violation(decoded.data, policy)
    if found is not None:
        return found.kind, b"filename*"
    return None
