"""Compressed request bodies (RFC 9110 §8.4.1): gzip, deflate and br, decoded to check.

The decoded bytes go to the body's own inspector; the app still gets the body as
sent (compressed), as frameworks do not decode a request's Content-Encoding: an app
that does (``gzip.decompress(request.body)``) reads what the guard checked. Decoding
is streaming and bounded: at most :data:`STEP_BYTES` of output per step, and no
more than the body limit in all (``max_body_size`` counts decoded bytes), nor more
than :data:`MAX_RATIO` times the compressed bytes past :data:`RATIO_FLOOR_BYTES`: a
zip bomb costs time and memory linear in the limit, not in what it would expand to.

``br`` (RFC 7932) needs the optional ``brotli`` package (``utf8guard[brotli]``) or
``brotlicffi``, 1.2 or later, whose decoders take an output limit per step (the fix
for CVE-2025-6176); without one a br body is ``unsupported_content_encoding``.
Its decoder also holds the stream's window, up to 16 MiB (RFC 7932 §9.1: WBITS ≤ 24).
"""

from __future__ import annotations

import importlib
import zlib
from types import ModuleType

from ..._memo import memoize
from ..engine._finding import Finding, RequestKind
from ._text import body_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Protocol

    from ._text import BodyInspector

    # For type checkers only (issue 28: typing at import).
    class _Stream(Protocol):
        """One decoder: :meth:`decode` gives at most :data:`STEP_BYTES` of output, or
        None when the stream is malformed (bytes after its end included)."""

        def decode(self, data: bytes) -> bytes | None: ...

        @property
        def more(self) -> bool:
            """Whether ``decode(b"")`` has more output of the data already given."""

        @property
        def unread(self) -> int:
            """Compressed bytes given whose output is not all out yet."""

        @property
        def eof(self) -> bool: ...


__all__ = ["MAX_RATIO", "DecodingInspector", "decoding_inspector"]

#: RFC 9110 §8.4.1.3 gzip (and its alias x-gzip), §8.4.1.2 deflate: the zlib format
#: of RFC 1950, as zlib's window bits (16 + 15: a gzip header and trailer).
WINDOW_BITS: Final = {
    b"gzip": 16 + zlib.MAX_WBITS,
    b"x-gzip": 16 + zlib.MAX_WBITS,
    b"deflate": zlib.MAX_WBITS,
}
#: Output bytes one decompress call may make: the memory a step holds.
STEP_BYTES: Final = 64 * 1024
#: Decoded bytes per compressed byte past which a body is refused as too large;
#: deflate's own limit is about 1032, so only crafted streams reach it.
MAX_RATIO: Final = 1000
#: Decoded bytes below which the ratio is not judged (a small body of one repeated
#: byte is not a bomb).
RATIO_FLOOR_BYTES: Final = 1024 * 1024


#: RFC 9110 §8.4.1, RFC 7932: the brotli coding's name.
BROTLI: Final = b"br"


class _ZlibStream:
    def __init__(self, window_bits: int) -> None:
        self._decoder = zlib.decompressobj(window_bits)

    def decode(self, data: bytes) -> bytes | None:
        try:
            out = self._decoder.decompress(
                self._decoder.unconsumed_tail + data, STEP_BYTES
            )
        except zlib.error:
            return None
        if self._decoder.eof and self._decoder.unused_data:
            return None  # bytes after the end of the stream
        return out

    @property
    def more(self) -> bool:
        return bool(self._decoder.unconsumed_tail)

    @property
    def unread(self) -> int:
        return len(self._decoder.unconsumed_tail)

    @property
    def eof(self) -> bool:
        return self._decoder.eof


#: The br decoders, either of which serves (the same Decompressor API since 1.2):
#: Google's bindings, the optional extra's, and the CFFI ones PyPy uses.
BROTLI_MODULES: Final = ("brotli", "brotlicffi")


@memoize(1)
def _brotli() -> ModuleType | None:
    """The first br decoder that imports, or None (br is then refused)."""
    for name in BROTLI_MODULES:
        try:
            return importlib.import_module(name)  # on the first br body
        except ImportError:
            continue
    return None


