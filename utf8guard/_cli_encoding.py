"""Other encodings behind invalid UTF-8: the ``check`` hint and ``repair --from``.

A stream is cut into pieces: valid text, code points the policy refuses, and
ill-formed *stretches* (adjacent maximal subparts, Unicode ch. 3 Table 3-7). The
commonest invalid UTF-8 is a legacy single-byte encoding ("Höhe" saved as
ISO-8859-1 is ``48 F6 68 65``: F6 is a stretch of its own), so re-reading only the
stretches in that encoding repairs a file that mixes UTF-8 and Latin-1.

That holds only where a byte decodes on its own: single-byte encodings and CESU-8
(whose stretches are whole surrogate halves). A stretch of UTF-16 or Shift_JIS is cut
out of its neighbours, so re-reading it alone gives mojibake; such an encoding
converts the whole input instead, strictly, as ``iconv -f`` does.
"""

from __future__ import annotations

import codecs
import itertools
from enum import Enum

from ._policy import WELL_FORMED
from ._record import Record
from ._repair import REPLACEMENT, repair
from ._scan import iter_range, iter_violations
from ._stream import _segments
from ._violation import ILL_FORMED

# Only mypy needs these (issue 28: a command's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import BinaryIO, Final

    from ._policy import Policy
    from ._scan import BytesLike

__all__ = [
    "CESU8",
    "ConversionError",
    "Tally",
    "bomless_utf16",
    "converted",
    "encoding_problem",
    "guess",
    "reads_alone",
    "repaired",
]

#: A longer stretch is handed on in parts, so memory stays bounded.
MAX_STRETCH_BYTES: Final = 1 << 16
#: Unicode Technical Report #26; Python has no codec of that name.
CESU8: Final = "cesu-8"
#: Punctuation and symbols common in Western European text, as cp1252 bytes
#: (letters aside): what a lone high byte of ISO-8859-1 or cp1252 text is likely
#: to be. 80..9B: euro sign, low and curly quotes, ellipsis, daggers, per mille,
#: angle quotes, bullet, dashes, trade mark; A1..F7: inverted marks, currency,
#: section, copyright, guillemets, registered, degree, plus-minus, superscripts,
#: micro, pilcrow, middle dot, fractions, multiplication and division signs. Bytes,
#: not their text: decoding them at import would load the cp1252 codec (1 M
#: instructions of every command, issue 28).
CP1252_SYMBOLS: Final = frozenset(
    b"\x80\x82\x84\x85\x86\x87\x89\x8b\x91\x92\x93\x94\x95\x96\x97\x99"
    b"\x9b\xa1\xa2\xa3\xa5\xa7\xa9\xab\xae\xb0\xb1\xb2\xb3\xb4\xb5\xb6"
    b"\xb7\xb9\xbb\xbc\xbd\xbe\xbf\xd7\xf7"
)
#: Python's names of UTF-8: ``--from`` them would re-read nothing.
UTF8_NAMES: Final = frozenset({"utf-8", "utf-8-sig"})
#: An error message shows at most this many of the offending bytes.
MAX_SNIPPET_BYTES: Final = 8
#: A NUL on both sides of these first bytes rules UTF-16 out without reading more.
QUICK_LOOK_BYTES: Final = 64
#: How many leading bytes decide whether a file looks like UTF-16 by its NULs.
SNIFF_BYTES: Final = 8192


class Part(Enum):
    TEXT = "text"  # valid under the policy: kept as it is
    REFUSED = "refused"  # well-formed, refused by the policy: one U+FFFD
    ILL_FORMED = "ill_formed"  # a stretch of maximal subparts


class Piece(Record):
    part: Part
    data: bytes
    subparts: int  # violations in data: what plain repair writes U+FFFD for


def iter_pieces(chunks: Iterable[BytesLike], policy: Policy) -> Iterator[Piece]:
    """The stream as consecutive pieces; joining their data gives it back."""
    stretch = _Stretch()
    for buf, start, end, _ in _segments(chunks):
        pos = start
        for violation in iter_range(buf, start, end, policy):
            if violation.start > pos:
                yield from stretch.flush()
                yield Piece(Part.TEXT, bytes(buf[pos : violation.start]), 0)
            data = bytes(buf[violation.start : violation.end])
            if violation.kind in ILL_FORMED:
                yield from stretch.add(data)
            else:
                yield from stretch.flush()
                yield Piece(Part.REFUSED, data, 1)
            pos = violation.end
        if end > pos:
            yield from stretch.flush()
            yield Piece(Part.TEXT, bytes(buf[pos:end]), 0)
    yield from stretch.flush()


class _Stretch:
    def __init__(self) -> None:
        self._data = bytearray()
        self._subparts = 0

    def add(self, data: bytes) -> Iterator[Piece]:
        if len(self._data) + len(data) > MAX_STRETCH_BYTES:
            yield from self.flush()
        self._data += data
        self._subparts += 1

    def flush(self) -> Iterator[Piece]:
        if self._subparts:
            yield Piece(Part.ILL_FORMED, bytes(self._data), self._subparts)
            self._data.clear()
            self._subparts = 0


