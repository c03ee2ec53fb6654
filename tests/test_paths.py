"""utf8guard.paths: one test per rule, the legitimate names it keeps, and properties."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from utf8guard import Kind, Policy, _pathrules
from utf8guard import paths as paths_module
from utf8guard.paths import (
    PathKind,
    PathViolation,
    UnsafePathError,
    check_path,
    safe_filename,
    safe_join,
)

# Names people really use: every one must come back unchanged (already NFC).
LEGITIMATE: list[tuple[str, str]] = [
    ("german-eszett", "Straße.txt"),
    ("french-accents", "Résumé café.pdf"),
    ("chinese", "北京市地图.png"),
    # RUF001 ignored on two rows: look-alike letters are the point of these names.
    ("japanese-fullwidth-colon", "会議：議事録.docx"),  # noqa: RUF001
    ("korean", "보고서 2024.hwp"),
    ("russian", "Отчёт.xlsx"),
    ("greek", "Ελληνικά.txt"),
    ("arabic", "تقرير.pdf"),
    ("hebrew", "מסמך.txt"),
    ("hindi-virama-zwj", "क्\u200dष.txt"),
    ("persian-zwnj", "می\u200cخواهم.txt"),  # noqa: RUF001
    ("emoji-zwj-family", "👨\u200d👩\u200d👧.png"),
    ("emoji-vs16", "❤\ufe0f.txt"),
    ("emoji-flag-zwj-vs16", "🏳\ufe0f\u200d🌈.txt"),
    ("emoji-skin-tone-zwj", "👩\U0001f3fd\u200d💻.txt"),
    ("hindi-virama-zwnj-end", "क्\u200c"),
    ("emoji-keycap", "1\ufe0f\u20e3.txt"),
    ("ideographic-variation", "葛\U000e0100.txt"),
    # StandardizedVariants.txt and emoji-variation-sequences.txt entries:
    ("emoji-keycap-hash", "#\ufe0f\u20e3.txt"),
    ("emoji-vs16-hash", "#\ufe0f.txt"),
    ("emoji-vs15-watch", "\u231a\ufe0e.txt"),
    ("emoji-vs16-copyright", "\u00a9\ufe0f.txt"),
    ("emoji-vs16-bmp-plane1", "\U0001f6f3\ufe0f.txt"),  # PASSENGER SHIP
    ("cjk-compatibility-vs1", "\u8c48\ufe00.txt"),  # = U+F900
    ("cjk-compatibility-vs3", "\u537f\ufe02.txt"),  # = U+2F833
    ("math-vs1", "\u2229\ufe00.txt"),  # INTERSECTION with serifs
    ("dotfile", ".bashrc"),
    ("double-extension", "archive.tar.gz"),
    ("spaces-inside", "my file (1).txt"),
    ("private-use", "\ue000.txt"),
    ("console-not-device", "CONSOLE.txt"),
    ("com10-not-device", "COM10.txt"),
    ("catalan-middle-dot", "col·lecció.txt"),
]

# (id, name, kind, where the rule comes from)
REFUSED: list[tuple[str, str | bytes, PathKind, str]] = [
    ("slash", "a/b", PathKind.SEPARATOR, "POSIX path separator"),
    ("backslash", "a\\b", PathKind.SEPARATOR, "Windows path separator"),
    ("traversal", "../etc/passwd", PathKind.SEPARATOR, "CWE-22"),
    ("dot", ".", PathKind.DOT_NAME, "POSIX.1 §4.13"),
    ("dotdot", "..", PathKind.DOT_NAME, "POSIX.1 §4.13"),
    ("empty", "", PathKind.EMPTY, "POSIX.1 §4.13"),
    ("nul", "a\x00.txt", PathKind.NUL, "C string terminator, CWE-158"),
    ("c0", "a\x01.txt", PathKind.CONTROL, "Unicode ch. 23.1"),
    ("tab", "a\t.txt", PathKind.CONTROL, "Unicode ch. 23.1"),
    ("newline", "a\n.txt", PathKind.CONTROL, "log and shell injection"),
    ("carriage-return", "a\r.txt", PathKind.CONTROL, "log injection"),
    ("del", "a\x7f.txt", PathKind.CONTROL, "Unicode ch. 23.1"),
    ("c1-nel", "a\x85.txt", PathKind.CONTROL, "Unicode ch. 23.1"),
    (
        "line-separator",
        "a\u2028.txt",
        PathKind.CONTROL,
        "str.splitlines; ECMA-262 §12.3",
    ),
    (
        "paragraph-separator",
        "a\u2029.txt",
        PathKind.CONTROL,
        "str.splitlines; ECMA-262 §12.3",
    ),
    ("rlo", "invoice\u202etxt.exe", PathKind.BIDI_CONTROL, "CVE-2021-42574 class"),
    ("lri", "a\u2066.txt", PathKind.BIDI_CONTROL, "UAX #9 §2"),
    ("alm", "a\u061c.txt", PathKind.BIDI_CONTROL, "UAX #9 §2"),
    ("zwsp", "invoice\u200b.pdf", PathKind.DEFAULT_IGNORABLE, "UTS #39 §3.3"),
    ("soft-hyphen", "a\u00ad.txt", PathKind.DEFAULT_IGNORABLE, "DerivedCoreProps"),
    ("word-joiner", "a\u2060.txt", PathKind.DEFAULT_IGNORABLE, "DerivedCoreProps"),
    ("zwnbsp", "a\ufeff.txt", PathKind.DEFAULT_IGNORABLE, "DerivedCoreProps"),
    ("hangul-filler", "\u3164.txt", PathKind.DEFAULT_IGNORABLE, "UTS #39 §3.3"),
    ("tag-latin-a", "a\U000e0041.txt", PathKind.DEFAULT_IGNORABLE, "UTS #51"),
    ("zwj-latin", "pay\u200dpal.txt", PathKind.DEFAULT_IGNORABLE, "RFC 5892 A.2"),
    ("zwnj-latin", "pay\u200cpal.txt", PathKind.DEFAULT_IGNORABLE, "RFC 5892 A.1"),
    ("zwnj-cjk", "北\u200c京.txt", PathKind.DEFAULT_IGNORABLE, "RFC 5892 A.1"),
    ("zwj-cjk", "北\u200d京.txt", PathKind.DEFAULT_IGNORABLE, "UTS #51 §2.3"),
    ("zwj-emoji-letter", "👩\u200dx", PathKind.DEFAULT_IGNORABLE, "UTS #51 §2.3"),
    ("zwnj-arabic-end", "ی\u200c", PathKind.DEFAULT_IGNORABLE, "RFC 5892 A.1"),
    ("zwnj-start", "\u200cab.txt", PathKind.DEFAULT_IGNORABLE, "RFC 5892 A.1"),
    ("zwj-end", "北\u200d", PathKind.DEFAULT_IGNORABLE, "RFC 5892 A.2"),
    ("vs-start", "\ufe0fa.txt", PathKind.DEFAULT_IGNORABLE, "StandardizedVariants"),
    ("vs-latin", "a\ufe0f.txt", PathKind.DEFAULT_IGNORABLE, "StandardizedVariants"),
    ("vs-after-vs", "❤\ufe0f\ufe0f.txt", PathKind.DEFAULT_IGNORABLE, "UTS #51"),
    # Issue 11: a selector after a base that has no sequence with it.
    (
        "vs16-greek",
        "\u03bb\ufe0f.txt",
        PathKind.DEFAULT_IGNORABLE,
        "StandardizedVariants",
    ),
    ("vs16-e-acute", "é\ufe0f.txt", PathKind.DEFAULT_IGNORABLE, "StandardizedVariants"),
    ("vs16-han", "文\ufe0f.txt", PathKind.DEFAULT_IGNORABLE, "StandardizedVariants"),
    ("vs16-emoji-default", "\U0001f600\ufe0f", PathKind.DEFAULT_IGNORABLE, "UTS #51"),
    (
        "vs2-math",
        "\u2229\ufe01.txt",
        PathKind.DEFAULT_IGNORABLE,
        "StandardizedVariants",
    ),
    ("vs4-han", "\u537f\ufe03.txt", PathKind.DEFAULT_IGNORABLE, "StandardizedVariants"),
    ("vs17-latin", "a\U000e0100.txt", PathKind.DEFAULT_IGNORABLE, "UTS #37 §2"),
    ("nonchar-fdd0", "a\ufdd0.txt", PathKind.NONCHARACTER, "Unicode ch. 23.7"),
    ("nonchar-fffe", "a\ufffe.txt", PathKind.NONCHARACTER, "Unicode ch. 23.7"),
    ("surrogateescape", os.fsdecode(b"a\xff.txt"), PathKind.SURROGATE, "PEP 383"),
    ("high-surrogate", "a\ud800.txt", PathKind.SURROGATE, "Unicode ch. 3.9"),
    ("colon-ads", "a.txt:stream", PathKind.RESERVED_CHARACTER, "NTFS ADS"),
    ("question", "a?.txt", PathKind.RESERVED_CHARACTER, "Windows naming"),
    ("pipe", "a|b", PathKind.RESERVED_CHARACTER, "Windows naming"),
    ("con", "CON", PathKind.RESERVED_NAME, "Windows naming"),
    ("nul-ext", "nul.txt", PathKind.RESERVED_NAME, "Windows naming"),
    ("com1-double-ext", "Com1.tar.gz", PathKind.RESERVED_NAME, "Windows naming"),
    ("lpt9", "lpt9", PathKind.RESERVED_NAME, "Windows naming"),
    ("com-superscript", "COM\u00b9.txt", PathKind.RESERVED_NAME, "Windows naming"),
    ("aux-space", "AUX .txt", PathKind.RESERVED_NAME, "Windows naming"),
    ("conin", "CONIN$", PathKind.RESERVED_NAME, "Windows naming"),
    ("trailing-dot", "a.txt.", PathKind.TRAILING_DOT_OR_SPACE, "Windows naming"),
    ("trailing-space", "a.txt ", PathKind.TRAILING_DOT_OR_SPACE, "Windows naming"),
    ("dots-only", "...", PathKind.TRAILING_DOT_OR_SPACE, "Windows naming"),
    ("too-long", "x" * 256, PathKind.TOO_LONG, "NAME_MAX 255"),
    ("too-long-utf8", "é" * 128, PathKind.TOO_LONG, "NAME_MAX 255"),
    ("overlong-slash", b"\xc0\xafetc", PathKind.OVERLONG, "Table 3-7, CVE-2000-0884"),
    ("cesu-surrogate", b"\xed\xa0\x80", PathKind.SURROGATE, "Table 3-7"),
    ("latin1-byte", b"caf\xe9.txt", PathKind.TRUNCATED, "Table 3-7"),
    ("stray-continuation", b"\x80", PathKind.UNEXPECTED_CONTINUATION, "Table 3-7"),
    ("invalid-ff", b"\xff", PathKind.INVALID_BYTE, "Table 3-7"),
    ("above-10ffff", b"\xf4\x90\x80\x80", PathKind.OUT_OF_RANGE, "Table 3-7"),
]

# The look-alikes issue 6 names: NFKC or UTS #39 makes each a separator or a dot.
NAMED_LOOKALIKES = [
    "\uff0f",  # FULLWIDTH SOLIDUS
    "\u2215",  # DIVISION SLASH
    "\u2044",  # FRACTION SLASH
    "\u29f8",  # BIG SOLIDUS
    "\uff3c",  # FULLWIDTH REVERSE SOLIDUS
    "\uff0e",  # FULLWIDTH FULL STOP
    "\u2024",  # ONE DOT LEADER
    "\u2025",  # TWO DOT LEADER
    "\u2026",  # HORIZONTAL ELLIPSIS
    "\ufe68",  # SMALL REVERSE SOLIDUS
    "\u2100",  # ACCOUNT OF: NFKC "a/c"
]


@pytest.mark.parametrize(
    "name", [name for _, name in LEGITIMATE], ids=[i for i, _ in LEGITIMATE]
)
def test_legitimate_names_are_kept(name: str) -> None:
    assert safe_filename(name) == name
    assert safe_filename(name.encode()) == name
    assert safe_filename(name, replacement="_") == name
    assert check_path(name) == []


@pytest.mark.parametrize(
    ("name", "kind"),
    [(name, kind) for _, name, kind, _ in REFUSED],
    ids=[row[0] for row in REFUSED],
)
def test_refused(name: str | bytes, kind: PathKind) -> None:
    with pytest.raises(UnsafePathError) as info:
        safe_filename(name)
    assert info.value.kind is kind
    if kind is not PathKind.SEPARATOR or isinstance(name, bytes):
        assert kind in {v.kind for v in check_path(name)}


@pytest.mark.parametrize("name", NAMED_LOOKALIKES, ids=ascii)
def test_named_lookalikes(name: str) -> None:
    with pytest.raises(UnsafePathError, match="lookalike") as info:
        safe_filename(f"a{name}b")
    assert info.value.kind is PathKind.LOOKALIKE


def test_every_nfkc_separator_or_dot_is_refused() -> None:
    computed = [
        chr(cp)
        for cp in range(0x80, 0x110000)
        if not 0xD800 <= cp <= 0xDFFF
        and any(t in unicodedata.normalize("NFKC", chr(cp)) for t in "/\\.")
    ]
    assert len(computed) > 30
    assert set(NAMED_LOOKALIKES) - {"\u2215", "\u2044", "\u29f8"} <= set(computed)
    for ch in computed:
        assert [v.kind for v in check_path(f"a{ch}b")] == [PathKind.LOOKALIKE]


# UTS #39 confusables.txt: symbols whose prototype is "/", "\\" or "." and that NFKC
# leaves alone, by their Unicode names.
CONFUSABLE_SEPARATORS = [
    "SYRIAC SUPRALINEAR FULL STOP",
    "SYRIAC SUBLINEAR FULL STOP",
    "FRACTION SLASH",
    "DIVISION SLASH",
    "SET MINUS",
    "BOX DRAWINGS LIGHT DIAGONAL UPPER RIGHT TO LOWER LEFT",
    "BOX DRAWINGS LIGHT DIAGONAL UPPER LEFT TO LOWER RIGHT",
    "MATHEMATICAL RISING DIAGONAL",
    "MATHEMATICAL FALLING DIAGONAL",
    "REVERSE SOLIDUS OPERATOR",
    "BIG SOLIDUS",
    "BIG REVERSE SOLIDUS",
    "LISU LETTER TONE MYA TI",
    "VAI FULL STOP",
    "KHAROSHTHI PUNCTUATION DOT",
]


def test_lookalike_table_is_nfkc_plus_confusables() -> None:
    """The one look-alike table (paths, the URL path rule) is exactly the code points
    whose NFKC form holds "/", "\\" or "." (UAX #15) plus the confusables above."""
    listed = {
        cp for lo, hi in _pathrules.LOOKALIKE_SEPARATORS for cp in range(lo, hi + 1)
    }
    nfkc = {
        cp
        for cp in range(0x80, 0x110000)
        if not 0xD800 <= cp <= 0xDFFF
        and any(t in unicodedata.normalize("NFKC", chr(cp)) for t in "/\\.")
    }
    confusables = {ord(unicodedata.lookup(name)) for name in CONFUSABLE_SEPARATORS}
    assert not nfkc & confusables
    assert listed == nfkc | confusables


def test_default_ignorable_table_size() -> None:
    # DerivedCoreProperties.txt: Default_Ignorable_Code_Point has 4174 code points.
    assert sum(hi - lo + 1 for lo, hi in _pathrules.DEFAULT_IGNORABLES) == 4174


def test_error_messages_name_kind_and_offsets_only() -> None:
    with pytest.raises(UnsafePathError, match=r"^bidi_control at characters \[7, 8\)"):
        safe_filename("invoice\u202etxt.exe")
    with pytest.raises(UnsafePathError, match=r"^overlong at bytes \[4, 5\): c0$"):
        safe_filename(b"/etc\xc0\xafpasswd")
    with pytest.raises(UnsafePathError, match=r"^reserved_name at characters \[0, 3\)"):
        safe_filename("CON.txt")


def test_unsafe_path_error_is_a_value_error() -> None:
    assert issubclass(UnsafePathError, ValueError)


def test_nfc_normalised() -> None:
    assert safe_filename("Cafe\u0301.txt") == "Café.txt"
    assert safe_filename(b"Cafe\xcc\x81.txt") == "Café.txt"


@pytest.mark.parametrize("name", ["CON", "a:b", "a.txt.", "a ", "lpt1.txt"])
def test_posix_platform_skips_windows_rules(name: str) -> None:
    assert safe_filename(name, platform="posix") == name
    assert safe_filename(name, platform="posix", replacement="_") == name
    with pytest.raises(UnsafePathError):
        safe_filename(name, platform="windows")


def test_posix_platform_keeps_universal_rules() -> None:
    for name in ("..", "a/b", "a\\b", "a\x00"):
        with pytest.raises(UnsafePathError):
            safe_filename(name, platform="posix")
    assert safe_filename("..", platform="posix", replacement="_") == "__"
    assert safe_filename("a\\b", platform="posix", replacement="_") == "a_b"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../etc/passwd", ".._etc_passwd"),
        ("..", "__"),
        (".", "_"),
        (". .", "___"),
        ("...", "___"),
        ("CON.txt", "_CON.txt"),
        ("nul", "_nul"),
        ("report.txt. . ", "report.txt"),
        ("invoice\u202etxt.exe", "invoice_txt.exe"),
        ("a\u2215b\uff0ec", "a_b_c"),
        ("pay\u200dpal", "pay_pal"),
        ("a\udcffb", "a_b"),
        ("a:b?.txt", "a_b_.txt"),
        ("Cafe\u0301\x00.txt", "Café_.txt"),
    ],
)
def test_replacement(name: str, expected: str) -> None:
    assert safe_filename(name, replacement="_") == expected


