"""The filename table in docs/paths.md is exactly what bench/compare_paths.py prints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("werkzeug", reason="test extra: werkzeug for the comparison table")
pytest.importorskip("pathvalidate", reason="test extra: pathvalidate for the table")

from bench import compare_paths

PAGE = Path(__file__).resolve().parent.parent / "docs" / "paths.md"


def test_docs_table_is_current() -> None:
    text = PAGE.read_text("utf-8")
    begin = text.index(compare_paths.BEGIN)
    end = text.index(compare_paths.END) + len(compare_paths.END) + 1
    assert text[begin:end] == compare_paths.table(), (
        "docs/paths.md is stale: python -m bench.compare_paths --write docs/paths.md"
    )


def test_table_covers_forty_names_and_utf8guard_gets_all_right() -> None:
    rows = compare_paths.ROWS
    assert len(rows) >= 40
    assert len([row for row in rows if row[2] is None]) >= 15
    right = compare_paths.table().splitlines()[-2]
    # | **right** | | utf8guard | werkzeug | pathvalidate |
    assert right.split("|")[3].strip() == f"**{len(rows)} / {len(rows)}**"


def test_main_prints_and_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare_paths.main([]) == 0
    assert capsys.readouterr().out == compare_paths.table()
    readme = tmp_path / "README.md"
    readme.write_text(
        f"# x\n\n{compare_paths.BEGIN}\nold\n{compare_paths.END}\n\nafter\n", "utf-8"
    )
    assert compare_paths.main(["--write", os.fspath(readme)]) == 0
    assert readme.read_text("utf-8") == (f"# x\n\n{compare_paths.table()}\nafter\n")
