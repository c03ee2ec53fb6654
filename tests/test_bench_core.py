"""The benchmark still runs: smallest settings only, well under 5 s."""

from __future__ import annotations

import pytest

from bench import bench_core
from utf8guard import is_valid


def test_main_prints_both_tables(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--rounds", "1", "--sizes", "64", "--corpora", "ascii,emoji"]
    argv += ["--stream-size", "4K", "--chunk", "1K", "--clock", "cpu"]
    assert bench_core.main(argv) == 0
    out = capsys.readouterr().out
    assert "| ascii | 64 B |" in out
    assert "| emoji | 4 KiB |" in out


def test_main_refuses_an_unknown_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_core.main(["--corpora", "klingon", "--no-stream"]) == 2
    assert "unknown corpus: klingon" in capsys.readouterr().err


@pytest.mark.parametrize("name", list(bench_core.GENERATORS))
def test_corpus_is_exact_valid_and_reproducible(name: str) -> None:
    data = bench_core.make_corpus(name, 4099)
    assert len(data) == 4099
    assert is_valid(data)
    assert data == bench_core.make_corpus(name, 4099)
    assert name == "ascii" or not data.isascii()


@pytest.mark.parametrize(
    ("text", "size"), [("64", 64), ("4K", 4096), ("1M", 1 << 20), ("16MiB", 16 << 20)]
)
def test_parse_size(text: str, size: int) -> None:
    assert bench_core.parse_size(text) == size