def test_replacement_of_bytes_is_per_maximal_subpart() -> None:
    # Table 3-7: C0 and AF are two maximal subparts, E2 82 is one.
    assert safe_filename(b"a\xc0\xafb\xe2\x82.txt", replacement="_") == "a__b_.txt"


def test_empty_replacement_deletes() -> None:
    assert safe_filename("a\u200bb\x00c", replacement="") == "abc"
    with pytest.raises(UnsafePathError) as info:
        safe_filename("\x00\x01", replacement="")
    assert info.value.kind is PathKind.EMPTY
    with pytest.raises(UnsafePathError) as info:
        safe_filename("CON", replacement="")
    assert info.value.kind is PathKind.RESERVED_NAME


def test_truncation_keeps_extension_and_characters() -> None:
    long_name = "é" * 200 + ".txt"
    fixed = safe_filename(long_name, replacement="_")
    assert fixed == "é" * 125 + ".txt"
    assert len(fixed.encode()) == 254
    assert safe_filename("x" * 300, replacement="_") == "x" * 255
    assert safe_filename("abcdef", replacement="_", max_bytes=4) == "abcd"


def test_truncation_keeps_combining_sequences_whole() -> None:
    # U+0331 has no precomposed form with "e", so NFC keeps two code points.
    name = "e\u0331" * 4 + ".txt"
    assert safe_filename(name, replacement="_", max_bytes=10) == "e\u0331e\u0331.txt"


