"""bench_scaling's shapes and tables on tiny sizes, with fake timers: no servers, no
timing assertions (the numbers live in bench/README.md)."""

from __future__ import annotations

import io
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import h11
import pytest

from bench import _load, bench_scaling
from bench._shapes import BASELINE, BODY_SHAPES, HEAD_SHAPES, Shape, request
from bench.bench_scaling import Cell
from utf8guard.middleware import Utf8GuardMiddleware
from utf8guard.middleware.engine._config import MAX_MULTIPART_PARTS

SHAPES = HEAD_SHAPES + BODY_SHAPES


def _parse(raw: bytes) -> tuple[h11.Request, bytes]:
    """The request as h11 (an independent HTTP/1.1 parser) reads it."""
    server = h11.Connection(h11.SERVER, max_incomplete_event_size=len(raw))
    server.receive_data(raw)
    head = server.next_event()
    assert isinstance(head, h11.Request)
    body = b""
    while isinstance(event := server.next_event(), h11.Data):
        body += event.data
    assert isinstance(event, h11.EndOfMessage)
    return head, body


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
@pytest.mark.parametrize("size", [256, 512])
def test_every_shape_is_one_http_request_of_about_its_size(
    shape: Shape, size: int
) -> None:
    head, body = _parse(request(shape, size))
    part = {
        "target": head.target,
        "header": dict(head.headers).get(b"x-data", b""),
        "body": body,
    }[shape.where]
    assert size - 64 < len(part) <= size
    assert (b"connection", b"close") in head.headers


def _timer(cost: Mapping[bytes, float | None]) -> bench_scaling.Timer:
    def timer(raw: bytes) -> tuple[int, float] | None:
        seconds = cost.get(raw, len(raw) * 1e-6)
        return None if seconds is None else (200, seconds)

    return timer


def test_linear_growth_passes_and_quadratic_fails() -> None:
    shape, sizes = HEAD_SHAPES[0], (1024, 2048, 4096)
    exact = _timer({request(shape, n): n * 1e-4 for n in sizes})
    linear = bench_scaling.measure_shape("s", shape, sizes, _timer({}), exact)
    quadratic = {request(shape, n): (n / 1024) ** 2 for n in sizes}
    slow = bench_scaling.measure_shape("t", shape, sizes, _timer({}), _timer(quadratic))
    assert bench_scaling.growth(linear) == [None, 2.0, 2.0]
    assert bench_scaling.growth(slow) == [None, 4.0, 4.0]
    block = bench_scaling.table(linear + slow, timeout=1.0)
    assert f"| s | {shape.name} | x2.00 | ok |" in block
    assert f"| t | {shape.name} | x4.00 | MISS |" in block


def test_growth_of_fast_cells_is_shown_but_not_judged() -> None:
    shape, sizes = HEAD_SHAPES[0], (1024, 2048)
    noisy = _timer({request(shape, 1024): 0.01, request(shape, 2048): 0.05})
    cells = bench_scaling.measure_shape("s", shape, sizes, noisy, noisy)
    block = bench_scaling.table(cells, timeout=1.0)
    assert "| x5.00 | 200/200 |" in block
    assert f"| s | {shape.name} | - | - |" in block


def test_a_timeout_stops_the_shape() -> None:
    shape, sizes = HEAD_SHAPES[0], (1024, 2048, 4096)
    guarded = _timer({request(shape, 2048): None})
    cells = bench_scaling.measure_shape("s", shape, sizes, _timer({}), guarded)
    assert [cell.size for cell in cells] == [1024, 2048]
    block = bench_scaling.table(cells, timeout=1.0)
    assert "| > 1,000 | - | timeout | 200/- |" in block
    assert "| timeout at 2 KiB | MISS |" in block


def test_body_ratio_line() -> None:
    mib = 1024 * 1024
    cells = [
        Cell("s", BASELINE.name, 2 * mib, 0.01, 0.02, (200, 200)),
        Cell("s", "form `=`", 2 * mib, 0.01, 0.3, (200, 200)),
        Cell("s", "form `&`", 2 * mib, 0.01, 0.1, (200, 200)),
    ]
    block = bench_scaling.table(cells, timeout=1.0)
    assert "s: 2 MiB of form `=` (the slowest body shape) took 15x" in block
    assert "(target <= 10x: MISS)" in block
    fast = [Cell("s", BASELINE.name, 2 * mib, 0.01, 0.02, (200, 200)), cells[2]]
    assert "took 5x the time of 2 MiB of text/plain, guarded (target <= 10x: ok)" in (
        bench_scaling.table(fast, timeout=1.0)
    )


