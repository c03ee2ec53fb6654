"""Markus Kuhn's UTF-8 decoder stress test: each section provokes what it names.

The expected kinds per section are read off the section titles of UTF-8-test.txt and
Table 3-7 (e.g. 3.2.3 "All 8 first bytes of 4-byte sequences (0xf0-0xf7)", each
followed by a space: F0..F4 are truncated leads, F5..F7 are beyond U+10FFFF).
"""

from __future__ import annotations

import hashlib
import re

import pytest

from utf8guard import (
    STRICT,
    WELL_FORMED,
    Kind,
    Violation,
    find_violation,
    iter_violations,
    repair,
)

from .conftest import KUHN_CORPUS
from .vectors import CONT, INV, NONC, OOR, OVL, SUR, TRUNC

#: The 2015-08-28 file as published (byte-identical copies in cannam/sml-utf8 and
#: tmux/tmux); a newline or encoding conversion on checkout changes it.
KUHN_SHA256 = "b51cfe9a8d2689c90b10a13a3624092d546e0837c6ff835b6e5d713c5749c8c6"

EXPECTED: dict[str, set[Kind]] = {
    "2.1.1": set(),  # CONT+0000 is well-formed; STRICT allows NUL
    "2.1.2": set(),  # CONT+0080
    "2.1.3": set(),
    "2.1.4": set(),
    "2.1.5": {OOR, CONT},  # F8 88 80 80 80: 5-byte form
    "2.1.6": {OOR, CONT},  # FC 84 80 80 80 80: 6-byte form
    "2.2.1": set(),
    "2.2.2": set(),
    "2.2.3": {NONC},  # EF BF BF = CONT+FFFF
    "2.2.4": {OOR, CONT},  # F7 BF BF BF
    "2.2.5": {OOR, CONT},
    "2.2.6": {OOR, CONT},
    "2.3.1": set(),  # CONT+D7FF
    "2.3.2": set(),  # CONT+E000
    "2.3.3": set(),  # CONT+FFFD
    "2.3.4": {NONC},  # CONT+10FFFF
    "2.3.5": {OOR, CONT},  # F4 90 80 80
    **{f"3.1.{n}": {CONT} for n in range(1, 10)},
    "3.2.1": {OVL, TRUNC},  # C0, C1 overlong; C2..DF cut short by a space
    "3.2.2": {TRUNC},  # E0..EF each cut short
    "3.2.3": {TRUNC, OOR},  # F0..F4 cut short; F5..F7 out of range
    "3.2.4": {OOR},
    "3.2.5": {OOR},
    "3.3.1": {OVL},  # C0
    "3.3.2": {OVL, CONT},  # E0 80
    "3.3.3": {OVL, CONT},  # F0 80 80
    "3.3.4": {OOR, CONT},  # F8 80 80 80
    "3.3.5": {OOR, CONT},
    "3.3.6": {TRUNC},  # DF
    "3.3.7": {TRUNC},  # EF BF
    "3.3.8": {OOR, CONT},  # F7 BF BF
    "3.3.9": {OOR, CONT},
    "3.3.10": {OOR, CONT},
    "3.4": {OVL, CONT, TRUNC, OOR},  # the ten sequences of 3.3 concatenated
    "3.5.1": {INV},
    "3.5.2": {INV},
    "3.5.3": {INV},
    **{f"4.1.{n}": {OVL, CONT} for n in (1, 2, 3)},
    **{f"4.1.{n}": {OOR, CONT} for n in (4, 5)},
    **{f"4.2.{n}": {OVL, CONT} for n in (1, 2, 3)},
    **{f"4.2.{n}": {OOR, CONT} for n in (4, 5)},
    **{f"4.3.{n}": {OVL, CONT} for n in (1, 2, 3)},
    **{f"4.3.{n}": {OOR, CONT} for n in (4, 5)},
    **{f"5.1.{n}": {SUR, CONT} for n in range(1, 8)},
    **{f"5.2.{n}": {SUR, CONT} for n in range(1, 9)},
    **{f"5.3.{n}": {NONC} for n in range(1, 5)},
}

# Section headers sit at the start of a line: "3.2.1  All 32 first bytes ...".
HEADER = re.compile(rb"^(\d+(?:\.\d+)+) ", re.MULTILINE)


def _sections(corpus: bytes) -> dict[str, tuple[int, int]]:
    starts = [(m.group(1).decode(), m.start()) for m in HEADER.finditer(corpus)]
    ends = [start for _, start in starts[1:]] + [len(corpus)]
    return {name: (start, end) for (name, start), end in zip(starts, ends, strict=True)}


def _kinds_in(found: list[Violation], start: int, end: int) -> set[Kind]:
    return {v.kind for v in found if start <= v.start < end}


def test_every_leaf_section_provokes_what_it_names(kuhn_corpus: bytes) -> None:
    sections = _sections(kuhn_corpus)
    found = list(iter_violations(kuhn_corpus, STRICT))
    for name, kinds in EXPECTED.items():
        assert _kinds_in(found, *sections[name]) == kinds, name
    # Sections that are not leaves only hold prose; everything found is in a leaf.
    leaves = [sections[name] for name in EXPECTED]
    assert all(any(s <= v.start < e for s, e in leaves) for v in found)


def test_text_before_section_2_is_valid(kuhn_corpus: bytes) -> None:
    first_test = _sections(kuhn_corpus)["2.1.5"][0]
    assert find_violation(kuhn_corpus[:first_test]) is None


def test_first_violation_is_the_five_byte_form(kuhn_corpus: bytes) -> None:
    # shared/corpus/README.md: bytes.decode fails first at offset 4461, the F8 of 2.1.5.
    assert find_violation(kuhn_corpus) == Violation(Kind.OUT_OF_RANGE, 4461, 4462)


@pytest.mark.parametrize(
    ("section", "count"), [("3.1.9", 64), ("3.2.1", 32), ("3.4", 29)]
)
def test_counts(kuhn_corpus: bytes, section: str, count: int) -> None:
    # One violation per continuation byte (3.1.9) and per lonely lead (3.2.1). 3.4
    # joins the ten sequences of 3.3: C0 | E0 80 | F0 80 80 | F8 80 80 80 |
    # FC 80 80 80 80 give 1+2+3+4+5 (no lead there takes 80 as its second byte), DF and
    # EF BF one truncated prefix each, F7 BF BF | FB BF BF BF | FD BF BF BF BF 3+4+5:
    # 29 in all.
    start, end = _sections(kuhn_corpus)[section]
    assert (
        len([v for v in iter_violations(kuhn_corpus) if start <= v.start < end])
        == count
    )


def test_repair_matches_cpython_on_corpus(kuhn_corpus: bytes) -> None:
    assert (
        repair(kuhn_corpus, WELL_FORMED)
        == kuhn_corpus.decode("utf-8", "replace").encode()
    )


def test_vendored_copy_is_the_published_file_with_its_licence() -> None:
    data = KUHN_CORPUS.read_bytes()
    assert (len(data), hashlib.sha256(data).hexdigest()) == (22781, KUHN_SHA256)
    assert (
        b"Markus Kuhn <http://www.cl.cam.ac.uk/~mgk25/> - 2015-08-28 - CC BY 4.0"
        in data
    )
    notice = (KUHN_CORPUS.parent / "README.md").read_text("utf-8")
    assert "CC BY 4.0" in notice
    assert "https://creativecommons.org/licenses/by/4.0/" in notice
