"""Filename rules over decoded text: which characters and which names are unsafe.

Pure functions over ``str``; :mod:`utf8guard.paths` decodes bytes, maps offsets and
raises or replaces. Code-point classes the core already names (noncharacters, NUL,
controls, bidi controls) come from :func:`utf8guard.find_violation` under a
:class:`~utf8guard.Policy`; this module adds what only matters in a name.
"""

from __future__ import annotations

import unicodedata

from ._constant import Constant
from ._lazy_pattern import lazy_pattern
from ._memo import remember
from ._policy import Policy
from ._ranges import Ranges, in_ranges
from ._scan import find_violation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final, Literal

    #: Which name rules apply: Windows's everywhere ("universal", the default), on
    #: Windows only ("windows"), or POSIX's alone ("posix").
    Platform = Literal["universal", "windows", "posix"]
else:

    def __getattr__(name: str) -> object:
        # Platform, built with typing at its first look-up (issue 28: the import of
        # utf8guard.middleware, which reads these rules, runs without typing).
        if name == "Platform":
            from typing import Literal

            return Literal[PLATFORMS]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LOOKALIKE_SEPARATORS",
    "PLATFORMS",
    "TYPOGRAPHIC_DOTS",
    "PathKind",
    "Platform",
    "char_violations",
    "check_platform",
    "is_reserved_name",
    "name_violations",
    "utf8_length",
]


class PathKind(str, Constant):
    """Why a filename or path is unsafe.

    The first members restate :class:`~utf8guard.Kind`, with the same names, values
    and order (ill-formed UTF-8 and code points a policy refuses; written out so type
    checkers see them, and tests/test_paths.py ties the two); the rest are filename
    and path rules.
    """

    OVERLONG = "overlong"
    SURROGATE = "surrogate"
    OUT_OF_RANGE = "out_of_range"
    INVALID_BYTE = "invalid_byte"
    UNEXPECTED_CONTINUATION = "unexpected_continuation"
    TRUNCATED = "truncated"
    NONCHARACTER = "noncharacter"
    NUL = "nul"
    #: a C0 or C1 control, DEL, or U+2028/U+2029 in a name (line breaks to
    #: ``str.splitlines`` and ECMAScript)
    CONTROL = "control"
    BIDI_CONTROL = "bidi_control"
    PRIVATE_USE = "private_use"
    BOM = "bom"
    #: ``/`` or ``\\``
    SEPARATOR = "separator"
    #: a character whose NFKC form contains ``/``, ``\\`` or ``.``, or that UTS #39
    #: lists as confusable with ``/`` or ``\\`` (U+FF0F, U+2215, U+2024, ...)
    LOOKALIKE = "lookalike"
    #: Default_Ignorable_Code_Point (zero-width, fillers, tags, variation selectors)
    #: outside the contexts where a language or emoji needs it
    DEFAULT_IGNORABLE = "default_ignorable"
    #: ``< > : " | ? *``, which Windows refuses in names
    RESERVED_CHARACTER = "reserved_character"
    #: the whole name is ``.`` or ``..``
    DOT_NAME = "dot_name"
    #: a Windows device name (``CON``, ``NUL``, ``COM1``, ...) with any extension
    RESERVED_NAME = "reserved_name"
    #: a name ending in ``.`` or space, which Windows strips
    TRAILING_DOT_OR_SPACE = "trailing_dot_or_space"
    #: longer than ``max_bytes`` in UTF-8
    TOO_LONG = "too_long"
    #: an empty name or path segment
    EMPTY = "empty"
    #: not in Unicode Normalization Form C
    NOT_NFC = "not_nfc"
    #: a path that starts at a root instead of inside the base
    ABSOLUTE = "absolute"
    #: the joined path leaves the base directory
    OUTSIDE_BASE = "outside_base"
    #: the joined path leaves the base directory through a symlink on disk
    SYMLINK_ESCAPE = "symlink_escape"

    def __str__(self) -> str:
        return self.value


#: The ``platform`` values (:data:`Platform`'s), for argument parsers and messages.
PLATFORMS: Final[tuple[Platform, ...]] = ("universal", "windows", "posix")

