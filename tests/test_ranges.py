"""utf8guard._ranges (sorted inclusive ranges, bisect lookup) and the generator of the
variation-sequence table that uses it, checked against plain set membership."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from utf8guard import _pathrules, _policy
from utf8guard._ranges import Ranges, in_ranges, to_ranges
from utf8guard._variation_bases import VARIATION_BASES

code_points = st.integers(min_value=0, max_value=0x10FFFF)
small = st.integers(min_value=0, max_value=64)


@given(st.sets(small), small)
def test_lookup_equals_set_membership(members: set[int], probe: int) -> None:
    ranges = to_ranges(members)
    assert in_ranges(probe, ranges) == (probe in members)
    assert {cp for lo, hi in ranges for cp in range(lo, hi + 1)} == members


@given(st.lists(code_points, max_size=50))
def test_ranges_are_sorted_disjoint_and_merged(members: list[int]) -> None:
    ranges = to_ranges(members)
    for (_, hi), (lo, _) in itertools.pairwise(ranges):
        assert hi + 1 < lo  # a gap between neighbours, else they would be one range
    assert all(lo <= hi for lo, hi in ranges)


TABLES: dict[str, Ranges] = {
    **{
        name: getattr(_policy, name)
        for name in ("NONCHARACTERS", "NUL", "CONTROLS", "BIDI_CONTROLS")
    },
    **{name: getattr(_policy, name) for name in ("PRIVATE_USE", "BOM")},
    **{
        name: getattr(_pathrules, name)
        for name in (
            "DEFAULT_IGNORABLES",
            "LOOKALIKE_SEPARATORS",
            "STANDARDIZED_SELECTORS",
            "IDEOGRAPHIC_SELECTORS",
        )
    },
    **{f"VARIATION_BASES[{sel:04X}]": bases for sel, bases in VARIATION_BASES.items()},
}


@pytest.mark.parametrize("name", TABLES)
def test_every_table_is_sorted_and_disjoint(name: str) -> None:
    """The bisect lookup is only right on sorted, disjoint ranges."""
    ranges = TABLES[name]
    assert all(0 <= lo <= hi <= 0x10FFFF for lo, hi in ranges)
    assert all(hi < lo for (_, hi), (lo, _) in itertools.pairwise(ranges))


def test_edges() -> None:
    ranges = ((0x0000, 0x0000), (0x10FFFF, 0x10FFFF))
    assert in_ranges(0, ranges)
    assert in_ranges(0x10FFFF, ranges)
    assert not in_ranges(1, ranges)
    assert not in_ranges(5, ())
    assert to_ranges([]) == ()


def _generator() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "tools" / "gen_variation_bases.py"
    spec = importlib.util.spec_from_file_location("gen_variation_bases", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_reads_both_file_formats(tmp_path: Path) -> None:
    standardized = tmp_path / "StandardizedVariants.txt"
    standardized.write_text(
        "# StandardizedVariants-15.1.0.txt\n"
        "2229 FE00; with serifs; # INTERSECTION\n"
        "#2278 FE00; with vertical stroke; # removed entry\n"
        "1820 180B; second form; isolate # MONGOLIAN LETTER A\n"
        "349E FE00; CJK COMPATIBILITY IDEOGRAPH-2F80C;\n"
        "222A FE00; with serifs; # UNION\n",
        encoding="utf-8",
    )
    emoji = tmp_path / "emoji-variation-sequences.txt"
    emoji.write_text(
        "# Used with Emoji Version 15.0\n"
        "0023 FE0E  ; text style;  # (1.1) NUMBER SIGN\n"
        "0023 FE0F  ; emoji style; # (1.1) NUMBER SIGN\n",
        encoding="utf-8",
    )
    source = _generator().render([standardized, emoji])
    namespace: dict[str, object] = {}
    # The generated module's own source, run with its one relative import made absolute.
    code = compile(
        source.replace("from ._ranges", "from utf8guard._ranges"), "g", "exec"
    )
    exec(code, namespace)  # noqa: S102
    assert namespace["VARIATION_BASES"] == {
        0xFE00: ((0x2229, 0x222A), (0x349E, 0x349E)),
        0xFE0E: ((0x0023, 0x0023),),
        0xFE0F: ((0x0023, 0x0023),),
    }
    assert "StandardizedVariants-15.1.0" in source
