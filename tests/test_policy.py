"""Policy flags, presets and the compiled per-policy regex against the standard."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, Kind, Policy, reference
from utf8guard._plan import (
    Plan,
    _alternation,
    _byte_classes,
    plan_for,
)
from utf8guard._policy import BIDI_CONTROLS, PRIVATE_USE, refused_ranges

from .conftest import ALL_POLICIES

ALL_REFUSED = {
    "allow_nul": False,
    "allow_controls": False,
    "allow_bidi_controls": False,
    "allow_private_use": False,
    "allow_bom": False,
}
# Every code point but the surrogates, which UTF-8 cannot encode.
SCALARS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def test_presets() -> None:
    assert Policy() == STRICT
    assert WELL_FORMED == Policy(allow_noncharacters=True)
    assert IDENTIFIER == Policy(
        allow_nul=False, allow_controls=False, allow_bidi_controls=False
    )
    assert hash(Policy()) == hash(STRICT)
    assert "_plan" not in repr(STRICT)


def test_policy_is_frozen_keyword_only_and_typed() -> None:
    with pytest.raises(AttributeError):
        STRICT.allow_nul = False
    with pytest.raises(TypeError):
        Policy(False)  # type: ignore[call-arg]  # keyword-only on purpose
    with pytest.raises(TypeError, match="allow_nul must be a bool, not int"):
        Policy(allow_nul=0)  # type: ignore[arg-type]  # wrong type on purpose


def test_private_use_matches_general_category_co() -> None:
    expected = [cp for cp in SCALARS if unicodedata.category(chr(cp)) == "Co"]
    ours = [cp for lo, hi in PRIVATE_USE for cp in range(lo, hi + 1)]
    assert ours == expected


def test_bidi_controls_match_their_bidi_classes() -> None:
    # UAX #9 Table 4: the explicit formatting characters, plus ALM, LRM, RLM.
    classes = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
    expected = [
        cp
        for cp in SCALARS
        if unicodedata.bidirectional(chr(cp)) in classes
        or cp in (0x061C, 0x200E, 0x200F)
    ]
    assert [cp for lo, hi in BIDI_CONTROLS for cp in range(lo, hi + 1)] == expected


def test_controls_match_general_category_cc() -> None:
    policy = Policy(allow_controls=False)
    ((kind, ranges),) = refused_ranges(policy)[1:]
    assert kind == Kind.CONTROL
    cc = [cp for cp in range(0x100) if unicodedata.category(chr(cp)) == "Cc"]
    assert [cp for lo, hi in ranges for cp in range(lo, hi + 1)] == [
        cp for cp in cc if cp not in (0x00, 0x09, 0x0A, 0x0D)
    ]


def _agrees(plan: Plan, policy: Policy, cp: int) -> None:
    data = chr(cp).encode()
    assert plan.pattern is not None
    match = plan.pattern.fullmatch(data)
    found = reference.find_violation(data, policy)
    assert (match and Kind(match.lastgroup)) == (found and found.kind), hex(cp)
    if plan.ascii_clean and cp < 0x80:
        assert found is None


# Every end of every refused range and of every UTF-8 length, with its neighbours.
EDGES = sorted(
    {
        cp
        for _, ranges in refused_ranges(
            Policy(allow_noncharacters=False, **ALL_REFUSED)
        )
        for lo, hi in ranges
        for cp in (lo - 1, lo, hi, hi + 1)
    }
    | {0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF}
)


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=repr)
def test_compiled_pattern_at_every_edge(policy: Policy) -> None:
    plan = plan_for(policy)
    assert plan_for(policy) is plan
    if plan.pattern is None:
        assert refused_ranges(policy) == ()
        return
    for cp in EDGES:
        if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:
            _agrees(plan, policy, cp)


@pytest.mark.parametrize(
    "policy",
    [Policy(**{flag: False}) for flag in ALL_REFUSED]
    + [STRICT, Policy(allow_noncharacters=False, **ALL_REFUSED)],
    ids=repr,
)
def test_compiled_pattern_over_all_scalars(policy: Policy) -> None:
    plan = plan_for(policy)
    # The whole BMP, and every 37th code point above it (EDGES covers the boundaries).
    for cp in SCALARS[:0xF800] + SCALARS[0xF800::37]:
        _agrees(plan, policy, cp)


def test_plans() -> None:
    assert plan_for(WELL_FORMED) == Plan(
        None,
        ascii_clean=True,
        gates=(),
        leads=bytes(256),
        tails=None,
        tail_byte=None,
        patterns=(),
    )
    assert plan_for(IDENTIFIER).ascii_clean is False
    assert plan_for(STRICT).ascii_clean is True


@given(
    st.one_of(
        st.tuples(st.integers(0, 0xD7FF), st.integers(0, 0xD7FF)),
        st.tuples(st.integers(0xE000, 0x10FFFF), st.integers(0xE000, 0x10FFFF)),
    ).map(sorted)
)
def test_byte_classes_match_exactly_the_range(bounds: list[int]) -> None:
    lo, hi = bounds
    pattern = re.compile(_alternation(_byte_classes(lo, hi)))
    for cp in {lo, hi, (lo + hi) // 2, lo + 1, hi - 1}:
        if lo <= cp <= hi:
            assert pattern.fullmatch(chr(cp).encode()), hex(cp)
    for cp in (lo - 1, hi + 1):
        if 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:
            assert not pattern.fullmatch(chr(cp).encode()), hex(cp)
