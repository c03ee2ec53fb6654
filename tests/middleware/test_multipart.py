"""multipart/form-data (RFC 7578, RFC 2046 §5.1): every rule, at every chunk split."""

from __future__ import annotations

import html
import itertools
import sys
import unicodedata
from urllib.parse import quote, unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from utf8guard import STRICT, reference
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._multipart import MAX_KEPT_FINDINGS, MultipartInspector
from utf8guard.middleware.body._multipart_block import MAX_PART_HEADER_BYTES
from utf8guard.middleware.body._multipart_names import filename_refusal, name_refusal
from utf8guard.middleware.engine._config import MAX_MULTIPART_PARTS
from utf8guard.middleware.engine._engine import MAX_FINDINGS
from utf8guard.middleware.engine._finding import Finding
from utf8guard.paths import UnsafePathError, safe_filename

from ._inspection import run, splits

CONFIG = GuardConfig()


def multipart(*parts: bytes, boundary: bytes = b"XyZ") -> bytes:
    body = b"".join(b"--" + boundary + b"\r\n" + part + b"\r\n" for part in parts)
    return body + b"--" + boundary + b"--\r\n"


def field(name: bytes, value: bytes, extra: bytes = b"") -> bytes:
    return (
        b'Content-Disposition: form-data; name="'
        + name
        + b'"'
        + extra
        + b"\r\n\r\n"
        + value
    )


MULTIPART_CASES = [
    ("valid", multipart(field(b"a", "ä€𝄞".encode()), field(b"b", b"2")), []),
    ("bad-text-part", multipart(field(b"a", b"x\xc0\xafy")), [("a", "overlong", 52)]),
    (
        "binary-part-passes",
        multipart(
            field(b"f", b"\xff\xfe", b'; filename="a.bin"\r\nContent-Type: image/png')
        ),
        [],
    ),
    (
        "json-part",
        multipart(field(b"j", b'"\\ud800"', b"\r\nContent-Type: application/json")),
        [("j", "json_surrogate_escape", 84)],
    ),
    ("bad-part-name", multipart(field(b"\xc0\xaf", b"1")), [(None, "overlong", 45)]),
    (
        "filename-rlo",
        multipart(field(b"f", b"x", '; filename="\u202etxt.exe"'.encode())),
        [("f", "bidi_control", 49)],
    ),
    (
        "filename-star-ok",
        multipart(field(b"f", b"x", b"; filename*=UTF-8''%C3%A4.txt")),
        [],
    ),
    (
        "filename-star-overlong",
        multipart(field(b"f", b"x", b"; filename*=UTF-8''%C0%AF")),
        [("f", "overlong", 49)],
    ),
    (
        "filename-star-bad-escape",
        multipart(field(b"f", b"x", b"; filename*=utf-8''%G0")),
        [("f", "malformed_escape", 49)],
    ),
    (
        "filename-star-latin1",
        multipart(field(b"f", b"x", b"; filename*=iso-8859-1''%E4")),
        [("f", "unsupported_charset", 49)],
    ),
    (
        # RFC 8187 §3.2.1: an ext-value names a registered charset, no alias.
        "filename-star-alias",
        multipart(field(b"f", b"x", b"; filename*=utf8''a.txt")),
        [("f", "unsupported_charset", 49)],
    ),
    (
        "filename-star-ascii",
        multipart(field(b"f", b"x", b"; filename*=US-ASCII''a.txt")),
        [],
    ),
    (
        "part-charset",
        multipart(field(b"f", b"x", b"\r\nContent-Type: text/plain; charset=utf-16")),
        [("f", "unsupported_charset", 7)],
    ),
    (
        # RFC 9110 §5.6.4 reads "utf-8"; python-multipart (Starlette decodes the
        # field with it) and Django keep the backslash
        "part-charset-quoted-pair",
        multipart(
            field(b"f", b"x", b'\r\nContent-Type: text/plain; charset="utf\\-8"')
        ),
        [("f", "malformed_multipart", 7)],
    ),
    (
        "part-base64",
        multipart(field(b"f", b"wK8=", b"\r\nContent-Transfer-Encoding: base64")),
        [("f", "unsupported_content_encoding", 7)],
    ),
    (
        "part-8bit",
        multipart(field(b"f", b"\xc3\xa4", b"\r\nContent-Transfer-Encoding: 8BIT")),
        [],
    ),
    ("no-headers", multipart(b"\r\nvalue"), [(None, "malformed_multipart", 7)]),
    (
        "unterminated",
        b"--XyZ\r\n" + field(b"a", b"1"),
        [(None, "malformed_multipart", 52)],
    ),
    ("empty", b"", [(None, "malformed_multipart", 0)]),
    (
        "header-no-colon",
        multipart(b"oops\r\n\r\nx"),
        [(None, "malformed_multipart", 7)],
    ),
    (
        "no-disposition",
        multipart(b"Content-Type: text/plain\r\n\r\nx"),
        [(None, "malformed_multipart", 7)],
    ),
    (
        "bad-part-type",
        multipart(field(b"a", b"x", b"\r\nContent-Type: nonsense")),
        [("a", "malformed_multipart", 7)],
    ),
]


VALUE = field(b"a", b"1")
BINARY = field(b"f", b"%s", b'; filename="a.bin"\r\nContent-Type: image/png')

