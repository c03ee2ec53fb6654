"""Test vectors as data: each row cites where its expected answer comes from.

``INVALID`` rows are ``(id, data, kind, start, end, source)``: the first violation
under STRICT. ``VALID`` rows are ``(id, data, source)``. ``POLICY`` rows are
``(id, data, flag, kind, start, end)``: valid under STRICT, refused with ``flag`` set
the other way.
"""

from __future__ import annotations

from typing import Final

from utf8guard import Kind

T37: Final = "Unicode ch. 3 Table 3-7"
KUHN: Final = "Kuhn UTF-8-test.txt"
MAXSUB: Final = "Unicode ch. 3 'U+FFFD Substitution of Maximal Subparts'"
NONCHAR: Final = "Unicode ch. 23.7 Noncharacters"

OVL, SUR, OOR = Kind.OVERLONG, Kind.SURROGATE, Kind.OUT_OF_RANGE
INV, CONT, TRUNC, NONC = (
    Kind.INVALID_BYTE,
    Kind.UNEXPECTED_CONTINUATION,
    Kind.TRUNCATED,
    Kind.NONCHARACTER,
)

INVALID: Final[list[tuple[str, bytes, Kind, int, int, str]]] = [
    ("overlong-c0af", b"\xc0\xaf", OVL, 0, 1, f"{T37}: C0 is no lead; {KUHN} 4.1.1"),
    ("overlong-e080af", b"\xe0\x80\xaf", OVL, 0, 1, f"{T37}: E0 needs A0..BF; 4.1.2"),
    ("overlong-f08080af", b"\xf0\x80\x80\xaf", OVL, 0, 1, f"{T37}: F0 needs 90..BF"),
    (
        "overlong-c080-nul",
        b"\xc0\x80",
        OVL,
        0,
        1,
        f"{KUHN} 4.3.1 (Java's modified UTF-8)",
    ),
    ("overlong-e08080-nul", b"\xe0\x80\x80", OVL, 0, 1, f"{KUHN} 4.3.2"),
    ("overlong-c1bf", b"\xc1\xbf", OVL, 0, 1, f"{KUHN} 4.2.1"),
    ("overlong-e09fbf", b"\xe0\x9f\xbf", OVL, 0, 1, f"{KUHN} 4.2.2"),
    ("overlong-f08fbfbf", b"\xf0\x8f\xbf\xbf", OVL, 0, 1, f"{KUHN} 4.2.3"),
    ("overlong-in-path", b"/etc\xc0\xafpasswd", OVL, 4, 5, "CVE-2000-0884 (IIS)"),
    ("surrogate-eda080", b"\xed\xa0\x80", SUR, 0, 1, f"{T37}: ED needs 80..9F; 5.1.1"),
    ("surrogate-edbfbf", b"\xed\xbf\xbf", SUR, 0, 1, f"{KUHN} 5.1.7"),
    ("surrogate-cesu8-pair", b"\xed\xa0\xbd\xed\xb8\x80", SUR, 0, 1, "CESU-8 U+1F600"),
    (
        "out-of-range-f4908080",
        b"\xf4\x90\x80\x80",
        OOR,
        0,
        1,
        f"{T37}: F4 needs 80..8F",
    ),
    ("out-of-range-f5", b"\xf5\x80\x80\x80", OOR, 0, 1, "RFC 3629 §3: F5..F7 beyond"),
    ("out-of-range-f7bfbfbf", b"\xf7\xbf\xbf\xbf", OOR, 0, 1, f"{KUHN} 2.2.4"),
    ("legacy-5-byte", b"\xf8\x88\x80\x80\x80", OOR, 0, 1, f"RFC 2279; {KUHN} 2.1.5"),
    (
        "legacy-6-byte",
        b"\xfc\x84\x80\x80\x80\x80",
        OOR,
        0,
        1,
        f"RFC 2279; {KUHN} 2.1.6",
    ),
    ("invalid-fe", b"\xfe", INV, 0, 1, f"RFC 3629 §1: FE never appears; {KUHN} 3.5.1"),
    ("invalid-ff", b"a\xff", INV, 1, 2, f"{KUHN} 3.5.2"),
    ("continuation-80", b"\x80", CONT, 0, 1, f"{KUHN} 3.1.1"),
    ("continuation-bf-after-ascii", b"ab\xbf", CONT, 2, 3, f"{KUHN} 3.1.2"),
    ("continuation-after-complete", b"\xe2\x82\xac\x80", CONT, 3, 4, MAXSUB),
    ("truncated-c2-at-end", b"\xc2", TRUNC, 0, 1, MAXSUB),
    ("truncated-e282-at-end", b"\xe2\x82", TRUNC, 0, 2, MAXSUB),
    ("truncated-f09f98-at-end", b"\xf0\x9f\x98", TRUNC, 0, 3, MAXSUB),
    ("truncated-e282-then-ascii", b"\xe2\x82A", TRUNC, 0, 2, MAXSUB),
    ("truncated-f09f-then-lead", b"\xf0\x9f\xe2\x82\xac", TRUNC, 0, 2, MAXSUB),
    ("truncated-after-valid", b"A\xe2\x82", TRUNC, 1, 3, MAXSUB),
    (
        "truncated-e0a0-then-space",
        b"\xe0\xa0 ",
        TRUNC,
        0,
        2,
        f"{T37}: E0 A0 is a prefix",
    ),
    ("truncated-lead-then-space", b"\xdf ", TRUNC, 0, 1, f"{KUHN} 3.2.1"),
    ("latin1-hoehe", b"H\xf6he", OOR, 1, 2, "Latin-1 'Höhe' 48 F6 68 65 is not UTF-8"),
    ("noncharacter-fdd0", b"\xef\xb7\x90", NONC, 0, 3, f"{NONCHAR}; {KUHN} 5.3.3"),
    ("noncharacter-fdef", b"\xef\xb7\xaf", NONC, 0, 3, NONCHAR),
    ("noncharacter-fffe", b"x\xef\xbf\xbe", NONC, 1, 4, f"{NONCHAR}; {KUHN} 5.3.1"),
    ("noncharacter-ffff", b"\xef\xbf\xbf", NONC, 0, 3, f"{KUHN} 2.2.3"),
    ("noncharacter-1fffe", b"\xf0\x9f\xbf\xbe", NONC, 0, 4, NONCHAR),
    ("noncharacter-10ffff", b"\xf4\x8f\xbf\xbf", NONC, 0, 4, f"{KUHN} 2.3.4"),
    ("first-of-two", b"\xc0\xaf\xed\xa0\x80", OVL, 0, 1, "first violation wins"),
]

