"""Filename and path guards that keep legitimate Unicode names.

:func:`safe_filename` turns untrusted input into one safe name component,
:func:`safe_join` joins untrusted components under a base directory, and
:func:`check_path` reports every problem in a path without raising. All three apply
the same rules on every host OS (``platform="universal"`` applies the Windows rules
everywhere), so a name accepted on a Linux server stays safe when a Windows user
downloads it.

Unlike ASCII-only sanitisers, these keep every letter a user meant ("Straße.txt",
"北京.pdf", Persian names with ZERO WIDTH NON-JOINER, emoji ZWJ sequences) and refuse
only what changes a name's meaning: separators and their look-alikes, controls, bidi
controls, invisible characters, undecodable bytes, ``.`` and ``..``, Windows device
names and trailing dots or spaces, and names too long for the file system.
"""

from __future__ import annotations

import os
import unicodedata

from ._pathrules import (
    WINDOWS_TRAILING,
    PathKind,
    char_violations,
    check_platform,
    is_reserved_name,
    name_violations,
    utf8_length,
)
from ._policy import IDENTIFIER, WELL_FORMED, Policy
from ._record import Record
from ._scan import BytesLike, iter_violations
from ._violation import describe

# typing is for type checkers only, and Platform built at its first look-up (issue
# 28: the CLI's scan and a multipart body load this module).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path  # imported by safe_join: it doubles this module's cost
    from typing import Final

    from ._pathrules import Platform
else:

    def __getattr__(name: str) -> object:
        if name == "Platform":
            from . import _pathrules

            return _pathrules.Platform
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PathKind",
    "PathViolation",
    "Platform",
    "UnsafePathError",
    "check_path",
    "safe_filename",
    "safe_join",
]

#: NAME_MAX on Linux, macOS and the BSDs; NTFS counts 255 UTF-16 units, and 255 UTF-8
#: bytes never make more than that.
MAX_NAME_BYTES: Final = 255
# Replacement repeats until the name stops changing (a cut can leave a trailing space
# or a dangling joiner for the next pass). A name still changing after this many
# passes would be a cycle: it goes to the final check instead of looping on.
MAX_REPLACE_PASSES: Final = 8


class PathViolation(Record):
    """One problem in a path: its kind and the span ``[start, end)`` it covers.

    Offsets count bytes when the path was given as bytes and characters when it was
    given as ``str``.
    """

    kind: PathKind
    start: int
    end: int


class UnsafePathError(ValueError):
    """A filename or path breaks a rule; ``kind`` says which.

    The message gives the kind, the offsets and at most a code point or a short hex
    snippet; it never contains the name itself.
    """

    def __init__(self, kind: PathKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _check_limits(max_bytes: int, platform: Platform) -> None:
    check_platform(platform)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"max_bytes must be an int, not {type(max_bytes).__name__}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be > 0, not {max_bytes}")


def _error(kind: PathKind, start: int, end: int, text: str) -> UnsafePathError:
    message = f"{kind} at characters [{start}, {end})"
    if end - start == 1:
        message += f": U+{ord(text[start]):04X}"
    return UnsafePathError(kind, message)


def _as_bytes(value: object) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise TypeError(
        f"expected str, bytes, bytearray or memoryview, not {type(value).__name__}"
    )


def _decode(data: bytes, replacement: str | None) -> str:
    """Strict UTF-8 decoding; each maximal subpart becomes ``replacement`` if given."""
    parts: list[str] = []
    pos = 0
    for found in iter_violations(data, WELL_FORMED):
        if replacement is None:
            snippet = data[found.start : found.end]
            raise UnsafePathError(PathKind(found.kind.value), describe(found, snippet))
        parts += (data[pos : found.start].decode(), replacement)
        pos = found.end
    parts.append(data[pos:].decode())
    return "".join(parts)


def _cut(text: str, budget: int) -> str:
    """The longest prefix of ``text`` within ``budget`` UTF-8 bytes.

    Callers pass only text that does not fit. The cut goes before a base character, so
    accents stay with their letter (Unicode ch. 3.6, "combining character
    sequence"), unless the first sequence alone is too long.
    """
    size = whole = 0
    # pragma below: the loop always returns, since the whole text never fits.
    for index, ch in enumerate(text):  # pragma: no branch
        if not unicodedata.category(ch).startswith("M"):
            whole = index
        size += utf8_length(ch)
        if size > budget:
            return text[: whole or index]
    return text  # pragma: no cover - see above


def _truncate(text: str, max_bytes: int) -> str:
    """Fit ``text`` into ``max_bytes``, keeping its extension when there is room."""
    if utf8_length(text) <= max_bytes:
        return text
    dot = text.rfind(".")
    extension = text[dot:] if dot > 0 else ""
    if utf8_length(extension) >= max_bytes:
        extension = ""
    stem = text[: len(text) - len(extension)]
    return _cut(stem, max_bytes - utf8_length(extension)) + extension


