"""Start-up of the ``utf8guard`` command: ``--version`` and ``check FILE``.

Issue 28: every CLI call pays the import of what it runs. ``python -m
bench.bench_cli [--base DIR] [--rounds N] [--instructions]`` runs each command in
fresh interpreters and prints, per source tree (this checkout, and ``--base``, such
as an export of the main branch with its built extension), the median wall time over
``N`` rounds (trees and commands alternate within a round) and, with
``--instructions``, the instructions callgrind counts for one run of each.

Each process is ``python -S`` with the tree first on ``sys.path``, calling
``utf8guard.cli.main`` as the console script does: no ``site`` hook (an editable
install's imports ``pathlib`` and more) gets a head start. Bytecode caches are used,
as an installed package has them, but written under a temporary
``PYTHONPYCACHEPREFIX``, never into the trees; one untimed warm-up run each fills
them. ``python -S -c pass`` is the floor: the interpreter's own start-up. The file
checked is 4 KiB of valid UTF-8. Wall times move with the machine's load: the
table states the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from bench.bench_import import parse_callgrind

ROOT: Final = Path(__file__).resolve().parents[1]
#: What each process runs after ``-S -c``: the tree, then the console script's call.
RUN_MAIN: Final = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from utf8guard.cli import main; sys.exit(main())"
)
#: The checked file: valid, mixed ASCII and two-byte text.
FILE_TEXT: Final = "Grüße, Ünïcödé\n" * 256


def commands(file: str) -> dict[str, list[str]]:
    """The measured CLI arguments, by name."""
    return {"--version": ["--version"], "check FILE": ["check", file]}


def argv_for(root: Path | None, args: Sequence[str]) -> list[str]:
    """The argv that runs ``utf8guard ARGS`` from ``root`` (``None``: ``pass``)."""
    if root is None:
        return [sys.executable, "-S", "-c", "pass"]
    return [sys.executable, "-S", "-c", RUN_MAIN, str(root), *args]


def _run(argv: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own interpreter, fixed arguments
        argv, capture_output=True, text=True, env=env, timeout=600, check=True
    )


def wall_ms(argv: Sequence[str], env: dict[str, str]) -> float:
    """Milliseconds from starting ``argv`` to its exit."""
    start = time.perf_counter()
    _run(argv, env)
    return (time.perf_counter() - start) * 1e3


def instructions(argv: Sequence[str], env: dict[str, str]) -> int:
    """Instructions callgrind counts for one run of ``argv``."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("--instructions needs valgrind on PATH")
    wrapper = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    return parse_callgrind(_run([*wrapper, *argv], env).stderr)


def measure(
    trees: dict[str, Path], file: str, rounds: int, *, count: bool, env: dict[str, str]
) -> list[tuple[str, str, float, int | None]]:
    """``(tree, command, median ms, instructions or None)`` for each tree and
    command, the floor (``python -S -c pass``) first."""
    cases = [("python", "-c pass", argv_for(None, []))]
    for tree, root in trees.items():
        for name, args in commands(file).items():
            cases.append((tree, name, argv_for(root, args)))
    for *_, argv in cases:  # warm-up: bytecode caches, page cache
        _run(argv, env)
    times: list[list[float]] = [[] for _ in cases]
    for round_ in range(rounds):
        order = range(len(cases)) if round_ % 2 == 0 else reversed(range(len(cases)))
        for index in order:
            times[index].append(wall_ms(cases[index][2], env))
    return [
        (
            tree,
            name,
            statistics.median(spent),
            instructions(argv, env) if count else None,
        )
        for (tree, name, argv), spent in zip(cases, times, strict=True)
    ]


def table(rows: Sequence[tuple[str, str, float, int | None]], rounds: int) -> str:
    """The measurements as a markdown table, with the load average."""
    lines = [
        f"median of {rounds} fresh processes each, load average "
        f"{os.getloadavg()[0]:.1f}",
        "",
        "| tree | command | wall ms | instructions (M) |",
        "| --- | --- | ---: | ---: |",
    ]
    for tree, name, spent, count in rows:
        counted = "-" if count is None else f"{count / 1e6:.1f}"
        lines.append(f"| {tree} | {name} | {spent:.1f} | {counted} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another source tree to compare")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args(argv)
    trees = {"this": ROOT} if args.base is None else {"base": args.base, "this": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        file = Path(scratch, "valid.txt")
        file.write_text(FILE_TEXT, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(scratch, "pycache"))
        rows = measure(trees, str(file), args.rounds, count=args.instructions, env=env)
    print(table(rows, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