# RFC 2046 §5.1.1: multipart-body := [preamble CRLF] dash-boundary transport-padding
# CRLF body-part *encapsulation close-delimiter transport-padding [CRLF epilogue];
# the guard keeps only what every parser reads alike (see RequestKind).
FRAMING_CASES = [
    ("leading-crlf", b"\r\n" + multipart(VALUE), []),
    ("no-final-crlf", multipart(VALUE)[:-2], []),
    ("preamble", b"junk\xff\r\n" + multipart(VALUE), [(None, "multipart_preamble", 0)]),
    # F3a: python-multipart skips from a leading LF to the first "-"
    (
        "preamble-lf-junk",
        b"\nJUNK" + multipart(VALUE),
        [(None, "multipart_preamble", 0)],
    ),
    # F3b: Django finds the boundary anywhere
    ("preamble-junk", b"JUNK" + multipart(VALUE), [(None, "multipart_preamble", 0)]),
    ("preamble-lf", b"\n" + multipart(VALUE), [(None, "multipart_preamble", 0)]),
    ("preamble-cr", b"\r-" + multipart(VALUE), [(None, "multipart_preamble", 0)]),
    (
        "preamble-crlf-crlf",
        b"\r\n\r\n" + multipart(VALUE),
        [(None, "multipart_preamble", 0)],
    ),
    (
        "other-boundary",
        multipart(VALUE, boundary=b"XyW"),
        [(None, "multipart_preamble", 0)],
    ),
    # Content before a stray boundary is checked before the boundary refuses the
    # body, so the findings are the same however the body is split (fuzz_wsgi found
    # the whole body reporting only the boundary, a trickled one the byte first).
    (
        "invalid-content-then-boundary-in-part",
        multipart(field(b"a", b"caf\xff x--XyZ y")),
        [("a", "invalid_byte", 54), (None, "multipart_boundary_in_part", 57)],
    ),
    (
        "invalid-content-then-bare-cr-boundary",
        multipart(field(b"a", b"caf\xff x\r--XyZ y")),
        [("a", "invalid_byte", 54), (None, "multipart_bare_line_break", 57)],
    ),
    (
        "boundary-in-binary-part",
        multipart(BINARY.replace(b"%s", b"x--XyZ\r\n" + VALUE)),
        [(None, "multipart_boundary_in_part", 95)],
    ),
    (
        "boundary-prefix-in-binary-part",
        multipart(BINARY.replace(b"%s", b"\r\n--XyZx")),
        [(None, "multipart_boundary_in_part", 96)],
    ),
    (
        "boundary-after-headers",
        b"--XyZ\r\n" + VALUE[:-1] + b"--XyZ--",
        [(None, "multipart_boundary_in_part", 51)],
    ),
    (
        "padding-after-delimiter",
        b"--XyZ \t\r\n" + VALUE + b"\r\n--XyZ--",
        [(None, "multipart_boundary_in_part", 0)],
    ),
    (
        "padding-after-close",
        multipart(VALUE)[:-2] + b" ",
        [(None, "multipart_epilogue", 61)],
    ),
    (
        "garbage-after-delimiter",
        b"--XyZx\r\n" + VALUE,
        [(None, "multipart_boundary_in_part", 0)],
    ),
    (
        "padded-delimiter-in-part",
        b"--XyZ\r\n" + VALUE + b"\r\n--XyZ \r\n" + VALUE + b"\r\n--XyZ--",
        [(None, "multipart_boundary_in_part", 54)],
    ),
    ("close-one-dash", b"--XyZ-\r\n", [(None, "multipart_boundary_in_part", 0)]),
    # F3e: Werkzeug splits at LF (or CR) line breaks, python-multipart only at CRLF
    ("lf-after-boundary", b"--XyZ\n" + VALUE, [(None, "multipart_bare_line_break", 5)]),
    ("cr-after-boundary", b"--XyZ\r" + VALUE, [(None, "multipart_bare_line_break", 5)]),
    (
        "lf-before-delimiter",
        b"--XyZ\r\n" + VALUE + b"\n--XyZ--",
        [(None, "multipart_bare_line_break", 52)],
    ),
    (
        "cr-before-delimiter",
        b"--XyZ\r\n" + VALUE + b"\r--XyZ--",
        [(None, "multipart_bare_line_break", 52)],
    ),
    (
        "lf-before-delimiter-empty-part",
        b"--XyZ\r\n" + VALUE[:-1] + b"\n--XyZ--",
        [(None, "multipart_bare_line_break", 51)],
    ),
    ("epilogue", multipart(VALUE) + b"\xff", [(None, "multipart_epilogue", 61)]),
    (
        "epilogue-crlf-crlf",
        multipart(VALUE) + b"\r\n",
        [(None, "multipart_epilogue", 61)],
    ),
    ("epilogue-cr", multipart(VALUE)[:-1], [(None, "multipart_epilogue", 61)]),
    ("epilogue-lf", multipart(VALUE)[:-2] + b"\n", [(None, "multipart_epilogue", 61)]),
    (
        "epilogue-part",
        multipart(VALUE) + b"--XyZ\r\n" + VALUE + b"\r\n--XyZ--",
        [(None, "multipart_epilogue", 61)],
    ),
]

DISPOSITION = b'Content-Disposition: form-data; name="a"'  # 40 bytes, at offset 7


def head(*lines: bytes, value: bytes = b"1") -> bytes:
    """A one-part body whose header block is ``lines``."""
    return multipart(b"\r\n".join(lines) + b"\r\n\r\n" + value)


