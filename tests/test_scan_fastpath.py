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
from utf8guard._plan import plan_for
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
    for pad in (scan.TRANSLATE_MAX_BYTES, CHUNK - 2):
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
    assert tails.pattern == b"\xbf\xbe|\xbf\xbf"


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
            large = "\u00e9".encode() * (scan.TRANSLATE_MAX_BYTES // 2) + small
            for data, predicate in product((small, large), PREDICATES):
                assert predicate(data, policy) == expected, (cp, context, policy)
            view = memoryview(small)
            assert (find_violation(view, policy) is None) == expected, (cp, policy)
