"""End to end: the multipart differentials over raw sockets to uvicorn + Starlette.

The rows of ``test_multipart_parsers.py`` are sent as raw HTTP/1.1 requests to a
Starlette app behind the guard, under uvicorn in a subprocess on 127.0.0.1; each must
be refused with 400 before Starlette parses it, and the valid uploads must arrive as
sent.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .._servers import HOST, request, uvicorn_server
from .test_multipart_parsers import ROWS, VALID, starlette

pytest.importorskip("starlette")


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    factory = "tests.middleware.e2e_form_app:create"
    with uvicorn_server(factory, lifetime_seconds=120) as process:
        yield HOST, process.port


def post(server: tuple[str, int], body: bytes) -> tuple[int, dict[str, object]]:
    head = (
        b"POST /form HTTP/1.1\r\n"
        b"Content-Type: multipart/form-data; boundary=XyZ\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    return request(*server, head, body)


@pytest.mark.parametrize(
    ("body", "kind"),
    [row[1:3] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_differential_is_refused(
    server: tuple[str, int], body: bytes, kind: str
) -> None:
    status, problem = post(server, body)
    assert status == 400, problem
    assert problem["violations"][0]["kind"] == kind  # type: ignore[index]


@pytest.mark.parametrize(
    "body", [row[1] for row in VALID], ids=[row[0] for row in VALID]
)
def test_valid_upload_arrives_as_parsed(server: tuple[str, int], body: bytes) -> None:
    status, seen = post(server, body)
    assert status == 200
    assert seen["parts"] == [list(part) for part in starlette(body)]
