"""Compressed request bodies (RFC 9110 §8.4.1): gzip and deflate, decoded for the check.

The decoded bytes go to the body's own inspector; the app still gets the body as
sent (compressed), as frameworks do not decode a request's Content-Encoding: an app
that does (``gzip.decompress(request.body)``) reads what the guard checked. Decoding
is streaming and bounded: at most :data:`STEP_BYTES` of output per step, and no
more than the body limit in all (``max_body_size`` counts decoded bytes), nor more
than :data:`MAX_RATIO` times the compressed bytes past :data:`RATIO_FLOOR_BYTES`: a
zip bomb costs time and memory linear in the limit, not in what it would expand to.
"""

from __future__ import annotations

import zlib
from dataclasses import replace
from typing import Final

from ._finding import Finding, RequestKind
from ._text import BodyInspector, body_finding

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


def decoding_inspector(
    coding: bytes, inner: BodyInspector, limit_bytes: int
) -> DecodingInspector | Finding:
    """``inner`` over the body decoded from ``coding`` (a Content-Encoding value), or
    the refusal of an unknown coding or a list of codings (RFC 9110 §8.4: stacked
    codings, which would multiply the ratio and are not sent by clients)."""
    bits = WINDOW_BITS.get(coding.strip(b" \t").lower())
    if bits is None:
        return body_finding(RequestKind.UNSUPPORTED_CONTENT_ENCODING)
    return DecodingInspector(inner, bits, limit_bytes)


class DecodingInspector:
    """A body inspector that feeds ``inner`` the decoded body.

    ``checked`` counts compressed bytes whose decoded bytes ``inner`` has all
    checked. Findings carry offsets in the decoded body and cannot be repaired (the
    app gets the compressed bytes). A stream that does not decode, ends early, or
    has bytes after its end is ``malformed_content_encoding``; once ``decoded`` is
    over ``limit_bytes`` (or the ratio cap), decoding stops and :attr:`too_large`
    is True.
    """

    def __init__(
        self, inner: BodyInspector, window_bits: int, limit_bytes: int
    ) -> None:
        self._inner = inner
        self._decoder = zlib.decompressobj(window_bits)
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
        while data and not self.too_large:
            try:
                out = self._decoder.decompress(data, STEP_BYTES)
            except zlib.error:
                return self._fail(findings)
            if self._decoder.eof and self._decoder.unused_data:
                return self._fail(findings)  # bytes after the end of the stream
            findings += self._decoded(out)
            data = self._decoder.unconsumed_tail
        return self._fixed(findings)

    def finish(self) -> list[Finding]:
        if self._failed or self.too_large:
            return []
        if not self._decoder.eof:
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
            self._checked = self._compressed - len(self._decoder.unconsumed_tail)
        return findings

    def _fail(self, findings: list[Finding]) -> list[Finding]:
        self._failed = True
        kind = RequestKind.MALFORMED_CONTENT_ENCODING
        return self._fixed([*findings, body_finding(kind, self.decoded)])

    @staticmethod
    def _fixed(findings: list[Finding]) -> list[Finding]:
        # The app gets the compressed bytes: nothing in them can be repaired.
        return [replace(finding, fixable=False) for finding in findings]
