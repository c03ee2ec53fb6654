"""Streaming body inspectors: every rule, at every chunk split."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import pytest

from utf8guard import STRICT, Policy
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._body import body_inspector, decoding_of, uploads_of
from utf8guard.middleware.body._form import FormInspector
from utf8guard.middleware.body._json import JsonInspector
from utf8guard.middleware.body._mediatype import parse_media_type
from utf8guard.middleware.body._sniff import SniffingInspector
from utf8guard.middleware.body._text import TextInspector
from utf8guard.middleware.engine._finding import Finding

from ._inspection import run, splits

CONFIG = GuardConfig()


TEXT_CASES = [
    ("valid", "ä€𝄞 text".encode(), []),
    ("overlong", b"ab\xc0\xaf", [("overlong", 2)]),
    ("truncated-end", b"ab\xe2\x82", [("truncated", 2)]),
    ("noncharacter", b"\xef\xbf\xbe", [("noncharacter", 0)]),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [case[1:] for case in TEXT_CASES],
    ids=[case[0] for case in TEXT_CASES],
)
def test_text_every_split(data: bytes, expected: list[tuple[str, int]]) -> None:
    for chunks in splits(data):
        assert run(TextInspector(STRICT), chunks) == expected, chunks


def test_text_checked_stops_before_an_unfinished_sequence() -> None:
    inspector = TextInspector(STRICT, base=10)
    inspector.feed(b"ab\xe2\x82")
    assert inspector.checked == 12


JSON_CASES = [
    ("valid", '{"a": "ä€𝄞"}'.encode(), []),
    ("pair", b'{"a": "\\ud83d\\ude00"}', []),
    ("escaped-backslash", b'{"a": "\\\\ud800"}', []),
    ("lone-high", b'{"a": "\\ud800"}', [("json_surrogate_escape", 7)]),
    ("lone-high-at-end", b'"\\uD800', [("json_surrogate_escape", 1)]),
    ("lone-low", b'"\\udc00"', [("json_surrogate_escape", 1)]),
    (
        "reversed-pair",
        b'"\\ude00\\ud83d"',
        [("json_surrogate_escape", 1), ("json_surrogate_escape", 7)],
    ),
    ("high-then-bmp", b'"\\ud83d\\u0041"', [("json_surrogate_escape", 1)]),
    ("escaped-noncharacter", b'"\\uffff"', [("noncharacter", 1)]),
    ("escaped-pair-noncharacter", b'"\\udbff\\udfff"', [("noncharacter", 1)]),
    ("escaped-nul-allowed", b'"\\u0000"', []),
    ("malformed-escape", b'"\\u12G4"', [("malformed_json_escape", 1)]),
    ("truncated-escape", b'"\\u12', [("malformed_json_escape", 1)]),
    ("trailing-backslash", b'"\\', [("malformed_json_escape", 1)]),
    ("other-escapes", b'"\\n\\t\\"\\/"', []),
    ("raw-surrogate", b'"\xed\xa0\x80"', [("surrogate", 1)]),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [case[1:] for case in JSON_CASES],
    ids=[case[0] for case in JSON_CASES],
)
def test_json_every_split(data: bytes, expected: list[tuple[str, int]]) -> None:
    for chunks in splits(data):
        assert run(JsonInspector(STRICT), chunks) == expected, chunks


def test_json_policy_applies_to_escapes() -> None:
    no_nul = Policy(allow_nul=False)
    assert run(JsonInspector(no_nul), [b'"\\u0000"']) == [("nul", 1)]


def test_json_checked_waits_for_the_escape() -> None:
    inspector = JsonInspector(STRICT)
    inspector.feed(b'"ok \\ud83d')
    assert inspector.checked == 4
    inspector.feed(b"\\ude00")
    assert inspector.checked == 16


FORM_CASES = [
    ("valid", "a=1&b=%C3%A4&c=€+x&d".encode(), []),
    ("empty", b"", []),
    (
        # one finding per name or value: its validator stops at the first
        "value-overlong",
        b"a=1&q=%C0%AF&r=%FF",
        [("q", "overlong", 6), ("r", "invalid_byte", 15)],
    ),
    ("name-invalid", b"%FF=1", [(None, "invalid_byte", 0)]),
    ("raw-invalid", b"q=ab\xff", [("q", "invalid_byte", 4)]),
    ("truncated-value", b"q=%E2%82&r=1", [("q", "truncated", 2)]),
    ("truncated-at-end", b"q=%E2%82", [("q", "truncated", 2)]),
    ("truncated-name-at-end", b"q%E2", [(None, "truncated", 1)]),
    (
        "malformed",
        b"q=%G1&r=%",
        [("q", "malformed_escape", 2), ("r", "malformed_escape", 8)],
    ),
    ("iis", b"q=%u0041", [("q", "nonstandard_escape", 2)]),
    ("second-equals", b"q=a=%FF", [("q", "invalid_byte", 4)]),
    ("long-name-hidden", b"n" * 70 + b"=%FF", [(None, "invalid_byte", 71)]),
]


@pytest.mark.parametrize(
    ("data", "expected"),
    [case[1:] for case in FORM_CASES],
    ids=[case[0] for case in FORM_CASES],
)
def test_form_every_split(
    data: bytes, expected: list[tuple[str | None, str, int]]
) -> None:
    for chunks in splits(data):
        inspector = FormInspector(STRICT)
        findings: list[Finding] = []
        for chunk in chunks:
            findings += inspector.feed(chunk)
        findings += inspector.finish()
        got = [(f.name, f.kind.value, f.offset) for f in findings]
        assert got == expected, chunks


def test_form_checked_tracks_held_bytes() -> None:
    inspector = FormInspector(STRICT)
    inspector.feed(b"a=b&q=x%E2%82")
    assert inspector.checked == 7
    inspector.feed(b"%AC")
    assert inspector.checked == 16
    inspector.feed(b"&z=%")
    assert inspector.checked == 19


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        (b"text/plain", ("text/plain", {})),
        (b' Text/HTML ; Charset = "utf-8" ', ("text/html", {"charset": "utf-8"})),
        (
            b'multipart/form-data; boundary="a\\"b"',
            ("multipart/form-data", {"boundary": 'a"b'}),
        ),
        (b"text", None),
        (b"text/plain; charset", None),
    ],
)
def test_parse_media_type(value: bytes, parsed: object) -> None:
    assert parse_media_type(value) == parsed


DISPATCH_CASES = [
    ("json", [(b"content-type", b"application/json")], "JsonInspector"),
    ("problem-json", [(b"content-type", b"application/problem+json")], "JsonInspector"),
    ("text", [(b"content-type", b"text/csv; charset=US-ASCII")], "_Both"),
    (
        "form",
        [(b"content-type", b"application/x-www-form-urlencoded")],
        "_Both",
    ),
    (
        "multipart",
        [(b"content-type", b"multipart/form-data; boundary=b")],
        "MultipartInspector",
    ),
    ("binary", [(b"content-type", b"image/png")], "SniffingInspector binary"),
    (
        "binary-utf16",
        [(b"content-type", b"application/octet-stream; charset=utf-16")],
        "unsupported_charset",
    ),
    ("none", [], "_Both"),
    ("utf7", [(b"content-type", b"text/plain; charset=utf-7")], "unsupported_charset"),
    (
        "utf16-json",
        [(b"content-type", b"application/json; charset=UTF-16")],
        "unsupported_charset",
    ),
    ("unparsable", [(b"content-type", b"json")], "unsupported_charset"),
    ("no-boundary", [(b"content-type", b"multipart/form-data")], "malformed_multipart"),
    (
        "two-types",
        [(b"content-type", b"text/plain"), (b"Content-Type", b"image/png")],
        "duplicate_header",
    ),
    (
        "gzip",
        [(b"content-type", b"text/plain"), (b"content-encoding", b"gzip")],
        "unsupported_content_encoding",
    ),
    (
        "gzip-json",
        [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")],
        "DecodingInspector",
    ),
    (
        "brotli-json",
        [(b"content-type", b"application/json"), (b"content-encoding", b"br")],
        "DecodingInspector",
    ),
    (
        "zstd-json",
        [(b"content-type", b"application/json"), (b"content-encoding", b"zstd")],
        "unsupported_content_encoding",
    ),
    (
        "gzip-form",
        [
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"content-encoding", b"gzip"),
        ],
        "unsupported_content_encoding",
    ),
    (
        "identity",
        [(b"content-type", b"text/plain"), (b"content-encoding", b"identity")],
        "_Both",
    ),
    (
        "gzip-binary",
        [(b"content-type", b"image/png"), (b"content-encoding", b"gzip")],
        None,
    ),
]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [case[1:] for case in DISPATCH_CASES],
    ids=[case[0] for case in DISPATCH_CASES],
)
def test_body_inspector_dispatch(
    headers: list[tuple[bytes, bytes]], expected: str | None
) -> None:
    got = body_inspector(headers, CONFIG)
    if isinstance(got, Finding):
        assert got.kind.value == expected
    elif isinstance(got, SniffingInspector):
        assert f"{type(got).__name__}{' binary' if got.binary else ''}" == expected
    else:
        assert (None if got is None else type(got).__name__) == expected


FORM = [(b"content-type", b"application/x-www-form-urlencoded")]


def _bad_code_points(text: str) -> list[int]:
    """Surrogates (Unicode ch. 3 D71) and noncharacters (ch. 23.7) in ``text``."""
    return [
        ord(c)
        for c in text
        if 0xD800 <= ord(c) <= 0xDFFF
        or 0xFDD0 <= ord(c) <= 0xFDEF
        or ord(c) & 0xFFFE == 0xFFFE
    ]


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b'{"a": "\\ud800"}', "json_surrogate_escape"),
        (b' ["\\udc00"]', "json_surrogate_escape"),
        (b'\r\n{"a": "\\uFFFE"}', "noncharacter"),
    ],
    ids=["object-surrogate", "array-low-surrogate", "noncharacter"],
)
def test_form_body_read_as_json_gets_the_json_checks(body: bytes, kind: str) -> None:
    # Issue 11 F9: json.loads (Starlette's request.json(), Django apps) reads a body
    # as JSON whatever its Content-Type, and a form body here holds no "%" escape
    # for the form check to find.
    assert _bad_code_points(json.dumps(json.loads(body), ensure_ascii=False))
    escape = body.index(b"\\u")
    for chunks in splits(body):
        inspector = body_inspector(FORM, CONFIG)
        assert inspector is not None
        assert not isinstance(inspector, Finding)
        assert run(inspector, chunks) == [(kind, escape)], chunks


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"a": "\xc3\xa9 \\u00e9 \\ud834\\udd1e"}', []),
        (b"a=%C3%A9&b=%7B", []),
        # Not JSON to json.loads: the form check alone, each finding once.
        (b"a=%C0%AF", [("overlong", 2)]),
        # JSON whose form reading holds an overlong "/": both readings checked.
        (b'{"a%C0%AF": "\\ud800"}', [("overlong", 3), ("json_surrogate_escape", 13)]),
    ],
    ids=["clean-json", "clean-form", "form-overlong", "both"],
)
def test_form_body_gets_both_readings(
    body: bytes, expected: list[tuple[str, int]]
) -> None:
    for chunks in splits(body):
        inspector = body_inspector(FORM, CONFIG)
        assert inspector is not None
        assert not isinstance(inspector, Finding)
        assert run(inspector, chunks) == expected, chunks
        assert inspector.checked == len(body)


@pytest.mark.parametrize(
    ("find", "module"),
    [(decoding_of, "_decompress"), (uploads_of, "_multipart")],
    ids=["decoding", "uploads"],
)
def test_finding_a_rare_inspector_does_not_import_its_module(
    find: Callable[[object], object], module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 28: no such inspector exists before its module is imported, so the
    # question needs no import (which would cost what the laziness saves).
    name = f"utf8guard.middleware.body.{module}"
    monkeypatch.delitem(sys.modules, name, raising=False)
    assert find(JsonInspector(STRICT)) is None
    assert name not in sys.modules
