"""Properties: any chunking of a body gives what one-shot validation gives."""

from __future__ import annotations

from urllib.parse import quote_plus

from hypothesis import given
from hypothesis import strategies as st

from utf8guard import STRICT, find_violation
from utf8guard.middleware.body._form import FormInspector
from utf8guard.middleware.body._json import JsonInspector
from utf8guard.middleware.body._text import TextInspector
from utf8guard.middleware.engine._finding import Finding

# Encoded text with no noncharacters or surrogates: valid under STRICT.
valid_text = st.text(
    st.characters(exclude_categories=["Cs"]).filter(
        lambda c: find_violation(c.encode()) is None
    )
)


@st.composite
def near_valid(draw: st.DrawFn) -> bytes:
    """Valid text with a few arbitrary bytes spliced in."""
    data = bytearray(draw(valid_text).encode())
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.binary(min_size=1, max_size=3))
    return bytes(data)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(cut, len(data)) for cut in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def first(
    inspector: TextInspector | JsonInspector | FormInspector, chunks: list[bytes]
) -> Finding | None:
    findings: list[Finding] = []
    for chunk in chunks:
        findings += inspector.feed(chunk)
    findings += inspector.finish()
    return findings[0] if findings else None


@given(valid_text, st.lists(st.integers(0, 200), max_size=8))
def test_valid_text_passes_any_chunking(text: str, cuts: list[int]) -> None:
    data = text.encode()
    assert first(TextInspector(STRICT), chunked(data, cuts)) is None
    raw = text.translate({ord(c): None for c in "%&=+"})  # raw UTF-8 is fine too
    form = f"{quote_plus(text)}={quote_plus(text)}&x={raw}".encode()
    assert first(FormInspector(STRICT), chunked(form, cuts)) is None


@given(near_valid(), st.lists(st.integers(0, 200), max_size=8))
def test_invalid_text_caught_at_the_one_shot_offset(
    data: bytes, cuts: list[int]
) -> None:
    expected = find_violation(data)
    found = first(TextInspector(STRICT), chunked(data, cuts))
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert (found.kind, found.offset) == (expected.kind, expected.start)


@given(valid_text, st.lists(st.integers(0, 200), max_size=8))
def test_json_escapes_of_valid_text_pass_any_chunking(
    text: str, cuts: list[int]
) -> None:
    # RFC 8259 §7: every UTF-16 code unit as \uXXXX, so astral characters are pairs.
    units = text.encode("utf-16-be")
    escaped = "".join(
        f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}"
        for i in range(0, len(units), 2)
    )
    data = f'"{escaped}"'.encode()
    assert first(JsonInspector(STRICT), chunked(data, cuts)) is None