class _BrotliStream:
    def __init__(self, module: ModuleType) -> None:
        self._error: type[Exception] = module.error
        self._decoder = module.Decompressor()
        self._given = 0
        self._produced = False

    def decode(self, data: bytes) -> bytes | None:
        # The decoder keeps all of ``data``; with the limit set, it must then be
        # given nothing until it can accept more (brotli 1.2's process()).
        self._given = len(data) or self._given
        try:
            out: bytes = self._decoder.process(data, output_buffer_limit=STEP_BYTES)
        except self._error:  # also for bytes after the end of the stream
            return None
        self._produced = bool(out)
        return out

    @property
    def more(self) -> bool:
        # can_accept_more_data() is True with output still held (brotli 1.2.1, at
        # the ring buffer's end): drain until a step gives nothing or the end.
        if not self._decoder.can_accept_more_data():
            return True
        return self._produced and not self._decoder.is_finished()

    @property
    def unread(self) -> int:
        return self._given if self.more else 0

    @property
    def eof(self) -> bool:
        return bool(self._decoder.is_finished())


def decoding_inspector(
    coding: bytes, inner: BodyInspector, limit_bytes: int
) -> DecodingInspector | Finding:
    """``inner`` over the body decoded from ``coding`` (a Content-Encoding value), or
    the refusal of an unknown coding, of br without the ``brotli`` package, or of a
    list of codings (RFC 9110 §8.4: stacked codings, which would multiply the ratio
    and are not sent by clients)."""
    name = coding.strip(b" \t").lower()
    bits = WINDOW_BITS.get(name)
    if bits is not None:
        return DecodingInspector(inner, _ZlibStream(bits), limit_bytes)
    module = _brotli() if name == BROTLI else None
    if module is not None:
        return DecodingInspector(inner, _BrotliStream(module), limit_bytes)
    return body_finding(RequestKind.UNSUPPORTED_CONTENT_ENCODING)


class DecodingInspector:
    """A body inspector that feeds ``inner`` the decoded body.

    ``checked`` counts compressed bytes whose decoded bytes ``inner`` has all
    checked. Findings carry offsets in the decoded body and cannot be repaired (the
    app gets the compressed bytes). A stream that does not decode, ends early, or
    has bytes after its end is ``malformed_content_encoding``; once ``decoded`` is
    over ``limit_bytes`` (or the ratio cap), decoding stops and :attr:`too_large`
    is True.
    """

    def __init__(self, inner: BodyInspector, stream: _Stream, limit_bytes: int) -> None:
        self._inner = inner
        self._stream = stream
        self._limit = limit_bytes
        self._compressed = 0
        self._checked = 0
        self.decoded = 0
        self.too_large = False
        self._failed = False

    @property
    def checked(self) -> int:
        return self._checked

    def feed(self, chunk: bytes) -> list[Finding]:
        self._compressed += len(chunk)
        if self._failed or self.too_large:
            return []
        findings: list[Finding] = []
        data = chunk
        while data or self._stream.more:
            out = self._stream.decode(data)
            if out is None:
                return self._fail(findings)
            findings += self._decoded(out)
            if self.too_large:
                break
            data = b""
        return self._fixed(findings)

    def finish(self) -> list[Finding]:
        if self._failed or self.too_large:
            return []
        if not self._stream.eof:
            return self._fail([])  # the stream ends early (or never started)
        findings = self._inner.finish()
        self._checked = self._compressed
        return self._fixed(findings)

    def _decoded(self, out: bytes) -> list[Finding]:
        self.decoded += len(out)
        ratio = self.decoded > RATIO_FLOOR_BYTES and (
            self.decoded > MAX_RATIO * self._compressed
        )
        if self.decoded > self._limit or ratio:
            self.too_large = True
            return []
        findings = self._inner.feed(out)
        if self._inner.checked >= self.decoded:
            self._checked = self._compressed - self._stream.unread
        return findings

    def _fail(self, findings: list[Finding]) -> list[Finding]:
        self._failed = True
        kind = RequestKind.MALFORMED_CONTENT_ENCODING
        return self._fixed([*findings, body_finding(kind, self.decoded)])

    @staticmethod
    def _fixed(findings: list[Finding]) -> list[Finding]:
        # The app gets the compressed bytes: nothing in them can be repaired.
        return [finding.replace(fixable=False) for finding in findings]
