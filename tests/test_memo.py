"""utf8guard._memo.memoize: each result computed once, at most ``limit`` kept.

The oracle is a count of the wrapped function's calls: a hit makes none, a miss one;
a memo that is full starts over, so memory stays bounded whatever keys arrive (issue
28 replaced ``functools.lru_cache`` with it, whose bound it keeps).
"""

from __future__ import annotations

import pytest

from utf8guard._memo import memoize, remember


def test_each_key_is_computed_once_within_the_limit() -> None:
    calls: list[tuple[int, str]] = []

    @memoize(3)
    def joined(number: int, text: str) -> str:
        calls.append((number, text))
        return f"{number}{text}"

    assert [joined(1, "a"), joined(2, "a"), joined(1, "a"), joined(1, "b")] == [
        "1a",
        "2a",
        "1a",
        "1b",
    ]
    assert calls == [(1, "a"), (2, "a"), (1, "b")]
    assert joined(2, "a") == "2a"
    assert len(calls) == 3


def test_a_full_memo_starts_over() -> None:
    calls: list[int] = []

    @memoize(2)
    def double(number: int) -> int:
        calls.append(number)
        return 2 * number

    assert [double(number) for number in (1, 2, 1, 2)] == [2, 4, 2, 4]
    assert calls == [1, 2]
    # A third key finds the memo full: it is emptied, so 1 and 2 are computed
    # again and at most two results are ever held.
    assert [double(3), double(1), double(3), double(2)] == [6, 2, 6, 4]
    assert calls == [1, 2, 3, 1, 2]


def test_keyword_arguments_are_refused_not_mixed_up() -> None:
    @memoize(4)
    def pair(first: int, second: int = 0) -> tuple[int, int]:
        return first, second

    with pytest.raises(TypeError, match=r"pair\(\) takes no keyword arguments"):
        pair(1, second=2)
    assert pair(1, 2) == (1, 2)


def test_the_wrapped_function_keeps_its_name_and_doc() -> None:
    # What doctest and the documentation read, as functools.update_wrapper keeps.
    def parse(value: bytes) -> bytes:
        """Parse ``value``."""
        return value

    memoized = memoize(1)(parse)
    assert memoized.__name__ == "parse"
    assert memoized.__qualname__ == parse.__qualname__
    assert memoized.__doc__ == "Parse ``value``."
    assert memoized.__module__ == __name__
    assert memoized.__wrapped__ is parse  # type: ignore[attr-defined]


def test_remember_keeps_at_most_limit_results() -> None:
    # What a call site that reads its memo inline stores a miss with.
    memo: dict[str, int] = {}
    assert [remember(memo, key, len(key), 2) for key in ("a", "bb")] == [1, 2]
    assert memo == {"a": 1, "bb": 2}
    assert remember(memo, "ccc", 3, 2) == 3
    assert memo == {"ccc": 3}
