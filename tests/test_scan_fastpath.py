"""The fast path's shortcuts (gates, small-input is_valid) agree with the oracle.

Each case targets one shortcut of ``utf8guard._scan``; a seeded differential loop
covers their combinations on near-valid input, and the last test checks the gates at
the edges of every refused range under all 64 policies.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from utf8guard import (
    IDENTIFIER,
    STRICT,
    WELL_FORMED,
    Kind,
    Policy,
    Violation,
    find_violation,
    is_valid,
    reference,
)
from utf8guard import _scan as scan
from utf8guard._gates import TRANSLATE_MAX_BYTES
from utf8guard._plan import narrow_gate, plan_for, tail_gate
from utf8guard._policy import refused_ranges

from .conftest import ALL_POLICIES, FLAGS

NO_PRIVATE_USE = Policy(allow_private_use=False)  # too many code points for gates
POLICIES = [STRICT, WELL_FORMED, IDENTIFIER, NO_PRIVATE_USE, Policy(allow_bom=False)]
CHUNK = scan.CHUNK_BYTES
#: The public is_valid (compiled when the accelerator is on) and the pure-Python one.
PREDICATES = [is_valid, scan.python_is_valid]

# (id, data): each row reaches one branch of the gates or of is_valid's small path.
CASES = [
    ("ascii", b"plain ascii"),
    ("ascii-nul", b"a\x00b"),
    ("latin1", "caf\u00e9".encode()),
    ("cyrillic-bf", "\u043f\u0440\u0438".encode()),  # 0xBF (STRICT's tail), no lead
    ("ill-formed", b"ok \xc0\xaf"),
    ("truncated-tail", "\u20ac".encode()[:2]),
    ("fullwidth-comma", "\u4f60\uff0c\u597d".encode()),  # lead EF, no B7
    ("ef-b7-allowed", "\ufdcf\ufdf0".encode()),  # EF B7 but outside FDD0..FDEF
    ("nonchar-fdd0", "x\ufdd0".encode()),
    ("nonchar-fdef", "x\ufdef".encode()),
    ("nonchar-fffe", "\u4f60\ufffe".encode()),
    ("nonchar-1ffff", "\U0001f600\U0001ffff".encode()),
    ("nonchar-10fffe", "\U0010fffe".encode()),
    ("emoji-vs16", "\u2764\ufe0f\U0001f600".encode()),
    ("private-use", "\ue000".encode()),
    ("bom", "\ufeffx".encode()),
    ("bidi", "a\u202eb".encode()),
    ("c1-control", "\u0085".encode()),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("case", "data"), CASES, ids=[c[0] for c in CASES])
def test_small_input_matches_reference(case: str, data: bytes, policy: Policy) -> None:
    expected = reference.find_violation(data, policy)
    for predicate in PREDICATES:
        assert predicate(data, policy) == (expected is None)
        assert predicate(bytearray(data), policy) == (expected is None)
    assert find_violation(data, policy) == expected
    assert find_violation(memoryview(data), policy) == expected  # gates all open


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("case", "data"), CASES, ids=[c[0] for c in CASES])
def test_large_input_matches_reference(case: str, data: bytes, policy: Policy) -> None:
    # Past TRANSLATE_MAX_BYTES, then past one chunk, where gates search a sub-range.
    found = reference.find_violation(data, policy)
    for pad in (TRANSLATE_MAX_BYTES, CHUNK - 2):
        padding = "\u00e9".encode() * (pad // 2)  # valid under every policy here
        expected = found and Violation(
            found.kind, found.start + len(padding), found.end + len(padding)
        )
        for predicate in PREDICATES:
            assert predicate(padding + data, policy) == (expected is None)
        assert find_violation(padding + data, policy) == expected


def test_gates_strict() -> None:
    gates = plan_for(STRICT).gates
    assert gates is not None
    assert [lead for lead, _, _ in gates] == [0xF4, 0xF3, 0xF2, 0xF1, 0xF0, 0xEF]
    _, chars, patterns = gates[-1]
    assert chars == ("\ufffe", "\uffff")
    assert [second for second, _ in patterns] == [0xB7]
    assert sum(len(chars) for _, chars, _ in gates) == 66 - 32
    tails = plan_for(STRICT).tails
    assert tails is not None
    # The last two bytes of U+nFFFE and U+nFFFF (RFC 3629 §3), and nothing else.
    pairs = (bytes([first, second]) for first in range(256) for second in range(256))
    assert {pair for pair in pairs if tails.fullmatch(pair)} == {
        b"\xbf\xbe",
        b"\xbf\xbf",
    }


@pytest.mark.parametrize(
    "policy", [IDENTIFIER, Policy(allow_bom=False)], ids=["short", "mixed-tails"]
)
def test_no_tails_regex(policy: Policy) -> None:
    assert plan_for(policy).gates
    assert plan_for(policy).tails is None


def test_gates_give_up_on_large_sets() -> None:
    assert plan_for(NO_PRIVATE_USE).gates is None
    assert plan_for(WELL_FORMED).gates == ()


def test_stream_of_ascii_chunks_skips_decoding() -> None:
    assert scan.first_violation(b"abc", 0, 3, STRICT) is None
    found = scan.first_violation(b"ab\x00", 0, 3, IDENTIFIER)
    assert found == Violation(Kind.NUL, 2, 3)


def _near_valid(rng: random.Random) -> bytes:
    pieces = ["a", "\u00e9", "\u4f60", "\uff0c", "\U0001f600", "\ufe0f", "\ufdd0"]
    pieces += ["\ufffe", "\U0001fffe", "\ue000", "\x00", "\u202e", "\ufeff"]
    parts = [rng.choice(pieces).encode() for _ in range(rng.randrange(40))]
    for _ in range(rng.randrange(3)):  # splice in stray bytes
        parts.insert(rng.randrange(len(parts) + 1), bytes([rng.randrange(0x80, 256)]))
    return b"".join(parts)


def test_differential_near_valid() -> None:
    rng = random.Random(2)  # noqa: S311 - reproducible test input, not secret
    for _ in range(400):
        data = _near_valid(rng)
        policy = rng.choice(POLICIES)
        expected = reference.find_violation(data, policy)
        for predicate in PREDICATES:
            assert predicate(data, policy) == (expected is None), (data, policy)
        assert find_violation(data, policy) == expected, (data, policy)
        window = rng.choice((1, 2, 5))
        found = scan.first_violation(data, 0, len(data), policy, window)
        assert found == expected, (data, policy, window)


def _edges(policy: Policy) -> set[int]:
    """Each refused range's ends and their neighbours (surrogates excluded)."""
    points = {
        cp
        for _, ranges in refused_ranges(policy)
        for lo, hi in ranges
        for cp in (lo - 1, lo, (lo + hi) // 2, hi, hi + 1)
    }
    return {cp for cp in points if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF}


def _allowed(policy: Policy) -> str:
    """A readable test id: the kinds the policy allows, e.g. ``allow:nul,bom``."""
    return "allow:" + ",".join(f for f in FLAGS if getattr(policy, f)).replace(
        "allow_", ""
    )


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=_allowed)
def test_gates_cover_every_policy(policy: Policy) -> None:
    # In narrow (ASCII, UCS2) and wide (emoji) text, below and above
    # TRANSLATE_MAX_BYTES, as bytes and as memoryview.
    for cp in sorted(_edges(policy)):
        for context in ("a", "\u4f60", "\U0001f600"):
            small = (context + chr(cp)).encode()
            expected = reference.is_valid(small, policy)
            large = "\u00e9".encode() * (TRANSLATE_MAX_BYTES // 2) + small
            for data, predicate in product((small, large), PREDICATES):
                assert predicate(data, policy) == expected, (cp, context, policy)
            view = memoryview(small)
            assert (find_violation(view, policy) is None) == expected, (cp, policy)


# Unicode ch. 23.7: U+FDD0..U+FDEF and the last two code points of each of 17 planes.
NONCHARACTERS = [chr(cp) for cp in range(0xFDD0, 0xFDF0)] + [
    chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF)
]
# Their neighbours, which STRICT allows: the gates must not refuse them either.
NEIGHBOURS = ["\ufdcf", "\ufdf0", "\ufffd", "\U0001fffd", "\U0010fffd"]
# Padding without and with 0xBF, the byte every U+nFFFE/F encoding holds (STRICT's
# plan.tail_byte): "é" is C3 A9, "п" is D0 BF, "\U0001f600" F0 9F 98 80.
PADS = {"no-bf": "\u00e9", "bf": "\u043f", "wide": "\U0001f600"}


