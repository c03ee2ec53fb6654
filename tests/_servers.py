"""Servers in subprocesses on 127.0.0.1 and raw HTTP/1.1 over sockets, for e2e tests.

Raw sockets, so no client normalises the path or re-encodes a header (httpx and
requests do both). A server gets an inherited listening socket (``fd``) or, for
servers that cannot take one (Django's ``runserver``), a free port; it is stopped
by its PID, and it exits by itself after a lifetime the test passes in its
environment, so a test run that dies cannot leave a server behind. Each server
kind's argv is built here once (``uvicorn``, ``hypercorn``, ``gunicorn``,
``werkzeug``, ``runserver``), for the e2e and the differential suites.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: The repository root: servers run there, so ``tests.…`` modules import.
ROOT: Final = Path(__file__).resolve().parents[1]
#: Loopback only: nothing these tests start listens beyond this machine.
HOST: Final = "127.0.0.1"
#: How long a request may take before the test calls it a hang (a generous bound
#: for a loaded machine: it detects freezes, it measures nothing).
REQUEST_TIMEOUT_SECONDS: Final = 20.0
#: How long a server may take to start answering.
START_TIMEOUT_SECONDS: Final = 60.0
#: Seconds a stopped server gets to exit after SIGTERM, before SIGKILL.
STOP_GRACE_SECONDS: Final = 10.0

#: A server's argv, given an inherited listening socket's fd (or a port to bind).
Command = Callable[[int], list[str]]


@dataclass(frozen=True, slots=True)
class Response:
    """One raw HTTP response: status, header fields (lower-case names), payload."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    payload: bytes

    def header(self, name: bytes) -> bytes | None:
        """The first value of the field ``name`` (lower-case), or None."""
        return next((value for key, value in self.headers if key == name), None)

    def json(self) -> object:
        """The payload parsed as JSON (the echo apps and RFC 9457 problems)."""
        return json.loads(self.payload)


def exchange(
    port: int, data: bytes, timeout: float = REQUEST_TIMEOUT_SECONDS
) -> Response | None:
    """Send ``data`` as is, read the response; None if the server sent nothing.

    The response ends where its ``Content-Length`` says (RFC 9112 §6.3 item 6), else
    when the server closes. A server may keep reading what is left of a request the
    app did not read (Werkzeug's drains it, waiting for the client to close), so
    waiting for its close after a complete response would be a hang of the test's
    own making.

    Raises:
        TimeoutError: no byte for ``timeout`` seconds (a hang).
        OSError: the connection failed.
    """
    received = bytearray()
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            # The server answered early (a 4xx on the head) and closed: read it.
            pass
        try:
            while (chunk := sock.recv(65536)) and not _complete(received, chunk):
                pass
        except ConnectionResetError:
            if not received:
                return None
    return parse_response(bytes(received)) if received else None


def _complete(received: bytearray, chunk: bytes) -> bool:
    """Add ``chunk``; True when ``received`` is a whole response framed by one
    Content-Length (a head is looked for in the first 64 KiB only)."""
    received += chunk
    head, blank, _ = bytes(received[:65536]).partition(b"\r\n\r\n")
    if not blank:
        return False
    lengths = [
        value.strip()
        for name, _, value in (line.partition(b":") for line in head.split(b"\r\n"))
        if name.strip().lower() in (b"content-length", b"transfer-encoding")
    ]
    if len(lengths) != 1 or not lengths[0].isdigit():
        return False  # none, chunked or ambiguous: read until the server closes
    return len(received) - len(head) - 4 >= int(lengths[0])


def parse_response(raw: bytes) -> Response:
    """Split a raw HTTP/1.1 response; a chunked payload (RFC 9112 §7.1) is joined.

    Raises:
        ValueError: not an HTTP response.
    """
    head, _, payload = raw.partition(b"\r\n\r\n")
    status_line, *lines = head.split(b"\r\n")
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/"):
        raise ValueError("not an HTTP response")
    headers = tuple(
        (name.strip().lower(), value.strip())
        for name, _, value in (line.partition(b":") for line in lines)
    )
    response = Response(int(parts[1]), headers, payload)
    if (response.header(b"transfer-encoding") or b"").lower() == b"chunked":
        response = Response(response.status, headers, _unchunk(payload))
    return response


def _unchunk(payload: bytes) -> bytes:
    joined, rest = bytearray(), payload
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        joined += rest[:size]
        rest = rest[size + 2 :]
    return bytes(joined)


def request(
    host: str, port: int, head: bytes, body: bytes = b""
) -> tuple[int, dict[str, object]]:
    """Send one raw request (``Connection: close`` is added); return status and JSON."""
    del host  # always HOST; kept so callers can pass a (host, port) pair
    head = head.replace(b"\r\n\r\n", b"\r\nHost: t\r\nConnection: close\r\n\r\n", 1)
    response = exchange(port, head + body, timeout=30)
    if response is None:
        raise ConnectionError("the server closed the connection without answering")
    is_json = b"json" in (response.header(b"content-type") or b"").lower()
    document = response.json() if is_json else {}
    assert isinstance(document, dict)
    return response.status, document


def chunked(*pieces: bytes) -> bytes:
    """A chunked transfer-coded body (RFC 9112 §7.1) with these chunks."""
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"


def listening_socket() -> socket.socket:
    """A socket listening on a free loopback port, for a server to inherit."""
    listener = socket.socket()
    listener.bind((HOST, 0))
    listener.listen(64)
    return listener


