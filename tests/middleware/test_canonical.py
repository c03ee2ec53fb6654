"""Issue 25's canonical subset: framing every stack reads alike, the rest refused.

Each test shows the disagreement with an independent parser where the standard
library has one (``email.message`` reads Content-Type as Django and ``cgi`` do),
then that the guard refuses the request under its named kind.
"""

from __future__ import annotations

from email.message import Message
from urllib.parse import unquote

import pytest

from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._body import body_inspector, inspector_for
from utf8guard.middleware.body._multipart import MultipartInspector
from utf8guard.middleware.engine._finding import Finding

from ._inspection import run, splits

CONFIG = GuardConfig()
FFFE = b"\xef\xbf\xbe"  # U+FFFE, a noncharacter (Unicode ch. 23.7)


def kind_of(content_type: bytes | None) -> str:
    got = body_inspector(
        [] if content_type is None else [(b"content-type", content_type)], CONFIG
    )
    assert isinstance(got, Finding)
    return str(got.kind)


def multipart(*parts: bytes, boundary: bytes = b"XyZ") -> bytes:
    body = b"".join(b"--" + boundary + b"\r\n" + part + b"\r\n" for part in parts)
    return body + b"--" + boundary + b"--\r\n"


def field(value: bytes, *headers: bytes) -> bytes:
    lines = [b'Content-Disposition: form-data; name="a"', *headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + value


def test_a_quoted_pair_hides_a_charset_from_rfc_9110() -> None:
    # Issue 25 R00: RFC 9110 §5.6.4 reads "x\\" as x\ and then charset=utf-8;
    # email.message (as Django and cgi) reads \" as a quote and finds utf-7.
    value = (
        'multipart/form-data; boundary=XyZ; a="x\\\\"; charset=utf-8; b="; '
        'charset=utf-7; c="'
    )
    message = Message()
    message["Content-Type"] = value
    assert message.get_param("charset") == "utf-7"
    assert kind_of(value.encode()) == "parameter_escape"


@pytest.mark.parametrize(
    "value",
    [
        b"multipart/form-data; boundary=Xy%22Z",  # R0: Werkzeug reads Xy"Z
        b'multipart/form-data; boundary="Xy%22Z"',
        b"text/plain; charset=utf%2D8",
        b'text/plain; a="\\"x"',
        b'application/json; a="x\\\\"',
        b"application/octet-stream; name=a%2Fb",  # a binary type too: Django's charset
    ],
)
def test_escapes_in_any_content_type_are_refused(value: bytes) -> None:
    assert kind_of(value) == "parameter_escape"


@pytest.mark.parametrize(
    "value",
    [b'multipart/form-data; boundary=\t"a4a"', b"text/plain; charset = utf-8"],
)
def test_space_around_equals_is_refused(value: bytes) -> None:
    # Werkzeug finds no boundary where Django and email.message find "a4a".
    from werkzeug.http import parse_options_header

    assert (
        "boundary" not in parse_options_header('multipart/form-data; boundary=\t"a"')[1]
    )
    assert kind_of(value) == "ambiguous_parameter"


def test_rfc_2231_parameters_keep_their_kind() -> None:
    # Checked before escapes: "charset*=utf-8''utf-7" is the charset rule's.
    assert kind_of(b"text/plain; charset*=utf-8''utf-7") == "unsupported_charset"


@pytest.mark.parametrize(
    "boundary",
    [
        b'"XyZ "',
        b'"Xy;Z"',
        b'"Xy\x01Z"',
        b"Xy*Z",
        b"Xy!Z",
        b'"Xy]Z"',
        # RFC 2046 §5.1.1: 1 to 70 characters (fuzz_framing: 125 passed on
        # multipart/other types, where the parser's length check never ran).
        b"a" * 71,
    ],
)
def test_boundaries_outside_bchars_are_refused(boundary: bytes) -> None:
    # RFC 2046 §5.1.1: bchars, and the last one not a space (R4, R11); on every
    # multipart type, as Bottle reads them all as form-data, and on wildcards.
    for media_type in (b"multipart/form-data", b"multipart/mixed", b"*/*"):
        assert kind_of(media_type + b"; boundary=" + boundary) == (
            "multipart_invalid_boundary"
        )


@pytest.mark.parametrize(
    "boundary",
    [
        b"----WebKitFormBoundary7MA4YWxkTrZu0gW",  # Chromium
        b"----geckoformboundary3f5c1a7e9b2d4c6a",  # Firefox
        b"------------------------d74496d66958873e",  # curl
        b"a7c4e1f0b3d6920a8e5b1c7d3f9e2a64",  # requests, httpx
        b'"\'()+_,-./:=? x"',  # every bchar, a space inside
    ],
)
def test_client_boundaries_pass(boundary: bytes) -> None:
    got = body_inspector(
        [(b"content-type", b"multipart/form-data; boundary=" + boundary)], CONFIG
    )
    assert isinstance(got, MultipartInspector)


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        # R1: Falcon matches wildcards against its multipart and form handlers.
        (b"multipart/*; boundary=XyZ", multipart(field(FFFE)), "noncharacter"),
        (b"*/*; boundary=XyZ", multipart(field(FFFE)), "noncharacter"),
        (b"*/x-www-form-urlencoded", b"n=%EF%BF%BE", "noncharacter"),
        # R7: Werkzeug's parser reads this misspelling as a form.
        (b"application/x-url-encoded", b"n=%EF%BF%BE", "noncharacter"),
        # R2, R8: Bottle reads a form from text, WebOb from an untyped body.
        (b"text/plain", b"n=%EF%BF%BE", "noncharacter"),
        (None, b"o=%C0%AF", "overlong"),
    ],
)
def test_every_form_reading_is_checked(
    content_type: bytes | None, body: bytes, expected: str
) -> None:
    assert "\ufffe" in unquote("%EF%BF%BE")  # the form reading's value
    inspector = inspector_for(content_type, CONFIG)
    assert not isinstance(inspector, Finding)
    assert [kind for kind, _ in run(inspector, [body])][:1] == [expected]


