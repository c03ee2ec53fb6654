"""STRICT's one-chunk fast path in the pure is_valid and its str-width test.

The judges are the oracle (``utf8guard.reference``) and Unicode ch. 23.7's list of
the 66 noncharacters; each case places text of one width (Latin-1, Cyrillic and CJK
up to U+FFFF, emoji above) with and without STRICT's tail byte 0xBF around them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bench.bench_core import GENERATORS, make_corpus
from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, find_violation, reference
from utf8guard import _scan as scan
from utf8guard._gates import ucs4_floor

if TYPE_CHECKING:
    from collections.abc import Callable

# Unicode ch. 23.7: U+FDD0..U+FDEF and the last two code points of each of 17 planes.
NONCHARACTERS = [chr(cp) for cp in range(0xFDD0, 0xFDF0)] + [
    chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF)
]
# Allowed neighbours: U+FDCF and U+FDF0 (EF B7 8F, EF B7 B0: the regex gate's prefix),
# U+FFFD (EF BF BD: the tail byte after EF), U+nFFFD, and others holding BF BE or
# BF BF: U+4FFE (E4 BF BE), U+4FFF (E4 BF BF), U+3FFBF (F0 BF BE BF), and U+FFBF
# (EF BE BF).
NEIGHBOURS = ["\ufdcf", "\ufdf0", "\ufffd", "\U0001fffd", "\U0010fffd", "\u4ffe"]
NEIGHBOURS += ["\u4fff", "\U0003ffbf", "\uffbf"]
# Clean text by width and by the bytes the fast path tests: "п" D0 BF holds the tail
# byte, "み" E3 81 BF too, U+FF0C EF BC 8C the regex gate's lead, "·" C2 B7 its second.
CONTEXTS = {
    "latin1": "Gr\u00f6\u00dfe ",
    "latin1-b7": "a\u00b7b ",
    "cyrillic-bf": "\u043f\u0440\u0438 ",
    "cjk-ef": "\u4f60\uff0c",
    "cjk-ef-bf": "\u307f\uff0c",
    "cjk-ef-bf-b7": "\u307f\uff0c\u00b7",
    "emoji": "\U0001f600 ",
    "emoji-bf": "\U0001f600\u043f",
    "emoji-ef-b7": "\u2764\ufe0f\u00b7",
}


def _verdicts(data: bytes) -> tuple[bool, bool]:
    return scan.python_is_valid(data), reference.is_valid(data, STRICT)


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_every_noncharacter_alone_first_last_and_inside(context: str) -> None:
    assert reference.is_valid(context.encode(), STRICT)
    for char in NONCHARACTERS:
        for text in (char, char + context, context + char, context + char + context):
            assert _verdicts(text.encode()) == (False, False), (hex(ord(char)), text)


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_neighbours_pass_in_every_context(context: str) -> None:
    for char in NEIGHBOURS:
        for text in (char, char + context, context + char * 2 + context):
            assert _verdicts(text.encode()) == (True, True), (hex(ord(char)), text)


@pytest.mark.parametrize("context", CONTEXTS.values(), ids=CONTEXTS.keys())
def test_one_chunk_sizes_agree_with_the_oracle(context: str) -> None:
    # Up to one chunk the fast path decides; past it find_violation does.
    for size in (16, 64, 256, 4096, scan.CHUNK_BYTES):
        half = context * max(1, size // 2 // len(context.encode()))
        for char in ("\ufdd0", "\uffff", "\U0010fffe", "\ufffd", "\U0010fffd"):
            got, expected = _verdicts((half + char + half).encode())
            assert got is expected, (size, hex(ord(char)))


@pytest.mark.parametrize("name", list(GENERATORS))
@pytest.mark.parametrize("size", [16, 64, 256, 4096])
def test_every_bench_corpus_sample(name: str, size: int) -> None:
    data = make_corpus(name, size)
    assert _verdicts(data) == (True, True)
    middle = len(data) // 2
    while 0x80 <= data[middle] <= 0xBF:  # a character boundary
        middle -= 1
    for char in ("\ufdd0", "\ufdef", "\ufffe", "\U0001ffff", "\U0010ffff"):
        spliced = data[:middle] + char.encode() + data[middle:]
        assert _verdicts(spliced) == (False, False), (name, size, hex(ord(char)))
    # find_violation takes is_valid's verdict on small valid bytes, and places a
    # violation (a noncharacter, C1 control, stray byte) as the oracle does.
    for policy in (STRICT, WELL_FORMED, IDENTIFIER):
        for splice in (b"", "\ufffe".encode(), "\u0085".encode(), b"\xff"):
            spliced = data[:middle] + splice + data[middle:]
            expected = reference.find_violation(spliced, policy)
            assert find_violation(spliced, policy) == expected, (name, size, splice)


def test_ucs4_floor_tells_narrow_from_wide() -> None:
    floor = ucs4_floor()
    assert floor > 0  # CPython: the layout check passed
    for text, narrow in [
        ("caf\u00e9", True),
        ("\u043f\u0440\u0438" * 50, True),
        ("\uffff" * 7, True),
        ("a\U00010000", False),
        ("\u043f" * 100 + "\U0010ffff", False),
    ]:
        decoded = text.encode().decode()
        assert (decoded.__sizeof__() < floor + 4 * len(decoded)) is narrow, text


def _refuses(text: str) -> int:
    raise TypeError("no sizes on this Python")


@pytest.mark.parametrize(
    "size_of",
    [lambda s: 16, lambda s: 100 + len(s), _refuses],
    ids=["constant", "one-byte-units", "refuses"],
)
def test_ucs4_floor_is_0_where_sizes_do_not_fit(size_of: Callable[[str], int]) -> None:
    # Sizes unlike PEP 393's layout (another Python): is_valid then never asks.
    assert ucs4_floor(size_of) == 0


def test_no_str_looks_narrow_the_gates_still_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert scan.python_is_valid(b"")  # binds STRICT's names in the C build too
    monkeypatch.setattr(scan, "_UCS4_FLOOR", 0)
    for context in CONTEXTS.values():
        for char in NONCHARACTERS[::7] + NEIGHBOURS:
            data = (context + char + context).encode()
            assert _verdicts(data)[0] is _verdicts(data)[1], (context, hex(ord(char)))
