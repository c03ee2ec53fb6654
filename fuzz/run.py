"""``python -m fuzz``: run the harnesses under atheris, replay inputs, measure coverage.

``run`` fuzzes each target for a given time, one after the other, growing a working
corpus in ``fuzz/artifacts/corpus/<target>/`` from the seeds in
``fuzz/corpus/<target>/``, writing findings to ``fuzz/artifacts/<target>/``. It prints
runs, exec/s and coverage gained per target and exits 1 on any finding. ``replay``
runs files through their target's ``check`` without atheris (a crash file reproduces
this way); ``coverage`` replays under coverage.py and prints the core's line and
branch coverage.

Nothing here imports utf8guard at module level, so ``coverage`` sees the core load.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["Stats", "atheris_installed", "main", "parse_log", "targets"]

FUZZ_DIR: Final = Path(__file__).resolve().parent
ROOT: Final = FUZZ_DIR.parent
SEEDS: Final = FUZZ_DIR / "corpus"
ARTIFACTS: Final = FUZZ_DIR / "artifacts"
DICTIONARY: Final = FUZZ_DIR / "utf8.dict"
#: libFuzzer's prefixes for files it writes on a finding.
FINDING_PREFIXES: Final = ("crash-", "leak-", "oom-", "timeout-")
#: Seconds one input may take before libFuzzer calls it a finding (a slow validator
#: is a denial of service).
INPUT_TIMEOUT_SECONDS: Final = 10
#: The validator core: what the coverage figure is about.
CORE_FILES: Final = tuple(
    f"*/utf8guard/{name}.py"
    for name in (
        "__init__",
        "_gates",
        "_plan",
        "_policy",
        "_repair",
        "_scan",
        "_stream",
        "_tables",
        "_violation",
        "reference",
    )
)
COVERAGE_TARGET_LINES: Final = 100.0
COVERAGE_TARGET_BRANCHES: Final = 95.0
ATHERIS_MISSING: Final = (
    "atheris is not installed for this Python ({version}); it ships wheels for CPython "
    "3.10-3.14 on x86_64 Linux. Install it with: pip install --group fuzz"
)
# libFuzzer status lines: "#1234  INITED cov: 5 ft: 6 corp: 7/89b ... exec/s: 10 ...".
# libFuzzer leaves out each of cov, ft and corp while it is zero: a target with no
# instrumented code (no coverage feedback) prints "#7  INITED exec/s: 0 rss: 51Mb".
_STATUS: Final = re.compile(r"^#(?P<runs>\d+)\s+(?P<event>\w+)\s")
_FIELD: Final = {
    name: re.compile(rf"\s{name}: (\d+)") for name in ("cov", "ft", "corp")
}
_SPEED: Final = re.compile(r"\sexec/s: (\d+)")
UNGUIDED_HINT: Final = (
    "no coverage feedback, so random mutation only; `make fuzz-accel "
    "FUZZ_TARGET=<name>` runs a target against the instrumented C extension"
)
_DONE: Final = re.compile(r"^Done (?P<runs>\d+) runs in (?P<seconds>\d+) second")


def targets() -> dict[str, str]:
    """Target name to module, one per ``fuzz/fuzz_<name>.py``."""
    return {
        path.stem.removeprefix("fuzz_"): f"fuzz.{path.stem}"
        for path in sorted(FUZZ_DIR.glob("fuzz_*.py"))
    }


@dataclass
class Stats:
    """What one libFuzzer run printed: start and end coverage, speed, findings."""

    runs: int = 0
    seconds: int = 0
    exec_per_second: int = 0
    cov_start: int = 0
    cov_end: int = 0
    features_start: int = 0
    features_end: int = 0
    corpus_start: int = 0
    corpus_end: int = 0
    #: Whether libFuzzer saw any coverage: without it the run was not guided.
    guided: bool = False

    def summary(self, name: str, findings: int) -> str:
        coverage = (
            f"cov {self.cov_start} -> {self.cov_end} "
            f"(+{self.cov_end - self.cov_start}), features {self.features_start} -> "
            f"{self.features_end}"
            if self.guided
            else "UNGUIDED (no coverage feedback)"
        )
        return (
            f"{name}: {self.runs} runs in {self.seconds} s ({self.exec_per_second} "
            f"exec/s); {coverage}, corpus {self.corpus_start} -> {self.corpus_end}; "
            f"findings: {findings}"
        )


def parse_log(lines: Sequence[str]) -> Stats:
    """Coverage at INITED, the last status line, and the closing 'Done' line."""
    stats = Stats()
    for line in lines:
        if status := _STATUS.match(line):
            cov, ft, corp = (_field(name, line) for name in ("cov", "ft", "corp"))
            stats.runs = int(status["runs"])
            stats.cov_end, stats.features_end, stats.corpus_end = cov, ft, corp
            stats.guided = stats.guided or cov > 0
            if speed := _SPEED.search(line):
                stats.exec_per_second = int(speed[1])
            if status["event"] == "INITED":
                stats.cov_start, stats.features_start = (
                    stats.cov_end,
                    stats.features_end,
                )
                stats.corpus_start = stats.corpus_end
        elif done := _DONE.match(line):
            stats.runs, stats.seconds = int(done["runs"]), int(done["seconds"])
            stats.exec_per_second = stats.runs // max(stats.seconds, 1)
    return stats


def _field(name: str, line: str) -> int:
    found = _FIELD[name].search(line)
    return int(found[1]) if found else 0


def _findings(folder: Path) -> set[Path]:
    return {p for p in folder.glob("*") if p.name.startswith(FINDING_PREFIXES)}


def _dictionary(name: str) -> Path:
    """``utf8.dict``, with the target's own ``fuzz/<name>.dict`` added when it has
    one (libFuzzer reads one ``-dict``): written to the artifacts folder."""
    own = FUZZ_DIR / f"{name}.dict"
    if not own.is_file():
        return DICTIONARY
    merged = ARTIFACTS / f"{name}.dict"
    merged.write_text(DICTIONARY.read_text("utf-8") + own.read_text("utf-8"), "utf-8")
    return merged


def _fuzz_one(
    name: str, module: str, seconds: int, extra: Sequence[str]
) -> tuple[bool, bool]:
    """Fuzz one target; print its summary; (found nothing, was guided)."""
    harness = importlib.import_module(module)
    work, findings_dir = ARTIFACTS / "corpus" / name, ARTIFACTS / name
    work.mkdir(parents=True, exist_ok=True)
    findings_dir.mkdir(parents=True, exist_ok=True)
    before = _findings(findings_dir)
    command = [
        sys.executable,
        "-m",
        module,
        f"-max_total_time={seconds}",
        f"-max_len={harness.MAX_LEN}",
        f"-timeout={INPUT_TIMEOUT_SECONDS}",
        f"-dict={_dictionary(name)}",
        f"-artifact_prefix={findings_dir}/",
        *extra,
        str(work),
        str(SEEDS / name),
    ]
    log = ARTIFACTS / f"{name}.log"
    print(f"fuzz: {name} for {seconds} s (log: {log.relative_to(ROOT)})", flush=True)
    with log.open("w") as out:
        code = subprocess.run(command, cwd=ROOT, stdout=out, stderr=out).returncode  # noqa: S603
    new = sorted(_findings(findings_dir) - before)
    stats = parse_log(log.read_text(errors="replace").splitlines())
    print(stats.summary(name, len(new)))
    for path in new:
        print(f"  finding: {path.relative_to(ROOT)} (python -m fuzz replay {path})")
    if code != 0 and not new:
        print(f"  libFuzzer exited with {code}; see the log")
    return code == 0 and not new, stats.guided


def atheris_installed() -> bool:
    return importlib.util.find_spec("atheris") is not None


def _run(args: argparse.Namespace) -> int:
    if not atheris_installed():
        print(ATHERIS_MISSING.format(version=sys.version.split()[0]))
        if args.allow_missing:
            print("fuzz: SKIPPED (no atheris); the corpus replay tests still run")
            return 0
        return 2
    known = targets()
    if unknown := set(args.targets) - set(known):
        print(
            f"fuzz: no target {', '.join(sorted(unknown))}; known: {', '.join(known)}"
        )
        return 2
    results = {
        name: _fuzz_one(name, known[name], args.time, args.libfuzzer)
        for name in args.targets or known
    }
    failed = [name for name, (clean, _) in results.items() if not clean]
    print(f"fuzz: {len(failed)} of {len(results)} targets had findings")
    if unguided := [name for name, (_, guided) in results.items() if not guided]:
        print(
            f"fuzz: {len(unguided)} unguided ({', '.join(unguided)}): {UNGUIDED_HINT}"
        )
    return 1 if failed else 0


def _inputs(paths: Sequence[str], target: str | None) -> list[tuple[str, Path]]:
    """(target, file) for each file or each file in a folder; the folder names the
    target unless ``target`` is given."""
    if not paths:
        folders = [SEEDS / name for name in targets()]
        folders += [ARTIFACTS / "corpus" / name for name in targets()]
        paths = [str(folder) for folder in folders if folder.is_dir()]
    found: list[tuple[str, Path]] = []
    for path in map(Path, paths):
        files = sorted(path.iterdir()) if path.is_dir() else [path]
        for file in files:
            found.append((target or file.parent.name, file))
    return found


def _replay(args: argparse.Namespace) -> int:
    known = targets()
    checks: dict[str, Callable[[bytes], None]] = {}
    failed = 0
    inputs = _inputs(args.paths, args.target)
    for name, path in inputs:
        if name not in known:
            print(f"{path}: no target {name!r}; use --target ({', '.join(known)})")
            return 2
        check = checks.setdefault(name, importlib.import_module(known[name]).check)
        try:
            check(path.read_bytes())
        except AssertionError as exc:
            failed += 1
            print(f"FAIL {name} {path}\n{exc}")
    print(f"replay: {len(inputs)} inputs, {failed} failed")
    return 1 if failed else 0


def _coverage(args: argparse.Namespace) -> int:
    """Replay (and optionally run the tests) under coverage.py; print core coverage."""
    data = ARTIFACTS / ".coverage"
    data.parent.mkdir(parents=True, exist_ok=True)
    measure = [
        sys.executable,
        "-m",
        "coverage",
        "run",
        "--branch",
        f"--data-file={data}",
    ]
    measure.append("--source=utf8guard")
    replay = [*measure, "-m", "fuzz", "replay", *args.paths]
    if args.target:
        replay += ["--target", args.target]
    if subprocess.run(replay, cwd=ROOT).returncode != 0:  # noqa: S603
        return 1
    if args.with_tests:
        tests = [*measure, "--append", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        subprocess.run(tests, cwd=ROOT, check=True)  # noqa: S603
    report = ARTIFACTS / "coverage.json"
    subprocess.run(  # noqa: S603
        [
            *(sys.executable, "-m", "coverage", "json", f"--data-file={data}", "-q"),
            "--fail-under=0",  # the figure is printed and judged below
            *("-o", str(report), f"--include={','.join(CORE_FILES)}"),
        ],
        cwd=ROOT,
        check=True,
    )
    print(_coverage_table(json.loads(report.read_text())))
    return 0


def _coverage_table(report: dict[str, Any]) -> str:
    """Line and branch percentages per core file and in total, from coverage JSON."""
    rows = []
    entries = [
        (name, entry["summary"], entry["missing_lines"])
        for name, entry in sorted(report["files"].items())
    ]
    for name, summary, missing in [*entries, ("TOTAL", report["totals"], [])]:
        lines = 100.0 * summary["covered_lines"] / max(summary["num_statements"], 1)
        branches = 100.0 * (
            summary["covered_branches"] / summary["num_branches"]
            if summary["num_branches"]
            else 1
        )
        unreached = f"  missing lines {missing}" if missing else ""
        rows.append(
            f"{name:28} lines {lines:6.2f}%  branches {branches:6.2f}%{unreached}"
        )
    met = lines >= COVERAGE_TARGET_LINES and branches >= COVERAGE_TARGET_BRANCHES
    rows.append(
        f"target {COVERAGE_TARGET_LINES:.0f}% lines, {COVERAGE_TARGET_BRANCHES:.0f}% "
        f"branches: {'met' if met else 'NOT met'}"
    )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="fuzz targets under atheris")
    run.add_argument("targets", nargs="*", metavar="TARGET", help="default: all")
    run.add_argument("-t", "--time", type=int, default=60, help="seconds per target")
    run.add_argument(
        "--allow-missing", action="store_true", help="exit 0 without atheris"
    )
    run.add_argument("--libfuzzer", action="append", default=[], metavar="FLAG")
    for name, help_text in (
        ("replay", "run files through their target's check, without atheris"),
        ("coverage", "replay under coverage.py and print the core's coverage"),
    ):
        command = commands.add_parser(name, help=help_text)
        command.add_argument(
            "paths", nargs="*", help="files or folders (default: corpora)"
        )
        command.add_argument("--target", choices=list(targets()))
    commands.choices["coverage"].add_argument("--with-tests", action="store_true")
    args = parser.parse_args(argv)
    handler = {"run": _run, "replay": _replay, "coverage": _coverage}[args.command]
    return handler(args)
