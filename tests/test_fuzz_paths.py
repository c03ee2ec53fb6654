"""Replay the fuzz_paths seeds without atheris; planted bugs must make it fail.

A harness that cannot fail proves nothing: each planted bug patches a broken
behaviour into utf8guard.paths for one test and expects AssertionError on a seed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import fuzz_paths
from utf8guard import paths

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


def _seed(name: str) -> bytes:
    return next(seed for seed in SEEDS if seed.name == name).read_bytes()


def test_seeds_are_enough() -> None:
    assert len(SEEDS) >= 20


def test_planted_unsafe_replacement(monkeypatch: pytest.MonkeyPatch) -> None:
    # Replacement that changes nothing and a final check that passes everything.
    monkeypatch.setattr(paths, "_replace_once", lambda text, *args: text)
    monkeypatch.setattr(paths, "_first_problem", lambda *args: None)
    with pytest.raises(AssertionError, match="unsafe result"):
        fuzz_paths.check(_seed("traversal-replace"))


def test_planted_refusal_of_a_safe_name(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> paths.UnsafePathError:
        return paths.UnsafePathError(paths.PathKind.EMPTY, "planted")

    monkeypatch.setattr(paths, "_first_problem", refuse)
    with pytest.raises(AssertionError, match="refused a name check_path accepts"):
        fuzz_paths.check(_seed("legit-multilingual"))


def test_planted_non_idempotent_result(monkeypatch: pytest.MonkeyPatch) -> None:
    # One pass that always appends: each call returns a longer name than the last.
    monkeypatch.setattr(paths, "MAX_REPLACE_PASSES", 1)
    monkeypatch.setattr(paths, "_replace_once", lambda text, *args: text + "x")
    with pytest.raises(AssertionError, match="not idempotent"):
        fuzz_paths.check(b"\x04\xfeabc")


def test_planted_result_too_long(monkeypatch: pytest.MonkeyPatch) -> None:
    # No cut, and no length rule in the final check or in check_path.
    monkeypatch.setattr(paths, "_truncate", lambda text, max_bytes: text)
    monkeypatch.setattr(paths, "name_violations", lambda *args: iter(()))
    with pytest.raises(AssertionError, match="result not NFC or too long"):
        fuzz_paths.check(_seed("legit-cjk-long"))


def test_planted_join_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "safe_filename", lambda name, **kwargs: name)
    with pytest.raises(AssertionError, match="joined path leaves the base"):
        fuzz_paths.check(b"\x00\x00../x")


def test_planted_unsafe_join_component(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "safe_filename", lambda name, **kwargs: name)
    with pytest.raises(AssertionError, match="joined component is not safe"):
        fuzz_paths.check(b"\x00\x00a\x01")


def test_planted_unsorted_report(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "sorted", lambda found, key: found[::-1], raising=False)
    with pytest.raises(AssertionError, match="bad spans"):
        fuzz_paths.check(_seed("controls-bidi"))