# RFC 7578 §4.8, RFC 9110 §5.1, RFC 9112 §5.2 (obs-fold), RFC 5322 §2.2 (CRLF).
HEADER_CASES = [
    ("content-type", head(DISPOSITION, b"Content-Type: text/plain"), []),
    (
        # F3d: Werkzeug reads the first, python-multipart and Django the last
        "two-dispositions",
        head(DISPOSITION + b'; filename="x.exe"', DISPOSITION),
        [(None, "multipart_duplicate_header", 67)],
    ),
    (
        "two-types-any-case",
        head(DISPOSITION, b"Content-Type: text/plain", b"content-type: image/png"),
        [(None, "multipart_duplicate_header", 75)],
    ),
    (
        "folded",
        head(b"Content-Disposition: form-data;", b' name="a"'),
        [(None, "multipart_folded_header", 40)],
    ),
    (
        "folded-tab",
        head(DISPOSITION, b"\tfilename=x.exe"),
        [(None, "multipart_folded_header", 49)],
    ),
    (
        "vertical-tab-in-value",
        head(DISPOSITION, b"Content-Type: text/plain\x0b"),
        [(None, "control", 73)],
    ),
    ("nul-in-value", head(DISPOSITION + b"\x00"), [(None, "nul", 47)]),
    ("tab-in-value", head(DISPOSITION + b"\t;\tfilename=a"), []),
    (
        "name-not-token",
        head(DISPOSITION, b"Content Type: text/plain"),
        [(None, "invalid_header_name", 49)],
    ),
    (
        "space-before-colon",
        head(DISPOSITION, b"Content-Type : text/plain"),
        [(None, "invalid_header_name", 49)],
    ),
    # F3e: LF-only header lines
    (
        "lf-headers",
        b"--XyZ\r\n" + DISPOSITION + b"\n\n1\r\n--XyZ--",
        [(None, "multipart_bare_line_break", 47)],
    ),
    (
        "lf-between-lines",
        head(DISPOSITION + b"\nContent-Type: text/plain"),
        [(None, "multipart_bare_line_break", 47)],
    ),
    (
        "cr-between-lines",
        head(DISPOSITION + b"\rContent-Type: text/plain"),
        [(None, "multipart_bare_line_break", 47)],
    ),
    (
        "lf-first",
        b"--XyZ\r\n\n" + DISPOSITION + b"\r\n\r\n1\r\n--XyZ--",
        [(None, "multipart_bare_line_break", 7)],
    ),
    (
        "crlf-cr-before-blank-line",
        b"--XyZ\r\n" + DISPOSITION + b"\r\r\n\r\n1\r\n--XyZ--",
        [(None, "multipart_bare_line_break", 47)],
    ),
    (
        # Django splits the stream at every "--boundary", headers included
        "boundary-in-headers",
        head(b'Content-Disposition: form-data; name="--XyZ"'),
        [(None, "multipart_boundary_in_part", 45)],
    ),
]


def disposition(params: bytes) -> bytes:
    """A one-part body whose disposition has ``params``, the first at offset 49."""
    return multipart(field(b"f", b"x", params))


# RFC 7578 §4.2 (no RFC 2231 encodings), RFC 2231 §3, RFC 9110 §5.6.4.
PARAMETER_CASES = [
    ("quoted-and-token", disposition(b"; filename=a.txt"), []),
    (
        # F3c: Werkzeug and Django join continuations, python-multipart drops them
        "filename-continuation",
        disposition(b"; filename*0=\"shell.php\"; filename*1*=utf-8''%00.jpg"),
        [(None, "multipart_parameter_continuation", 49)],
    ),
    (
        "name-continuation",
        multipart(b"Content-Disposition: form-data; name*0=a; name*1=b\r\n\r\nx"),
        [(None, "multipart_parameter_continuation", 39)],
    ),
    (
        "continuation-with-plain",
        disposition(b'; filename="a.txt"; filename*1="b"'),
        [(None, "multipart_parameter_continuation", 67)],
    ),
    (
        "plain-then-extended",
        disposition(b"; filename=\"a.txt\"; filename*=utf-8''b.exe"),
        [(None, "multipart_ambiguous_parameter", 67)],
    ),
    (
        "extended-then-plain",
        disposition(b"; filename*=utf-8''b.exe; filename=\"a.txt\""),
        [(None, "multipart_ambiguous_parameter", 73)],
    ),
    (
        "name-twice",
        multipart(b'Content-Disposition: form-data; name="a"; NAME="b"\r\n\r\nx'),
        [(None, "multipart_ambiguous_parameter", 49)],
    ),
    (
        "name-and-extended-name",
        disposition(b"; name*=utf-8''g"),
        [(None, "multipart_ambiguous_parameter", 49)],
    ),
    (
        # RFC 9110 reads "..\\x" as "..x"; python-multipart, Werkzeug, Django as "..\\x"
        "backslash-in-filename",
        disposition(b'; filename="..\\..\\etc\\passwd"'),
        [(None, "multipart_ambiguous_parameter", 49)],
    ),
    (
        "escaped-quote-in-name",
        multipart(b'Content-Disposition: form-data; name="a\\"b"\r\n\r\nx'),
        [(None, "multipart_ambiguous_parameter", 39)],
    ),
    (
        "attachment",
        multipart(b'Content-Disposition: attachment; name="a"\r\n\r\nx'),
        [(None, "malformed_multipart", 28)],
    ),
    (
        # Werkzeug reads no filename here, python-multipart and Django "a.png"
        "space-before-equals",
        disposition(b'; filename ="a.png"'),
        [(None, "malformed_multipart", 47)],
    ),
    (
        "space-after-equals",
        disposition(b'; filename= "a.png"'),
        [(None, "malformed_multipart", 47)],
    ),
    ("space-around-semicolon", disposition(b' ;\tfilename="a.png" '), []),
    (
        "unparsable-parameter",
        disposition(b"; filename"),
        [(None, "malformed_multipart", 47)],
    ),
]

NAME_STAR = b"Content-Disposition: form-data; name*="  # the value at offset 39

