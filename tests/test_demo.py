"""``make demo``: both apps answer, one problem+json body, the corpus summary, the
table last. Runs the real demo (two uvicorn servers on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from examples import demo
from utf8guard import reference as ref


def test_demo_sections_in_order_with_the_unguarded_view(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus.txt"
    data = b"ok\n\xc0\xaf and \xed\xa0\x80\n\xef\xbf\xbe\n"
    corpus.write_bytes(data)
    demo.main(["--corpus", str(corpus)])
    out = capsys.readouterr().out
    body_start = out.index("{\n")
    body = json.loads(out[body_start : out.index("\n}\n") + 2])
    assert (body["status"], body["violations"][0]["kind"]) == (400, "surrogate")
    assert body_start < out.index("stress test") < out.index("\nrequest ")
    # Counts per kind from the reference decoder, not from the CLI.
    kinds: dict[str, int] = {}
    for violation in ref.iter_violations(data):
        kinds[violation.kind.value] = kinds.get(violation.kind.value, 0) + 1
    assert f"{sum(kinds.values())} violations on 2 of the file's lines" in out
    for kind, count in kinds.items():
        assert f"    {kind:<24} {count:>4}" in out
    table = out[out.index("\nrequest ") + 1 :].splitlines()
    assert len(table) == 1 + len(demo.ROWS)  # the table is the last thing printed
    rows = dict(zip((row.label for row in demo.ROWS), table[1:], strict=True))
    assert "{'a': '\\ud800'}" in rows["POST JSON raw ED A0 80"]
    assert " 400 surrogate in body" in rows["POST JSON raw ED A0 80"]
    assert "'À¯'" in rows["GET / (X-User: C0 AF)"]
    assert "'invoice\\u202efdp.exe'" in rows["upload invoice<RLO>fdp.exe"]
    assert rows["POST 5 MB text (limit 4 MiB)"].endswith("413 Request body too large")
    assert "200 passed to the app" in rows["GET /caf%C3%A9/%E2%82%AC"]


def test_demo_without_the_corpus_says_where_to_set_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    demo.main(["--corpus", str(tmp_path / "missing.txt")])
    out = capsys.readouterr().out
    assert "not found: set UTF8GUARD_CORPUS or pass --corpus" in out
    assert out.rstrip().splitlines()[-1].startswith("POST 5 MB text")
