"""The names a multipart part gives: its field ``name`` and a file's ``filename``.

RFC 7578 §4.2: ``name`` and ``filename`` are Content-Disposition parameters; a
``name*`` or ``filename*`` carries an RFC 8187 ext-value. Each is read as the
frameworks read it and refused when a reading is not a safe name.
"""

from __future__ import annotations

import sys

from ..._lazy_pattern import lazy_pattern
from ..._pathrules import (
    TYPOGRAPHIC_DOTS,
    PathKind,
    char_violations,
    name_violations,
)
from ..._policy import Policy
from ..._scan import find_violation
from ..._violation import Kind
from ...paths import MAX_NAME_BYTES
from ..engine._finding import RequestKind
from ..head._percent import percent_decode
from ._mediatype import UTF8_CHARSET_NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final, NamedTuple

    from ..._pathrules import Platform

    #: What a rule says of one reading of a name: why it is refused, or None.
    Judge = Callable[[bytes], Kind | PathKind | None]
else:
    from ..._named_tuple import NamedTuple

__all__ = ["NameRefusal", "filename_refusal", "name_refusal"]

#: A part's disposition parameters: lower-case name -> (offset, value).
Params = dict[str, tuple[int, bytes]]
#: Issue 26: by default an upload name is refused only for what is unsafe or
#: deceptive on every platform, so the POSIX set (separators, dot names, controls,
#: bidi and default-ignorable characters, look-alikes) and no length limit: the
#: header block's limit bounds a name. ``windows_upload_names`` adds Windows's
#: reserved characters, device names, trailing dots and spaces, and the 255-byte
#: limit, for an app that saves under the client's name; storing a name safely is
#: ``utf8guard.paths.safe_filename``'s job either way.
NAME_PLATFORM: Final[Platform] = "posix"
WINDOWS_NAME_PLATFORM: Final[Platform] = "universal"
#: HTML §13.2.5.73-80: a numeric character reference, "&#" digits or "&#x" hex digits.
_NUMERIC_REFERENCE: Final = lazy_pattern(r"&#(?:[xX]([0-9A-Fa-f]+)|([0-9]+))")


class NameRefusal(NamedTuple):
    """Why a name parameter is refused, and the parameter's offset in the block."""

    kind: Kind | RequestKind | PathKind
    at: int


def _extended_value(raw: bytes) -> bytes | RequestKind:
    """An RFC 8187 §3.2.1 ext-value, percent-decoded; refused unless UTF-8 or ASCII.

    ext-value = charset "'" [ language ] "'" value-chars
    """
    charset, _, rest = raw.partition(b"'")
    _, quote, value = rest.partition(b"'")
    if not quote or charset.decode("latin-1").lower() not in UTF8_CHARSET_NAMES:
        return RequestKind.UNSUPPORTED_CHARSET
    decoded = percent_decode(value)
    if decoded.errors:
        return decoded.errors[0][0]
    return decoded.data


def _escaped_refusal(value: bytes, refused: Judge) -> Kind | PathKind | None:
    """What ``refused`` says of ``value`` percent-decoded as Litestar and Sanic read a
    part's names; None when that reading is ``value`` itself (no escape: most names).

    HTML's form encoding (WHATWG, "multipart/form-data encoding algorithm") writes
    ``"``, CR and LF in names as ``%22``, ``%0D`` and ``%0A``; those frameworks undo
    every ``%XX``, so ``a%0D%0Aevil.txt`` reaches the app with a line break (issue 25
    R6). An escape that is not one (``100%.pdf``) stays as written, as they keep it.
    """
    if b"%" not in value:
        return None
    from urllib.parse import unquote_to_bytes  # with re: at the first "%" (issue 28)

    decoded = unquote_to_bytes(value)
    return None if decoded == value else refused(decoded)


def name_refusal(params: Params, policy: Policy) -> NameRefusal | None:
    """A refusal in ``name``'s percent-decoded reading or in ``name*`` (F5:
    ``name*=utf-7''...`` is ``<script>`` to Django)."""

    def refused(value: bytes) -> Kind | None:
        found = find_violation(value, policy)
        return None if found is None else found.kind

    if "name" in params:
        at, plain = params["name"]
        kind = _escaped_refusal(plain, refused)
        if kind is not None:
            return NameRefusal(kind, at)
    return _extended_refusal(params, "name*", refused)


