"""End to end: the Django middleware under Gunicorn (WSGI), uvicorn (Django ASGI) and
Django's own ``runserver``.

Gunicorn and uvicorn run ``e2e_django_app`` in a subprocess on 127.0.0.1 with an
inherited listening socket; ``runserver`` binds a free port itself. Requests go over
raw sockets, so no client normalises the path or re-encodes a header. The attacks are
the ASGI suite's (``test_e2e_uvicorn``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .._servers import (
    HOST,
    Command,
    ServerProcess,
    e2e_env,
    gunicorn,
    runserver,
    uvicorn,
)
from .._servers import request as send
from .test_e2e_uvicorn import ATTACKS

Server = tuple[str, int]
#: The body limit the site runs with, small so that the oversize request stays small.
MAX_BODY_BYTES = 4096
_APP = "tests.middleware.e2e_django_app"
SERVERS: dict[str, Command] = {
    "gunicorn": gunicorn(f"{_APP}:create_wsgi()"),
    "uvicorn": uvicorn(f"{_APP}:create_asgi", http="h11", lifespan="off"),
    # wsgiref under Django's handler: no raw target, the path arrives decoded.
    "runserver": runserver,
}


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    name: str = request.param
    env = e2e_env(name, lifetime_seconds=300)
    env["UTF8GUARD_E2E_OPTIONS"] = json.dumps({"max_body_size": MAX_BODY_BYTES})
    env["DJANGO_SETTINGS_MODULE"] = "tests.middleware.django_site"
    # runserver binds its own socket: it gets a port number, not a socket.
    inherit = name != "runserver"
    with ServerProcess(SERVERS[name], env=env, inherit_socket=inherit) as process:
        yield HOST, process.port


def test_valid_text_arrives_intact(server: Server) -> None:
    body = "ä € 𝄞".encode()
    status, seen = send(
        *server,
        b"POST /%C3%A4/%E2%82%AC?q=%E2%82%AC HTTP/1.1\r\n"
        b"X-Name: \xf0\x9d\x84\x9e\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + b"Content-Length: %d\r\n\r\n"
        % len(body),
        body,
    )
    assert status == 200
    # the echo view answers with its bytes as Latin-1 text
    assert seen["path"] == "/ä/€".encode().decode("latin-1")
    assert seen["query"] == "q=%E2%82%AC"
    assert seen["body"] == body.decode("latin-1")
    assert seen["length"] == "11"


def test_clean_json_and_binary_bodies_pass(server: Server) -> None:
    document = '{"a": "h\u00e9 \\ud83d\\ude00"}'.encode()
    status, seen = send(
        *server,
        b"POST /api HTTP/1.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(document),
        document,
    )
    assert (status, seen["body"]) == (200, document.decode("latin-1"))
    binary = b"\xff\xfe\xc0\xaf"
    status, seen = send(
        *server,
        b"POST /upload HTTP/1.1\r\nContent-Type: application/octet-stream\r\n"
        b"Content-Length: 4\r\n\r\n",
        binary,
    )
    assert (status, seen["body"]) == (200, binary.decode("latin-1"))


@pytest.mark.parametrize(
    ("name", "head", "body", "kind"), ATTACKS, ids=[case[0] for case in ATTACKS]
)
def test_attack_is_refused(
    request: pytest.FixtureRequest,
    server: Server,
    name: str,
    head: bytes,
    body: bytes,
    kind: str | None,
) -> None:
    on_runserver = request.node.callspec.params["server"] == "runserver"
    if on_runserver and name == "encoded-slash":
        pytest.skip("wsgiref decodes %2F to / before any middleware (SECURITY.md)")
    status, problem = send(*server, head, body)
    assert status == 400
    if on_runserver:
        # No raw target, and Django re-escapes bytes that are not UTF-8 in
        # PATH_INFO: the guard refuses what is left (as double_encoding, a
        # dot segment ...), under another kind than where it sees the target.
        assert problem["status"] == 400
    elif kind is None or (name, request.node.callspec.params["server"]) in {
        ("header-esc", "gunicorn")
    }:
        # Gunicorn and h11 refuse raw non-ASCII in the target before any app;
        # Gunicorn refuses a control in a header value too (h11 does not).
        assert problem == {}
    else:
        violations = problem["violations"]
        assert isinstance(violations, list)
        assert violations[0]["kind"] == kind


def test_oversize_body_is_413(server: Server) -> None:
    # Django's ASGI handler receives the whole body before any middleware runs, so
    # the body is sent (under WSGI the declared length alone is refused).
    body = b"a" * (MAX_BODY_BYTES + 1)
    status, problem = send(
        *server,
        b"POST / HTTP/1.1\r\nContent-Type: text/plain\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body),
        body,
    )
    assert (status, problem["status"]) == (413, 413)
