"""``python -m fuzz``: log parsing, target discovery, replay, and the missing-atheris
path; the libFuzzer subprocess is replaced by a fake that writes a log and a crash."""

from __future__ import annotations

import json
import re
import runpy
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fuzz import run

LOG = """\
INFO: Seed: 1
#32\tINITED cov: 580 ft: 1238 corp: 27/1113b exec/s: 0 rss: 49Mb
#2048\tpulse  cov: 599 ft: 2619 corp: 171/14772b lim: 667 exec/s: 682 rss: 50Mb
#12700\tDONE   cov: 601 ft: 2679 corp: 206/22Kb lim: 667 exec/s: 604 rss: 50Mb
Done 12700 runs in 21 second(s)
"""

# What libFuzzer printed for fuzz_accel run against the plain (uninstrumented) C build:
# cov, ft and corp are left out while they are zero.
UNGUIDED_LOG = """\
INFO: seed corpus: files: 6 min: 54b max: 137b total: 489b rss: 51Mb
#7\tINITED exec/s: 0 rss: 51Mb
WARNING: no interesting inputs were found so far. Is the code instrumented for coverage?
#8192\tpulse  corp: 1/1b lim: 80 exec/s: 4096 rss: 51Mb
#13267\tDONE   corp: 1/1b lim: 135 exec/s: 2653 rss: 51Mb
Done 13267 runs in 5 second(s)
"""


def test_targets_are_the_harness_files() -> None:
    found = run.targets()
    assert found["repair"] == "fuzz.fuzz_repair"
    assert {"validate", "stream", "repair"} <= set(found)
    assert len(found) == len(list(run.FUZZ_DIR.glob("fuzz_*.py")))


def test_parse_log() -> None:
    stats = run.parse_log(LOG.splitlines())
    assert (stats.runs, stats.seconds, stats.exec_per_second) == (12700, 21, 604)
    assert (stats.cov_start, stats.cov_end) == (580, 601)
    assert (stats.corpus_start, stats.corpus_end) == (27, 206)
    assert "cov 580 -> 601 (+21)" in stats.summary("validate", 0)


def test_parse_log_of_an_unguided_run() -> None:
    stats = run.parse_log(UNGUIDED_LOG.splitlines())
    assert (stats.runs, stats.seconds, stats.exec_per_second) == (13267, 5, 2653)
    assert (stats.corpus_start, stats.corpus_end) == (0, 1)
    assert not stats.guided
    summary = stats.summary("accel", 0)
    assert "UNGUIDED (no coverage feedback)" in summary
    assert "cov " not in summary
    assert run.parse_log(LOG.splitlines()).guided


def test_parse_log_of_a_crash_keeps_the_last_status() -> None:
    lines = [*LOG.splitlines()[:3], "==1== ERROR: libFuzzer: deadly signal"]
    stats = run.parse_log(lines)
    assert (stats.runs, stats.cov_end, stats.exec_per_second) == (2048, 599, 682)


def test_replay_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert run.main(["replay", str(run.SEEDS / "validate")]) == 0
    assert "0 failed" in capsys.readouterr().out


def test_replay_reports_a_failing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("utf8guard._repair.REPLACEMENT", b"?")
    crash = tmp_path / "crash-1"
    crash.write_bytes(b"\x00\xc0")
    assert run.main(["replay", "--target", "repair", str(crash)]) == 1
    out = capsys.readouterr().out
    assert "FAIL repair" in out
    assert "input (1 bytes): c0" in out


def test_replay_needs_a_known_target(tmp_path: Path) -> None:
    (tmp_path / "seed").write_bytes(b"a")
    assert run.main(["replay", str(tmp_path)]) == 2


def test_run_without_atheris(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "atheris_installed", lambda: False)
    assert run.main(["run", "-t", "1"]) == 2
    assert "atheris is not installed" in capsys.readouterr().out
    assert run.main(["run", "-t", "1", "--allow-missing"]) == 0
    assert "SKIPPED" in capsys.readouterr().out


def test_run_unknown_target(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "atheris_installed", lambda: True)
    assert run.main(["run", "nope"]) == 2
    assert "no target nope" in capsys.readouterr().out


