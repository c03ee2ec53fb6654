"""Import time of ``utf8guard`` and ``utf8guard.middleware`` in fresh interpreters.

Each run starts a new ``python -X importtime -c "import <module>"`` and reads the
cumulative time CPython reports for the module itself (the interpreter's own start-up
and ``site`` are not counted), with bytecode caches written first, as an installed
package has them. Runs alternate between the modules; the table shows the
median and the fastest run of each, and which of the module's imports cost the most
in the median run. Issue 28 targets, on the reference machine: ``utf8guard`` at most
15 ms, ``utf8guard.middleware`` at most 40 ms (median).

Run ``python -m bench.bench_import`` (``--help`` lists the options); with
``UTF8GUARD_PURE_PYTHON=1`` for the pure-Python core.

Not a test: the only test runs it with the smallest settings so that it cannot rot.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

MODULES: Final = ("utf8guard", "utf8guard.middleware")
#: Issue 28 targets: module -> median milliseconds.
TARGET_MS: Final = {"utf8guard": 15.0, "utf8guard.middleware": 40.0}
TOP_IMPORTS: Final = 5


@dataclass(frozen=True, slots=True)
class Run:
    """One fresh interpreter: the module's cumulative import time and the self
    time of every module it imported, in microseconds."""

    total_us: int
    self_us: dict[str, int]


def parse_importtime(stderr: str, module: str) -> Run:
    """The ``-X importtime`` report (``import time: self | cumulative | name``)."""
    total = -1
    selves: dict[str, int] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        fields = [part.strip() for part in line.split(":", 1)[1].split("|")]
        if not fields[0].isdigit():
            continue  # the header line
        name = fields[2].strip()
        selves[name] = int(fields[0])
        if name == module:
            total = int(fields[1])
    if total < 0:
        raise ValueError(f"{module} is not in the -X importtime report")
    return Run(total, selves)


def _environment() -> dict[str, str]:
    """This environment with bytecode caching on: installed packages have their
    ``.pyc`` files, and compiling the sources on every import would measure the
    compiler (containers often set ``PYTHONDONTWRITEBYTECODE``)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(module: str) -> Run:
    """Import ``module`` once in a fresh interpreter."""
    done = subprocess.run(  # noqa: S603 - our own interpreter, fixed arguments
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=120,
        check=True,
    )
    return parse_importtime(done.stderr, module)


def report(runs: int) -> list[str]:
    """Markdown rows: median and fastest milliseconds per module, the target, and
    the costliest imports (self time) of the median run."""
    results: dict[str, list[Run]] = {module: [] for module in MODULES}
    for module in MODULES:
        measure(module)  # untimed: writes any missing .pyc files
    for _ in range(runs):
        for module in MODULES:
            results[module].append(measure(module))
    lines = [
        "| module | median ms | fastest ms | target | costliest imports (self ms) |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for module, found in results.items():
        ordered = sorted(found, key=lambda run: run.total_us)
        median = ordered[len(ordered) // 2]
        target = TARGET_MS[module]
        verdict = "ok" if median.total_us / 1000 <= target else "MISS"
        top = sorted(median.self_us.items(), key=lambda item: -item[1])[:TOP_IMPORTS]
        costliest = ", ".join(f"{name} {us / 1000:.1f}" for name, us in top)
        lines.append(
            f"| {module} | {statistics.median(r.total_us for r in found) / 1000:.1f}"
            f" | {ordered[0].total_us / 1000:.1f} | <= {target:g} ms {verdict}"
            f" | {costliest} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=21, help="fresh interpreters per module"
    )
    args = parser.parse_args(argv)
    print("\n".join(report(args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
