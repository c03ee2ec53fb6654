"""Throughput of the C accelerator next to ``bytes.decode`` and the pure-Python core.

Run ``python -m bench.bench_accel`` (``make bench-accel``); ``--help`` lists the
options. Every candidate checks the same bytes under STRICT (noncharacters refused),
except ``bytes.decode``, which refuses none. Candidates are interleaved within each
round and each one's fastest round is reported (the least disturbed by neighbours on
a shared machine, as ``timeit`` advises). The corpora are built from seeded word
lists; nothing is downloaded.

Rows: ``python`` is the pure-Python ``is_valid`` (``_scan.python_is_valid``),
``c-<isa>`` the public ``is_valid`` with the accelerator (``_speedups.is_valid``) on
that instruction set, ``c-seam`` the compiled ``first_violation`` called directly,
which the public ``is_valid`` wrapped in Python before issue 13.

Issue 7 and 13 targets, as ratios to ``bytes.decode`` in one run: C at least 5x on
every non-ASCII corpus of 64 KiB, 1.5x on ASCII, and no slower on inputs of 64 bytes
or less; pure Python within 2x of ``decode`` on those small inputs.
"""

from __future__ import annotations

import argparse
import random
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from utf8guard import STRICT, _scan, is_valid

try:
    from utf8guard import _speedups
except ImportError:  # pragma: no cover - a build without a C compiler
    _speedups = None  # type: ignore[assignment]  # the C rows are left out

SEED: Final = 7
#: Words per corpus: a space joins them, so even "emoji" has some ASCII, as real text.
WORDS: Final = {
    "ascii": "the quick brown fox jumps over a lazy dog request server".split(),
    "german": "Größe Übung für Änderung schön Straße weiß Grüße Tür Käse".split(),
    "russian": "съешь же ещё этих мягких французских булок да выпей чаю".split(),
    "cjk": ["我能吞下玻璃而不伤身体", "日本語の文章を読みます", "服务器返回了错误"],
    # Issue 13: fullwidth punctuation (U+FF0C, U+FF01, U+FF1F, U+FF1A: lead EF, second
    # byte BC, as the noncharacters U+FDD0..U+FFFF have lead EF) between the words.
    "cjk_punct": [
        "我能吞下玻璃\uff0c",
        "日本語の文章を読みます\uff01",
        "服务器返回了错误\uff1f",
        "注意\uff1a",
    ],
    "emoji": ["😀😂", "🎉👍🏽", "🚀🔥✨", "🙈🙉🙊"],
}
#: Sizes of the small-input rows (bytes).
SMALL_SIZES: Final = (16, 32, 64)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One thing to time: switch to its implementation, then run ``stmt``."""

    switch: Callable[[], None]
    stmt: str
    names: dict[str, object]


def corpus(name: str, size: int) -> bytes:
    """Seeded text from ``WORDS[name]``, cut back to whole characters of ``size``."""
    rng = random.Random(f"{SEED}-{name}")  # noqa: S311 - test data, not secrets
    words = WORDS[name]
    text = " ".join(rng.choice(words) for _ in range(size // 2 + 1)).encode()
    return text[:size].decode("utf-8", "ignore").encode()


def _use(isa: str | None) -> Callable[[], None]:
    """Switch to instruction set ``isa``, or to the pure-Python core for None."""

    def switch() -> None:
        if isa is None:
            _scan._compiled = None
        else:
            _scan._compiled = _speedups.first_violation
            _speedups.set_isa(isa)

    return switch


def candidates(data: bytes) -> dict[str, Candidate]:
    """What to time on ``data``: decode, the pure core, and each instruction set.

    Every candidate is one call on ``data`` in the timed statement (no lambda or
    partial in between), so on tiny inputs the call costs count alike.
    """
    pure = _use(None)
    found = {
        "bytes.decode": Candidate(pure, "data.decode()", {"data": data}),
        "python": Candidate(
            pure, "fn(data)", {"fn": _scan.python_is_valid, "data": data}
        ),
    }
    if _speedups is not None:
        isas = _speedups.supported_isas()
        for isa in reversed(isas):
            names = {"fn": _speedups.is_valid, "data": data}
            found[f"c-{isa}"] = Candidate(_use(isa), "fn(data)", names)
        # The seam alone: first_violation, which the Python is_valid used to wrap.
        seam = {"fn": _speedups.first_violation, "data": data, "n": len(data)}
        seam["policy"] = STRICT
        found["c-seam"] = Candidate(_use(isas[-1]), "fn(data, 0, n, policy)", seam)
    return found


def time_per_call(found: dict[str, Candidate], rounds: int) -> dict[str, float]:
    """Fastest seconds per call of each candidate, rounds interleaved."""
    saved = _scan._compiled
    try:
        timers = {
            name: timeit.Timer(c.stmt, globals=c.names) for name, c in found.items()
        }
        numbers: dict[str, int] = {}
        for name, candidate in found.items():
            candidate.switch()
            numbers[name] = max(1, timers[name].autorange()[0] // 100)
        samples: dict[str, list[float]] = {name: [] for name in found}
        for _ in range(rounds):
            for name, candidate in found.items():
                candidate.switch()
                seconds = timers[name].timeit(numbers[name])
                samples[name].append(seconds / numbers[name])
    finally:
        _scan._compiled = saved
    return {name: min(times) for name, times in samples.items()}


def _ratios(seconds: dict[str, float]) -> str:
    """bytes.decode time over the public C is_valid's and over the seam's."""
    public = [s for n, s in seconds.items() if n.startswith("c-") and n != "c-seam"]
    if not public:  # pragma: no cover - a build without a C compiler
        return "- | -"
    decode = seconds["bytes.decode"]
    return f"{decode / public[0]:.1f}x | {decode / seconds['c-seam']:.1f}x"


def report(size: int, rounds: int) -> list[str]:
    """Markdown rows: GB/s per candidate and the C rows' ratios to decode."""
    lines: list[str] = []
    for name in WORDS:
        data = corpus(name, size)
        assert is_valid(data), name  # noqa: S101 - a broken corpus measures nothing
        seconds = time_per_call(candidates(data), rounds)
        cells = [f"{len(data) / s / 1e9:.2f}" for s in seconds.values()]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {_ratios(seconds)} |")
    header = list(candidates(b"").keys())
    return [
        f"GB/s on {size} B inputs under STRICT; ratios are bytes.decode time over"
        " the fastest C is_valid's and over the seam's",
        "| corpus | " + " | ".join(header) + " | is_valid vs decode | seam vs decode |",
        "|---" * (len(header) + 3) + "|",
        *lines,
    ]