def free_port() -> int:
    """A loopback port free right now (for servers that bind it themselves)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """One server in a subprocess, started by ``command(fd_or_port)``, stopped by PID.

    ``inherit_socket``: the command gets the number of an inherited listening
    socket; otherwise it gets a free port to bind. ``ready`` is a request that must
    get any HTTP response before the server counts as started. ``log``: a file for
    the server's stderr (appended to across restarts); by default it inherits ours.
    As a context manager it is started on entry and stopped on exit.
    """

    def __init__(
        self,
        command: Callable[[int], Sequence[str]],
        *,
        env: Mapping[str, str],
        inherit_socket: bool = True,
        ready: bytes = b"GET /ready HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        log: Path | None = None,
    ) -> None:
        self._command, self._env = command, dict(os.environ, **env)
        self._inherit, self._ready, self._log = inherit_socket, ready, log
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        """Start the server and wait until it answers (or raise RuntimeError)."""
        listener = listening_socket() if self._inherit else None
        self.port = free_port() if listener is None else listener.getsockname()[1]
        fds = () if listener is None else (listener.fileno(),)
        with contextlib.ExitStack() as stack:
            log = (
                None if self._log is None else stack.enter_context(self._log.open("ab"))
            )
            self._process = subprocess.Popen(  # noqa: S603  # a fixed argv, no shell
                self._command(fds[0] if fds else self.port),
                cwd=ROOT,
                env=self._env,
                pass_fds=fds,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        if listener is not None:
            listener.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while True:
            try:
                if exchange(self.port, self._ready) is not None:
                    return
            except OSError:
                pass  # not listening yet
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"server did not start: {self._command(0)}")
            time.sleep(0.2)

    def stop(self) -> None:
        """SIGTERM the server's process group (its workers too), then SIGKILL."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        # start_new_session made the server a group leader: its PID is the group id.
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_GRACE_SECONDS)


def uvicorn(factory: str, *, http: str = "auto", lifespan: str = "auto") -> Command:
    """uvicorn running the app factory ``factory`` (``module:function``)."""

    def command(fd: int) -> list[str]:
        return [
            *(sys.executable, "-m", "uvicorn", "--factory", factory),
            *("--fd", str(fd), "--http", http, "--lifespan", lifespan),
            *("--no-access-log", "--log-level", "warning"),
        ]

    return command


def hypercorn(app: str) -> Command:
    """Hypercorn running ``app`` (``module:expression``)."""

    def command(fd: int) -> list[str]:
        # --workers 0: serve in this process (hypercorn/run.py): its PID is the server.
        return [
            *(sys.executable, "-m", "hypercorn", "--bind", f"fd://{fd}"),
            *("--workers", "0", "--log-level", "warning", app),
        ]

    return command


def gunicorn(app: str) -> Command:
    """Gunicorn with one sync worker running ``app`` (``module:expression``)."""

    def command(fd: int) -> list[str]:
        return [
            *(sys.executable, "-m", "gunicorn", "--bind", f"fd://{fd}"),
            *("--worker-class", "sync", "--workers", "1", "--log-level", "warning"),
            app,
        ]

    return command


def werkzeug(module: str) -> Command:
    """``python -m module FD``: a module that serves on the socket with Werkzeug."""

    def command(fd: int) -> list[str]:
        return [sys.executable, "-m", module, str(fd)]

    return command


def runserver(port: int) -> list[str]:
    """Django's ``runserver``, binding ``port`` itself (so ``inherit_socket=False``).

    The settings come from ``DJANGO_SETTINGS_MODULE`` in the server's environment.
    """
    return [
        *(sys.executable, "-m", "django", "runserver", f"{HOST}:{port}"),
        *("--noreload", "--skip-checks"),
    ]


_ASGI_ECHO: Final = "tests.middleware.e2e_app:create"
#: The middleware's e2e echo apps (``tests/middleware/e2e_app.py`` under ASGI,
#: ``e2e_wsgi_app.py`` under WSGI) on each server, by the name tests give it.
_ECHO_SERVERS: Final[Mapping[str, Command]] = {
    "uvicorn-h11": uvicorn(_ASGI_ECHO, http="h11"),
    "uvicorn-httptools": uvicorn(_ASGI_ECHO, http="httptools"),
    "hypercorn": hypercorn(f"{_ASGI_ECHO}()"),
    "werkzeug": werkzeug("tests.middleware.e2e_wsgi_app"),
    "gunicorn": gunicorn("tests.middleware.e2e_wsgi_app:create()"),
}


def e2e_env(server: str, *, lifetime_seconds: int) -> dict[str, str]:
    """The environment of a middleware e2e app run by ``server`` (a name as above)."""
    env = {"UTF8GUARD_E2E_LIFETIME": str(lifetime_seconds)}
    if server == "gunicorn":
        # The app's exit timer then stops the Gunicorn master too (e2e_wsgi_app).
        env["UTF8GUARD_E2E_GUNICORN"] = "1"
    return env


def echo_server(
    name: str, *, lifetime_seconds: int, log: Path | None = None
) -> ServerProcess:
    """The echo app on the server ``name``, to start in a ``with``.

    ``name``: ``"uvicorn-h11"``, ``"uvicorn-httptools"``, ``"hypercorn"``,
    ``"werkzeug"`` or ``"gunicorn"``.
    """
    env = e2e_env(name, lifetime_seconds=lifetime_seconds)
    return ServerProcess(_ECHO_SERVERS[name], env=env, log=log)


def uvicorn_server(factory: str, *, lifetime_seconds: int) -> ServerProcess:
    """uvicorn running the e2e app factory ``factory``, to start in a ``with``."""
    env = e2e_env("uvicorn", lifetime_seconds=lifetime_seconds)
    return ServerProcess(uvicorn(factory), env=env)
