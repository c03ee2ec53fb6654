"""Issues 11 and 25: every row of the tables, raw over a socket, on every stack.

A test fails when the stack answers 5xx, hangs past the request timeout, lets
refused content reach the app, lets through a row issue 11 says to refuse, or
refuses (or garbles) a valid control row. The oracle is ``oracle.py``.
"""

from __future__ import annotations

import pytest

from .cluster import Cluster
from .h2c import h2_form
from .rows import Row
from .stacks import KNOWN_FAILURES, STACKS
from .table import ROWS
from .table_framing import ROWS as FRAMING_ROWS
from .table_h2 import ROWS as H2_ROWS
from .table_ws import ROWS as WS_ROWS

pytestmark = pytest.mark.differential

CASES = [
    pytest.param(row, stack.id, id=f"{row.id}[{stack.id}]")
    for row in ROWS + FRAMING_ROWS + H2_ROWS + WS_ROWS
    for stack in STACKS
]


@pytest.mark.parametrize(("row", "stack"), CASES)
def test_row(
    cluster: Cluster, row: Row, stack: str, request: pytest.FixtureRequest
) -> None:
    known = KNOWN_FAILURES.get((row.id, stack))
    if known is not None:
        request.applymarker(pytest.mark.xfail(reason=known[0], strict=known[1]))
    if stack in cluster.skipped:
        pytest.skip(f"{stack}: {cluster.skipped[stack]}")
    if stack in cluster.h2c and h2_form(row) is None:
        pytest.skip("HTTP/1.1 framing: the row has no HTTP/2 form")
    if row.h2 is not None and stack not in cluster.h2c:
        pytest.skip("an HTTP/2-only row")
    verdict = cluster.verdict(row, stack)
    assert verdict is not None, f"{stack} is not running: {cluster.failed.get(stack)}"
    assert verdict.ok, (
        f"{verdict.outcome}: {verdict.detail} (log: {cluster.log(stack)})"
    )