# Issue 11: one charset, UTF-8, wherever a part can declare one: RFC 8187 ext-values
# (name*, filename*), a part's Content-Type (RFC 7578 §4.4), the _charset_ field
# (HTML §4.10.21.8).
CHARSET_CASES = [
    (
        # valid, but python-multipart ignores name*: a part without a name
        "name-star-utf8",
        multipart(NAME_STAR + b"UTF-8''%C3%A4\r\n\r\nx"),
        [(None, "malformed_multipart", 28)],
    ),
    (
        "no-name",
        multipart(b'Content-Disposition: form-data; filename="a"\r\n\r\nx'),
        [(None, "malformed_multipart", 28)],
    ),
    (
        "empty-name",
        multipart(b'Content-Disposition: form-data; name=""\r\n\r\nx'),
        [(None, "malformed_multipart", 28)],
    ),
    (
        # F5: Django decodes this name as "<script>"
        "name-star-utf7",
        multipart(NAME_STAR + b"utf-7''%2BADw-script%2BAD4-\r\n\r\nx"),
        [(None, "unsupported_charset", 39)],
    ),
    (
        "name-star-no-charset",
        multipart(NAME_STAR + b"''a\r\n\r\nx"),
        [(None, "unsupported_charset", 39)],
    ),
    (
        "name-star-overlong",
        multipart(NAME_STAR + b"utf-8''%C0%AF\r\n\r\nx"),
        [(None, "overlong", 39)],
    ),
    (
        "name-star-bad-escape",
        multipart(NAME_STAR + b"utf-8''%G0\r\n\r\nx"),
        [(None, "malformed_escape", 39)],
    ),
    (
        "binary-part-utf7",
        multipart(
            field(
                b"f", b"x", b'; filename="a"\r\nContent-Type: image/png; charset=utf-7'
            )
        ),
        [("f", "unsupported_charset", 7)],
    ),
    (
        "part-charset-star",
        multipart(
            field(b"f", b"x", b"\r\nContent-Type: text/plain; charset*=utf-8''utf-7")
        ),
        [("f", "unsupported_charset", 7)],
    ),
    (
        # F8: Starlette decoded this field as 'À¯í\xa0\x80'
        "octet-stream-field",
        multipart(
            field(
                b"f",
                b"\xc0\xaf\xed\xa0\x80",
                b"\r\nContent-Type: application/octet-stream",
            )
        ),
        [("f", "overlong", 91)],
    ),
    (
        "image-field",
        multipart(field(b"f", b"\xff", b"\r\nContent-Type: image/png")),
        [("f", "invalid_byte", 76)],
    ),
    (
        # python-multipart ignores filename*: to Starlette this part is a field
        "extended-filename-only",
        multipart(
            field(b"f", b"\xff", b"; filename*=utf-8''a.png\r\nContent-Type: image/png")
        ),
        [("f", "invalid_byte", 100)],
    ),
    (
        "json-field",
        multipart(
            field(b"f", b'"\\ud800"', b"\r\nContent-Type: application/problem+json")
        ),
        [("f", "json_surrogate_escape", 92)],
    ),
    (
        "charset-field-typed-json",
        multipart(field(b"_charset_", b"utf-7", b"\r\nContent-Type: application/json")),
        [("_charset_", "unsupported_charset", 91)],
    ),
    ("charset-field-utf8", multipart(field(b"_charset_", b"UTF-8")), []),
    ("charset-field-ascii", multipart(field(b"_charset_", b"us-ascii")), []),
    (
        "charset-field-utf7",
        multipart(field(b"_charset_", b"utf-7")),
        [("_charset_", "unsupported_charset", 59)],
    ),
    (
        "charset-field-long",
        multipart(field(b"_charset_", b"utf-8" + b" " * 20)),
        [("_charset_", "unsupported_charset", 59)],
    ),
    # Not UTF-8, and no charset name (HTML §4.10.21.8 names are ASCII): both.
    (
        "charset-field-invalid",
        multipart(field(b"_charset_", b"utf-8\xff")),
        [("_charset_", "unsupported_charset", 59), ("_charset_", "invalid_byte", 64)],
    ),
    (
        "charset-field-truncated",
        multipart(field(b"_charset_", b"utf-8\xe2\x82")),
        [("_charset_", "unsupported_charset", 59), ("_charset_", "truncated", 64)],
    ),
    (
        "charset-field-long-invalid",
        multipart(field(b"_charset_", b"x" * 20 + b"\xff")),
        [("_charset_", "unsupported_charset", 59), ("_charset_", "invalid_byte", 79)],
    ),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        case[1:]
        for case in MULTIPART_CASES
        + FRAMING_CASES
        + HEADER_CASES
        + PARAMETER_CASES
        + CHARSET_CASES
    ],
    ids=[
        case[0]
        for case in MULTIPART_CASES
        + FRAMING_CASES
        + HEADER_CASES
        + PARAMETER_CASES
        + CHARSET_CASES
    ],
)
def test_multipart_every_split(
    data: bytes, expected: list[tuple[str | None, str, int]]
) -> None:
    for chunks in splits(data):
        inspector = MultipartInspector(b"XyZ", CONFIG)
        findings: list[Finding] = []
        for chunk in chunks:
            findings += inspector.feed(chunk)
        findings += inspector.finish()
        got = [(f.name, f.kind.value, f.offset) for f in findings]
        assert got == expected, chunks


