"""``utf8guard check -r`` against ``isutf8`` (Debian's moreutils) over one tree.

``python -m bench.bench_tree [TREE] [--rounds N]`` times two commands that each walk
TREE and check its files, in alternating order, after one untimed warm-up round of
each (so both read from the page cache):

- ``python -m utf8guard check -r --no-ignore TREE`` (interpreter start included;
  ``--no-ignore`` so that a tree git ignores, as pyenv's ``versions/``, is read);
- ``find TREE -type f -print0 | xargs -0 isutf8`` (isutf8 reads every regular file,
  binary ones included, up to its first invalid byte).

It prints the median wall time and the median CPU time (user + system of the
children) of each, and their ratio utf8guard / isutf8: issue 28's target is at most
2.0. The default TREE is the running Python's standard library with its
site-packages. On a shared machine, read the CPU column and run it a few times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Sequence
from typing import Final, NamedTuple

#: Issue 28: ``check -r`` within this factor of ``isutf8`` on the same files.
TARGET_RATIO: Final = 2.0


class Timing(NamedTuple):
    wall_s: float
    cpu_s: float  # user + system of the children


def commands(tree: str) -> dict[str, list[str]]:
    """The two command lines, by name."""
    return {
        "utf8guard": [
            sys.executable,
            "-m",
            "utf8guard",
            "check",
            "-r",
            "--no-ignore",
            tree,
        ],
        "isutf8": [
            "sh",
            "-c",
            'find "$1" -type f -print0 | xargs -0 isutf8',
            "sh",
            tree,
        ],
    }


def timed(argv: Sequence[str]) -> Timing:
    """Run ``argv`` with its output discarded; its wall and CPU time."""
    before, start = os.times(), time.perf_counter()
    subprocess.run(  # noqa: S603 (argv built above, no user shell string)
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    wall, after = time.perf_counter() - start, os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return Timing(wall, cpu)


def measure(tree: str, rounds: int) -> dict[str, Timing]:
    """Median wall and CPU time of each command over ``rounds`` alternating rounds."""
    argvs = commands(tree)
    for argv in argvs.values():  # warm-up: page cache, bytecode cache
        timed(argv)
    runs: dict[str, list[Timing]] = {name: [] for name in argvs}
    for round_ in range(rounds):
        order = list(argvs) if round_ % 2 == 0 else list(reversed(argvs))
        for name in order:
            runs[name].append(timed(argvs[name]))
    return {
        name: Timing(
            statistics.median(t.wall_s for t in times),
            statistics.median(t.cpu_s for t in times),
        )
        for name, times in runs.items()
    }


def count_files(tree: str) -> int:
    return sum(len(files) for _, _, files in os.walk(tree))


def table(tree: str, files: int, result: dict[str, Timing], rounds: int) -> str:
    ours, theirs = result["utf8guard"], result["isutf8"]
    wall, cpu = _ratio(ours.wall_s, theirs.wall_s), _ratio(ours.cpu_s, theirs.cpu_s)
    return "\n".join(
        [
            f"tree: {tree} ({files} files), median of {rounds} rounds, "
            f"load average {os.getloadavg()[0]:.1f}",
            "",
            "| command | wall s | CPU s |",
            "| --- | ---: | ---: |",
            f"| utf8guard check -r | {ours.wall_s:.2f} | {ours.cpu_s:.2f} |",
            f"| find + isutf8 | {theirs.wall_s:.2f} | {theirs.cpu_s:.2f} |",
            f"| ratio (target <= {TARGET_RATIO:.1f}) | {wall} | {cpu} |",
        ]
    )


def _ratio(ours: float, theirs: float) -> str:
    """``1.50x``; ``n/a`` when a tiny tree took less than the clock's tick."""
    return f"{ours / theirs:.2f}x" if theirs else "n/a"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if shutil.which("isutf8") is None:
        print("isutf8 is not installed (apt-get install moreutils)", file=sys.stderr)
        return 2
    result = measure(args.tree, args.rounds)
    print(table(args.tree, count_files(args.tree), result, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