SEPARATORS: Final = "/\\"
#: General categories refused in names as ``control``: Cc, and Zl and Zp, whose only
#: members are U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR.
_LINE_BREAKING_CATEGORIES: Final = frozenset({"Cc", "Zl", "Zp"})
# Microsoft, "Naming Files, Paths, and Namespaces": reserved characters (besides the
# separators and 1..31, which the control rule covers).
WINDOWS_RESERVED_CHARS: Final = '<>:"|?*'
# Ibid.: device names, also with an extension ("NUL.txt" is NUL), including the
# superscript-digit forms Windows treats like COM1..COM3 and LPT1..LPT3.
WINDOWS_RESERVED_NAMES: Final = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{dev}{n}" for dev in ("COM", "LPT") for n in "0123456789\u00b9\u00b2\u00b3"]
)
# Windows drops trailing dots and spaces, so "a.txt." opens "a.txt" and ". ." is "".
WINDOWS_TRAILING: Final = ". "
# UAX #15: code points whose NFKC form contains "/", "\\" or "." (computed from the
# UCD; tests/test_paths.py checks it against ``unicodedata``).
NFKC_LOOKALIKES: Final[Ranges] = (
    # one dot leader .. ellipsis; a/c, a/s; c/o, c/u; digit full stops 1. .. 20.
    (0x2024, 0x2026),
    (0x2100, 0x2101),
    (0x2105, 0x2106),
    (0x2488, 0x249B),
    # squared a.m., Co., p.m.; vertical ellipsis, two dot leader, small full stop,
    # small reverse solidus; fullwidth . / \\; digit zero full stop
    (0x33C2, 0x33C2),
    (0x33C7, 0x33C7),
    (0x33D8, 0x33D8),
    (0xFE19, 0xFE19),
    (0xFE30, 0xFE30),
    (0xFE52, 0xFE52),
    (0xFE68, 0xFE68),
    (0xFF0E, 0xFF0F),
    (0xFF3C, 0xFF3C),
    (0x1F100, 0x1F100),
)
# UTS #39 confusables.txt: symbols with prototype "/", "\\" or "." that NFKC leaves
# alone: Syriac supralinear/sublinear full stop, fraction slash, division slash, set
# minus, box diagonals, mathematical rising and falling diagonals, reverse solidus
# operator, big solidus, big reverse solidus, Lisu tone mya ti, Vai full stop,
# Kharoshthi dot. Letters such as KATAKANA NO are left out: names hold them.
CONFUSABLE_LOOKALIKES: Final[Ranges] = (
    (0x0701, 0x0702),
    (0x2044, 0x2044),
    (0x2215, 0x2216),
    (0x2571, 0x2572),
    (0x27CB, 0x27CB),
    (0x27CD, 0x27CD),
    (0x29F5, 0x29F5),
    (0x29F8, 0x29F9),
    (0xA4F8, 0xA4F8),
    (0xA60E, 0xA60E),
    (0x10A50, 0x10A50),
)
#: Look-alikes a file name may hold (issue 26): U+2026 HORIZONTAL ELLIPSIS is NFKC
#: "...", which is neither a separator nor a dot name (``.``, ``..``); "Wait….txt"
#: is typography. U+2024 and U+2025 (NFKC "." and "..") stay refused. Paths keep
#: refusing all of LOOKALIKE_SEPARATORS, as does ``safe_filename``.
TYPOGRAPHIC_DOTS: Final = "\u2026"
#: Code points that become or pass for ``/``, ``\\`` or ``.``: the one table that
#: :mod:`utf8guard.paths` and the middleware's URL path rule both use.
LOOKALIKE_SEPARATORS: Final[Ranges] = tuple(
    sorted(NFKC_LOOKALIKES + CONFUSABLE_LOOKALIKES)
)
# DerivedCoreProperties.txt, Default_Ignorable_Code_Point: 4174 code points, checked
# against the regex module's \p{Default_Ignorable_Code_Point} (unicodedata lacks it).
DEFAULT_IGNORABLES: Final[Ranges] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
ZWNJ: Final = "\u200c"
ZWJ: Final = "\u200d"
# RFC 5892 Appendix A.1: ZWNJ also belongs between letters that join, which only the
# scripts with Joining_Type data in ArabicShaping.txt have (Persian "می‌خواهم").
# Matched by character-name prefix, as unicodedata has no Script property.
JOINING_SCRIPTS: Final = (
    "ARABIC",
    "SYRIAC",
    "NKO",
    "MONGOLIAN",
    "MANDAIC",
    "MANICHAEAN",
    "PSALTER PAHLAVI",
    "ADLAM",
    "HANIFI ROHINGYA",
    "SOGDIAN",
    "CHORASMIAN",
    "OLD UYGHUR",
    "PHAGS-PA",
)
# UTS #51 §2.3 emoji ZWJ sequences: an emoji (So), possibly with a skin-tone modifier
# (Sk) or VS16 before the ZWJ, then another emoji.
EMOJI_CATEGORIES: Final = frozenset(["So", "Sk"])
VS16: Final = "\ufe0f"
# Variation selectors VS1..VS16, whose sanctioned bases StandardizedVariants.txt and
# emoji-variation-sequences.txt list (VARIATION_BASES, keycaps 0-9 # * included), and
# VS17..VS256, used only in ideographic variation sequences.
STANDARDIZED_SELECTORS: Final[Ranges] = ((0xFE00, 0xFE0F),)
IDEOGRAPHIC_SELECTORS: Final[Ranges] = ((0xE0100, 0xE01EF),)
# UTS #37 §2: the base of an ideographic variation sequence is a unified ideograph.
UNIFIED_IDEOGRAPH_PREFIX: Final = "CJK UNIFIED IDEOGRAPH-"
# UTS #51 §1.4.5 ED-14a: emoji_tag_sequence := tag_base tag_spec tag_end, tag_spec
# := [\x{E0020}-\x{E007E}]+, tag_end := U+E007F CANCEL TAG. The sequences Unicode
# recommends (emoji-sequences.txt, RGI_Emoji_Tag_Sequence: the England, Scotland and
# Wales flags) are U+1F3F4 WAVING BLACK FLAG with a CLDR subdivision id (2 to 7 tag
# letters or digits, "gbsct"). Only those are text; any other tag run hides data.
EMOJI_TAG_SEQUENCE: Final = lazy_pattern(
    "\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7}\U000e007f"
)
#: The longest match of EMOJI_TAG_SEQUENCE, in characters: how far back a tag may be
#: from its sequence's base.
_TAG_SEQUENCE_CHARS: Final = 9
TAGS: Final[Ranges] = ((0xE0020, 0xE007F),)
# Canonical_Combining_Class 9 = Virama (RFC 5892 A.1, A.2 rule 1).
VIRAMA_CLASS: Final = 9


