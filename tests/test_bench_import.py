"""The import benchmark still runs (one fresh interpreter per module) and reads
CPython's ``-X importtime`` report the way the documentation describes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench import bench_import

#: The format of ``python -X importtime`` (Python docs, "-X importtime"): self and
#: cumulative microseconds, then the name indented by its depth.
SAMPLE = """\
import time: self [us] | cumulative | imported package
import time:       220 |        220 |     collections.abc
import time:      3000 |       3500 |   utf8guard._policy
import time:        40 |       3760 | utf8guard
"""


def test_parse_reads_the_module_total_and_each_self_time() -> None:
    run = bench_import.parse_importtime(SAMPLE, "utf8guard")
    assert run.total_us == 3760
    assert run.self_us == {
        "collections.abc": 220,
        "utf8guard._policy": 3000,
        "utf8guard": 40,
    }


def test_parse_refuses_a_report_without_the_module() -> None:
    with pytest.raises(ValueError, match=r"utf8guard\.middleware is not in the"):
        bench_import.parse_importtime(SAMPLE, "utf8guard.middleware")


def test_parse_callgrind_reads_the_collected_count() -> None:
    # valgrind's summary lines, as callgrind prints them at exit.
    stderr = "==7== Events    : Ir\n==7== Collected : 92585676\n==7==\n"
    assert bench_import.parse_callgrind(stderr) == 92_585_676


def test_parse_callgrind_refuses_output_without_a_count() -> None:
    with pytest.raises(ValueError, match="no 'Collected :' line"):
        bench_import.parse_callgrind("==7== I   refs:      92,585,676\n")


def test_main_prints_a_row_per_build_and_module_and_construction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_import.main(["--runs", "1"]) == 0
    out = capsys.readouterr().out
    for build in bench_import.BUILDS:
        for module in bench_import.MODULES:
            assert f"| {build} | {module} | " in out
        # Each CONSTRUCTED statement ran (one that failed to build its middleware
        # would have raised CalledProcessError) and got its row.
        for label in (*bench_import.CONSTRUCTED, *bench_import.FIRST_REQUEST):
            assert f"| {build} | `{label}` | " in out
    assert "load average before:" in out


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_instructions_count_more_for_an_import_than_for_pass() -> None:
    # json is not imported by the prelude; importing it runs its module code.
    assert bench_import.instructions("C", "import json") > bench_import.instructions(
        "C", "pass"
    )


@pytest.mark.parametrize("build", sorted(bench_import.BUILDS))
@pytest.mark.parametrize("label", sorted(bench_import.FIRST_REQUEST))
def test_a_first_request_reaches_the_app(build: str, label: str) -> None:
    # The cold start's first GET is clean: the guard passes it to the wrapped app
    # (each statement prints what only the app produces), in both builds.
    statement = bench_import.FIRST_REQUEST[label]
    assert bench_import._python(build, statement).stdout == "app reached\n"


def test_base_puts_a_second_tree_beside_this_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A count per statement, halved in "this" tree: each row shows both trees and
    # the change (the counts stand in for callgrind's).
    def counted(build: str, statement: str, root: Path = bench_import.ROOT) -> int:
        share = 1 if root == tmp_path else 2
        return 0 if statement == "pass" else 4_000_000 // share

    monkeypatch.setattr(bench_import, "instructions", counted)
    rows = bench_import.instruction_rows({"base": tmp_path, "this": bench_import.ROOT})
    assert rows[0] == "| build | statement | base | this | change |"
    assert len(rows) == 2 + len(bench_import.BUILDS) * len(bench_import.COUNTED)
    assert rows[2] == "| C | `import utf8guard` | 4.0 M | 2.0 M | -50% |"


def test_main_measures_the_base_tree_in_the_same_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = str(bench_import.ROOT)
    assert bench_import.main(["--runs", "1", "--base", root]) == 0
    out = capsys.readouterr().out
    for tree in ("base", "this"):
        assert f"| {tree} | C | utf8guard | " in out
        assert f"| {tree} | pure | `WSGI import + construct + first GET` | " in out