VALID: Final[list[tuple[str, bytes, str]]] = [
    ("empty", b"", "trivially valid"),
    ("y", b"y", "worked example: y = 79"),
    ("a-umlaut", b"\xc3\xa4", "worked example: ä = C3 A4"),
    ("registered", b"\xc2\xae", "worked example: ® = C2 AE"),
    ("euro", b"\xe2\x82\xac", "worked example: € = E2 82 AC (RFC 3629 §7)"),
    ("g-clef", b"\xf0\x9d\x84\x9e", "worked example: 𝄞 U+1D11E = F0 9D 84 9E"),
    ("ohm", b"\xe2\x84\xa6", "worked example: Ω U+2126 = E2 84 A6 (RFC 3629 §7)"),
    ("not-equal", b"\xe2\x89\xa0", "worked example: ≠ U+2260 = E2 89 A0"),
    ("nul", b"\x00", f"{T37} row 1: U+0000 is well-formed"),
    ("del", b"\x7f", f"{T37} row 1 upper bound"),
    ("c280", b"\xc2\x80", f"{T37} row 2 lower bound"),
    ("dfbf", b"\xdf\xbf", f"{T37} row 2 upper bound"),
    ("e0a080", b"\xe0\xa0\x80", f"{T37} row 3 lower bound"),
    ("e0bfbf", b"\xe0\xbf\xbf", f"{T37} row 3 upper bound"),
    ("e18080", b"\xe1\x80\x80", f"{T37} row 4 lower bound"),
    ("ecbfbf", b"\xec\xbf\xbf", f"{T37} row 4 upper bound"),
    ("ed8080", b"\xed\x80\x80", f"{T37} row 5 lower bound"),
    ("ed9fbf", b"\xed\x9f\xbf", f"{T37} row 5 upper bound (U+D7FF); {KUHN} 2.3.1"),
    ("ee8080", b"\xee\x80\x80", f"{T37} row 6 lower bound (U+E000); {KUHN} 2.3.2"),
    ("efbfbd", b"\xef\xbf\xbd", f"{T37} row 6: U+FFFD; {KUHN} 2.3.3"),
    ("f0908080", b"\xf0\x90\x80\x80", f"{T37} row 7 lower bound (U+10000)"),
    ("f0bfbfbd", b"\xf0\xbf\xbf\xbd", f"{T37} row 7: U+3FFFD"),
    ("f1808080", b"\xf1\x80\x80\x80", f"{T37} row 8 lower bound"),
    ("f3bfbfbd", b"\xf3\xbf\xbf\xbd", f"{T37} row 8: U+FFFFD"),
    ("f4808080", b"\xf4\x80\x80\x80", f"{T37} row 9 lower bound (U+100000)"),
    ("f48fbfbd", b"\xf4\x8f\xbf\xbd", f"{T37} row 9: U+10FFFD"),
    ("fdcf-fdf0", "\ufdcf\ufdf0".encode(), f"{NONCHAR}: neighbours of FDD0..FDEF"),
    ("fffd-1fffd", "\ufffd\U0001fffd".encode(), f"{NONCHAR}: neighbours of nFFFE"),
    ("greek-kosme", "κόσμε".encode(), f"{KUHN} 1"),
]

