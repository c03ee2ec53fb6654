"""wrk, the HTTP load generator, driven from Python: one request for a fixed time.

wrk (https://github.com/wg/wrk, Debian package ``wrk``) sends the same request bytes
over keep-alive connections, reconnecting when a server closes one (Gunicorn's sync
worker closes each), and counts what came back. The request is set through wrk's
documented Lua globals (``wrk.method``, ``wrk.path``, ``wrk.headers``, ``wrk.body``,
so wrk builds it once, not per request), and a ``done`` hook prints the summary on
one line that :func:`parse` reads. Loopback only.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["MISSING", "Run", "lua_string", "parse", "run", "script"]

MISSING: Final = (
    "wrk, the load generator, is not on PATH: install it "
    "(Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)"
)
#: wrk gives up on a response after this long and counts a timeout error.
TIMEOUT_SECONDS: Final = 10
#: wrk's ``done(summary, latency, requests)`` hook (its SCRIPTING guide): duration in
#: µs, completed requests, then the error counts; ``status`` counts statuses > 399.
_DONE: Final = """
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("wrk-summary %d %d %d %d %d %d %d\\n",
    summary.duration, summary.requests, e.status,
    e.connect, e.read, e.write, e.timeout))
end
"""


@dataclass(frozen=True, slots=True)
class Run:
    """What one wrk run counted."""

    seconds: float
    requests: int
    #: Responses with a status above 399 (wrk's ``status`` errors): a guard that
    #: refuses the request must not count as fast.
    refused: int
    #: Connect, read, write and timeout errors.
    socket_errors: int

    @property
    def rate(self) -> float:
        """Requests per second."""
        return self.requests / self.seconds


def lua_string(data: bytes) -> str:
    """``data`` as a Lua string literal: printable ASCII as is, every other byte,
    the quote and the backslash as a decimal escape (Lua 5.1 manual §2.1, ``\\ddd``;
    Lua strings hold any byte)."""
    plain = {byte for byte in range(0x20, 0x7F)} - {ord('"'), ord("\\")}
    return '"' + "".join(chr(b) if b in plain else f"\\{b:03d}" for b in data) + '"'


def _header_name(name: bytes) -> bytes:
    # wrk 4.1 adds its own Host header unless wrk.headers has the key "Host" spelled
    # so; field names are case-insensitive (RFC 9110 §5.1), so capitalise them all.
    return b"-".join(part.capitalize() for part in name.split(b"-"))


def script(
    method: str, target: bytes, headers: Sequence[tuple[bytes, bytes]], body: bytes
) -> str:
    """A wrk script that sends this request. wrk adds ``Content-Length`` itself when
    there is a body, so ``headers`` must not carry one."""
    lines = [f"wrk.method = {lua_string(method.encode())}"]
    lines.append(f"wrk.path = {lua_string(target)}")
    for name, value in headers:
        lines.append(
            f"wrk.headers[{lua_string(_header_name(name))}] = {lua_string(value)}"
        )
    if body:
        lines.append(f"wrk.body = {lua_string(body)}")
    return "\n".join(lines) + "\n" + _DONE


def parse(stdout: str) -> Run:
    """The :class:`Run` in wrk's output; ValueError without a summary line."""
    for line in stdout.splitlines():
        if line.startswith("wrk-summary "):
            micros, requests, refused, *errors = (int(n) for n in line.split()[1:])
            return Run(micros / 1e6, requests, refused, sum(errors))
    raise ValueError(f"no summary line in wrk's output: {stdout[-500:]!r}")


def run(port: int, script_path: Path, seconds: int, connections: int) -> Run:
    """One wrk thread, ``connections`` connections, ``seconds`` s against the port."""
    wrk = shutil.which("wrk")
    if wrk is None:
        raise FileNotFoundError(MISSING)
    argv = [wrk, "--threads", "1", "--connections", str(connections)]
    argv += ["--duration", f"{seconds}s", "--timeout", f"{TIMEOUT_SECONDS}s"]
    argv += ["--script", str(script_path), f"http://127.0.0.1:{port}/"]
    done = subprocess.run(  # noqa: S603  # our own argv, no shell
        argv,
        capture_output=True,
        check=True,
        text=True,
        timeout=seconds + TIMEOUT_SECONDS + 30,
    )
    return parse(done.stdout)
