"""bench_inside still runs: its dispatcher in process, its table from fake medians
(no servers, no wrk, no timing assertions)."""

from __future__ import annotations

import asyncio
import json

from bench import bench_inside
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