# Flags that refuse well-formed code points: (id, data, flag, kind, start, end).
POLICY: Final[list[tuple[str, bytes, str, Kind, int, int]]] = [
    ("nul", b"a\x00", "allow_nul", Kind.NUL, 1, 2),
    ("control-01", b"\x01", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-08", b"\x08", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-0b", b"\x0b", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-0c", b"\x0c", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-0e", b"\x0e", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-1b-escape", b"\x1b[31m", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-1f", b"\x1f", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-del", b"\x7f", "allow_controls", Kind.CONTROL, 0, 1),
    ("control-c1-0080", b"\xc2\x80", "allow_controls", Kind.CONTROL, 0, 2),
    ("control-c1-0085-nel", b"x\xc2\x85", "allow_controls", Kind.CONTROL, 1, 3),
    ("control-c1-009f", b"\xc2\x9f", "allow_controls", Kind.CONTROL, 0, 2),
    ("bidi-061c-alm", b"\xd8\x9c", "allow_bidi_controls", Kind.BIDI_CONTROL, 0, 2),
    ("bidi-200e-lrm", b"\xe2\x80\x8e", "allow_bidi_controls", Kind.BIDI_CONTROL, 0, 3),
    ("bidi-200f-rlm", b"\xe2\x80\x8f", "allow_bidi_controls", Kind.BIDI_CONTROL, 0, 3),
    ("bidi-202a-lre", b"\xe2\x80\xaa", "allow_bidi_controls", Kind.BIDI_CONTROL, 0, 3),
    (
        "bidi-202e-rlo",
        b"txt\xe2\x80\xaeexe",
        "allow_bidi_controls",
        Kind.BIDI_CONTROL,
        3,
        6,
    ),
    ("bidi-2066-lri", b"\xe2\x81\xa6", "allow_bidi_controls", Kind.BIDI_CONTROL, 0, 3),
    ("bidi-2069-pdi", b"\xe2\x81\xa9", "allow_bidi_controls", Kind.BIDI_CONTROL, 0, 3),
    ("private-e000", b"\xee\x80\x80", "allow_private_use", Kind.PRIVATE_USE, 0, 3),
    ("private-f8ff", b"\xef\xa3\xbf", "allow_private_use", Kind.PRIVATE_USE, 0, 3),
    ("private-f0000", b"\xf3\xb0\x80\x80", "allow_private_use", Kind.PRIVATE_USE, 0, 4),
    (
        "private-10fffd",
        b"\xf4\x8f\xbf\xbd",
        "allow_private_use",
        Kind.PRIVATE_USE,
        0,
        4,
    ),
    ("bom-at-start", b"\xef\xbb\xbfa", "allow_bom", Kind.BOM, 0, 3),
    ("bom-inside", b"a\xef\xbb\xbf", "allow_bom", Kind.BOM, 1, 4),
]

# Well-formed code points next to the refused sets, which no flag refuses.
NEIGHBOURS: Final[list[tuple[str, bytes]]] = [
    ("tab-lf-cr", b"\t\n\r"),
    ("space", b" "),
    ("c2a0-nbsp", b"\xc2\xa0"),
    ("061b", "\u061b".encode()),
    ("200d-zwj", "\u200d".encode()),
    ("2010", "\u2010".encode()),
    ("2029", "\u2029".encode()),
    ("202f", "\u202f".encode()),
    ("2065", "\u2065".encode()),
    ("206a", "\u206a".encode()),
    ("d7ff", "\ud7ff".encode()),
    ("f900", "\uf900".encode()),
    ("feff-neighbours", "\ufefe\uff00".encode()),
    ("efffd-plane-14", "\U000efffd".encode()),
]