@pytest.mark.parametrize(
    "text",
    [b"50% off, 100%", b"a%2", b"%G0 and %u00e9", "caf\xe9 %C3%A9".encode()],
)
def test_text_with_stray_percent_signs_passes(text: bytes) -> None:
    # The form reading of a text body lets malformed escapes be: "%" is text there.
    for content_type in (None, b"text/plain; charset=utf-8"):
        inspector = inspector_for(content_type, CONFIG)
        assert not isinstance(inspector, Finding)
        assert run(inspector, [text]) == []


def test_a_raw_invalid_byte_is_one_finding() -> None:
    # Both readings see it; it is reported once, as the text reading's.
    inspector = inspector_for(b"text/plain", CONFIG)
    assert not isinstance(inspector, Finding)
    assert run(inspector, [b"ab\xc0\xafc"]) == [("overlong", 2)]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"Content-Length: x", "multipart_unexpected_header"),  # R11: 500 in WebOb
        (b"Content-Length: 2", "multipart_unexpected_header"),  # cgi frames by it
        (b"X-Extra: 1", "multipart_unexpected_header"),
        (b"Content-Type: application/x-www-form-urlencoded", "multipart_nested_body"),
        (b"Content-Type: multipart/mixed; boundary=In", "multipart_nested_body"),
        (b"Content-Type: */*", "multipart_nested_body"),
        (b'Content-Type: text/plain; a="x\\\\"', "parameter_escape"),
        (b"Content-Type: text/plain; charset=utf%2D8", "parameter_escape"),
    ],
)
def test_part_headers_outside_the_subset_are_refused(
    header: bytes, expected: str
) -> None:
    body = multipart(field(b"ok", header))
    kinds = {kind for kind, _ in run(MultipartInspector(b"XyZ", CONFIG), [body])}
    assert kinds == {expected}


def test_the_unexpected_header_is_pointed_at() -> None:
    body = multipart(field(b"ok", b"Content-Type: text/plain", b"X-A: 1"))
    at = body.index(b"X-A")
    for chunks in splits(body):
        assert run(MultipartInspector(b"XyZ", CONFIG), chunks) == [
            ("multipart_unexpected_header", at)
        ]


@pytest.mark.parametrize(
    "header",
    [
        b"Content-Type: text/plain; charset=UTF-8",
        b"Content-Transfer-Encoding: binary",
        b"Content-Transfer-Encoding: 8bit",
    ],
)
def test_headers_real_clients_send_pass(header: bytes) -> None:
    body = multipart(field("été".encode(), header))
    assert run(MultipartInspector(b"XyZ", CONFIG), [body]) == []


@pytest.mark.parametrize(
    "content",
    [
        b"a\r\nXyZ\r\nb",  # R3: Sanic's part separator, a line without dashes
        b"XyZ",  # right after the header block
        b"aXyZb",  # anywhere: Sanic splits at every occurrence
    ],
)
def test_the_boundary_without_dashes_is_refused_in_content(content: bytes) -> None:
    body = multipart(field(content))
    at = body.index(b"XyZ", 5)
    for chunks in splits(body):
        assert run(MultipartInspector(b"XyZ", CONFIG), chunks) == [
            ("multipart_boundary_in_part", at)
        ]


def test_the_boundary_without_dashes_is_refused_in_headers() -> None:
    body = multipart(field(b"x", b"Content-Type: text/plain; x=XyZ"))
    at = body.index(b"XyZ", 5)
    assert run(MultipartInspector(b"XyZ", CONFIG), [body]) == [
        ("multipart_boundary_in_part", at)
    ]


def test_inspect_all_bodies_reads_binary_types_as_forms_too() -> None:
    # Bottle reads a form from an octet-stream or JSON body (issue 25 R2): that
    # reading is the inspect_all_bodies setting's, not the default's.
    body = b"n=%EF%BF%BE"
    default = inspector_for(b"application/octet-stream", CONFIG)
    strict = inspector_for(
        b"application/octet-stream", GuardConfig(inspect_all_bodies=True)
    )
    assert not isinstance(default, Finding)
    assert not isinstance(strict, Finding)
    assert run(default, [body]) == []
    assert run(strict, [body]) == [("noncharacter", 2)]


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        (b"application/json", b"n=%EF%BF%BE", [("noncharacter", 2)]),
        (b"multipart/mixed; boundary=XyZ", multipart(field(FFFE)), "noncharacter"),
        (b"multipart/related; boundary=XyZ", b"--XyZ\r\nX: 1\r\n\r\n", "refused"),
    ],
)
def test_inspect_all_bodies_gives_bottles_readings(
    content_type: bytes, body: bytes, expected: object
) -> None:
    # Bottle reads JSON-typed bodies as forms and every multipart/* as form-data.
    config = GuardConfig(inspect_all_bodies=True)
    default = inspector_for(content_type, CONFIG)
    assert not isinstance(default, Finding)
    assert [k for k, _ in run(default, [body])] == []
    inspector = inspector_for(content_type, config)
    assert not isinstance(inspector, Finding)
    found = run(inspector, [body])
    if expected == "refused":
        assert found
    elif isinstance(expected, str):
        assert [kind for kind, _ in found][:1] == [expected]
    else:
        assert found == expected