def _replace_once(
    text: str, replacement: str, platform: Platform, max_bytes: int
) -> str:
    bad = {index for _, index in char_violations(text, IDENTIFIER, platform)}
    chars = (replacement if i in bad else ch for i, ch in enumerate(text))
    text = unicodedata.normalize("NFC", "".join(chars))
    if text in (".", ".."):
        text = replacement * len(text)
    if platform != "posix":
        # Windows strips these itself, so dropping them keeps what the user sees; a
        # name made only of them (". .") is replaced instead.
        text = text.rstrip(WINDOWS_TRAILING) or replacement * len(text)
    if platform != "posix" and is_reserved_name(text):
        text = replacement + text
    return _truncate(text, max_bytes)


def _check_replacement(replacement: str, platform: Platform) -> None:
    if not isinstance(replacement, str):
        raise TypeError(f"replacement must be a str, not {type(replacement).__name__}")
    if any(char_violations(replacement, IDENTIFIER, platform)) or any(
        ch in WINDOWS_TRAILING for ch in replacement
    ):
        raise ValueError(
            "replacement must be a safe name fragment without dots or spaces"
        )


def _first_problem(
    text: str, platform: Platform, max_bytes: int
) -> UnsafePathError | None:
    for kind, index in char_violations(text, IDENTIFIER, platform):
        return _error(kind, index, index + 1, text)
    for kind, start, end in name_violations(text, platform, max_bytes):
        return _error(kind, start, end, text)
    # No NFC check: the text was normalised, and the later edits (cutting a suffix,
    # putting an ASCII-free-of-marks prefix before a device name) keep it NFC.
    return None


def safe_filename(
    name: str | BytesLike,
    *,
    replacement: str | None = None,
    max_bytes: int = MAX_NAME_BYTES,
    platform: Platform = "universal",
) -> str:
    """Return ``name`` as one safe, NFC-normalised filename component.

    Bytes are decoded as strict UTF-8 first. The name is refused when it contains
    ``/`` or ``\\``, a character whose NFKC form holds a separator or a dot (U+FF0F,
    U+2024, ...) or that UTS #39 lists as a slash look-alike (U+2215, U+2044, ...),
    NUL or another control, a bidi control (U+202E turns ``gpj.exe`` into a
    look-alike of ``exe.jpg``), a default-ignorable character such as U+200B (ZWJ,
    ZWNJ and variation selectors are kept where a script or emoji needs them), a
    noncharacter, or a lone surrogate left by ``surrogateescape`` decoding; when it
    is ``.`` or ``..``; when it is longer than ``max_bytes`` in UTF-8; and, for
    ``platform`` ``"universal"`` (the default) or ``"windows"``, when it is a Windows
    device name (``CON``, ``nul.txt``, ``COM1.tar.gz``), holds one of ``<>:"|?*``, or
    ends in a dot or space. Security-relevant default: ``"universal"`` applies the
    Windows rules on every host, because names travel.

    With a ``replacement`` (``"_"`` is a good choice, ``""`` deletes), each bad byte
    sequence or character becomes ``replacement``, trailing dots and spaces are
    dropped, ``.``/``..`` become replacements, a device name gets ``replacement`` as
    a prefix, and a long name is cut on a character boundary, keeping its extension.
    The result is never empty and ``safe_filename(result, ...) == result``.

    >>> safe_filename("Straße.txt")
    'Straße.txt'
    >>> safe_filename("../etc/passwd", replacement="_")
    '.._etc_passwd'
    >>> safe_filename("CON.txt", replacement="_")
    '_CON.txt'

    Raises:
        UnsafePathError: the name breaks a rule (and no replacement could fix it, or
            none was given); ``kind`` says which.
        TypeError: ``name`` is neither str nor bytes.
        ValueError: ``max_bytes < 1``, an unknown ``platform``, or a ``replacement``
            that is itself unsafe or holds a dot or space.
    """
    _check_limits(max_bytes, platform)
    if replacement is not None:
        _check_replacement(replacement, platform)
    text = name if isinstance(name, str) else _decode(_as_bytes(name), replacement)
    text = unicodedata.normalize("NFC", text)
    if replacement is not None:
        for _ in range(MAX_REPLACE_PASSES):
            fixed = _replace_once(text, replacement, platform, max_bytes)
            if fixed == text:
                break
            text = fixed
    problem = _first_problem(text, platform, max_bytes)
    if problem is not None:
        raise problem
    return text


