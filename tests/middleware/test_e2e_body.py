"""End to end, raw sockets: bodies the servers deliver oddly never make a 500.

Werkzeug's server raises ``OSError`` from ``wsgi.input`` on a chunk extension, a
trailer or a bad chunk size (F11); Gunicorn parses extensions and trailers and
answers a bad chunk size with its own 400.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from .test_e2e_uvicorn import request
from .test_e2e_wsgi import ROOT, SERVERS, _command

#: Host, port and which server it is.
Server = tuple[str, int, str]

_CHUNKED = (
    b"POST /t HTTP/1.1\r\nContent-Type: text/plain\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
)
ODD_CHUNKS = [
    ("extension", b"2;e=1\r\nab\r\n0\r\n\r\n"),
    ("trailer", b"2\r\nab\r\n0\r\nX-T: 1\r\n\r\n"),
    ("bad-size", b"zz\r\nab\r\n0\r\n\r\n"),
    ("extension-bytes", b"2;e=\xff\r\nab\r\n0\r\n\r\n"),
]


@pytest.fixture(scope="module", params=SERVERS)
def wsgi_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    env = dict(os.environ, UTF8GUARD_E2E_LIFETIME="120")
    if request.param == "gunicorn":
        env["UTF8GUARD_E2E_GUNICORN"] = "1"
    process = subprocess.Popen(  # noqa: S603  # a fixed argv, no shell
        _command(request.param, listener.fileno()),
        cwd=ROOT,
        env=env,
        pass_fds=[listener.fileno()],
        stderr=subprocess.PIPE,
    )
    listener.close()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield "127.0.0.1", port, request.param
    finally:
        process.terminate()
        _, log = process.communicate(timeout=10)
        # The guard logs kinds and offsets; never a traceback with the body's bytes.
        assert b"Traceback" not in log
        assert b"\xff" not in log


@pytest.mark.parametrize(
    "body", [case[1] for case in ODD_CHUNKS], ids=[case[0] for case in ODD_CHUNKS]
)
def test_odd_chunked_body_is_never_a_500(wsgi_server: Server, body: bytes) -> None:
    status, reply = request(*wsgi_server[:2], _CHUNKED, body)
    assert status < 500
    if wsgi_server[2] == "werkzeug":
        assert status == 400
        violations = reply["violations"]
        assert isinstance(violations, list)
        assert violations[0]["kind"] == "unreadable_body"
    elif body.startswith((b"2;e=1", b"2\r\n")):
        assert (status, reply["body"], reply["clean"]) == (200, "ab", True)
    else:
        assert status == 400  # Gunicorn's own answer