def small_report(rounds: int) -> list[str]:
    """Markdown rows: nanoseconds per call on tiny inputs, and is_valid's speed
    over decode's for the pure-Python core and the fastest C is_valid."""
    lines: list[str] = []
    for size in SMALL_SIZES:
        for name in WORDS:
            data = corpus(name, size)
            seconds = time_per_call(candidates(data), rounds)
            cells = [f"{s * 1e9:.0f}" for s in seconds.values()]
            decode = seconds["bytes.decode"]
            ratios = f"{decode / seconds['python']:.2f}x | {_ratios(seconds)}"
            lines.append(
                f"| {name} {len(data)} B | " + " | ".join(cells) + f" | {ratios} |"
            )
    header = list(candidates(b"").keys())
    return [
        "ns per call on small inputs (decode time / is_valid time: pure target"
        " >= 0.5x, C >= 1.0x)",
        "| input | "
        + " | ".join(header)
        + " | python vs decode | C is_valid vs decode | seam vs decode |",
        "|---" * (len(header) + 4) + "|",
        *lines,
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64 << 10, help="bytes per input")
    parser.add_argument("--rounds", type=int, default=31, help="interleaved rounds")
    args = parser.parse_args(argv)
    saved = _speedups.isa() if _speedups is not None else None
    try:
        isa = saved or "none (pure Python only)"
        print(f"accelerator: {isa}; inputs {args.size} B\n")
        print("\n".join(report(args.size, args.rounds)))
        print()
        print("\n".join(small_report(args.rounds)))
    finally:
        if saved is not None:
            _speedups.set_isa(saved)


if __name__ == "__main__":
    main()