def test_truncation_without_room_for_the_extension() -> None:
    name = "a" * 10 + "." + "b" * 20
    assert safe_filename(name, replacement="_", max_bytes=8) == "aaaaaaaa"


def test_truncation_splits_marks_only_when_nothing_else_fits() -> None:
    name = "e" + "\u0331" * 5
    assert safe_filename(name, replacement="_", max_bytes=3) == "e\u0331"


def test_truncation_needing_a_second_pass() -> None:
    # The cut leaves a trailing space, which the next pass drops.
    assert safe_filename("abc def", replacement="_", max_bytes=4) == "abc"


def test_replacement_gives_up_after_bounded_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(paths_module, "MAX_REPLACE_PASSES", 1)
    with pytest.raises(UnsafePathError) as info:
        safe_filename("abc def", replacement="_", max_bytes=4)
    assert info.value.kind is PathKind.TRAILING_DOT_OR_SPACE


def test_refusing_mode_normalises_singletons() -> None:
    # U+212B ANGSTROM SIGN is canonically equivalent to U+00C5.
    assert safe_filename("\u212b") == "\u00c5"


def test_argument_checks() -> None:
    with pytest.raises(
        TypeError, match="expected str, bytes, bytearray or memoryview, not int"
    ):
        safe_filename(1)  # type: ignore[arg-type]  # the check under test
    with pytest.raises(ValueError, match="max_bytes must be > 0, not 0"):
        safe_filename("a", max_bytes=0)
    with pytest.raises(TypeError, match="max_bytes must be an int, not bool"):
        safe_filename("a", max_bytes=True)
    with pytest.raises(ValueError, match="platform must be"):
        safe_filename("a", platform="macos")  # type: ignore[arg-type]  # refused at run time too
    with pytest.raises(TypeError, match="replacement must be a str, not bytes"):
        safe_filename("a", replacement=b"_")  # type: ignore[arg-type]  # under test
    for bad in ("/", ".", " ", "\x00", "\u200b"):
        with pytest.raises(ValueError, match="replacement must be a safe"):
            safe_filename("a", replacement=bad)