def test_body_ratio_under_the_cpu_clock_tick() -> None:
    # text/plain under one tick of the CPU clock: the ratio is a lower bound.
    mib = 1024 * 1024
    tick = bench_scaling.TICK_SECONDS
    cells = [
        Cell("s", BASELINE.name, 2 * mib, 0.0, 0.0, (200, 200)),
        Cell("s", "form `&`", 2 * mib, 0.0, 100 * tick, (200, 200)),
    ]
    block = bench_scaling.table(cells, timeout=1.0, clock="cpu")
    assert "took at least 100x the time" in block


def test_main_prints_and_writes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def fake_measure(
        shapes: list[tuple[Shape, tuple[int, ...]]],
        repeats: int,
        timeout: float,
        clock: str,
    ) -> list[Cell]:
        assert clock == "cpu"
        assert [sizes for _, sizes in shapes][:1] == [(1024, 2048)]
        timer = _timer({})
        return [
            cell
            for shape, sizes in shapes
            for cell in bench_scaling.measure_shape("s", shape, sizes, timer, timer)
        ]

    monkeypatch.setattr(bench_scaling, "measure", fake_measure)
    monkeypatch.setenv(bench_scaling.MAX_PARTS_VARIABLE, "7")  # main sets it
    readme = tmp_path / "README.md"
    readme.write_text(f"a\n{bench_scaling.BEGIN}\nold\n{bench_scaling.END}\nb\n")
    argv = ["--head-sizes", "1K,2K", "--body-sizes", "4K,8K", "--clock", "cpu"]
    argv += ["--write", str(readme)]
    assert bench_scaling.main(argv) == 0
    block = capsys.readouterr().out
    assert readme.read_text() == f"a\n{block}b\n"
    assert "| s | multipart tiny parts | 8 KiB |" in block
    assert "server CPU milliseconds" in block
    # The servers inherit the part limit through the environment.
    assert os.environ[bench_scaling.MAX_PARTS_VARIABLE] == "1000"


def test_max_parts_reaches_the_guarded_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(bench_scaling.MAX_PARTS_VARIABLE, "123")
    guarded = bench_scaling.asgi_guarded()
    assert isinstance(guarded, Utf8GuardMiddleware)
    assert guarded.config.max_multipart_parts == 123
    monkeypatch.delenv(bench_scaling.MAX_PARTS_VARIABLE)
    assert bench_scaling._config().max_multipart_parts == MAX_MULTIPART_PARTS


def test_cpu_seconds_of_a_process_group() -> None:
    # proc(5) read by hand, against the kernel's own count (CLOCK_PROCESS_CPUTIME_ID)
    # for a child alone in its own group: this process's group also holds pytest's
    # other workers, whose exits make its total go down (CI, stop 31).
    spin = (
        "import sys, time\n"
        "deadline = time.process_time() + 0.3\n"
        "while time.process_time() < deadline: pass\n"
        "print(time.process_time(), flush=True)\n"
        "sys.stdin.read()\n"
    )
    child = subprocess.Popen(  # noqa: S603  # fixed argv, no shell
        [sys.executable, "-c", spin],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        own_count = float(child.stdout.readline())
        measured = _load.group_cpu_seconds(child.pid)
    finally:
        child.communicate("")
    assert own_count >= 0.3
    assert abs(measured - own_count) <= 0.05


def test_wsgi_apps_read_the_body_and_answer() -> None:
    statuses: list[str] = []

    def start_response(status: str, *_: object) -> Callable[[bytes], object]:
        statuses.append(status)
        return len

    environ = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/upload",
        "QUERY_STRING": "",
        "CONTENT_TYPE": "text/plain",
        "CONTENT_LENGTH": "3",
        "wsgi.input": io.BytesIO(b"abc"),
    }
    reply = bench_scaling.wsgi_guarded(environ, start_response)
    assert b"".join(reply) == b"ok"
    assert statuses == ["200 OK"]


def _early_server(answer: bytes) -> tuple[int, threading.Thread]:
    """A one-connection server that reads a little of the request, sends ``answer``
    and resets the connection (SO_LINGER 0), as a server that refuses a request
    before reading its body and closes with bytes unread does."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with listener, listener.accept()[0] as conn:
            conn.recv(16)
            conn.sendall(answer)
            time.sleep(0.2)  # let the answer arrive before the reset
            conn.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )

    thread = threading.Thread(target=serve)
    thread.start()
    return listener.getsockname()[1], thread


def test_one_request_reads_an_early_answer_before_a_reset() -> None:
    # 8 MiB: more than loopback buffers hold, so the send is cut by the reset.
    raw = b"POST / HTTP/1.1\r\nContent-Length: 8388608\r\n\r\n" + b"x" * 8388608
    port, thread = _early_server(
        b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
    )
    status, _ = _load.one_request(port, raw, timeout=10)
    thread.join()
    assert status == 400
    port, thread = _early_server(b"")
    with pytest.raises(ConnectionError, match="without answering"):
        _load.one_request(port, raw, timeout=10)
    thread.join()
