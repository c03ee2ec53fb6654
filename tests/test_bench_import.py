"""The import benchmark still runs (one fresh interpreter per module) and reads
CPython's ``-X importtime`` report the way the documentation describes it."""

from __future__ import annotations

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


def test_main_prints_a_row_per_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_import.main(["--runs", "1"]) == 0
    out = capsys.readouterr().out
    for module in bench_import.MODULES:
        assert f"| {module} | " in out
