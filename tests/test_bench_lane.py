"""bench_lane reads callgrind's summary as valgrind prints it, and refuses others."""

from __future__ import annotations

import pytest

from bench import bench_lane

#: The end of ``valgrind --tool=callgrind`` output on stderr (valgrind manual,
#: "Callgrind: a call-graph generating cache profiler").
SUMMARY = """\
==4242== Events    : Ir
==4242== Collected : 123456789
==4242==
==4242== I   refs:      123,456,789
"""


def test_collected_reads_the_summary() -> None:
    assert bench_lane.collected(SUMMARY) == 123456789


@pytest.mark.parametrize("stderr", ["", SUMMARY + SUMMARY.replace("4242", "4243")])
def test_collected_refuses_no_or_two_summaries(stderr: str) -> None:
    with pytest.raises(ValueError, match="no single callgrind summary"):
        bench_lane.collected(stderr)
