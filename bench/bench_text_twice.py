"""What reading a text body twice costs: as text and as a form (issue 25).

A body with no Content-Type or a ``text/*`` one is checked as text and also as the
form Bottle and WebOb parse from it (``_body.inspector_for``'s ``sniff`` kind), so
each byte is read twice. This measures, in one run and on the same bytes, the body
inspectors alone, fed 64 KiB chunks as a server hands them over:

* ``decode``: an incremental strict UTF-8 decoder over the chunks, the floor;
* ``text``: the text reading alone (``SniffingInspector``);
* ``form``: the form reading alone (``FormInspector(escapes=False)``);
* ``both``: what the guard runs for ``text/plain`` (both, findings merged).

Shapes: ``prose`` (German prose, no ``%``, ``&`` or ``=``), ``form-like`` (text that
looks like a form: ``name=caf%C3%A9&...``, the form reading's worst honest case)
and ``cjk`` (three-byte characters). Each cell is the fastest of ``--rounds`` runs
in MiB/s; the ratio columns are ``both`` against ``text`` (the cost of the second
reading) and against ``decode``. Run: ``python -m bench.bench_text_twice``.
"""

from __future__ import annotations

import argparse
import codecs
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bench.bench_core import make_corpus
from utf8guard import STRICT
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._body import inspector_for
from utf8guard.middleware.body._form import FormInspector
from utf8guard.middleware.body._sniff import SniffingInspector
from utf8guard.middleware.engine._finding import Finding

if TYPE_CHECKING:
    from utf8guard.middleware.body._text import BodyInspector

CHUNK_BYTES = 64 * 1024
SHAPES = ("prose", "form-like", "cjk")
CANDIDATES = ("decode", "text", "form", "both")
#: The Content-Type whose body gets both readings.
TEXT_TYPE = b"text/plain; charset=utf-8"
_MIB = 1024 * 1024


def make_body(shape: str, size: int) -> bytes:
    """``size`` bytes of valid text of ``shape`` (deterministic)."""
    if shape == "prose":
        return make_corpus("german", size)
    if shape == "cjk":
        return make_corpus("cjk", size)
    field = b"name=caf%C3%A9+cr%C3%A8me&city=M%C3%BCnchen&q=%E2%82%AC+10&"
    whole = field * (size // len(field))
    return whole + b"x" * (size - len(whole))  # no escape cut in two at the end


def _inspectors() -> dict[str, Callable[[], BodyInspector]]:
    config = GuardConfig()

    def both() -> BodyInspector:
        inspector = inspector_for(TEXT_TYPE, config)
        if isinstance(inspector, Finding):
            raise RuntimeError(f"{TEXT_TYPE!r} is refused: {inspector.kind}")
        return inspector

    return {
        "text": lambda: SniffingInspector(STRICT, binary=False),
        "form": lambda: FormInspector(STRICT, escapes=False),
        "both": both,
    }


def run(candidate: str, chunks: Sequence[bytes]) -> Callable[[], object]:
    """One pass of ``candidate`` over ``chunks``, as a callable."""
    if candidate == "decode":

        def decode() -> object:
            decoder = codecs.getincrementaldecoder("utf-8")()
            return [decoder.decode(chunk) for chunk in chunks], decoder.decode(
                b"", True
            )

        return decode
    make = _inspectors()[candidate]

    def inspect() -> object:
        inspector = make()
        findings = [f for chunk in chunks for f in inspector.feed(chunk)]
        findings += inspector.finish()
        if findings:
            raise RuntimeError(f"{candidate} refused an honest body: {findings[0]}")
        return findings

    return inspect


def best_seconds(fn: Callable[[], object], rounds: int) -> float:
    """The fastest of ``rounds`` timed calls of ``fn``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(shape: str, size: int, rounds: int) -> dict[str, float]:
    """MiB/s per candidate for one shape and size; candidates interleave per round."""
    body = make_body(shape, size)
    chunks = [body[i : i + CHUNK_BYTES] for i in range(0, len(body), CHUNK_BYTES)]
    calls = {name: run(name, chunks) for name in CANDIDATES}
    best = dict.fromkeys(CANDIDATES, float("inf"))
    for _ in range(rounds):
        for name, call in calls.items():
            best[name] = min(best[name], best_seconds(call, 1))
    return {name: size / _MIB / max(seconds, 1e-9) for name, seconds in best.items()}


def table(rows: Sequence[tuple[str, int, dict[str, float]]]) -> list[str]:
    """A Markdown table: MiB/s per candidate, then both/text and both/decode."""
    head = "| shape | size | " + " | ".join(CANDIDATES) + " | both/text | both/decode |"
    lines = [head, "|" + " --- |" * (len(CANDIDATES) + 4)]
    for shape, size, speeds in rows:
        cells = " | ".join(f"{speeds[name]:.0f}" for name in CANDIDATES)
        lines.append(
            f"| {shape} | {size // 1024} KiB | {cells} | "
            f"{speeds['both'] / speeds['text']:.2f}x | "
            f"{speeds['both'] / speeds['decode']:.2f}x |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,1024", help="KiB, comma-separated")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    sizes = [int(kib) * 1024 for kib in args.sizes.split(",")]
    rows = [
        (shape, size, measure(shape, size, args.rounds))
        for shape in SHAPES
        for size in sizes
    ]
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
