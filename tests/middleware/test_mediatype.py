"""Content-Type parameters: one charset (UTF-8), no RFC 2231 forms, no repeats."""

from __future__ import annotations

from email.message import Message
from urllib.parse import parse_qsl

import pytest

from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._body import body_inspector
from utf8guard.middleware.body._mediatype import (
    extended_parameter,
    media_kind,
    parse_media_type,
)
from utf8guard.middleware.body._sniff import SniffingInspector
from utf8guard.middleware.engine._finding import Finding

REFUSED = [
    # F5: Django's parser honours RFC 2231 charset* and reads the body as UTF-7.
    ("charset-star-utf7", b"text/plain; charset*=utf-8''utf-7", "unsupported_charset"),
    (
        "charset-star-utf16",
        b"application/json; charset*=''UTF-16",
        "unsupported_charset",
    ),
    ("charset-star-continued", b"text/plain; charset*0=utf-7", "unsupported_charset"),
    ("charset-star-pct", b"text/plain; charset*=utf-8''utf%2D7", "unsupported_charset"),
    ("charset-star-utf8", b"text/plain; charset*=utf-8''utf-8", "ambiguous_parameter"),
    (
        "boundary-continued",
        b"multipart/form-data; boundary*0=Xy; boundary*1=Z",
        "ambiguous_parameter",
    ),
    ("boundary-star", b"multipart/form-data; boundary*=''XyZ", "ambiguous_parameter"),
    ("binary-star", b"application/octet-stream; name*=utf-8''a", "ambiguous_parameter"),
    # RFC 9110 §5.6.6 says nothing of a repeated parameter: parsers take either one.
    (
        "charset-twice",
        b"text/plain; charset=utf-8; charset=utf-7",
        "unsupported_charset",
    ),
    (
        "charset-twice-case",
        b"text/plain; charset=utf-8; CHARSET=utf-8",
        "unsupported_charset",
    ),
    (
        "boundary-twice",
        b"multipart/form-data; boundary=a; boundary=b",
        "unsupported_charset",
    ),
    # RFC 9110 §5.6.4 undoes any quoted-pair; email.utils.unquote (python-multipart)
    # and Django only \\ and \": a quoted-pair of any other byte is read two ways.
    (
        "boundary-quoted-pair",
        b'multipart/form-data; boundary="Xy\\Z"',
        "unsupported_charset",
    ),
    (
        "boundary-quoted-pair-x",
        b'multipart/form-data; boundary="a\\\\\\Z"',
        "unsupported_charset",
    ),
    ("charset-quoted-pair", b'text/plain; charset="utf\\-8"', "unsupported_charset"),
    ("charset-utf7", b"text/plain; charset=utf-7", "unsupported_charset"),
    ("ndjson-utf16", b"application/x-ndjson; charset=utf-16", "unsupported_charset"),
]