def encoding_problem(name: str) -> str | None:
    """Why ``--from name`` cannot be used, or None."""
    if _is_cesu8(name):
        return None
    try:
        b"\x00".decode(name)  # b"" would be decoded without looking the codec up
    except LookupError:  # unknown, or not bytes-to-text (rot13, hex)
        return f"--from: {name!r} is not a text encoding Python knows"
    except UnicodeError:  # a text encoding in which a lone NUL is not valid
        pass
    if codecs.lookup(name).name in UTF8_NAMES:
        return (
            f"--from {name}: the invalid bytes are not UTF-8 by definition; "
            "name the encoding they were written in (cp1252, latin-1, ...)"
        )
    return None


def reads_alone(name: str) -> bool:
    """Whether a stretch in ``name`` can be re-read by itself: CESU-8, or an
    encoding in which every byte decodes at once, without state (single-byte).

    A multibyte decoder holds a lead byte back (Shift_JIS 82, a UTF-16 code unit's
    first byte), a stateful one changes state (ISO-2022's ESC): neither qualifies.
    """
    if _is_cesu8(name):
        return True
    for byte in range(0x100):
        decoder = codecs.getincrementaldecoder(name)()
        state = decoder.getstate()
        try:
            if decoder.decode(bytes([byte])) == "" or decoder.getstate() != state:
                return False
        except UnicodeError:  # a byte the encoding does not use: fine alone
            continue
    return True


class ConversionError(ValueError):
    """The input is not valid in the encoding it is converted from."""


def decode_stretch(data: bytes, encoding: str) -> str:
    """``data`` read as ``encoding`` (or CESU-8).

    Raises:
        UnicodeError: ``data`` is not valid in ``encoding``.
    """
    if not _is_cesu8(encoding):
        return data.decode(encoding)
    # TR #26: a supplementary character is its UTF-16 surrogate pair, each half
    # encoded like a BMP code point (ED A0..AF xx, then ED B0..BF xx). Decoding the
    # halves, then pairing them as UTF-16 refuses a lone or reversed half.
    units = data.decode("utf-8", "surrogatepass")
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def _is_cesu8(name: str) -> bool:
    return name.lower().replace("_", "-") in (CESU8, "cesu8")


class Tally:
    """What ``repair`` did to one input (counted as it goes: not a ``Record``)."""

    __slots__ = ("converted", "recoded", "replaced")

    def __init__(self) -> None:
        self.recoded = 0  # stretches re-read in the --from encoding
        self.replaced = 0  # U+FFFD written
        self.converted = False  # the whole input decoded from the --from encoding


def repaired(
    chunks: Iterable[BytesLike], policy: Policy, encoding: str | None, tally: Tally
) -> Iterator[bytes]:
    """The stream repaired: one U+FFFD per violation, except that with ``encoding``
    each ill-formed stretch that decodes in it is written as that text instead.

    An encoding that does not :func:`reads_alone` converts the whole stream
    instead (:func:`converted`).

    The result is valid under ``policy``: re-read text the policy refuses is
    repaired in turn.

    Raises:
        ConversionError: the stream is not valid in a whole-stream ``encoding``.
    """
    if encoding is not None and not reads_alone(encoding):
        tally.converted = True
        yield from repaired(converted(chunks, encoding), policy, None, tally)
        return
    for piece in iter_pieces(chunks, policy):
        if piece.part is Part.TEXT:
            yield piece.data
        elif encoding is None or piece.part is Part.REFUSED:
            tally.replaced += piece.subparts
            yield REPLACEMENT * piece.subparts
        else:
            yield _recode(piece, encoding, policy, tally)


def converted(chunks: Iterable[BytesLike], encoding: str) -> Iterator[bytes]:
    """The stream decoded from ``encoding`` as a whole, strictly, as UTF-8.

    Raises:
        ConversionError: at the first byte that is not valid in ``encoding``.
    """
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    fed = 0  # bytes given to the decoder before this chunk
    for chunk, final in itertools.chain(((c, False) for c in chunks), [(b"", True)]):
        try:
            text = decoder.decode(chunk, final)
        except UnicodeDecodeError as exc:
            # The decoder's error is about what it held back plus this chunk.
            start = fed + len(chunk) - len(exc.object) + exc.start
            snippet = bytes(exc.object[exc.start : exc.end][:MAX_SNIPPET_BYTES])
            raise ConversionError(
                f"not {encoding} at byte {start} ({snippet.hex(' ').upper()}): "
                f"{exc.reason}"
            ) from exc
        fed += len(chunk)
        # A lone surrogate (UTF-7's "+2AA-") reaches repair as bytes it replaces.
        yield text.encode("utf-8", "surrogatepass")


