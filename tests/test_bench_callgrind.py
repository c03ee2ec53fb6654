"""bench_callgrind still runs: its dump parser, request and tables on hand-made data
(no valgrind, no server, no counts asserted of a real run)."""

from __future__ import annotations

import shutil
import socket
import threading

import pytest

from bench import bench_callgrind
from bench.bench_server import request_parts

# The callgrind format (valgrind's "Callgrind Format Specification"): compressed
# names, relative positions, trailing zero events left out, and a call's inclusive
# cost on the line after calls=, which is not the caller's own.
DUMP = """\
# callgrind format
version: 1
positions: line
events: Ir Dr Dw I1mr D1mr

summary: 999 0 0 99 0

ob=(1) /usr/lib/libpython3.11.so.1.0
fl=(1) Python/ceval.c
fn=(1) _PyEval_EvalFrameDefault
10 100 5 0 7 1
+2 20
cob=(2) /x/utf8guard/_speedups.so
cfl=(2) lane.c
cfn=(2) speedups_asgi_plan
calls=1 40
* 5000 50 0 60 6
-1 30 0 0 1

ob=(2)
fl=(2)
fn=(2)
40 300 3 0 2 2

ob=(1)
fn=(1)
12 1
"""


def test_parse_sums_each_functions_own_cost() -> None:
    events, costs = bench_callgrind.parse(DUMP)
    assert events == ["Ir", "Dr", "Dw", "I1mr", "D1mr"]
    assert costs == {
        ("libpython3.11.so.1.0", "_PyEval_EvalFrameDefault"): [151, 5, 0, 8, 1],
        ("_speedups.so", "speedups_asgi_plan"): [300, 3, 0, 2, 2],
    }


def test_difference_lines_by_object_and_function() -> None:
    events = ["Ir", "Dr", "Dw", "I1mr", "D1mr"]
    bare = {("libpython.so", "eval"): [100.0, 0.0, 0.0, 10.0, 1.0]}
    guarded = {
        ("libpython.so", "eval"): [150.0, 0.0, 0.0, 12.0, 1.0],
        ("_speedups.so", "plan"): [300.0, 0.0, 0.0, 20.0, 4.0],
    }
    lines = bench_callgrind.difference_lines(events, guarded, bare, top=1)
    assert lines[:5] == [
        "| where | Ir | I1mr | D1mr |",
        "| --- | ---: | ---: | ---: |",
        "| **the request** | +350.0 | +22.0 | +4.0 |",
        "| `_speedups.so` | +300.0 | +20.0 | +4.0 |",
        "| `libpython.so` | +50.0 | +2.0 | +0.0 |",
    ]
    # The function that moved most in L1i misses, alone under top=1.
    assert lines[-3:] == [
        "| function (object) | Ir | I1mr | D1mr |",
        "| --- | ---: | ---: | ---: |",
        "| `plan` (_speedups.so) | +300.0 | +20.0 | +4.0 |",
    ]


def test_the_request_stays_on_its_connection() -> None:
    raw = bench_callgrind.keep_alive_request("POST")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert body == request_parts("POST")[2]
    assert f"\r\ncontent-length: {len(body)}".encode() in head
    assert b"connection" not in head.lower()
    assert bench_callgrind.keep_alive_request("GET").endswith(b"\r\n\r\n")


def test_exchange_reads_each_answer_before_the_next_request() -> None:
    ours, theirs = socket.socketpair()
    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    def serve() -> None:
        for _ in range(3):
            theirs.recv(100)
            theirs.sendall(answer[:20])
            theirs.sendall(answer[20:])
        theirs.recv(100)
        theirs.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")

    server = threading.Thread(target=serve)
    server.start()
    with ours, theirs:
        bench_callgrind.exchange(ours, b"GET / HTTP/1.1\r\n\r\n", 3)
        with pytest.raises(RuntimeError, match="unexpected answer"):
            bench_callgrind.exchange(ours, b"GET / HTTP/1.1\r\n\r\n", 1)
        server.join()
        theirs.close()
        with pytest.raises(ConnectionError):
            bench_callgrind.exchange(ours, b"GET / HTTP/1.1\r\n\r\n", 1)


def test_without_valgrind_it_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _: None)
    with pytest.raises(SystemExit) as exit_info:
        bench_callgrind.main([])
    assert exit_info.value.code == bench_callgrind.MISSING


def test_bad_counts_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench_callgrind.main(["--requests", "0"])
    assert "--requests must be >= 1" in capsys.readouterr().err
