"""Issue 11's proof: every row of the table, raw over a socket, on every stack.

A test fails when the stack answers 5xx, hangs past the request timeout, lets
refused content reach the app, lets through a row issue 11 says to refuse, or
refuses (or garbles) a valid control row. The oracle is ``oracle.py``.
"""

from __future__ import annotations

import pytest

from .cluster import Cluster
from .rows import Row
from .stacks import STACKS
from .table import ROWS

pytestmark = pytest.mark.differential

CASES = [
    pytest.param(row, stack.id, id=f"{row.id}[{stack.id}]")
    for row in ROWS
    for stack in STACKS
]


@pytest.mark.parametrize(("row", "stack"), CASES)
def test_row(cluster: Cluster, row: Row, stack: str) -> None:
    if stack in cluster.skipped:
        pytest.skip(f"{stack}: {cluster.skipped[stack]}")
    verdict = cluster.verdict(row, stack)
    assert verdict is not None, f"{stack} is not running: {cluster.failed.get(stack)}"
    assert verdict.ok, (
        f"{verdict.outcome}: {verdict.detail} (log: {cluster.log(stack)})"
    )
