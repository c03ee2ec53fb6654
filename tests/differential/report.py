"""The matrix the differential suite prints: each failing row on each stack."""

from __future__ import annotations

from collections.abc import Iterator

from .cluster import Cluster
from .oracle import Verdict

#: One letter per outcome; "." is a pass (refused, or passed with a clean echo).
LETTERS = {
    "leaked": "L",
    "5xx": "5",
    "hang": "H",
    "allowed": "A",
    "wrong": "W",
    "error": "E",
}


def _letter(verdict: Verdict | None) -> str:
    if verdict is None:
        return "-"
    return "." if verdict.ok else LETTERS[verdict.outcome]


def matrix_lines(cluster: Cluster) -> Iterator[str]:
    """The failing rows as a matrix, then the rows each server refused by itself."""
    if not cluster.verdicts:
        return
    stacks = list(cluster.servers)
    yield "differential matrix (L leaked, 5 5xx, H hang, A allowed, W wrong, E error):"
    for number, name in enumerate(stacks):
        yield f"  {number}: {name}"
    width = max(len(row) for row in cluster.verdicts)
    yield f"  {'':{width}}  " + " ".join(str(n % 10) for n in range(len(stacks)))
    for row, verdicts in cluster.verdicts.items():
        letters = [_letter(verdicts.get(name)) for name in stacks]
        if any(letter not in ".-" for letter in letters):
            yield f"  {row:{width}}  " + " ".join(letters)
    yield "refused by the server or framework itself (never reached the guard's app):"
    for row, verdicts in cluster.verdicts.items():
        own = [
            f"{name} ({verdict.detail})"
            for name, verdict in verdicts.items()
            if verdict.outcome in ("server-refused", "closed")
        ]
        if own:
            yield f"  {row}: " + ", ".join(own)
