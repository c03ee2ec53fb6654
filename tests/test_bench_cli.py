"""bench_cli still runs: each measured command from a fresh interpreter, and its
table from fake numbers (no timing assertions)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import utf8guard
from bench import bench_cli


def test_each_command_runs_the_cli_of_the_tree_named(tmp_path: Path) -> None:
    path = tmp_path / "valid.txt"
    path.write_text(bench_cli.FILE_TEXT, encoding="utf-8")
    argvs = bench_cli.commands(str(path))
    version = bench_cli.argv_for(bench_cli.ROOT, argvs["--version"])
    done = subprocess.run(version, capture_output=True, text=True, check=True)  # noqa: S603
    assert done.stdout.startswith(f"utf8guard {utf8guard.__version__} (")
    check = bench_cli.argv_for(bench_cli.ROOT, argvs["check FILE"])
    assert subprocess.run(check, check=False).returncode == 0  # noqa: S603
    path.write_bytes(b"\xc0\xaf")
    assert subprocess.run(check, capture_output=True, check=False).returncode == 1  # noqa: S603


def test_table_shows_each_row_and_the_rounds() -> None:
    rows = [("python", "-c pass", 12.34, 27_700_000), ("this", "--version", 50.0, None)]
    lines = bench_cli.table(rows, 5).splitlines()
    assert lines[0].startswith("median of 5 fresh processes each, load average ")
    assert lines[-2:] == [
        "| python | -c pass | 12.3 | 27.7 |",
        "| this | --version | 50.0 | - |",
    ]


def test_main_measures_one_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_cli.main(["--rounds", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[4:]
    assert [row.split(" | ")[:2] for row in rows] == [
        ["| python", "-c pass"],
        ["| this", "--version"],
        ["| this", "check FILE"],
    ]