def _placements(char: str, pad: str) -> list[tuple[bytes, int]]:
    """``char`` at the start and end of small input and around the first 64 KiB chunk
    boundary (ending at it, starting at it, straddling it), with its offset."""
    encoded, unit = char.encode(), pad.encode()
    rows = [(encoded + unit, 0), (unit + encoded, len(unit))]
    for shift in (len(encoded), 0, 1):  # ends at, starts at, straddles the boundary
        size = CHUNK - shift  # clean text of this many bytes before ``char``
        head = unit * (size // len(unit)) + b"a" * (size % len(unit))
        rows.append((head + encoded + unit * 3, size))
    return rows


def test_gates_strict_tail_byte() -> None:
    plan = plan_for(STRICT)
    assert plan.tail_byte == 0xBF
    looked_up = [char for _, chars, _ in plan.gates or () for char in chars]
    assert all(0xBF in char.encode() for char in looked_up)
    assert [(lead, second) for lead, second, _ in plan.patterns] == [(0xEF, 0xB7)]
    assert plan_for(IDENTIFIER).tail_byte is None


@pytest.mark.parametrize("pad", PADS.values(), ids=PADS.keys())
def test_every_noncharacter_at_every_edge(pad: str) -> None:
    assert len(NONCHARACTERS) == 66
    assert reference.is_valid(pad.encode(), STRICT)
    for char in NONCHARACTERS:
        for data, start in _placements(char, pad):
            expected = Violation(Kind.NONCHARACTER, start, start + len(char.encode()))
            for predicate in PREDICATES:
                assert predicate(data, STRICT) is False, (hex(ord(char)), start)
            assert find_violation(data, STRICT) == expected
            assert find_violation(memoryview(data), STRICT) == expected


@pytest.mark.parametrize("pad", PADS.values(), ids=PADS.keys())
def test_noncharacter_neighbours_at_every_edge(pad: str) -> None:
    for char in NEIGHBOURS:
        assert reference.is_valid(char.encode(), STRICT)
        for data, _ in _placements(char, pad):
            for predicate in PREDICATES:
                assert predicate(data, STRICT) is True, hex(ord(char))
            assert find_violation(data, STRICT) is None
            assert find_violation(memoryview(data), STRICT) is None


def test_tail_gate_needs_one_tail_byte_and_one_regex() -> None:
    tail, lead, second, _ = tail_gate(plan_for(STRICT))
    assert (tail, lead, second) == (0xBF, 0xEF, 0xB7)
    with pytest.raises(ValueError, match="one tail byte and one regex"):
        tail_gate(plan_for(IDENTIFIER))


# One repeating unit per bench_core corpus's script: "п" (D0 BF) holds STRICT's tail
# byte, U+FF0C (EF BC 8C) its gate's lead, the emoji its 4-byte leads.
SCRIPTS = {
    "ascii": "the quick brown fox ",
    "german": "Gr\u00f6\u00dfe \u00dcbung f\u00fcr ",
    "russian": "\u043f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 ",
    "cjk": "\u4f60\u597d\uff0c\u4e16\u754c\u3002\u65e5\u672c\u8a9e\uff01 ",
    "emoji": "ok \U0001f44d\U0001f3fd \u2764\ufe0f \U0001f468\u200d\U0001f467 ",
    "json": '{"name": "Zo\u00eb", "note": "\u4ef7\u683c\uff0c\u542b\u7a0e"}, ',
    # Kana and kanji holding 0xBF ("\u307f" E3 81 BF), 0xB7 ("\u96f7" E9 9B B7) and
    # the lead EF (U+FF0C) together: narrow text where the U+FFFE/U+FFFF lookups
    # stop at every U+FFxx and the EF B7 regex runs too.
    "kana": "\u307f\u3093\u306a\uff0c\u96f7\uff01 ",
}
# Near misses STRICT allows: U+4FFE is E4 BF BE, U+FFBF is EF BE BF.
NEAR_MISSES = [*NEIGHBOURS, "\u4ffe", "\uffbf"]
SIZES = [16, 64, 4096, CHUNK + 1]


def _clean(unit: str, size: int) -> bytes:
    """Repeated ``unit`` cut at a character boundary, ASCII-padded to ``size`` bytes."""
    text = unit * (size // len(unit.encode()) + 1)
    encoded = text.encode()[:size]
    while True:
        try:
            encoded.decode()
        except UnicodeDecodeError:
            encoded = encoded[:-1]
        else:
            return encoded + b"a" * (size - len(encoded))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("unit", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_screen_in_each_script(unit: str, size: int) -> None:
    # The oracle sees the inserted character alone: the clean text around it is valid
    # under each policy (checked here), and both meet at character boundaries.
    for policy in POLICIES:
        assert reference.is_valid((unit * 2).encode(), policy)
    for char in NONCHARACTERS + NEAR_MISSES:
        encoded = char.encode()
        clean = _clean(unit, max(size - len(encoded), 0))
        middle = len(_clean(unit, len(clean) // 2).rstrip(b"a"))
        for offset in (0, middle, len(clean)):
            data = clean[:offset] + encoded + clean[offset:]
            for policy in POLICIES:
                found = reference.find_violation(encoded, policy)
                expected = found and Violation(
                    found.kind, found.start + offset, found.end + offset
                )
                for predicate in PREDICATES:
                    assert predicate(data, policy) is (expected is None), (
                        hex(ord(char)),
                        offset,
                        policy,
                    )
                assert find_violation(data, policy) == expected


def test_narrow_gate_needs_4_byte_gates_and_one_other() -> None:
    assert narrow_gate(plan_for(STRICT), 0xEF) == ("\ufffe", "\uffff")
    with pytest.raises(ValueError, match="4-byte gates and one other"):
        narrow_gate(plan_for(IDENTIFIER), 0xEF)
    with pytest.raises(ValueError, match="4-byte gates and one other"):
        narrow_gate(plan_for(STRICT), 0xF0)