@pytest.mark.parametrize(("crash", "code", "status"), [(False, 0, 0), (True, 1, 1)])
def test_run_reports_findings(
    crash: bool,
    code: int,
    status: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A fake libFuzzer writes the log, and a crash file when asked."""
    monkeypatch.setattr(run, "atheris_installed", lambda: True)
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    commands: list[list[str]] = []

    def fake(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        kwargs["stdout"].write(LOG)
        if crash:
            (tmp_path / "repair" / "crash-abc").write_bytes(b"\x00\xc0")
        return subprocess.CompletedProcess(command, code)

    monkeypatch.setattr(subprocess, "run", fake)
    assert run.main(["run", "-t", "5", "repair", "--libfuzzer=-seed=1"]) == status
    out = capsys.readouterr().out
    assert f"findings: {int(crash)}" in out
    assert ("finding: repair/crash-abc" in out) is crash
    assert "-max_total_time=5" in commands[0]
    assert "-seed=1" in commands[0]
    assert "-max_len=2048" in commands[0]


def test_a_target_dictionary_is_added_to_the_shared_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # libFuzzer reads one -dict: fastlane's own entries go after utf8.dict's.
    monkeypatch.setattr(run, "atheris_installed", lambda: True)
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    commands: list[list[str]] = []

    def fake(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", fake)
    assert run.main(["run", "-t", "1", "fastlane", "repair"]) == 0
    merged = tmp_path / "fastlane.dict"
    assert f"-dict={merged}" in commands[0]
    assert f"-dict={run.DICTIONARY}" in commands[1]
    text = merged.read_text("utf-8")
    assert text.index('row1_lo="\\xC2\\x80"') < text.index('pct_dot_lo="%2e"')


def test_run_reports_a_libfuzzer_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "atheris_installed", lambda: True)
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(
        subprocess,
        "run",
        lambda command, **kwargs: subprocess.CompletedProcess(command, 1),
    )
    assert run.main(["run", "-t", "1", "stream"]) == 1
    assert "libFuzzer exited with 1" in capsys.readouterr().out


def test_coverage_table() -> None:
    summary = {
        "covered_lines": 9,
        "num_statements": 10,
        "covered_branches": 0,
        "num_branches": 0,
    }
    report = {
        "files": {"utf8guard/_scan.py": {"summary": summary, "missing_lines": [7]}},
        "totals": summary,
    }
    table = run._coverage_table(report)
    assert "lines  90.00%  branches 100.00%  missing lines [7]" in table
    assert "NOT met" in table


def test_atheris_installed() -> None:
    assert isinstance(run.atheris_installed(), bool)


def test_replay_defaults_to_the_corpora(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "corpus" / "repair"
    work.mkdir(parents=True)
    (work / "grown").write_bytes(b"\x00\xe2\x82")
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    seeds = sum(len(list((run.SEEDS / name).iterdir())) for name in run.targets())
    assert run.main(["replay"]) == 0
    assert f"replay: {seeds + 1} inputs, 0 failed" in capsys.readouterr().out


def test_python_m_fuzz(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", ["fuzz", "replay", str(run.SEEDS / "repair")])
    with pytest.raises(SystemExit) as exit_:
        runpy.run_module("fuzz", run_name="__main__")
    assert exit_.value.code == 0


def test_coverage_of_one_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real thing: replay under coverage.py in a subprocess, then the table."""
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    assert run.main(["coverage", str(run.SEEDS / "validate" / "overlong-c0af")]) == 0
    out = capsys.readouterr().out
    assert "utf8guard/_scan.py" in out
    assert "TOTAL" in out


@pytest.mark.parametrize("replay_code", [0, 1])
def test_coverage_with_tests(
    replay_code: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Which commands run, with a fake subprocess writing a coverage.py JSON report."""
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    commands: list[list[str]] = []
    summary = {
        "covered_lines": 1,
        "num_statements": 1,
        "covered_branches": 1,
        "num_branches": 1,
    }

    def fake(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        if "json" in command:
            report = {"files": {}, "totals": summary}
            (tmp_path / "coverage.json").write_text(json.dumps(report))
        return subprocess.CompletedProcess(command, replay_code)

    monkeypatch.setattr(subprocess, "run", fake)
    assert run.main(["coverage", "--with-tests", "--target", "stream", "x"]) == (
        replay_code
    )
    if replay_code:
        assert len(commands) == 1
        return
    assert commands[0][-3:] == ["x", "--target", "stream"]
    assert "pytest" in commands[1]
    assert "target 100% lines, 95% branches: met" in capsys.readouterr().out


def test_docs_give_the_smoke_run_the_makefiles_seconds() -> None:
    makefile = (run.ROOT / "Makefile").read_text("utf-8")
    seconds = re.search(r"^FUZZ_SMOKE_SECONDS \?= (\d+)$", makefile, re.MULTILINE)
    assert seconds is not None
    for doc in ("README.md", "docs/core.md", "fuzz/README.md"):
        text = (run.ROOT / doc).read_text("utf-8")
        stated = re.findall(r"(?:harness|target)\S* (?:in `fuzz/` )?for (\d+) s", text)
        assert stated, doc
        assert set(stated) == {seconds[1]}, doc


def test_run_names_the_unguided_targets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """accel's fake log has no coverage, repair's has: only accel is called unguided,
    and an unguided run without findings still passes."""
    monkeypatch.setattr(run, "atheris_installed", lambda: True)
    monkeypatch.setattr(run, "ARTIFACTS", tmp_path)
    monkeypatch.setattr(run, "ROOT", tmp_path)

    def fake(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        guided = "fuzz.fuzz_repair" in command
        kwargs["stdout"].write(LOG if guided else UNGUIDED_LOG)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", fake)
    assert run.main(["run", "-t", "1", "accel", "repair"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("accel: 13267 runs in 5 s (2653 exec/s); UNGUIDED")
    assert "repair: 12700 runs in 21 s (604 exec/s); cov 580 -> 601 (+21)" in lines[3]
    assert lines[-2] == "fuzz: 0 of 2 targets had findings"
    assert lines[-1].startswith("fuzz: 1 unguided (accel): no coverage feedback")
    assert "make fuzz-accel FUZZ_TARGET=<name>" in lines[-1]
