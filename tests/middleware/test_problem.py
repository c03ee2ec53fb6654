"""problem+json documents (RFC 9457): the fields, and no request bytes."""

from __future__ import annotations

import json

from utf8guard import Kind
from utf8guard.middleware._finding import Finding, Location, RequestKind
from utf8guard.middleware._problem import invalid_request, too_large


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
    assert document["type"] == "tag:utf8guard,2026:invalid-request"
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
    assert document["type"] == "tag:utf8guard,2026:body-too-large"
    assert "1024" in document["detail"]
