"""multipart/form-data (RFC 7578, RFC 2046 §5.1): every rule, at every chunk split."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from utf8guard.middleware import GuardConfig
from utf8guard.middleware._finding import Finding
from utf8guard.middleware._multipart import MultipartInspector
from utf8guard.middleware._text import BodyInspector

CONFIG = GuardConfig()


def run(inspector: BodyInspector, chunks: Sequence[bytes]) -> list[tuple[str, int]]:
    findings: list[Finding] = []
    for chunk in chunks:
        findings += inspector.feed(chunk)
    findings += inspector.finish()
    return [(finding.kind.value, finding.offset) for finding in findings]


def splits(data: bytes) -> list[list[bytes]]:
    """``data`` whole, byte by byte, and cut in two at every position."""
    cuts = [[data], [data[i : i + 1] for i in range(len(data))]]
    return cuts + [[data[:i], data[i:]] for i in range(len(data) + 1)]


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
    ("preamble-epilogue", b"junk\xff\r\n" + multipart(field(b"a", b"1")) + b"\xff", []),
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
        "part-charset",
        multipart(field(b"f", b"x", b"\r\nContent-Type: text/plain; charset=utf-16")),
        [("f", "unsupported_charset", 7)],
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
        "padding-after-delimiter",
        b"--XyZ \t\r\n" + field(b"a", b"1") + b"\r\n--XyZ--",
        [],
    ),
    (
        "garbage-after-delimiter",
        b"--XyZx\r\n" + field(b"a", b"1"),
        [(None, "malformed_multipart", 5)],
    ),
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
        [(None, "malformed_multipart", 7)],
    ),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [case[1:] for case in MULTIPART_CASES],
    ids=[case[0] for case in MULTIPART_CASES],
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
    long_line = MultipartInspector(b"XyZ", CONFIG)
    assert run(long_line, [b"--XyZ" + b" " * 100]) == [("malformed_multipart", 5)]
    big_headers = MultipartInspector(b"XyZ", CONFIG)
    assert run(big_headers, [b"--XyZ\r\n" + b"a" * 20000]) == [
        ("malformed_multipart", 7)
    ]


def test_multipart_checked_holds_a_possible_delimiter() -> None:
    inspector = MultipartInspector(b"XyZ", CONFIG)
    inspector.feed(multipart(field(b"a", b"1"))[:-10] + b"0123456789")
    # 63 bytes fed; the last 6 could start "\r\n--XyZ", so they wait
    assert inspector.checked == 57
