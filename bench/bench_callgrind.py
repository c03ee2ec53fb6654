"""Instructions and cache misses the guard adds to a uvicorn request, under callgrind.

``bench_inside`` times the guard inside a server, where a loaded host moves the
result by microseconds; this counts what it makes the machine do, which load does
not move. uvicorn (``--http httptools --loop asyncio``) serves ``bench_server``'s
bare and guarded apps, one server at a time, under ``setarch -R valgrind
--tool=callgrind --cache-sim=yes`` (I1 and D1 32 KiB 8-way, last level 1 MiB;
``PYTHONHASHSEED=0``, address-space randomisation off). Over one keep-alive
connection it sends ``--warm-up`` requests, dumps the counts so far
(``callgrind_control -d``), sends ``--requests`` more and dumps again. Reported, per
request: the guarded server's excess over the bare one for the whole request and
per object file (the interpreter, libc, ``_speedups``), and the functions whose
counts moved most. ``--baseline DIR`` runs the guarded app a third time with DIR's
``utf8guard`` (its C extension built in place, as for ``bench_server``) and adds
this tree's minus the baseline's. A server process may settle into another rhythm
of the event loop (seen once in six: some 9,000 instructions and 350 L1i misses per
request more, all in the loop's functions), while two runs of the same builds agreed
within about 650 instructions and 13 misses on a difference: read a change from two
runs, and from the functions it touches.

Build the C extension with ``CFLAGS=-g`` (``python setup.py build_ext --inplace``)
for the names of its static functions; a stripped build still counts right, under
fewer names. Without valgrind on PATH it says so and exits. Run:
``python -m bench.bench_callgrind [--method POST] [--requests 1000 --warm-up 300]
[--baseline DIR] [--keep DIR] [--top 25]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

from bench._load import ROOT, free_port, wait_for_port
from bench.bench_server import _uvicorn, baseline_folder, request_parts

MISSING: Final = (
    "valgrind (with callgrind_control) is not on PATH: install it "
    "(Debian/Ubuntu: apt-get install valgrind); no counts"
)
#: This machine's caches (I1, D1, last level), so runs compare across hosts.
CACHES: Final = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64")
#: The events reported: instructions, L1i misses, L1d read misses.
EVENTS: Final = ("Ir", "I1mr", "D1mr")
#: Python's start and uvicorn's imports take a minute or more under valgrind.
START_SECONDS: Final = 600.0
THIS_TREE: Final = "guarded"
BASELINE: Final = "baseline"
#: (object file, function) -> per event in the dump's order, the function's own cost.
Costs = dict[tuple[str, str], list[int]]


def keep_alive_request(method: str) -> bytes:
    """``bench_server``'s request on a connection that stays open."""
    target, headers, body = request_parts(method)
    if body:
        headers.append((b"content-length", str(len(body)).encode()))
    lines = [method.encode() + b" " + target + b" HTTP/1.1"]
    lines += [name + b": " + value for name, value in headers]
    return b"\r\n".join([*lines, b"", body])


def exchange(conn: socket.socket, raw: bytes, times: int) -> None:
    """Send ``raw`` ``times`` times, each after the answer to the one before; every
    answer must be a 200 with a Content-Length."""
    for _ in range(times):
        conn.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data:
            data += _recv(conn)
        head, _, rest = data.partition(b"\r\n\r\n")
        found = re.search(rb"\r\ncontent-length: *(\d+)", head, re.IGNORECASE)
        if not head.startswith(b"HTTP/1.1 200 ") or found is None:
            raise RuntimeError(f"unexpected answer: {head[:80]!r}")
        while len(rest) < int(found[1]):
            rest += _recv(conn)


def _recv(conn: socket.socket) -> bytes:
    piece = conn.recv(65536)
    if not piece:
        raise ConnectionError("the server closed the connection")
    return piece


def parse(text: str) -> tuple[list[str], Costs]:
    """A callgrind dump's events and each function's own (exclusive) cost.

    The format (valgrind's "Callgrind Format Specification"): ``ob=``/``fn=`` name
    the current object and function, ``(id) name`` defining a compressed name and
    ``(id)`` repeating it; a cost line is the positions then one number per event;
    the cost line after ``calls=`` is a call's inclusive cost, not the caller's own.
    """
    events: list[str] = []
    positions = 1
    names: dict[tuple[str, str], str] = {}
    costs: Costs = {}
    current = ["", ""]
    skip_next = False
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("positions:"):
            positions = len(line.split()) - 1
        elif sep and key in ("ob", "fn", "cob", "cfn"):
            name = _name(names, key.removeprefix("c"), value)
            if key in ("ob", "fn"):
                # An object by its file name: the two trees' .so files then match.
                current[key == "fn"] = name if key == "fn" else Path(name).name
        elif sep and key == "calls":
            skip_next = True
        elif line[:1].isdigit() or line[:1] in ("+", "-", "*"):
            if skip_next:
                skip_next = False
                continue
            numbers = [int(n) for n in line.split()[positions:]]
            total = costs.setdefault((current[0], current[1]), [0] * len(events))
            for index, number in enumerate(numbers):
                total[index] += number
    return events, costs


def _name(names: dict[tuple[str, str], str], space: str, value: str) -> str:
    if not value.startswith("("):
        return value
    number, _, name = value.partition(")")
    if name:
        names[space, number] = name.strip()
    return names[space, number]