def test_multipart_limits() -> None:
    big_headers = MultipartInspector(b"XyZ", CONFIG)
    assert run(big_headers, [b"--XyZ\r\n" + b"a" * 20000]) == [
        ("malformed_multipart", 7)
    ]
    # The same whole: the limit does not depend on how the block arrives.
    padding = b"Content-Type: text/plain; p=" + b"p" * (
        MAX_PART_HEADER_BYTES - len(DISPOSITION) - 30
    )
    fits = head(DISPOSITION, padding)
    end = fits.index(b"\r\n\r\n")
    for chunks in (
        [fits],
        [fits[:end], fits[end:]],
        [fits[: end + 3], fits[end + 3 :]],
    ):
        assert run(MultipartInspector(b"XyZ", CONFIG), chunks) == []
    over = head(DISPOSITION, padding + b"p")
    for chunks in ([over], [over[:100], over[100:]]):
        inspector = MultipartInspector(b"XyZ", CONFIG)
        assert run(inspector, chunks) == [("malformed_multipart", 7)]


def test_multipart_part_limit_is_werkzeugs() -> None:
    # Werkzeug's max_form_parts and Starlette's and Django's field limits: a form
    # the application's own parser takes by default passes the guard.
    assert GuardConfig().max_multipart_parts == MAX_MULTIPART_PARTS == 1000
    parts = [field(b"a%d" % i, b"x") for i in range(MAX_MULTIPART_PARTS + 1)]
    at_limit = multipart(*parts[:-1])
    assert run(MultipartInspector(b"XyZ", CONFIG), [at_limit]) == []
    over = multipart(*parts)
    # Refused where the part too many opens: at its delimiter, the last but one.
    last_part = over.rindex(b"--XyZ\r\n")
    assert run(MultipartInspector(b"XyZ", CONFIG), [over]) == [
        ("multipart_too_many_parts", last_part)
    ]


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_multipart_part_limit_at_every_split(limit: int) -> None:
    config = GuardConfig(max_multipart_parts=limit)
    parts = [
        field(b"a", b"x"),
        field(b"f", b"\xff", b'; filename="a.bin"\r\nContent-Type: image/png'),
        field(b"b", b"\r\n--XyY\r\n"),  # a near delimiter inside content
        field(b"c", b""),
    ]
    body = multipart(*parts)
    # RFC 2046 §5.1.1: each part opens with its own delimiter line, found here by
    # position, independently of the parser; the close delimiter opens none.
    opens = [i for i in range(len(body)) if body.startswith(b"\r\n--XyZ\r\n", i)]
    expected = [("multipart_too_many_parts", opens[limit - 1] + 2)]
    for chunks in splits(body):
        assert run(MultipartInspector(b"XyZ", config), chunks) == expected, chunks
    for chunks in splits(multipart(*parts[:limit])):
        assert run(MultipartInspector(b"XyZ", config), chunks) == [], chunks


def test_multipart_checked_holds_a_possible_delimiter() -> None:
    inspector = MultipartInspector(b"XyZ", CONFIG)
    inspector.feed(multipart(field(b"a", b"1"))[:-10] + b"0123456789")
    # 63 bytes fed; the last 6 could start "\r\n--XyZ", so they wait
    assert inspector.checked == 57


def test_multipart_findings_are_not_fixable() -> None:
    # A part cannot be repaired in place: normalize mode blocks it.
    inspector = MultipartInspector(b"XyZ", CONFIG)
    findings = inspector.feed(multipart(field(b"a", b"\xff")))
    assert [(f.kind.value, f.fixable) for f in findings] == [("invalid_byte", False)]


def test_multipart_charset_field_is_held_until_its_end() -> None:
    inspector = MultipartInspector(b"XyZ", CONFIG)
    inspector.feed(multipart(field(b"_charset_", b"utf-8"))[:-12])
    assert inspector.checked == 59


