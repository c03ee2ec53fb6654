"""bench_server's rounds, ratios and tables on fake wrk runs, its wrk script and its
apps in process: no servers, no wrk, no timing assertions (numbers live in
bench/README.md)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

import h11
import pytest
from starlette.testclient import TestClient

from bench import _wrk, bench_server
from bench._load import ROOT
from bench.bench_request import JSON_BODY, QUERY, RAW_PATH
from bench.bench_server import Results, Runner, Sample


def _sample(rate: float, refused: int = 0, cpu_seconds: float = 1.0) -> Sample:
    """``rate`` req/s over a 2 s run that cost the server ``cpu_seconds``."""
    requests = round(rate * 2)
    return Sample(_wrk.Run(2.0, requests, refused, socket_errors=0), cpu_seconds)


def test_rounds_alternate_which_variant_goes_first() -> None:
    calls: list[tuple[str, str, str]] = []

    def runner(server: str, variant: str, method: str) -> Sample:
        calls.append((server, variant, method))
        return _sample(1000.0 if variant == "bare" else 900.0)

    results = bench_server.measure(runner, rounds=2)
    cells = len(bench_server.SERVERS) * len(bench_server.REQUESTS)
    assert len(calls) == 2 * 2 * cells
    assert calls[:2] == [("uvicorn", "bare", "GET"), ("uvicorn", "guarded", "GET")]
    second = calls[2 * cells :]
    assert second[:2] == [("uvicorn", "guarded", "GET"), ("uvicorn", "bare", "GET")]
    # Each pair is (bare, guarded) whatever order the round ran them in.
    for pairs in results.values():
        assert [(b.run.rate, g.run.rate) for b, g in pairs] == [(1000.0, 900.0)] * 2


def test_three_variants_rotate_their_order() -> None:
    # With a baseline each variant leads one round in three, and the samples come
    # back in the variants' order whatever order the round ran them in.
    calls: list[str] = []
    rates = {"bare": 1000.0, "guarded": 900.0, "baseline": 950.0}

    def runner(server: str, variant: str, method: str) -> Sample:
        calls.append(variant)
        return _sample(rates[variant])

    variants = (*bench_server.VARIANTS, bench_server.BASELINE)
    results = bench_server.measure(runner, rounds=3, variants=variants)
    cells = len(bench_server.SERVERS) * len(bench_server.REQUESTS)
    firsts = [calls[3 * cells * index : 3 * cells * index + 3] for index in range(3)]
    assert firsts == [
        ["bare", "guarded", "baseline"],
        ["guarded", "baseline", "bare"],
        ["baseline", "bare", "guarded"],
    ]
    for rounds in results.values():
        assert [tuple(s.run.rate for s in samples) for samples in rounds] == [
            (1000.0, 900.0, 950.0)
        ] * 3


def _results(
    ratios: Mapping[tuple[str, str], list[float]],
    refused: int = 0,
    guarded_cpu_seconds: float = 1.0,
) -> Results:
    """Bare at 1000 req/s for 1 s of server CPU; guarded at ``ratio`` of that."""
    return {
        cell: [
            (_sample(1000.0), _sample(1000.0 * r, refused, guarded_cpu_seconds))
            for r in per_round
        ]
        for cell, per_round in ratios.items()
    }


def test_table_reports_median_ratio_spread_and_verdict() -> None:
    results = _results(
        {
            ("uvicorn", "GET"): [0.90, 0.96, 0.97, 0.99, 1.10],
            ("gunicorn", "POST"): [0.80, 0.90, 0.94, 0.95, 1.00],
        }
    )
    lines = bench_server.table(results)
    assert lines[0].startswith("| server | request | bare req/s | guarded req/s |")
    # Median 0.97; five rounds give no 95% interval, so the range, which covers the
    # median with 1 - 2/2**5 = 93.75%; quartiles 0.96 and 0.99 (inclusive method),
    # range 0.90-1.10; the same CPU time each, so the same ratios (and interval)
    # by CPU.
    assert lines[2] == (
        "| uvicorn | GET | 1000 | 970 | **97.0%** | 90.0%-110.0% (93.8%) "
        "| 96.0%-99.0% | 90.0%-110.0% | 97.0% | 90.0%-110.0% (93.8%) | 0 | ok |"
    )
    assert lines[3].endswith(
        "| **94.0%** | 80.0%-100.0% (93.8%) | 90.0%-95.0% | 80.0%-100.0% | 94.0% "
        "| 80.0%-100.0% (93.8%) | 0 | MISS |"
    )


@pytest.mark.parametrize(
    ("n", "ranks", "coverage"),
    [
        # Published sign-test intervals for the median (1-based ranks of the sorted
        # values, exact coverage 1 - 2 P(Binomial(n, 1/2) <= rank - 1)).
        (9, (2, 8), 1 - 2 * 10 / 512),
        (20, (6, 15), 1 - 2 * 21700 / 2**20),
        (60, (22, 39), None),
    ],
)
def test_median_interval_is_the_sign_test_interval(
    n: int, ranks: tuple[int, int], coverage: float | None
) -> None:
    values = [float(v) for v in range(n, 0, -1)]  # reversed: it must sort
    low, high, covered = bench_server.median_interval(values)
    assert (low, high) == ranks
    assert covered >= bench_server.CONFIDENCE
    if coverage is not None:
        assert covered == pytest.approx(coverage)


def test_median_interval_falls_back_to_the_range() -> None:
    low, high, covered = bench_server.median_interval([3.0, 1.0, 2.0, 5.0, 4.0])
    assert (low, high) == (1.0, 5.0)
    assert covered == pytest.approx(1 - 2 / 32)


def test_ratio_by_cpu_counts_requests_per_server_cpu_second() -> None:
    # Same req/s, but the guarded server burnt 1.25 CPU s where the bare one burnt 1:
    # 1/1.25 of the requests per CPU second. The verdict stays on req/s (issue 13).
    results = _results({("gunicorn", "GET"): [1.0, 1.0]}, guarded_cpu_seconds=1.25)
    row = bench_server.table(results)[2]
    assert row.endswith(
        "| **100.0%** | 100.0%-100.0% (50.0%) | 100.0%-100.0% | 100.0%-100.0% | 80.0% "
        "| 80.0%-80.0% (50.0%) | 0 | ok |"
    )


def test_table_against_the_baseline() -> None:
    # Per round: bare 1000 req/s, guarded 900, baseline 1000 or 800, so guarded over
    # baseline is 90%, 112.5%, 90% (median 90%, a MISS of issue 24's 95%) and the
    # baseline over bare 100%, 80%, 100%.
    results: Results = {
        ("uvicorn", "POST"): [
            (_sample(1000.0), _sample(900.0), _sample(baseline))
            for baseline in (1000.0, 800.0, 1000.0)
        ]
    }
    against = bench_server.table(results, bench_server.GUARDED_OVER_BASELINE)
    assert against[0].startswith(
        "| server | request | baseline req/s | guarded req/s |"
    )
    assert against[2].startswith("| uvicorn | POST | 1000 | 900 | **90.0%** |")
    assert against[2].endswith("| MISS |")
    before = bench_server.table(results, bench_server.BASELINE_OVER_BARE)
    assert before[0].startswith("| server | request | bare req/s | baseline req/s |")
    assert before[2].startswith("| uvicorn | POST | 1000 | 1000 | **100.0%** |")
    assert bench_server.rounds_table(results, bench_server.GUARDED_OVER_BASELINE)[
        2:
    ] == ["| 1 | 90.0% |", "| 2 | 112.5% |", "| 3 | 90.0% |"]


def test_a_refused_request_spoils_the_verdict() -> None:
    results = _results({("uvicorn", "POST"): [1.5, 1.5]}, refused=3)
    assert bench_server.table(results)[2].endswith("| INVALID: 6 refused |")


def test_rounds_table_has_one_row_per_round() -> None:
    results = _results(
        {("uvicorn", "GET"): [0.5, 1.0, 1.25], ("gunicorn", "GET"): [1.0, 0.75, 1.0]}
    )
    assert bench_server.rounds_table(results) == [
        "| round | uvicorn GET | gunicorn GET |",
        "| ---: | ---: | ---: |",
        "| 1 | 50.0% | 100.0% |",
        "| 2 | 100.0% | 75.0% |",
        "| 3 | 125.0% | 100.0% |",
    ]


class FakeServers:
    """Stands in for ``bench_server._servers``: records what ``main`` asked for (each
    wrk script's text, seconds, connections, baseline) and runs every request at
    the rate of its variant."""

    RATES: Final = {"bare": 100, "guarded": 96, "baseline": 98}

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, bytes], int, int, Path | None]] = []

    @contextlib.contextmanager
    def __call__(
        self,
        scripts: Mapping[str, Path],
        seconds: int,
        connections: int,
        baseline: Path | None,
    ) -> Iterator[Runner]:
        texts = {name: path.read_bytes() for name, path in scripts.items()}
        self.calls.append((texts, seconds, connections, baseline))
        yield lambda server, variant, method: _sample(self.RATES[variant])


@pytest.fixture
def fake_servers(monkeypatch: pytest.MonkeyPatch) -> FakeServers:
    """``main`` without wrk, servers or a machine description: a FakeServers."""
    fake = FakeServers()
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(bench_server, "_machine", lambda: "a machine")
    monkeypatch.setattr(bench_server, "_servers", fake)
    return fake


def test_main_wires_scripts_servers_and_tables(
    fake_servers: FakeServers, capsys: pytest.CaptureFixture[str]
) -> None:
    bench_server.main(["--rounds", "3", "--seconds", "1", "--connections", "4"])
    [(scripts, *settings)] = fake_servers.calls
    assert settings == [1, 4, None]
    assert b'wrk.method = "POST"' in scripts["POST"]
    out = capsys.readouterr().out
    assert "| gunicorn | POST | 100 | 96 | **96.0%** |" in out
    assert "| 3 | 96.0% | 96.0% | 96.0% | 96.0% |" in out


def test_main_with_a_baseline_adds_its_tables(
    fake_servers: FakeServers,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(
        bench_server, "baseline_folder", lambda tree, into: tree / "linked"
    )
    bench_server.main(["--rounds", "2", "--baseline", str(tmp_path)])
    out = capsys.readouterr().out
    assert [call[3] for call in fake_servers.calls] == [tmp_path / "linked"]
    assert f"Against the baseline, {tmp_path}:" in out
    assert "| gunicorn | POST | 98 | 96 | **98.0%** |" in out  # guarded / baseline
    assert "| gunicorn | POST | 100 | 98 | **98.0%** |" in out  # baseline / bare
    assert "| 2 | 98.0% | 98.0% | 98.0% | 98.0% |" in out


def test_baseline_folder_links_only_the_package(tmp_path: Path) -> None:
    # This tree as its own baseline: it imports through the link, with the same
    # implementation, and the folder holds nothing else (no second ``bench``).
    into = tmp_path / "work"
    into.mkdir()
    folder = bench_server.baseline_folder(ROOT, into)
    assert [entry.name for entry in folder.iterdir()] == ["utf8guard"]
    assert (folder / "utf8guard").resolve() == ROOT / "utf8guard"


@pytest.mark.parametrize("implementation", [None, "another"])
def test_baseline_folder_refuses_what_does_not_import_alike(
    tmp_path: Path, implementation: str | None
) -> None:
    tree = tmp_path / "tree"
    (tree / "utf8guard").mkdir(parents=True)
    if implementation is not None:
        text = f"IMPLEMENTATION = {implementation!r}\n"
        (tree / "utf8guard" / "__init__.py").write_text(text)
    into = tmp_path / "work"
    into.mkdir()
    expected = "imports as" if implementation else "no utf8guard package"
    with pytest.raises(SystemExit, match=expected):
        bench_server.baseline_folder(tree, into)


@pytest.mark.parametrize("server", sorted(bench_server.SERVERS))
def test_a_package_folder_goes_first_on_the_servers_path(server: str) -> None:
    # uvicorn's --app-dir and Gunicorn's --pythonpath insert at sys.path[0], ahead
    # of the working directory (this tree) that -m put there.
    argv = bench_server.SERVERS[server]("guarded", 8000, package_dir="/elsewhere")
    flag = {"uvicorn": "--app-dir", "gunicorn": "--pythonpath"}[server]
    assert argv[argv.index(flag) + 1] == "/elsewhere"
    default = bench_server.SERVERS[server]("guarded", 8000)
    assert default[default.index(flag) + 1] == "."


def test_main_says_when_wrk_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as exit_info:
        bench_server.main(["--rounds", "2"])
    assert exit_info.value.code == _wrk.MISSING


def test_lua_string_escapes_every_byte_lua_could_misread() -> None:
    # Lua 5.1 manual §2.1: "\ddd" is the byte with decimal value ddd.
    literal = _wrk.lua_string(b'a "\\\n\xc3\xa9')
    assert literal == '"a \\034\\092\\010\\195\\169"'


def test_wrk_script_names_host_and_leaves_content_length_to_wrk() -> None:
    # wrk 4.1 adds "Host" unless that key exists: a second Host header is a 400
    # (RFC 9112 §3.2).
    text = _wrk.script("POST", *bench_server.request_parts("POST"))
    assert 'wrk.headers["Host"] = "127.0.0.1"' in text
    assert "Content-Length" not in text
    assert "wrk.body = " in text
    assert "wrk.body" not in _wrk.script("GET", *bench_server.request_parts("GET"))


def test_parse_reads_the_summary_line() -> None:
    out = "Running 2s test\n  1 threads\nwrk-summary 2000000 9000 3 0 1 2 4\n"
    assert _wrk.parse(out) == _wrk.Run(2.0, 9000, 3, 7)
    assert _wrk.parse(out).rate == 4500.0
    with pytest.raises(ValueError, match="no summary line"):
        _wrk.parse("Running 2s test\n")


@pytest.mark.parametrize("method", bench_server.REQUESTS)
def test_probe_request_is_one_http_request(method: str) -> None:
    # h11, an independent parser, reads the probe's bytes as bench_request's request.
    raw = bench_server.raw_request(method)
    server = h11.Connection(h11.SERVER)
    server.receive_data(raw)
    head = server.next_event()
    assert isinstance(head, h11.Request)
    assert head.target == RAW_PATH + b"?" + QUERY
    assert (b"connection", b"close") in head.headers
    body = server.next_event()
    if method == "POST":
        assert isinstance(body, h11.Data)
        assert body.data == JSON_BODY
    else:
        assert isinstance(body, h11.EndOfMessage)


@pytest.mark.parametrize("method", bench_server.REQUESTS)
@pytest.mark.parametrize("variant", bench_server.VARIANTS)
def test_every_app_answers_ok(variant: str, method: str) -> None:
    target, headers, body = bench_server.request_parts(method)
    fields = {name.decode(): value.decode() for name, value in headers}
    url = "http://127.0.0.1" + target.decode()
    asgi = getattr(bench_server, f"asgi_{variant}")()
    with TestClient(asgi) as client:
        reply = client.request(method, url, headers=fields, content=body)
    assert (reply.status_code, reply.text) == (200, "ok")
    wsgi = getattr(bench_server, f"wsgi_{variant}")().test_client()
    answer = wsgi.open(target.decode(), method=method, headers=fields, data=body)
    assert (answer.status_code, answer.text) == (200, "ok")
