"""The shapes benchmark still runs: smallest settings only."""

from __future__ import annotations

import pytest

from bench import bench_core_shapes
from utf8guard import STRICT, reference


def test_main_prints_every_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_core_shapes.main(["--sizes", "1K,2K", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    for name in bench_core_shapes.SHAPES:
        assert f"| {name} | 1 KiB |" in out
        assert f"| {name} | 2 KiB |" in out


@pytest.mark.parametrize("char", bench_core_shapes.SHAPES.values())
def test_every_shape_is_valid(char: str) -> None:
    data = bench_core_shapes.make_shape(char, 64)
    assert len(data) > 64 - 4
    assert reference.is_valid(data, STRICT)
