"""Driving a body inspector in tests: every finding of a chunked feed, every split."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from utf8guard.middleware.engine._finding import Finding

if TYPE_CHECKING:
    from utf8guard.middleware.body._text import BodyInspector


def run(inspector: BodyInspector, chunks: Sequence[bytes]) -> list[tuple[str, int]]:
    """``(kind, offset)`` of every finding from feeding ``chunks`` and finishing."""
    findings: list[Finding] = []
    for chunk in chunks:
        findings += inspector.feed(chunk)
    findings += inspector.finish()
    return [(finding.kind.value, finding.offset) for finding in findings]


def splits(data: bytes) -> list[list[bytes]]:
    """``data`` whole, byte by byte, and cut in two at every position."""
    cuts = [[data], [data[i : i + 1] for i in range(len(data))]]
    return cuts + [[data[:i], data[i:]] for i in range(len(data) + 1)]