def test_bytes_like_inputs() -> None:
    assert safe_filename(bytearray(b"a.txt")) == "a.txt"
    assert safe_filename(memoryview(b"a.txt")) == "a.txt"


def test_check_path_reports_everything_with_byte_offsets() -> None:
    found = check_path(b"docs/\xff/../CON.txt\x00")
    assert found == [
        PathViolation(PathKind.INVALID_BYTE, 5, 6),
        PathViolation(PathKind.DOT_NAME, 7, 9),
        PathViolation(PathKind.RESERVED_NAME, 10, 13),
        PathViolation(PathKind.NUL, 17, 18),
    ]


def test_check_path_str_offsets_are_characters() -> None:
    assert check_path("/a//b/Cafe\u0301") == [
        PathViolation(PathKind.ABSOLUTE, 0, 1),
        PathViolation(PathKind.EMPTY, 3, 3),
        PathViolation(PathKind.NOT_NFC, 6, 11),
    ]
    assert check_path("ok/") == [PathViolation(PathKind.EMPTY, 3, 3)]
    assert check_path("a/\u00e9\u202e") == [PathViolation(PathKind.BIDI_CONTROL, 3, 4)]


def test_check_path_too_long_counts_bytes() -> None:
    assert check_path("é" * 128) == [PathViolation(PathKind.TOO_LONG, 127, 128)]
    assert check_path(("é" * 128).encode()) == [
        PathViolation(PathKind.TOO_LONG, 254, 256)
    ]
    # An undecodable byte is one byte on disk.
    assert check_path(b"\xff" * 3, max_bytes=3) == [
        PathViolation(PathKind.INVALID_BYTE, i, i + 1) for i in range(3)
    ]
    assert check_path("\udcff" * 3, max_bytes=3) == [
        PathViolation(PathKind.SURROGATE, i, i + 1) for i in range(3)
    ]


