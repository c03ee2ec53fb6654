"""multipart/form-data: the parser's shortcuts for a part whole in the buffer change
no finding (kind, offset, name, ``fixable``), ``checked`` or ``dropped``.

The shortcuts: a content checked in one call (streamed only when that call refuses
it or a chunk cuts it), a header block equal to the last accepted one passing on
its verdict, a header block's line breaks counted instead of searched, the
canonical field header block and the pass over whole text fields (issue 28). The
reference is the same parser with all five off; the body is fed whole, cut at
random, and one byte at a time (where no non-empty content is ever whole)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body import _multipart as multipart_module
from utf8guard.middleware.body import _multipart_block, _multipart_fields
from utf8guard.middleware.body._multipart import MultipartInspector
from utf8guard.middleware.engine._finding import Finding

BOUNDARY = b"XyZ"
DASH = b"--" + BOUNDARY
FIELD = b'Content-Disposition: form-data; name="%s"'

#: Header blocks: fields (names repeated, distinct, refused), files, JSON and
#: _charset_ fields, and blocks each rule refuses. ``%s`` is the part's name.
BLOCKS = st.sampled_from(
    [
        FIELD,
        FIELD + b"\r\nContent-Type: text/plain; charset=utf-8",
        FIELD + b"\r\nContent-Type: application/json",
        FIELD + b'; filename="a.txt"\r\nContent-Type: text/plain',
        FIELD + b'; filename="a.json"\r\nContent-Type: application/json',
        FIELD + b'; filename="a.bin"\r\nContent-Type: image/png',
        FIELD + b"; filename*=utf-8''%C3%A4.txt",
        FIELD + b"\r\nX-Pad: " + b"p" * 600,  # too long for the verdict cache
        b'Content-Disposition: form-data; name="_charset_"',
        FIELD + b"\r\nContent-Transfer-Encoding: base64",
        FIELD + b"\r\nContent-Type: text/plain; charset=utf-16",
        FIELD + b"\r\nContent-Disposition: form-data",
        FIELD + b"\r\n folded",
        FIELD + b"\nX-Bare: lf",
        FIELD + b"\r\nX-Bare: cr\r",
        FIELD + b"\r\nX-Stray: " + DASH,
        FIELD + b"\x01",
        b"Content-Type: text/plain",
        b"",
    ]
)
NAMES = st.sampled_from([b"a", b"b", b"a1", b"\xc0\xaf", "ä".encode(), b"\xff"])
#: Contents: clean text, refused bytes, JSON escapes, charset names, near
#: delimiters and bare line breaks (content may hold them; a header block may not).
CONTENTS = st.lists(
    st.sampled_from(
        [
            b"x",
            "ä€𝄞".encode(),
            b"\xff",
            b"\xc0\xaf",
            b"\xe2\x82",
            b"\xef\xbf\xbe",
            b'{"k": "\\ud800"}',
            b'["\\u00e9"]',
            b"\x00\x00",
            b"utf-8",
            b"latin1",
            b"\r\n--XyY",
            b"\r\n--XyZz",
            b"--XyZ",
            b"\r",
            b"\n",
            b"\r\n",
            b"-",
        ]
    ),
    max_size=4,
).map(b"".join)
PARTS = st.lists(st.tuples(BLOCKS, NAMES, CONTENTS), max_size=6)
#: What may follow the last part: the close delimiter, with or without its line
#: break, junk after it, or nothing (unterminated).
ENDINGS = st.sampled_from([DASH + b"--\r\n", DASH + b"--", DASH + b"--x", DASH, b""])


def body(parts: Sequence[tuple[bytes, bytes, bytes]], ending: bytes) -> bytes:
    encoded = [
        DASH
        + b"\r\n"
        + (block.replace(b"%s", name) + b"\r\n" if block else b"")
        + b"\r\n"
        + content
        + b"\r\n"
        for block, name, content in parts
    ]
    return b"".join(encoded) + ending


Run = tuple[list[tuple[str | None, str, int, bool]], list[int], int]


class Reference(MultipartInspector):
    """The parser with no header block passing on the last one's verdict, and no
    pass over whole fields."""

    def _headers(self, findings: list[Finding]) -> bool:
        self._last_head = b""
        return super()._headers(findings)

    def _whole_fields(self) -> None:
        pass


def run(
    data: bytes, chunks: Sequence[int], config: GuardConfig, *, reference: bool
) -> Run:
    """Findings, ``checked`` after each chunk, and ``dropped``: ``data`` fed in
    chunks ending at ``chunks``. Checks on the way that no finding falls in bytes
    already declared checked (a streaming adapter has forwarded those)."""
    if not reference:
        return _run(MultipartInspector(BOUNDARY, config), data, chunks)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(multipart_module, "content_is_clean", lambda *_: False)
        patch.setattr(_multipart_block, "_paired_line_breaks", lambda _: False)
        never = re.compile(b"(?!)")  # no canonical header block
        patch.setattr(multipart_module, "CANONICAL_FIELD_HEAD", never)
        patch.setattr(_multipart_fields, "CANONICAL_FIELD_HEAD", never)
        return _run(Reference(BOUNDARY, config), data, chunks)


def _run(inspector: MultipartInspector, data: bytes, chunks: Sequence[int]) -> Run:
    found, checked = [], [0]
    for lo, hi in itertools.pairwise([0, *chunks, len(data)]):
        new = inspector.feed(data[lo:hi])
        assert all(finding.offset >= checked[-1] for finding in new)
        found += new
        checked.append(inspector.checked)
        assert checked[-2] <= checked[-1] <= hi
    new = inspector.finish()
    assert all(finding.offset >= checked[-1] for finding in new)
    found += new
    kept = [(f.name, f.kind.value, f.offset, f.fixable) for f in found]
    return kept, checked, inspector.dropped


@settings(max_examples=300)
@given(
    parts=PARTS,
    ending=ENDINGS,
    limit=st.integers(min_value=1, max_value=8),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=3),
)
def test_whole_parts_get_the_streaming_verdicts(
    parts: list[tuple[bytes, bytes, bytes]],
    ending: bytes,
    limit: int,
    cuts: list[int],
) -> None:
    data = body(parts, ending)
    config = GuardConfig(max_multipart_parts=limit)
    cut = sorted(min(at, len(data)) for at in cuts)
    whole = run(data, [], config, reference=False)
    for chunks in ([], cut, range(1, len(data))):
        got = run(data, chunks, config, reference=False)
        assert got == run(data, chunks, config, reference=True)
        # However the body arrives: the same findings and the same count.
        assert (got[0], got[2]) == (whole[0], whole[2])


@pytest.mark.parametrize("cut", [0, 2, 4, 5])
def test_charset_field_is_held_when_a_chunk_cuts_it(cut: int) -> None:
    # HTML §4.10.21.8: the _charset_ field's value is decided at its end, so none of
    # it is declared checked before, however much of it has arrived.
    data = body([(FIELD, b"_charset_", b"utf-8")], DASH + b"--\r\n")
    start = data.index(b"utf-8")
    inspector = MultipartInspector(BOUNDARY, GuardConfig())
    assert inspector.feed(data[: start + 5 + cut]) == []
    assert inspector.checked == start
    assert inspector.feed(data[start + 5 + cut :]) + inspector.finish() == []
    assert inspector.checked > start + len(b"utf-8")