def _recode(piece: Piece, encoding: str, policy: Policy, tally: Tally) -> bytes:
    try:
        text = decode_stretch(piece.data, encoding)
    except UnicodeError:
        tally.replaced += piece.subparts
        return REPLACEMENT * piece.subparts
    tally.recoded += 1
    # Should a codec give a lone surrogate (Python's UTF-7 reads "+2AA-" as U+D800),
    # surrogatepass lets repair see it and replace it, instead of a traceback.
    encoded = text.encode("utf-8", "surrogatepass")
    tally.replaced += sum(1 for _ in iter_violations(encoded, policy))
    return repair(encoded, policy)


def guess(stream: BinaryIO, origin: int, read_size: int) -> str | None:
    """A hint naming the encoding an invalid file looks like, or None.

    Reads ``stream`` again from ``origin``, where the input began. UTF-16 is judged
    on the whole file (a byte order mark, or NULs in every other byte of the first
    8 KiB, and then the whole file decoding as UTF-16); CESU-8 and cp1252 on the
    ill-formed stretches.
    """
    stream.seek(origin)
    head = stream.read(SNIFF_BYTES)
    chunks = itertools.chain([head], iter(lambda: stream.read(read_size), b""))
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return None  # UTF-32 is not guessed: its BOM would pass for UTF-16's
    if (form := _utf16_form(head)) is not None:
        codec, label, why = form
        if not _decodes(chunks, codec):
            return None
        return f"looks like {why}: convert it whole, e.g. iconv -f {label} -t UTF-8"
    return _guess_from_stretches(
        p.data for p in iter_pieces(chunks, WELL_FORMED) if p.part is Part.ILL_FORMED
    )


def _guess_from_stretches(stretches: Iterable[bytes]) -> str | None:
    """CESU-8 if every stretch is CESU-8, else cp1252 if every one looks like it."""
    seen, cesu8, cp1252 = False, True, True
    for data in stretches:
        seen = True
        cesu8 = cesu8 and _decodes_as(data, CESU8)
        cp1252 = cp1252 and _looks_like_cp1252(data)
        if not (cesu8 or cp1252):
            return None
    if not seen:  # no ill-formed stretch: only code points the policy refuses
        return None
    if cesu8:
        label, name = "CESU-8 (UTF-16 surrogate pairs)", CESU8
    else:
        label, name = "cp1252/Latin-1", "cp1252"
    return f"the invalid bytes look like {label}: utf8guard repair --from {name}"


def _utf16_form(head: bytes) -> tuple[str, str, str] | None:
    """``(codec, iconv name, why)`` when ``head`` looks like the start of UTF-16."""
    # Unicode ch. 23.8 "Byte Order Mark": U+FEFF is FF FE in UTF-16LE, FE FF in BE.
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le", "UTF-16", "UTF-16LE (byte order mark FF FE)"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be", "UTF-16", "UTF-16BE (byte order mark FE FF)"
    if (form := bomless_utf16(head)) is not None:
        return form.lower(), form, f"{form} (a NUL in every other byte)"
    return None


def bomless_utf16(head: bytes) -> str | None:
    """``"UTF-16LE"`` or ``"UTF-16BE"`` when ``head`` looks like UTF-16 without a
    byte order mark: ASCII in UTF-16 is the byte and a NUL, so a NUL in at least a
    quarter of the odd (LE) or even (BE) bytes, and none on the other side."""
    prefix = head[:QUICK_LOOK_BYTES]
    if 0 in prefix[0::2] and 0 in prefix[1::2]:  # most binary files: NULs both sides
        return None
    units = len(head) // 2
    even, odd = head[0 : 2 * units : 2].count(0), head[1 : 2 * units : 2].count(0)
    if units and odd * 4 >= units and even == 0:
        form = "UTF-16LE"
    elif units and even * 4 >= units and odd == 0:
        form = "UTF-16BE"
    else:
        return None
    # Binary data can have the pattern too (00 01 02 03); text is printable.
    text = head[: 2 * units].decode(form, "replace")
    return form if text.translate(_TEXT_SPACE).isprintable() else None


#: Whitespace of plain text that ``str.isprintable`` calls unprintable.
_TEXT_SPACE: Final = str.maketrans("\t\n\r\f", "    ")


def _decodes(chunks: Iterable[bytes], codec: str) -> bool:
    decoder = codecs.getincrementaldecoder(codec)()
    try:
        for chunk in chunks:
            decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _decodes_as(data: bytes, encoding: str) -> bool:
    try:
        decode_stretch(data, encoding)
    except UnicodeError:
        return False
    return True


def _looks_like_cp1252(data: bytes) -> bool:
    """A stretch that reads as Latin text in cp1252: a letter or a common symbol
    alone, or letters only ("üß"). ``C0 AF`` ("À¯", an overlong "/") does not."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:  # 81, 8D, 8F, 90, 9D are unassigned in cp1252
        return False
    # One byte is one character in cp1252.
    return text.isalpha() or (len(data) == 1 and data[0] in CP1252_SYMBOLS)