def test_check_path_policy_adds_refusals() -> None:
    assert check_path("\ue000") == []
    assert check_path("\ue000", Policy(allow_private_use=False)) == [
        PathViolation(PathKind.PRIVATE_USE, 0, 1)
    ]
    # A looser policy cannot re-allow what the path rules refuse.
    assert check_path("a\x00", Policy()) == [PathViolation(PathKind.CONTROL, 1, 2)]


def test_check_path_argument_checks() -> None:
    with pytest.raises(TypeError):
        check_path(3)  # type: ignore[arg-type]  # the check under test
    with pytest.raises(ValueError, match="platform"):
        check_path("a", platform="dos")  # type: ignore[arg-type]  # refused at run time too


def test_safe_join_keeps_names(tmp_path: Path) -> None:
    joined = safe_join(tmp_path, "Straße/北京.txt", b"caf\xc3\xa9")
    assert joined == tmp_path / "Straße" / "北京.txt" / "café"
    assert safe_join(tmp_path, "Cafe\u0301") == tmp_path / "Café"
    assert safe_join(tmp_path) == tmp_path


def test_safe_join_makes_base_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert safe_join("x/../y", "a") == tmp_path / "y" / "a"


@pytest.mark.parametrize(
    ("part", "kind"),
    [
        ("../secret", PathKind.DOT_NAME),
        ("a/../../b", PathKind.DOT_NAME),
        ("/etc/passwd", PathKind.ABSOLUTE),
        ("a//b", PathKind.EMPTY),
        ("a/", PathKind.EMPTY),
        ("", PathKind.EMPTY),
        ("a\\..\\b", PathKind.SEPARATOR),
        ("C:secret", PathKind.RESERVED_CHARACTER),
        ("\uff0e\uff0e/x", PathKind.LOOKALIKE),
        (b"\xc0\xae\xc0\xae/x", PathKind.OVERLONG),
        ("NUL", PathKind.RESERVED_NAME),
    ],
)
def test_safe_join_refuses(part: str | bytes, kind: PathKind, tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError) as info:
        safe_join(tmp_path, "ok", part)
    assert info.value.kind is kind


