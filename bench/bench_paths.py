"""Microseconds per call of the path guards, on the comparison table's 51 names.

``python -m bench.bench_paths``: best of 3 repeats; one line per operation.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

from bench.compare_paths import ROWS
from utf8guard.paths import UnsafePathError, check_path, safe_filename, safe_join

NAMES = [name for _, name, _ in ROWS]
REPEATS = 3
LOOPS = 20


def _each(call: Callable[[str], object]) -> Callable[[], None]:
    def run() -> None:
        for name in NAMES:
            try:
                call(name)
            except UnsafePathError:
                pass

    return run


OPERATIONS: list[tuple[str, Callable[[str], object]]] = [
    ("safe_filename (refusing)", safe_filename),
    ("safe_filename (replacement='_')", lambda n: safe_filename(n, replacement="_")),
    ("check_path", check_path),
    ("safe_join('/srv', name)", lambda n: safe_join("/srv", n)),
]


def main() -> None:
    for label, call in OPERATIONS:
        best = min(timeit.repeat(_each(call), number=LOOPS, repeat=REPEATS))
        print(f"{label:34} {best / LOOPS / len(NAMES) * 1e6:8.1f} us per name")


if __name__ == "__main__":
    main()
