"""Replay the fuzz_paths seeds without atheris, plus inputs that reach each branch."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import fuzz_paths

SEEDS = sorted((Path(__file__).resolve().parent.parent / "fuzz/corpus/paths").iterdir())


@pytest.mark.parametrize("seed", SEEDS, ids=[seed.name for seed in SEEDS])
def test_seed(seed: Path) -> None:
    fuzz_paths.check(seed.read_bytes())


@pytest.mark.parametrize(
    "data", [b"", b"\x0c", b"\x0c\x00", b"\x08\xff\x00\x00", b"\x0f\x00a/b\\c"]
)
def test_short_and_odd_inputs(data: bytes) -> None:
    fuzz_paths.check(data)


def test_shape() -> None:
    assert fuzz_paths.TestOneInput is fuzz_paths.check
    assert callable(fuzz_paths.main)


def test_failure_shows_input_in_hex() -> None:
    with pytest.raises(AssertionError, match=r"^what\n  input \(2 bytes\): 61 62\n"):
        fuzz_paths._fail("what", b"ab", side=1)
