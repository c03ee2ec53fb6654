"""What the server benchmarks share: free ports, servers stopped by PID, one request.

``bench_server`` and ``bench_scaling`` start a server in a subprocess on 127.0.0.1,
send it raw HTTP/1.1 bytes and stop it by its process id (its whole process group,
so Gunicorn's workers go with their master). Loopback only; ``bench_server``'s load
comes from wrk (``bench/_wrk.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final

__all__ = [
    "ROOT",
    "Server",
    "free_port",
    "group_cpu_seconds",
    "one_request",
    "serving",
    "wait_for_port",
]

ROOT: Final = Path(__file__).resolve().parents[1]
#: How long a server gets to exit after SIGTERM before its group gets SIGKILL.
STOP_GRACE_SECONDS: Final = 5.0
#: How long a server gets to start listening.
START_SECONDS: Final = 30.0


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def wait_for_port(port: int, seconds: float = START_SECONDS) -> None:
    """Return once 127.0.0.1:``port`` accepts a connection; TimeoutError after that."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=1),
        ):
            return
        time.sleep(0.1)
    raise TimeoutError(f"no server on 127.0.0.1:{port} after {seconds:.0f} s")


class Server:
    """A server subprocess on 127.0.0.1: ``command(port)`` is its argv.

    ``start`` picks a free port and waits until it listens; ``stop`` sends SIGTERM,
    then SIGKILL to the process group it leads (its own PID), so Gunicorn's workers
    go with their master; ``restart`` does both (a server stuck on one request).
    """

    def __init__(self, command: Callable[[int], Sequence[str]]) -> None:
        self._command = command
        self._process: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self) -> None:
        self.port = free_port()
        self._process = subprocess.Popen(  # noqa: S603  # our own argv, no shell
            list(self._command(self.port)),
            cwd=ROOT,
            env=dict(os.environ),
            start_new_session=True,
        )
        wait_for_port(self.port)

    def stop(self) -> None:
        server, self._process = self._process, None
        if server is None:
            return
        if server.poll() is None:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(timeout=STOP_GRACE_SECONDS)
        with contextlib.suppress(ProcessLookupError):  # the group may be gone already
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=STOP_GRACE_SECONDS)

    def restart(self) -> None:
        self.stop()
        self.start()

    def cpu_seconds(self) -> float:
        """User and system CPU seconds used so far by the server's process group
        (Linux: read from /proc; a worker that was replaced no longer counts)."""
        if self._process is None:
            raise RuntimeError("the server is not running")
        return group_cpu_seconds(self._process.pid)


def group_cpu_seconds(group: int) -> float:
    """User + system CPU seconds of the live processes in process group ``group``."""
    ticks = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # the process has exited meanwhile
        # proc(5): after "pid (comm) ", field 3 is the state; pgrp is field 5,
        # utime and stime fields 14 and 15, in clock ticks.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == group:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def serving(command: Callable[[int], Sequence[str]]) -> Iterator[Server]:
    """A started ``Server``, stopped on exit whatever happened."""
    server = Server(command)
    try:
        server.start()
        yield server
    finally:
        server.stop()


def one_request(port: int, raw: bytes, timeout: float) -> tuple[int, float]:
    """Send ``raw`` on a new connection and read the response to EOF.

    Returns the status code and the seconds from the first byte sent to EOF; raises
    TimeoutError when that takes longer than ``timeout``. The request should say
    ``Connection: close``. A server that answers before it has read the whole request
    (a refusal) and then closes resets the connection: once a response has come, the
    reset ends it as EOF would. Raises ``ConnectionError`` when no byte of a response
    came.
    """
    deadline = time.perf_counter() + timeout
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        start = time.perf_counter()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(raw)  # else the answer came early: read it
        head = bytearray()
        try:
            while piece := conn.recv(65536):
                head += piece[: max(0, 64 - len(head))]
                conn.settimeout(max(0.001, deadline - time.perf_counter()))
        except ConnectionResetError:
            pass  # after a response: its end (checked below)
        elapsed = time.perf_counter() - start
    if not head:
        raise ConnectionError("the server closed the connection without answering")
    if elapsed > timeout:
        raise TimeoutError(f"response took {elapsed:.1f} s")
    status = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b"0"
    return int(status) if status.isdigit() else 0, elapsed