def check_platform(platform: str) -> None:
    """Raise ValueError unless ``platform`` is one of :data:`PLATFORMS`."""
    if platform not in PLATFORMS:
        raise ValueError(
            f"platform must be 'universal', 'windows' or 'posix', not {platform!r}"
        )


def _in_joining_script(ch: str) -> bool:
    return unicodedata.name(ch, "").startswith(JOINING_SCRIPTS)


def _joiner_allowed(joiner: str, before: str, after: str) -> bool:
    # RFC 5892 A.1, A.2 rule 1: either joiner may follow a virama.
    if before and unicodedata.combining(before) == VIRAMA_CLASS:
        return True
    if not (before and after):
        return False
    if joiner == ZWNJ:
        return _in_joining_script(before) and _in_joining_script(after)
    emoji_before = before == VS16 or unicodedata.category(before) in EMOJI_CATEGORIES
    return emoji_before and unicodedata.category(after) == "So"


def _selector_allowed(selector: str, before: str) -> bool:
    """A variation selector is kept only in a sequence Unicode sanctions: anywhere
    else it changes nothing visible and can only hide data (StandardizedVariants.txt:
    "Only those two types of variation sequences are sanctioned")."""
    if not before:
        return False
    if in_ranges(ord(selector), STANDARDIZED_SELECTORS):
        # A large table, imported by the first name that holds a selector.
        from ._variation_bases import VARIATION_BASES

        return in_ranges(ord(before), VARIATION_BASES.get(ord(selector), ()))
    return unicodedata.name(before, "").startswith(UNIFIED_IDEOGRAPH_PREFIX)


def _in_tag_sequence(text: str, index: int) -> bool:
    """Whether the tag character at ``index`` is in an EMOJI_TAG_SEQUENCE: one of
    the few bases within reach of it starts one that covers it (bounded, so a run
    of tags costs linear time)."""
    for start in range(max(index - _TAG_SEQUENCE_CHARS + 1, 0), index):
        match = EMOJI_TAG_SEQUENCE.match(text, start)
        if match is not None and index < match.end():
            return True
    return False


def _ignorable_allowed(text: str, index: int) -> bool:
    """A default-ignorable character that this position legitimately needs."""
    cp = ord(text[index])
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if text[index] in (ZWNJ, ZWJ):
        return _joiner_allowed(text[index], before, after)
    if in_ranges(cp, TAGS):
        return _in_tag_sequence(text, index)
    selector = in_ranges(cp, STANDARDIZED_SELECTORS) or in_ranges(
        cp, IDEOGRAPHIC_SELECTORS
    )
    return selector and _selector_allowed(text[index], before)