def filename_refusal(
    params: Params, policy: Policy, *, windows: bool = False
) -> NameRefusal | None:
    """The first refusal in ``filename`` or ``filename*``, and that parameter's offset.

    Findings point at the parameter, not into its value: the value may be quoted or
    percent-encoded, and the parameter is what a reader looks for. ``windows``: the
    Windows name rules apply too (see :data:`NAME_PLATFORM`).
    """

    def unsafe(name: bytes) -> Kind | PathKind | None:
        return _unsafe_name(name, policy=policy, windows=windows)

    if "filename" in params:
        at, plain = params["filename"]
        # Werkzeug turns %22 into a quote (HTML's escape for one), the others keep
        # it: check the reading with the quote (Windows's rules refuse it).
        quoted = plain.replace(b"%22", b'"')
        refused = unsafe(quoted)
        if refused is not None:
            return NameRefusal(refused, at)
        # Django reads HTML character references in a filename (&#47; is "/",
        # &#x2215; a slash look-alike): its reading gets the same rules, unless it
        # is the name just checked (no "&" and no "%22": most names).
        text = plain.decode()
        try:
            unescaped = _html_unescape(text).encode()
        except ValueError:
            # A decimal reference past int()'s digit limit (CVE-2020-10735):
            # html.unescape raises, so Django's reading of the name fails (500).
            return NameRefusal(Kind.OUT_OF_RANGE, at)
        if unescaped != quoted:
            refused = _reference_refusal(text) or unsafe(unescaped)
            if refused is not None:
                return NameRefusal(refused, at)
        refused = _escaped_refusal(plain, unsafe)
        if refused is not None:
            return NameRefusal(refused, at)
    return _extended_refusal(params, "filename*", unsafe)


def _extended_refusal(params: Params, key: str, refused: Judge) -> NameRefusal | None:
    """The refusal of extended parameter ``key`` (RFC 8187), if given: of its
    charset or escapes, else what ``refused`` says of its value."""
    if key not in params:
        return None
    at, extended = params[key]
    value = _extended_value(extended)
    kind = value if isinstance(value, RequestKind) else refused(value)
    return None if kind is None else NameRefusal(kind, at)


def _reference_refusal(text: str) -> Kind | None:
    """A numeric character reference in ``text`` to no character, as its kind.

    HTML §13.2.5.80: a reference to NUL, a surrogate or past U+10FFFF is read as
    U+FFFD (``html.unescape``, Django's filename reading), a name never sent.
    """
    for match in _NUMERIC_REFERENCE.finditer(text):
        hexadecimal, decimal = match.groups()
        # Nine significant digits are past U+10FFFF already: int() reads no more.
        digits = (hexadecimal or decimal).lstrip("0")[:9] or "0"
        number = int(digits, 16 if hexadecimal else 10)
        if number == 0:
            return Kind.NUL
        if 0xD800 <= number <= 0xDFFF:
            return Kind.SURROGATE
        if number > 0x10FFFF:
            return Kind.OUT_OF_RANGE
    return None


def _html_unescape(text: str) -> str:
    """``html.unescape(text)``: ``html`` (with ``re``) imported for a name with "&"
    only, as without one it returns ``text`` itself (issue 28)."""
    if "&" not in text:
        return text
    import html

    return html.unescape(text)


def _unsafe_name(value: bytes, policy: Policy, windows: bool) -> Kind | PathKind | None:
    """Why ``value`` is unsafe as a file name, by the rules of :mod:`utf8guard.paths`.

    Issue 11 item 6: one home for "unsafe in a name". A filename is one component:
    separators (``../x``, ``/etc/passwd``, old IE's ``C:\\fakepath\\a.txt``) are
    refused, not reduced to a base name as each parser does its own way. Windows
    rules only when ``windows`` (see :data:`NAME_PLATFORM`). Allowed: the empty name
    (an empty file input), names not in NFC (macOS file names are often NFD), and
    the typographic dots of :data:`TYPOGRAPHIC_DOTS` (``Wait….txt``).
    """
    found = find_violation(value, policy)
    if found is not None:
        return found.kind
    text = value.decode()
    platform = WINDOWS_NAME_PLATFORM if windows else NAME_PLATFORM
    for kind, index in char_violations(text, policy, platform):
        if kind is not PathKind.LOOKALIKE or text[index] not in TYPOGRAPHIC_DOTS:
            return kind
    max_bytes = MAX_NAME_BYTES if windows else sys.maxsize
    for kind, _, _ in name_violations(text, platform, max_bytes):
        if kind is not PathKind.EMPTY:
            return kind
    return None