# Issue 11 item 6: a filename gets the rules of utf8guard.paths.safe_filename, the
# oracle here (with the Windows rules on every host).
FILENAMES = [
    ("plain", "report.pdf"),
    ("german", "Straße.txt"),
    ("chinese", "北京.pdf"),
    ("persian-zwnj", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt"),
    ("emoji-zwj", "\U0001f468\u200d\U0001f4bb.png"),
    ("traversal", "../../etc/passwd"),
    ("dot-dot", ".."),
    ("absolute", "/etc/passwd"),
    ("windows-path", "C:\\fakepath\\a.txt"),
    ("unc", "\\\\server\\share\\a.txt"),
    ("device", "CON"),
    ("device-extension", "nul.tar.gz"),
    ("com-superscript", "COM\u00b9.txt"),
    ("division-slash", "a\u2215b.txt"),
    ("fullwidth-solidus", "a\uff0fb.txt"),
    ("one-dot-leader", "\u2024\u2024"),
    ("rlo", "inv\u202etxt.exe"),
    ("escape", "a\x1b[2J"),
    ("crlf", "a\r\nevil.txt"),
    ("nul", "shell.php\x00.jpg"),
    ("del", "a\x7f.txt"),
    ("c1", "a\x85.txt"),
    ("noncharacter", "a\ufdd0.txt"),
    ("zero-width-space", "a\u200b.txt"),
    ("variation-selector-alone", "\ufe0f.txt"),
    ("trailing-dot", "a.txt."),
    ("trailing-space", "a.txt "),
    ("reserved-character", "a<b>.txt"),
    ("quote", 'a"b.txt'),
    ("long", "a" * 252 + ".txt"),
    # Issue 26: names a macOS or Linux user sends every day; Windows refuses them.
    ("colon", "Meeting 10:30.pdf"),
    ("question-mark", "Q&A?.pdf"),
    ("pipe", "a|b.txt"),
    ("angle-brackets", "<draft>.txt"),
    ("asterisk", "report 2024*.xlsx"),
    ("device-con-txt", "con.txt"),
    ("device-aux-pdf", "AUX.pdf"),
    ("trailing-dot-notes", "notes."),
    ("long-280-bytes", "é" * 138 + ".txt"),
    # UTS #51 emoji sequences (emoji-sequences.txt, emoji-zwj-sequences.txt)
    (
        "flag-scotland",
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f.png",
    ),
    (
        "flag-england",
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    ),
    ("keycap-one", "1\ufe0f\u20e3 intro.txt"),
    ("zwj-family", "\U0001f468\u200d\U0001f469\u200d\U0001f467.jpg"),
    ("zwj-rainbow-flag", "\U0001f3f3\ufe0f\u200d\U0001f308.png"),
    # a tag run that is no subdivision flag hides data (UTS #51 ED-14a)
    ("tags-after-letter", "a\U000e0067\U000e0062\U000e007f.txt"),
    ("tags-unterminated", "\U0001f3f4\U000e0067\U000e0062\U000e0073.txt"),
    ("tags-uppercase", "\U0001f3f4\U000e0047\U000e0042\U000e007f.txt"),
]
#: The guard's upload-name rules: by default POSIX's and no length limit (issue 26);
#: with windows_upload_names, safe_filename's own (its strict Windows set).
NAME_RULES = {
    "default": {"platform": "posix", "max_bytes": sys.maxsize},
    "windows": {},
}


def oracle(name: str, rules: str = "windows") -> str | None:
    try:
        safe_filename(name, **NAME_RULES[rules])  # type: ignore[arg-type]
    except UnsafePathError as exc:
        return exc.kind.value
    return None


def _name_config(rules: str) -> GuardConfig:
    return GuardConfig(windows_upload_names=rules == "windows")


@pytest.mark.parametrize("rules", NAME_RULES)
@pytest.mark.parametrize(
    "name", [case[1] for case in FILENAMES], ids=[case[0] for case in FILENAMES]
)
def test_filename_star_follows_the_path_rules(name: str, rules: str) -> None:
    # filename* carries any byte; the first finding is the oracle's first refusal.
    value = quote(name.encode(), safe="")
    body = disposition(b"; filename*=UTF-8''" + value.encode())
    expected = oracle(name, rules)
    inspector = MultipartInspector(b"XyZ", _name_config(rules))
    got = run(inspector, [body])
    assert got == ([] if expected is None else [(expected, 49)])


@pytest.mark.parametrize(
    "name",
    ["Meeting 10:30.pdf", 'say "hi".txt', "con.txt", "notes.", "é" * 138 + ".txt"],
)
def test_windows_names_pass_by_default(name: str) -> None:
    # The oracle: the Windows rules refuse each one, the POSIX ones none.
    assert oracle(name, "windows") is not None
    assert oracle(name, "default") is None
    raw = name.replace('"', "%22").encode()
    body = disposition(b'; filename="' + raw + b'"')
    assert run(MultipartInspector(b"XyZ", CONFIG), [body]) == []
    windows = MultipartInspector(b"XyZ", _name_config("windows"))
    assert run(windows, [body]) == [(oracle(name, "windows"), 49)]


@pytest.mark.parametrize("name", ["Wait\u2026.txt", "\u2026", "a\u2026b\u2026.pdf"])
@pytest.mark.parametrize("rules", NAME_RULES)
def test_ellipsis_is_typography_in_a_name(name: str, rules: str) -> None:
    # U+2026's NFKC form is "...": no separator and no dot name (. or ..), so not a
    # look-alike in a file name; paths and safe_filename still refuse it.
    assert unicodedata.normalize("NFKC", name).replace("...", "") == name.replace(
        "\u2026", ""
    )
    assert oracle(name, rules) == "lookalike"
    body = disposition(b"; filename*=UTF-8''" + quote(name.encode()).encode())
    assert run(MultipartInspector(b"XyZ", _name_config(rules)), [body]) == []


@pytest.mark.parametrize("name", ["a\u2025b.txt", "\u2024\u2024", "\u2025"])
def test_other_dot_leaders_stay_lookalikes(name: str) -> None:
    # U+2024 and U+2025 are NFKC "." and "..": a dot name once normalised.
    assert unicodedata.normalize("NFKC", name).count(".") >= 1
    body = disposition(b"; filename*=UTF-8''" + quote(name.encode()).encode())
    assert run(MultipartInspector(b"XyZ", CONFIG), [body]) == [("lookalike", 49)]


@pytest.mark.parametrize("rules", NAME_RULES)
@pytest.mark.parametrize(
    "name", [case[1] for case in FILENAMES], ids=[case[0] for case in FILENAMES]
)
def test_filename_follows_the_path_rules(name: str, rules: str) -> None:
    # The quoted form holds no CR, LF or quote: browsers escape them as %0D, %0A
    # and %22 (HTML §4.10.21.8), and Werkzeug reads %22 as a quote.
    raw = name.replace("\r", "%0D").replace("\n", "%0A").replace('"', "%22")
    body = disposition(b'; filename="' + raw.encode() + b'"')
    got = run(MultipartInspector(b"XyZ", _name_config(rules)), [body])
    if "\\" in name:
        # RFC 9110 reads a backslash as a quoted pair, the parsers do not
        assert got == [("multipart_ambiguous_parameter", 49)]
        return
    # The header block is checked under the policy first, at the offending byte,
    # then for controls (RFC 9110 §5.5: none but HTAB in a field value).
    found = reference.find_violation(raw.encode(), CONFIG.policy)
    if found is not None:
        assert got == [(found.kind.value, 59 + found.start)]
        return
    controls = [i for i, b in enumerate(raw.encode()) if b < 0x20 or b == 0x7F]
    if controls:
        kind = "nul" if raw.encode()[controls[0]] == 0 else "control"
        assert got == [(kind, 59 + controls[0])]
        return
    # Werkzeug's reading (only %22 decoded), then Litestar's and Sanic's, which
    # percent-decode the whole name (issue 25 R6): the first refusal of either.
    expected = oracle(name.replace("\r", "%0D").replace("\n", "%0A"), rules) or oracle(
        unquote(raw), rules
    )
    assert got == ([] if expected is None else [(expected, 49)])


REFERENCE_CASES = [
    ("slash", b"&#47;etc&#47;passwd", "separator"),
    ("division-slash", b"..&#x2215;x", "lookalike"),
    ("dot-name", b"&#46;&#46;", "dot_name"),
    # a device name is Windows's rule, off by default (issue 26)
    ("device", b"&#67;ON", None),
    ("rlo", b"inv&#x202E;txt.exe", "bidi_control"),
    ("named", b"a&sol;b", "separator"),
    ("ampersand", b"R&amp;D &copy; 2024.txt", None),
    # HTML §13.2.5.80: references to NUL, a surrogate or past U+10FFFF are read as
    # U+FFFD (test_references_to_no_character_read_as_replacement), by kind.
    ("nul", b"a&#0;.txt", "nul"),
    ("nul-hex-zeros", b"a&#x0000;.txt", "nul"),
    ("surrogate", b"a&#xD800;.txt", "surrogate"),
    ("low-surrogate-decimal", b"a&#57343;.txt", "surrogate"),
    ("past-10ffff", b"a&#x110000;.txt", "out_of_range"),
    ("many-digits", b"a&#" + b"9" * 40 + b";.txt", "out_of_range"),
    ("many-leading-zeros", b"a&#x" + b"0" * 40 + b"e9;.txt", None),
    # past int()'s 4300 digits html.unescape raises (Django's reading fails): refused
    ("huge-decimal", b"a&#" + b"1" * 5000 + b";.txt", "out_of_range"),
    ("huge-decimal-zeros", b"a&#" + b"0" * 5000 + b"65;.txt", "out_of_range"),
    # a noncharacter reference is dropped: Django reads "a.txt"
    ("noncharacter-dropped", b"a&#x10FFFF;.txt", None),
]


@pytest.mark.parametrize(
    "name", [b"a&#0;.txt", b"a&#xD800;.txt", b"a&#57343;.txt", b"a&#x110000;.txt"]
)
def test_references_to_no_character_read_as_replacement(name: bytes) -> None:
    # The oracle: CPython's html.unescape, Django's reading of a filename.
    assert html.unescape(name.decode()) == "a\ufffd.txt"


@pytest.mark.parametrize(
    ("name", "kind"),
    [case[1:] for case in REFERENCE_CASES],
    ids=[case[0] for case in REFERENCE_CASES],
)
def test_filename_character_references_follow_the_path_rules(
    name: bytes, kind: str | None
) -> None:
    # Django reads HTML character references in a filename (html.unescape).
    body = disposition(b'; filename="' + name + b'"')
    got = run(MultipartInspector(b"XyZ", CONFIG), [body])
    assert got == ([] if kind is None else [(kind, 49)])


def test_empty_filename_part_is_a_field() -> None:
    # Django reads it as a field, so its content is checked as text.
    body = disposition(b'; filename=""\r\nContent-Type: image/png').replace(
        b"\r\n\r\nx", b"\r\n\r\n\xff"
    )
    got = run(MultipartInspector(b"XyZ", CONFIG), [body])
    assert got == [("invalid_byte", body.index(b"\xff"))]


def test_filename_allows_empty_and_nfd() -> None:
    # Browsers send filename="" for an empty file input; macOS names are often NFD.
    for name in (b"", "e\u0301t\u00e9.txt".encode()):
        body = disposition(b'; filename="' + name + b'"')
        assert run(MultipartInspector(b"XyZ", CONFIG), [body]) == []


def test_multipart_findings_are_capped_and_counted() -> None:
    bad = [field(b"a%d" % i, b"\xff") for i in range(20)]
    inspector = MultipartInspector(b"XyZ", CONFIG)
    body = multipart(*bad)
    kept = inspector.feed(body[:200]) + inspector.feed(body[200:] + b"junk")
    kept += inspector.finish()
    assert len(kept) == MAX_KEPT_FINDINGS == MAX_FINDINGS
    assert inspector.dropped == 20 + 1 - MAX_KEPT_FINDINGS  # + the epilogue
    assert [f.name for f in kept] == [f"a{i}" for i in range(MAX_KEPT_FINDINGS)]


def test_multipart_unterminated_past_the_cap_is_counted() -> None:
    inspector = MultipartInspector(b"XyZ", CONFIG)
    body = multipart(*[field(b"a", b"\xff")] * 16)[:-4]  # ends in "--XyZ"
    assert len(inspector.feed(body)) == 16
    assert inspector.finish() == []
    assert inspector.dropped == 1


@pytest.mark.parametrize("pad", [0, 600], ids=["cached", "too-big-to-cache"])
def test_multipart_part_verdicts_move_with_the_part(pad: int) -> None:
    # The same header block, refused at a different place in each body.
    bad = DISPOSITION + b"\r\nX-Pad: " + b"p" * pad + b"\r\nX-Pad: 1"
    first = head(bad)
    second = head(DISPOSITION)[:-9] + first
    shift = len(second) - len(first)
    dup = 7 + len(DISPOSITION) + 2 + 7 + pad + 2
    for body, at in ((first, dup), (second, dup + shift), (first, dup)):
        inspector = MultipartInspector(b"XyZ", CONFIG)
        assert run(inspector, [body]) == [("multipart_duplicate_header", at)]


# Near-valid bodies: the pieces of real ones, plus the bytes the rules are about.
FRAGMENTS = st.sampled_from(
    [
        b"--XyZ",
        b"--XyZ--",
        b"\r\n",
        b"\r",
        b"\n",
        b"-",
        b" ",
        DISPOSITION,
        b'; filename="a.txt"',
        b"; filename*=utf-8''%C3%A4",
        b"\r\nContent-Type: image/png",
        b"\r\n\r\n",
        b"value",
        "ä€".encode(),
        b"\xff",
        b"\xe2\x82",
    ]
)


@given(
    pieces=st.lists(FRAGMENTS, max_size=24),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=3),
)
def test_multipart_any_split_gives_the_one_shot_findings(
    pieces: list[bytes], cuts: list[int]
) -> None:
    body = b"".join(pieces)
    one_shot = run(MultipartInspector(b"XyZ", CONFIG), [body])
    bounds = [0, *sorted(min(cut, len(body)) for cut in cuts), len(body)]
    chunks = [body[lo:hi] for lo, hi in itertools.pairwise(bounds)]
    inspector = MultipartInspector(b"XyZ", CONFIG)
    checked = []
    findings: list[Finding] = []
    for chunk in chunks:
        findings += inspector.feed(chunk)
        checked.append(inspector.checked)
    findings += inspector.finish()
    assert [(f.kind.value, f.offset) for f in findings] == one_shot
    # Bytes declared clean (a streaming adapter forwards them) hold no finding, and
    # what is declared clean stays so.
    assert checked == sorted(checked)
    assert max(checked, default=0) <= (one_shot[0][1] if one_shot else len(body))