@pytest.mark.parametrize(
    ("value", "kind"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_refused_content_types(value: bytes, kind: str) -> None:
    got = body_inspector([(b"content-type", value)], GuardConfig())
    assert isinstance(got, Finding)
    assert got.kind.value == kind


@pytest.mark.parametrize(
    "content_type",
    [
        b"application/octet-stream; charset=utf-7",
        b"image/png; charset=UTF-7",
        b"application/xml; charset=utf-16",
        b"application/octet-stream; charset=latin-1",
    ],
)
def test_binary_types_declare_no_other_charset(content_type: bytes) -> None:
    # Django decodes request.GET with any Content-Type's charset: parse_qsl(query,
    # encoding=request.encoding), so the query below is "<script>" under UTF-7.
    assert parse_qsl("x=%2BADw-script%2BAD4-", encoding="utf-7") == [("x", "<script>")]
    refused = body_inspector([(b"content-type", content_type)], GuardConfig())
    assert isinstance(refused, Finding)
    assert refused.kind.value == "unsupported_charset"


def test_binary_types_may_declare_utf8() -> None:
    for value in (b"image/png", b"application/octet-stream; charset=UTF-8"):
        got = body_inspector([(b"content-type", value)], GuardConfig())
        assert isinstance(got, SniffingInspector)
        assert got.binary


def test_python_reads_the_rfc2231_charset_the_guard_refuses() -> None:
    # The independent reading: the stdlib's RFC 2231 decoder finds UTF-7 there.
    message = Message()
    message["Content-Type"] = "text/plain; charset*=utf-8''utf-7"
    assert message.get_content_charset() == "utf-7"
    assert extended_parameter({"charset*": "utf-8''utf-7"}) is not None


def test_stdlib_keeps_the_backslash_rfc_9110_drops() -> None:
    # python-multipart parses Content-Type with email.message; RFC 9110 §5.6.4 reads
    # "Xy\\Z" as XyZ (Werkzeug does): two boundaries, so the guard reads neither.
    message = Message()
    message["Content-Type"] = 'multipart/form-data; boundary="Xy\\Z"'
    assert message.get_param("boundary") == "Xy\\Z"
    assert parse_media_type(b'multipart/form-data; boundary="Xy\\Z"') is None


@pytest.mark.parametrize(
    ("quoted", "value"),
    [(b'"a b;c"', "a b;c"), (b'"a\\\\b"', "a\\b"), (b'"a\\"b\\\\"', 'a"b\\')],
)
def test_quoted_pairs_every_parser_reads_alike(quoted: bytes, value: str) -> None:
    # \\ and \" are undone by RFC 9110 §5.6.4 and by email.utils.unquote alike.
    header = b"multipart/form-data; boundary=" + quoted
    message = Message()
    message["Content-Type"] = header.decode()
    assert message.get_param("boundary") == value
    assert parse_media_type(header) == ("multipart/form-data", {"boundary": value})


def test_repeated_parameter_is_malformed() -> None:
    assert parse_media_type(b"text/plain; a=1; A=2") is None
    assert parse_media_type(b"text/plain; a=1; b=2") == (
        "text/plain",
        {"a": "1", "b": "2"},
    )


@pytest.mark.parametrize(
    ("media_type", "kind"),
    [
        ("application/json", "json"),
        ("application/problem+json", "json"),
        ("application/x-ndjson", "json"),
        ("application/ndjson", "json"),
        ("application/jsonl", "json"),
        ("application/x-jsonlines", "json"),
        ("application/json-seq", "json"),
        ("text/plain", "text"),
        ("application/x-www-form-urlencoded", "form"),
        ("multipart/form-data", "multipart"),
        ("application/octet-stream", None),
        ("application/jsonx", None),
    ],
)
def test_media_kind(media_type: str, kind: str | None) -> None:
    assert media_kind(media_type) == kind


def test_inspect_all_bodies_checks_binary_types_as_text() -> None:
    headers = [(b"content-type", b"image/png")]
    strict = body_inspector(headers, GuardConfig(inspect_all_bodies=True))
    assert not isinstance(strict, Finding)
    assert strict is not None
    assert [f.kind.value for f in strict.feed(b"\x89PNG") + strict.finish()] == [
        "unexpected_continuation"
    ]
    declared = [(b"content-type", b"application/octet-stream; charset=utf-16")]
    for config in (GuardConfig(), GuardConfig(inspect_all_bodies=True)):
        refused = body_inspector(declared, config)
        assert isinstance(refused, Finding)
        assert refused.kind.value == "unsupported_charset"
    with pytest.raises(TypeError, match="inspect_all_bodies must be a bool"):
        GuardConfig(inspect_all_bodies=1)  # type: ignore[arg-type]  # the point


def test_compressed_bodies() -> None:
    gzip = (b"content-encoding", b"gzip")
    config = GuardConfig()
    assert body_inspector([(b"content-type", b"image/png"), gzip], config) is None
    for headers in ([gzip], [(b"content-type", b"text/plain"), gzip]):
        got = body_inspector(headers, config)
        assert isinstance(got, Finding)
        assert got.kind.value == "unsupported_content_encoding"
    every = GuardConfig(inspect_all_bodies=True)
    got = body_inspector([(b"content-type", b"image/png"), gzip], every)
    assert isinstance(got, Finding)
