"""End to end: the Django middleware under Gunicorn (WSGI), uvicorn (Django ASGI) and
Django's own ``runserver``.

Gunicorn and uvicorn run ``e2e_django_app`` in a subprocess on 127.0.0.1 with an
inherited listening socket; ``runserver`` binds a free port itself. Requests go over
raw sockets, so no client normalises the path or re-encodes a header. The attacks are
the ASGI suite's (``test_e2e_uvicorn``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .._servers import free_port
from .._servers import request as send
from .test_e2e_uvicorn import ATTACKS

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ("gunicorn", "uvicorn", "runserver")
Server = tuple[str, int]
#: The body limit the site runs with, small so that the oversize request stays small.
MAX_BODY_BYTES = 4096


def _command(name: str, fd: int) -> list[str]:
    if name == "runserver":
        # wsgiref under Django's handler: no raw target, the path arrives decoded.
        return [
            sys.executable,
            "-m",
            "django",
            "runserver",
            f"127.0.0.1:{fd}",
            "--noreload",
            "--skip-checks",
            "--settings=tests.middleware.django_site",
        ]
    if name == "gunicorn":
        return [
            sys.executable,
            "-m",
            "gunicorn",
            f"--bind=fd://{fd}",
            "--worker-class=sync",
            "--workers=1",
            "--log-level=warning",
            "tests.middleware.e2e_django_app:create_wsgi()",
        ]
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "tests.middleware.e2e_django_app:create_asgi",
        f"--fd={fd}",
        "--http=h11",
        "--lifespan=off",
        "--no-access-log",
        "--log-level=warning",
    ]


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    if request.param == "runserver":
        # runserver binds its own socket: hand it the port number instead.
        listener.close()
        port = free_port()
    env = dict(
        os.environ,
        UTF8GUARD_E2E_LIFETIME="300",
        UTF8GUARD_E2E_OPTIONS=json.dumps({"max_body_size": MAX_BODY_BYTES}),
    )
    if request.param == "gunicorn":
        env["UTF8GUARD_E2E_GUNICORN"] = "1"
    served = port if request.param == "runserver" else listener.fileno()
    process = subprocess.Popen(  # noqa: S603  # a fixed argv, no shell
        _command(request.param, served),
        cwd=ROOT,
        env=env,
        pass_fds=[] if request.param == "runserver" else [listener.fileno()],
    )
    listener.close()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                send("127.0.0.1", port, b"GET / HTTP/1.1\r\n\r\n")
                break
            except (OSError, ValueError):
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield "127.0.0.1", port
    finally:
        process.terminate()
        process.wait(timeout=10)


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
    elif kind is None:
        # Gunicorn and h11 refuse raw non-ASCII in the target before any app.
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
