"""bench_text_twice: bodies, candidates and table at tiny sizes (no timing asserted)."""

from __future__ import annotations

import pytest

from bench import bench_text_twice as bench
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._body import inspector_for
from utf8guard.middleware.body._form import FormInspector


@pytest.mark.parametrize("shape", bench.SHAPES)
def test_each_shape_is_honest_text_of_its_size(shape: str) -> None:
    body = bench.make_body(shape, 4096)
    assert len(body) == 4096
    body.decode("utf-8")  # valid UTF-8: the oracle is CPython's strict decoder
    for candidate in bench.CANDIDATES:
        bench.run(candidate, [body[:1000], body[1000:]])()  # refuses nothing


def test_both_is_what_the_guard_runs_for_text() -> None:
    # The form reading is part of the "both" candidate: a body that only the form
    # reading refuses (an escaped noncharacter) is refused by it and not by "text".
    evil = b"a=%EF%BF%BE"
    with pytest.raises(RuntimeError, match="both refused"):
        bench.run("both", [evil])()
    bench.run("text", [evil])()
    inspector = inspector_for(bench.TEXT_TYPE, GuardConfig())
    assert not isinstance(inspector, FormInspector)


def test_table_reports_ratios() -> None:
    speeds = {"decode": 400.0, "text": 200.0, "form": 100.0, "both": 50.0}
    lines = bench.table([("prose", 65536, speeds)])
    assert lines[2] == "| prose | 64 KiB | 400 | 200 | 100 | 50 | 0.25x | 0.12x |"


def test_main_prints_one_row_per_shape_and_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench.main(["--sizes", "1", "--rounds", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| {s}" for s in bench.SHAPES]
