"""bench_engine_scaling's table code, on fixed timings (no timing is asserted)."""

from __future__ import annotations

from bench import bench_engine_scaling as bench
from bench._shapes import BODY_SHAPES, HEAD_SHAPES
from utf8guard.middleware import GuardConfig


def test_sizes_double_up_to_the_largest() -> None:
    assert bench.sizes(16, 100) == [16, 32, 64]


def test_table_shows_growth_per_shape() -> None:
    rows = [("a", 1024, 0.001), ("a", 2048, 0.002), ("b", 1024, 0.0)]
    assert bench.table(rows)[2:] == [
        "| a | 1 KiB | 1.00 |  |",
        "| a | 2 KiB | 2.00 | x2.00 |",
        "| b | 1 KiB | 0.00 |  |",
    ]


def test_every_shape_runs_through_the_engine() -> None:
    # Tiny sizes: each head shape is refused or passed, each body shape is fed and
    # finished, without a server.
    config = GuardConfig()
    for shape in HEAD_SHAPES:
        bench._head_run(shape, 64, config)()
    for shape in BODY_SHAPES:
        bench._body_run(shape, 256, config)()
    assert bench.best_seconds(lambda: None, 2) >= 0
    assert bench._parse_size("2K") == 2048
    assert bench._parse_size("3M") == 3 * 1024 * 1024
    assert bench._parse_size("77") == 77
