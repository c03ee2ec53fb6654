"""bench_inside still runs: its dispatcher in process, its table from fake medians
(no servers, no wrk, no timing assertions)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench import _wrk, bench_inside
from bench._load import Server
from bench.bench_request import JSON_BODY, asgi_scope
from utf8guard.middleware.asgi import Message

from .middleware.test_adapters import body_messages, exchange


def _serve(
    app: bench_inside.Dispatcher, method: str, path: str | None = None
) -> list[Message]:
    scope, body = asgi_scope(method)
    if path is not None:
        scope["path"] = path
    return exchange(app, scope, body_messages([body]))


def test_each_variant_answers_in_turn_and_is_timed() -> None:
    app = bench_inside.app()
    for method in ("GET", "POST"):
        for _ in bench_inside.VARIANTS:
            outbox = _serve(app, method)
            assert outbox[0]["status"] == 200
            assert outbox[1]["body"] == b"ok"
    assert {name: len(times) for name, times in app.times.items()} == {
        name: 2 for name in bench_inside.VARIANTS
    }
    stats = _serve(app, "GET", bench_inside.STATS_PATH)
    medians = json.loads(stats[1]["body"])  # type: ignore[arg-type]
    assert set(medians) == set(bench_inside.VARIANTS)
    assert all(value > 0 for value in medians.values())
    assert all(not times for times in app.times.values())  # reset after reading
    empty = json.loads(_serve(app, "GET", bench_inside.STATS_PATH)[1]["body"])  # type: ignore[arg-type]
    assert empty == dict.fromkeys(bench_inside.VARIANTS)


def test_read_first_hands_the_body_back() -> None:
    seen: list[bytes] = []

    async def app(scope: object, receive: object, send: object) -> None:
        message = await receive()  # type: ignore[operator]
        seen.append(message["body"])

    scope, body = asgi_scope("POST")
    messages: list[Message] = [
        {"type": "http.request", "body": body, "more_body": False}
    ]

    async def receive() -> Message:
        return messages.pop(0)

    async def send(message: Message) -> None:
        return None

    asyncio.run(bench_inside.ReadFirst(app)(scope, receive, send))
    assert seen == [JSON_BODY]


def test_summary_lines() -> None:
    runs = {
        "POST": [
            {"bare": 40.0, "read-first": 41.0, "guarded": 45.0},
            {"bare": 42.0, "read-first": 42.5, "guarded": 46.0},
            {"bare": 41.0, "read-first": 41.5, "guarded": 44.0},
        ]
    }
    lines = bench_inside.summary_lines(runs)
    assert lines[0].startswith("| request | bare us |")
    assert lines[2] == (
        "| POST | 41.00 | 41.50 | 45.00 | **+4.00** (+3.00 to +5.00) "
        "| +3.50 (+2.50 to +4.00) | 3 |"
    )


def test_difference_lines_compare_the_excess_run_by_run() -> None:
    this = {"GET": [{"bare": 40.0, "guarded": 43.0}, {"bare": 50.0, "guarded": 52.5}]}
    baseline = {
        "GET": [{"bare": 41.0, "guarded": 44.5}, {"bare": 45.0, "guarded": 48.0}]
    }
    # Excesses 3.0 and 2.5 against 3.5 and 3.0: -0.5 in both runs.
    assert bench_inside.difference_lines(this, baseline)[2] == (
        "| GET | +2.75 | +3.25 | **-0.50** (-0.50 to -0.50) | 2 |"
    )


def _fake_servers(
    monkeypatch: pytest.MonkeyPatch, excess: dict[int, float]
) -> list[tuple[int, str]]:
    """wrk and the stats page replaced: each port's server reports bare 40 us and
    guarded ``40 + excess[port]``; returns the (port, script name) of every run."""
    calls: list[tuple[int, str]] = []

    def run(port: int, script: Path, seconds: int, connections: int) -> _wrk.Run:
        assert script.read_text().startswith("wrk.method")
        calls.append((port, script.stem))
        return _wrk.Run(float(seconds), 10, 0, 0)

    def fetch(port: int) -> dict[str, float]:
        return {"bare": 40.0, "read-first": 40.5, "guarded": 40.0 + excess[port]}

    monkeypatch.setattr(_wrk, "run", run)
    monkeypatch.setattr(bench_inside, "fetch_medians", fetch)
    return calls


def test_measure_lets_the_servers_take_turns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = _fake_servers(monkeypatch, {1: 3.0, 2: 4.0})
    servers = {"a": Server(bench_inside._uvicorn), "b": Server(bench_inside._uvicorn)}
    servers["a"].port, servers["b"].port = 1, 2
    results = bench_inside.measure(servers, tmp_path, runs=3, seconds=1)
    # Per request: one warm-up each, then runs starting with a, b, a.
    assert calls[:8] == [
        *((1, "GET"), (2, "GET")),
        *((1, "GET"), (2, "GET"), (2, "GET"), (1, "GET"), (1, "GET"), (2, "GET")),
    ]
    assert len(calls) == 16
    assert [s["guarded"] for s in results["b"]["POST"]] == [44.0] * 3


@pytest.mark.parametrize("with_baseline", [False, True])
def test_main_prints_one_table_per_tree_and_their_difference(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    with_baseline: bool,
) -> None:
    started: list[str] = []

    @contextlib.contextmanager
    def serving(command: Callable[[int], list[str]]) -> Iterator[Server]:
        argv = command(0)
        started.append(argv[argv.index("--app-dir") + 1])
        server = Server(command)
        server.port = len(started)
        yield server

    _fake_servers(monkeypatch, {1: 3.0, 2: 4.5})
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(bench_inside, "serving", serving)
    monkeypatch.setattr(
        bench_inside, "baseline_folder", lambda tree, into: tree / "linked"
    )
    argv = ["--runs", "2", "--seconds", "1"]
    bench_inside.main([*argv, "--baseline", str(tmp_path)] if with_baseline else argv)
    out = capsys.readouterr().out
    assert "| POST | 40.00 | 40.50 | 43.00 | **+3.00** (+3.00 to +3.00) |" in out
    if with_baseline:
        assert started == [".", str(tmp_path / "linked")]
        assert "| POST | +3.00 | +4.50 | **-1.50** (-1.50 to -1.50) | 2 |" in out
    else:
        assert started == ["."]
        assert "difference" not in out