def test_multipart_long_charset_field_is_refused_at_once() -> None:
    inspector = MultipartInspector(b"XyZ", CONFIG)
    found = inspector.feed(multipart(field(b"_charset_", b"u" * 100))[:100])
    assert [(f.kind.value, f.offset) for f in found] == [("unsupported_charset", 59)]


@pytest.mark.parametrize(
    ("at", "kind"),
    [(100, "multipart_bare_line_break"), (17000, "malformed_multipart")],
    ids=["bare-lf-within-limit", "bare-lf-past-limit"],
)
def test_multipart_oversize_header_verdict_ignores_chunking(at: int, kind: str) -> None:
    # A bare LF within the header limit is reported as such, one past it as the
    # limit, whatever the chunks.
    block = bytearray(b"X-Pad: " + b"p" * 17500)
    block[at] = 0x0A
    body = head(DISPOSITION, bytes(block))
    splits_ = [[body], [body[i : i + 4096] for i in range(0, len(body), 4096)]]
    splits_ += [[body[:n], body[n:]] for n in range(at, at + 60)]
    lf = 7 + len(DISPOSITION) + 2 + at  # the second line starts after a CRLF
    expected = [(kind, lf if kind == "multipart_bare_line_break" else 7)]
    for chunks in splits_:
        assert run(MultipartInspector(b"XyZ", CONFIG), chunks) == expected


