"""problem+json documents (RFC 9457): the fields, and no request bytes."""

from __future__ import annotations

import json

import pytest

from utf8guard import Kind
from utf8guard._pathrules import PathKind
from utf8guard.middleware.engine._finding import Finding, Location, RequestKind, title
from utf8guard.middleware.engine._problem import invalid_request, too_large


def test_invalid_request_document() -> None:
    status, headers, body = invalid_request(
        [
            Finding(Location.QUERY, "q", Kind.OVERLONG, 6),
            Finding(Location.PATH, None, RequestKind.ENCODED_SEPARATOR, 2),
        ]
    )
    assert status == 400
    assert headers == [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
    ]
    document = json.loads(body)
    # The first finding's kind names the type and the family title.
    kinds = "https://utf8guard.readthedocs.io/en/stable/kinds/"
    assert document["type"] == kinds + "overlong/"
    assert document["title"] == "Request is not valid UTF-8"
    assert document["status"] == 400
    assert {"title", "detail"} <= document.keys()
    assert document["violations"] == [
        {"location": "query", "name": "q", "kind": "overlong", "offset": 6},
        {"location": "path", "kind": "encoded_separator", "offset": 2},
    ]
    assert document["count"] == 2
    assert body.isascii()


def test_count_states_findings_left_out() -> None:
    # RFC 9457 §3.2: an extension member; the list holds only the first findings.
    finding = Finding(Location.PATH, None, Kind.INVALID_BYTE, 1)
    _, _, body = invalid_request([finding], total=40)
    document = json.loads(body)
    assert (len(document["violations"]), document["count"]) == (1, 40)


def test_too_large_document() -> None:
    status, _, body = too_large(1024)
    document = json.loads(body)
    assert (status, document["status"]) == (413, 413)
    kinds = "https://utf8guard.readthedocs.io/en/stable/kinds/"
    assert document["type"] == kinds + "body_too_large/"
    assert "1024" in document["detail"]


def test_problem_fields_by_name() -> None:
    problem = too_large(1024)
    # RFC 9110 §8.6: Content-Length is the body's length in octets
    assert problem.status == 413
    assert dict(problem.headers)[b"content-length"] == str(len(problem.body)).encode()
    assert dict(problem.headers)[b"content-type"] == b"application/problem+json"


#: Issue 26: "not valid UTF-8" only for ill-formed UTF-8 (Unicode ch. 3 D84, Table
#: 3-7); other refusals say what is wrong.
TITLES = [
    (Kind.OVERLONG, "Request is not valid UTF-8"),
    (Kind.TRUNCATED, "Request is not valid UTF-8"),
    (Kind.BIDI_CONTROL, "Request holds characters the server refuses"),
    (Kind.NONCHARACTER, "Request holds characters the server refuses"),
    (PathKind.SEPARATOR, "Unsafe file name"),
    (PathKind.RESERVED_NAME, "Unsafe file name"),
    (RequestKind.ENCODED_SEPARATOR, "Ambiguous escape or path"),
    (RequestKind.DOUBLE_ENCODING, "Ambiguous escape or path"),
    (RequestKind.AMBIGUOUS_FRAMING, "Ambiguous request framing"),
    (RequestKind.MULTIPART_PREAMBLE, "Ambiguous request framing"),
    (RequestKind.UNSUPPORTED_CONTENT_ENCODING, "Unsupported encoding"),
    (RequestKind.UNSUPPORTED_CHARSET, "Unsupported encoding"),
]


@pytest.mark.parametrize(("kind", "expected"), TITLES, ids=[str(k) for k, _ in TITLES])
def test_title_names_the_family(
    kind: Kind | RequestKind | PathKind, expected: str
) -> None:
    _, _, body = invalid_request([Finding(Location.BODY, None, kind, 0)])
    document = json.loads(body)
    assert document["title"] == expected
    assert document["type"].endswith(f"/kinds/{kind.value}/")


def test_every_kind_has_a_title() -> None:
    # Only the six ill-formed kinds of Table 3-7 say "not valid UTF-8".
    ill_formed = {
        Kind.OVERLONG,
        Kind.SURROGATE,
        Kind.OUT_OF_RANGE,
        Kind.INVALID_BYTE,
        Kind.UNEXPECTED_CONTINUATION,
        Kind.TRUNCATED,
    }
    for kind in [*Kind, *RequestKind, *PathKind]:
        is_utf8 = title(kind) == "Request is not valid UTF-8"
        assert is_utf8 == (kind in ill_formed), kind


def test_no_findings_listed() -> None:
    _, _, body = invalid_request([])
    document = json.loads(body)
    assert document["type"] == "https://utf8guard.readthedocs.io/en/stable/kinds/"
    assert document["count"] == 0