def test_safe_join_argument_checks(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        safe_join(tmp_path, 1)  # type: ignore[arg-type]  # the check under test
    with pytest.raises(ValueError, match="platform"):
        safe_join(tmp_path, "a", platform="")  # type: ignore[arg-type]  # refused at run time too
    assert safe_join(tmp_path, "CON", platform="posix") == tmp_path / "CON"


def test_safe_join_symlinks(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "inner").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (base / "out").symlink_to(tmp_path / "outside")
    (base / "in").symlink_to(base / "inner")
    # Lexically inside; only resolving shows the escape.
    assert safe_join(base, "out/x") == base / "out" / "x"
    with pytest.raises(UnsafePathError) as info:
        safe_join(base, "out/x", resolve_symlinks=True)
    assert info.value.kind is PathKind.SYMLINK_ESCAPE
    resolved = safe_join(base, "in/x", resolve_symlinks=True)
    assert resolved == (base / "inner" / "x").resolve()


# Properties --------------------------------------------------------------------------

# Characters that exercise the rules, mixed with arbitrary text.
TRICKY = st.sampled_from(
    list("/\\.: ?<>|*\x00\x01\t\nCONULPTcom19\u00b9")
    + list("\u202e\u2066\u200b\u200c\u200d\ufe0f\u3164\u00ad\ufeff\U000e0041")
    + list("\uff0f\u2215\u2044\uff0e\u2024\u2025\u2026\u2100")
    + list("\u0915\u094d\u06cc\u062e\U0001f468\u2764e\u0301\u0331\u212b\u00e9")
    + list("\ufdd0\ufffe\udcff\ud800\ue000")
)
NAMES = st.text(st.one_of(TRICKY, st.characters()), max_size=24)
RAW_NAMES = st.one_of(
    NAMES.map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.binary(max_size=24),
)


@given(name=st.one_of(NAMES, RAW_NAMES), max_bytes=st.integers(1, 40))
def test_safe_filename_output_is_safe_nfc_and_idempotent(
    name: str | bytes, max_bytes: int
) -> None:
    try:
        fixed = safe_filename(name, replacement="_", max_bytes=max_bytes)
    except UnsafePathError:
        return
    assert fixed
    assert "/" not in fixed
    assert "\\" not in fixed
    assert unicodedata.is_normalized("NFC", fixed)
    assert len(fixed.encode()) <= max_bytes
    assert safe_filename(fixed, max_bytes=max_bytes) == fixed
    assert safe_filename(fixed, replacement="_", max_bytes=max_bytes) == fixed
    assert check_path(fixed, max_bytes=max_bytes) == []


@given(name=NAMES)
def test_refusing_agrees_with_check_path(name: str) -> None:
    assume("/" not in name)  # check_path reads "/" as a segment boundary
    nfc = unicodedata.normalize("NFC", name)
    try:
        safe_filename(name)
    except UnsafePathError:
        assert check_path(nfc) != []
    else:
        assert check_path(nfc) == []


SEGMENTS = st.one_of(
    st.sampled_from(["..", ".", "", "a", "/", "\\", "..\\..", "\uff0e\uff0e", "C:"]),
    NAMES,
)
PARTS = st.lists(
    st.one_of(
        st.lists(SEGMENTS, max_size=4).map("/".join),
        RAW_NAMES,
    ),
    max_size=4,
)


@given(parts=PARTS)
def test_safe_join_never_leaves_base(parts: list[str | bytes]) -> None:
    base = Path("/srv/base")
    try:
        joined = safe_join(base, *parts)
    except UnsafePathError:
        return
    assert joined.is_relative_to(base)
    assert os.path.normpath(joined) == str(joined)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("\u03bb\ufe0f.txt", "\u03bb_.txt"),
        ("é\ufe0f.txt", "é_.txt"),
        ("文\ufe0f.txt", "文_.txt"),
        ("\u2764\ufe0f.txt", "\u2764\ufe0f.txt"),
    ],
    ids=ascii,
)
def test_issue11_selector_without_a_sequence_is_replaced(
    name: str, expected: str
) -> None:
    assert safe_filename(name, replacement="_") == expected
    if name != expected:
        with pytest.raises(UnsafePathError) as info:
            safe_filename(name)
        assert info.value.kind is PathKind.DEFAULT_IGNORABLE