@contextlib.contextmanager
def counted_server(
    variant: str, package_dir: str, folder: Path
) -> Iterator[tuple[int, int]]:
    """uvicorn serving ``variant`` under callgrind; yields its pid and port."""
    port = free_port()
    command = [
        *("env", "PYTHONHASHSEED=0", "setarch", "-R", "valgrind"),
        *("--tool=callgrind", "--cache-sim=yes", *CACHES),
        f"--callgrind-out-file={folder / 'callgrind.out'}",
        *_uvicorn(variant, port, package_dir),
    ]
    server = subprocess.Popen(  # noqa: S603  # our own argv, no shell
        command, cwd=ROOT, start_new_session=True, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, START_SECONDS)
        yield server.pid, port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def count(
    variant: str,
    package_dir: str,
    method: str,
    warm_up: int,
    requests: int,
    keep: Path | None = None,
) -> tuple[list[str], dict[tuple[str, str], list[float]]]:
    """Per request, each function's own cost in ``variant``'s server; the dump is
    copied to ``keep`` when given (for ``callgrind_annotate``)."""
    raw = keep_alive_request(method)
    with (
        tempfile.TemporaryDirectory() as name,
        counted_server(variant, package_dir, Path(name)) as (pid, port),
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=600) as conn:
            exchange(conn, raw, warm_up)
            _control(pid)
            exchange(conn, raw, requests)
            _control(pid)
        # Each dump holds the counts since the one before. (After -z instead, the
        # dump's cost lines summed to twice its summary under valgrind 3.19.)
        dump = Path(name, "callgrind.out.2")
        if keep is not None:
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(dump, keep)
        events, costs = parse(dump.read_text(errors="replace"))
    per_request = {
        where: [number / requests for number in total] for where, total in costs.items()
    }
    return events, per_request


def _control(pid: int) -> None:
    # callgrind_control returns once the server has dumped.
    subprocess.run(  # noqa: S603  # our own argv, no shell
        ["callgrind_control", "-d", str(pid)],  # noqa: S607  # checked on PATH
        check=True,
        capture_output=True,
    )


PerRequest = dict[tuple[str, str], list[float]]


def _sum(
    costs: PerRequest, picks: Sequence[int], where: str | None = None
) -> list[float]:
    """The chosen events summed over every function (of object file ``where``, when
    given)."""
    return [
        sum(
            total[pick]
            for (obj, _), total in costs.items()
            if where is None or where == obj
        )
        for pick in picks
    ]


def _objects(*runs: PerRequest) -> list[str]:
    return sorted({obj for costs in runs for obj, _ in costs})


def difference_lines(
    events: list[str], more: PerRequest, less: PerRequest, top: int
) -> list[str]:
    """Markdown: ``more`` minus ``less`` per request, in all, per object file, and
    for the ``top`` functions that moved most in L1i misses (then instructions)."""
    picks = [events.index(event) for event in EVENTS]
    head = " | ".join(EVENTS)
    lines = [f"| where | {head} |", "| --- |" + " ---: |" * len(EVENTS)]

    def row(label: str, a: Sequence[float], b: Sequence[float]) -> str:
        cells = " | ".join(f"{x - y:+,.1f}" for x, y in zip(a, b, strict=True))
        return f"| {label} | {cells} |"

    lines.append(row("**the request**", _sum(more, picks), _sum(less, picks)))
    for obj in _objects(more, less):
        a, b = _sum(more, picks, obj), _sum(less, picks, obj)
        if any(abs(x - y) >= 0.5 for x, y in zip(a, b, strict=True)):
            lines.append(row(f"`{obj}`", a, b))
    zero = [0.0] * len(events)
    moved = sorted(
        set(more) | set(less),
        key=lambda where: [
            -abs(more.get(where, zero)[pick] - less.get(where, zero)[pick])
            for pick in picks[1::-1]
        ],
    )
    lines += ["", f"| function (object) | {head} |", lines[1]]
    for obj, function in moved[:top]:
        a = [more.get((obj, function), zero)[pick] for pick in picks]
        b = [less.get((obj, function), zero)[pick] for pick in picks]
        lines.append(row(f"`{function}` ({obj})", a, b))
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=("GET", "POST"), default="POST")
    parser.add_argument("--requests", type=int, default=1000, help="counted")
    parser.add_argument("--warm-up", type=int, default=300, help="before counting")
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument(
        "--baseline", type=Path, help="another tree: its utf8guard, guarded again"
    )
    parser.add_argument(
        "--keep", type=Path, help="a folder for the dumps (NAME.callgrind each)"
    )
    args = parser.parse_args(argv)
    if args.requests < 1 or args.warm_up < 0 or args.top < 0:
        parser.error("--requests must be >= 1, --warm-up and --top >= 0")
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit(MISSING)
    with tempfile.TemporaryDirectory() as folder:
        trees = {"bare": ("bare", "."), THIS_TREE: ("guarded", ".")}
        if args.baseline is not None:
            trees[BASELINE] = (
                "guarded",
                str(baseline_folder(args.baseline, Path(folder))),
            )
        runs = {
            name: count(
                app,
                tree,
                args.method,
                args.warm_up,
                args.requests,
                None if args.keep is None else args.keep / f"{name}.callgrind",
            )
            for name, (app, tree) in trees.items()
        }
    events = runs["bare"][0]
    picks = [events.index(event) for event in EVENTS]
    print(f"{args.method}, per request over {args.requests} (after {args.warm_up}):")
    for name, (_, costs) in runs.items():
        cells = ", ".join(
            f"{event} {value:,.0f}"
            for event, value in zip(EVENTS, _sum(costs, picks), strict=True)
        )
        print(f"- {name}: {cells}")
    for more, less in [(THIS_TREE, "bare"), (THIS_TREE, BASELINE), (BASELINE, "bare")]:
        if more in runs and less in runs:
            print(f"\n{more} minus {less}:\n")
            print(
                "\n".join(
                    difference_lines(events, runs[more][1], runs[less][1], args.top)
                )
            )


if __name__ == "__main__":
    main()