#: _context_free_kind's answers (a name's alphabet is small and repeats).
_CONTEXT_FREE_KINDS: Final[dict[tuple[str, Policy, Platform], PathKind | None]] = {}


def _context_free_kind(ch: str, policy: Policy, platform: Platform) -> PathKind | None:
    """The rule ``ch`` breaks wherever it stands; DEFAULT_IGNORABLE still needs the
    context check."""
    cp = ord(ch)
    if ch in SEPARATORS:
        return PathKind.SEPARATOR
    # A lone surrogate: an undecodable byte kept by surrogateescape (os.listdir on a
    # non-UTF-8 name) or broken UTF-16; it has no UTF-8 form at all.
    if 0xD800 <= cp <= 0xDFFF:
        return PathKind.SURROGATE
    found = find_violation(ch.encode(), policy)
    if found is not None:
        return PathKind(found.kind.value)
    # Cc, and U+2028/U+2029 (Zl, Zp): the line breaks that are not controls. Python's
    # str.splitlines and ECMAScript (§12.3 LineTerminator) end a line at them, so a
    # name with one splits a log line or a script's string literal as LF would.
    if unicodedata.category(ch) in _LINE_BREAKING_CATEGORIES:
        return PathKind.CONTROL
    if platform != "posix" and ch in WINDOWS_RESERVED_CHARS:
        return PathKind.RESERVED_CHARACTER
    if in_ranges(cp, DEFAULT_IGNORABLES):
        return PathKind.DEFAULT_IGNORABLE
    if in_ranges(cp, LOOKALIKE_SEPARATORS):
        return PathKind.LOOKALIKE
    return None


def _char_kind(
    text: str, index: int, policy: Policy, platform: Platform
) -> PathKind | None:
    key = (text[index], policy, platform)
    try:  # the memo read inline: every character asks it (see utf8guard._memo)
        kind = _CONTEXT_FREE_KINDS[key]
    except KeyError:
        kind = remember(_CONTEXT_FREE_KINDS, key, _context_free_kind(*key), 8192)
    if kind is PathKind.DEFAULT_IGNORABLE and _ignorable_allowed(text, index):
        return None
    return kind


def char_violations(
    text: str, policy: Policy, platform: Platform
) -> Iterator[tuple[PathKind, int]]:
    """Yield ``(kind, index)`` for each character of ``text`` that a name must not hold.

    Separators count too: callers that split a path do so before calling this.
    """
    for index in range(len(text)):
        kind = _char_kind(text, index, policy, platform)
        if kind is not None:
            yield kind, index


def utf8_length(text: str) -> int:
    """Length in bytes on disk: UTF-8, one byte for each U+DC80..U+DCFF that
    ``surrogateescape`` made of an undecodable byte, three for any other surrogate."""
    try:
        return len(text.encode())
    except UnicodeEncodeError:
        return sum(
            1
            if 0xDC80 <= ord(ch) <= 0xDCFF
            else len(ch.encode("utf-8", "surrogatepass"))
            for ch in text
        )


def is_reserved_name(name: str) -> bool:
    """True for a Windows device name, with or without extensions, in any case.

    Windows ignores what follows the first dot and trailing spaces before it.
    """
    stem = name.split(".", 1)[0].rstrip(" ")
    return stem.upper() in WINDOWS_RESERVED_NAMES


def name_violations(
    name: str, platform: Platform, max_bytes: int
) -> Iterator[tuple[PathKind, int, int]]:
    """Yield ``(kind, start, end)`` in characters for rules about the whole name."""
    if not name:
        yield PathKind.EMPTY, 0, 0
        return
    if name in (".", ".."):
        yield PathKind.DOT_NAME, 0, len(name)
    elif platform != "posix":
        kept = name.rstrip(WINDOWS_TRAILING)
        if len(kept) < len(name):
            yield PathKind.TRAILING_DOT_OR_SPACE, len(kept), len(name)
        if is_reserved_name(name):
            yield PathKind.RESERVED_NAME, 0, len(name.split(".", 1)[0])
    if utf8_length(name) <= max_bytes:
        return
    total = 0
    for index, ch in enumerate(name):  # pragma: no branch - some character overflows
        total += utf8_length(ch)
        if total > max_bytes:
            yield PathKind.TOO_LONG, index, len(name)
            return