def safe_join(
    base: str | os.PathLike[str],
    *parts: str | BytesLike,
    resolve_symlinks: bool = False,
    platform: Platform = "universal",
) -> Path:
    """Join untrusted ``parts`` under ``base``; the result never leaves ``base``.

    Each part may hold several segments separated by ``/`` (as in a URL path); every
    segment must pass :func:`safe_filename` without replacement and is used in its NFC
    form. Absolute parts, empty segments (``a//b``, a trailing ``/``), ``.``, ``..``
    and ``\\`` are refused rather than interpreted. ``base`` is made absolute
    lexically. With ``resolve_symlinks=True`` the result is resolved on disk and
    refused if a symlink leads out of the resolved base; the resolved path is
    returned. Checking and opening are still two steps: a symlink created in between
    is not seen.

    >>> safe_join("/srv/files", "reports/2024/Q1.pdf").as_posix()
    '/srv/files/reports/2024/Q1.pdf'

    Raises:
        UnsafePathError: a part is unsafe or the result escapes ``base``.
        TypeError: a part is neither str nor bytes.
        ValueError: an unknown ``platform``.
    """
    from pathlib import Path  # see the import at the top

    check_platform(platform)
    root = Path(os.path.abspath(base))
    names: list[str] = []
    for part in parts:
        text = part if isinstance(part, str) else _decode(_as_bytes(part), None)
        if text.startswith("/"):
            raise UnsafePathError(PathKind.ABSOLUTE, "absolute at characters [0, 1)")
        names += (safe_filename(seg, platform=platform) for seg in text.split("/"))
    joined = root.joinpath(*names)
    # Fail closed if pathlib ever reads a drive or root into a checked name.
    if not joined.is_relative_to(root):  # pragma: no cover - no name reaches it
        raise UnsafePathError(
            PathKind.OUTSIDE_BASE, "outside_base: the joined path leaves the base"
        )
    if not resolve_symlinks:
        return joined
    real = joined.resolve()
    if not real.is_relative_to(root.resolve()):
        raise UnsafePathError(
            PathKind.SYMLINK_ESCAPE,
            "symlink_escape: a symlink leads out of the resolved base",
        )
    return real


def _text_and_offsets(path: object) -> tuple[str, list[int], list[PathViolation]]:
    """Decoded text, the input offset of each character (plus the end), and the
    violations of the UTF-8 layer (bytes input only)."""
    if isinstance(path, str):
        return path, list(range(len(path) + 1)), []
    data = _as_bytes(path)
    found = [
        PathViolation(PathKind(v.kind.value), v.start, v.end)
        for v in iter_violations(data, WELL_FORMED)
    ]
    # surrogateescape keeps one character per undecodable byte, so offsets stay exact.
    text = data.decode("utf-8", "surrogateescape")
    offsets = [0]
    for ch in text:
        offsets.append(offsets[-1] + utf8_length(ch))
    return text, offsets, found


def _segments(text: str, pos: int) -> Iterator[tuple[int, int]]:
    while True:
        end = text.find("/", pos)
        if end < 0:
            yield pos, len(text)
            return
        yield pos, end
        pos = end + 1


def check_path(
    path: str | BytesLike,
    policy: Policy = IDENTIFIER,
    *,
    platform: Platform = "universal",
    max_bytes: int = MAX_NAME_BYTES,
) -> list[PathViolation]:
    """Every problem in a relative ``/``-separated path, in order; ``[]`` if safe.

    Each segment is checked by the rules of :func:`safe_filename` and must also be
    NFC (kind ``not_nfc``); a leading ``/`` is ``absolute`` and an empty segment is
    ``empty``. Bytes are checked as strict UTF-8 first, with each maximal subpart
    reported once. ``policy`` picks the code-point classes refused on top of the path
    rules (NUL and other controls, bidi controls and invisible characters are always
    refused in names); the default is :data:`~utf8guard.IDENTIFIER`.

    >>> [v.kind.value for v in check_path("docs/../CON")]
    ['dot_name', 'reserved_name']

    Raises:
        TypeError: ``path`` is neither str nor bytes.
        ValueError: ``max_bytes < 1`` or an unknown ``platform``.
    """
    _check_limits(max_bytes, platform)
    text, offsets, found = _text_and_offsets(path)
    escaped = not isinstance(path, str)
    absolute = text.startswith("/")
    if absolute:
        found.append(PathViolation(PathKind.ABSOLUTE, 0, offsets[1]))
    for start, end in _segments(text, int(absolute)):
        segment = text[start:end]
        spans = [
            (kind, index, index + 1)
            for kind, index in char_violations(segment, policy, platform)
            # From bytes, a lone surrogate is an undecodable byte reported above.
            if not (escaped and kind is PathKind.SURROGATE)
        ]
        spans += name_violations(segment, platform, max_bytes)
        if not unicodedata.is_normalized("NFC", segment):
            spans.append((PathKind.NOT_NFC, 0, len(segment)))
        found += (
            PathViolation(kind, offsets[start + lo], offsets[start + hi])
            for kind, lo, hi in spans
        )
    return sorted(found, key=lambda v: (v.start, v.end))