def test_cjk_compatibility_sequences_match_the_decompositions() -> None:
    """StandardizedVariants.txt gives each CJK compatibility ideograph with a singleton
    decomposition the sequence "its unified ideograph + VS(n)", n counting the
    compatibility ideographs of that base in code-point order: so every such
    ideograph's base must be allowed before the selector for its rank."""
    ranks: dict[str, int] = {}
    for cp in [*range(0xF900, 0xFB00), *range(0x2F800, 0x2FA20)]:
        base = unicodedata.normalize("NFC", chr(cp))
        if base == chr(cp) or "COMPATIBILITY" not in unicodedata.name(chr(cp), ""):
            continue
        rank = ranks[base] = ranks.get(base, -1) + 1
        selector = chr(0xFE00 + rank)
        assert check_path(base + selector) == [], (hex(cp), ascii(base + selector))
    assert len(ranks) > 900
    for base, last in ranks.items():  # one selector past the last compatibility form
        assert check_path(base + chr(0xFE00 + last + 1)) != [], ascii(base)


def test_path_kind_restates_every_kind_first() -> None:
    """PathKind spells out Kind's members (so type checkers see them): the same names,
    values and order come first, so every Kind maps to PathKind(kind.value)."""
    kinds = [(kind.name, kind.value) for kind in Kind]
    assert [(kind.name, kind.value) for kind in PathKind][: len(kinds)] == kinds
    assert all(PathKind(kind.value).name == kind.name for kind in Kind)
    assert issubclass(PathKind, str)
