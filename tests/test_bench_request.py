"""bench_request still runs: its table from fake timings, its stacks once each."""

from __future__ import annotations

import asyncio
import io

import pytest

from bench import bench_request
from utf8guard.middleware.asgi import Message

FAKE: bench_request.Results = {
    ("c", "ASGI", "GET"): {"bare": 1.0, "no-op": 1.25, "sketch": 2.0, "utf8guard": 4.0},
    ("python", "WSGI", "POST"): {
        "bare": 2.0,
        "no-op": 2.0,
        "sketch": 2.0,
        "utf8guard": 3.5,
    },
}


def test_table_shows_added_cost_and_ratio_to_the_sketch() -> None:
    lines = bench_request.table(FAKE)
    assert lines[0].startswith("| impl | request | bare µs |")
    assert lines[2] == "| c | ASGI GET | 1.00 | +0.25 | +1.00 | **+3.00** | 3.0x |"
    # A sketch that adds nothing measurable gives no ratio.
    assert lines[3] == "| python | WSGI POST | 2.00 | +0.00 | +0.00 | **+1.50** | - |"


def test_results_survive_the_subprocess_encoding() -> None:
    assert bench_request._decode(bench_request._encode(FAKE)) == FAKE


def test_every_stack_answers_every_request(capsys: pytest.CaptureFixture[str]) -> None:
    bench_request.main(["--count", "1", "--rounds", "1", "--no-pure", "--clock", "cpu"])
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == len(bench_request.REQUESTS) * 2  # ASGI and WSGI


@pytest.mark.parametrize("method", bench_request.REQUESTS)
@pytest.mark.parametrize("stack", bench_request.STACKS)
def test_the_requests_pass_every_stack(method: str, stack: str) -> None:
    """The guard must let the benchmark's requests through, or it times a 400."""
    statuses: list[object] = []
    scope, body = bench_request.asgi_scope(method)

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    app = bench_request.ASGI_STACKS[stack](bench_request.asgi_app)
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    environ, body = bench_request.wsgi_environ(method)
    environ["wsgi.input"] = io.BytesIO(body)
    wsgi = bench_request.WSGI_STACKS[stack](bench_request.wsgi_app)

    def start_response(status: str, headers: object) -> object:
        statuses.append(int(status[:3]))
        return len

    list(wsgi(environ, start_response))  # type: ignore[arg-type]
    assert statuses == [200, 200]