# Issue 25 R6: Litestar and Sanic percent-decode a part's names (WHATWG writes '"',
# CR and LF as %22, %0D, %0A), so that reading gets the name rules too: the verdict
# is utf8guard.paths' (the oracle above) on urllib's reading of the escapes.
@pytest.mark.parametrize(
    ("filename", "refused"),
    [
        pytest.param(b"a%0D%0Aevil.txt", True, id="escaped-crlf"),
        pytest.param(b"inv%E2%80%AEtxt.exe", True, id="escaped-bidi"),
        pytest.param(b"..%2Fetc%2Fpasswd", True, id="escaped-slash"),
        pytest.param(b"%2E%2E", True, id="escaped-dot-name"),
        pytest.param(b"say %22hi%22.txt", False, id="whatwg-quote"),
        pytest.param(b"100%.pdf", False, id="lone-percent"),
        pytest.param(b"50%25 off.pdf", False, id="escaped-percent"),
        pytest.param(b"a%20b.txt", False, id="escaped-space"),
    ],
)
def test_filename_percent_decoded_reading_follows_the_name_rules(
    filename: bytes, refused: bool
) -> None:
    expected = oracle(unquote(filename.decode()), "default")
    assert (expected is not None) is refused
    refusal = filename_refusal({"filename": (7, filename)}, STRICT)
    # U+202E is both a bidi control and default-ignorable: either kind names it.
    assert (refusal is not None) is refused
    assert refusal is None or refusal.at == 7


def test_filename_percent_decoded_to_invalid_utf8_is_refused() -> None:
    # urllib reads %C0%AF as U+FFFD U+FFFD: the bytes are what the guard judges.
    assert filename_refusal({"filename": (7, b"a%C0%AF")}, STRICT) == ("overlong", 7)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        pytest.param(b"n%EF%BF%BE", "noncharacter", id="escaped-noncharacter"),
        pytest.param(b"n%C0%AF", "overlong", id="escaped-overlong"),
        pytest.param(b"a%20b", None, id="escaped-space"),
        pytest.param(b"100%", None, id="lone-percent"),
        pytest.param(b"plain", None, id="no-escape"),
    ],
)
def test_name_percent_decoded_reading_follows_the_policy(
    name: bytes, kind: str | None
) -> None:
    refusal = name_refusal({"name": (3, name)}, STRICT)
    assert (None if refusal is None else (str(refusal.kind), refusal.at)) == (
        None if kind is None else (kind, 3)
    )
