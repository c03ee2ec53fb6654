"""``is_valid`` (STRICT) on adversarial text as it grows, next to ``bytes.decode``.

Each shape repeats one character chosen to make the noncharacter screen work hardest:
the prefix of a gate's regex at every character (U+FDCF is ``EF B7 8F``, U+1FFFD ends
in ``BF BD``), or a near miss of the tail byte (U+4FFE, ``E4 BF BE``). Every shape is
valid, so nothing stops the scan early. The screen must stay O(n): the growth column
is ``is_valid`` time over the previous size's, per doubling of the input (about 1.0 is
linear). Run with ``UTF8GUARD_PURE_PYTHON=1`` for the pure-Python core.

Not a test: the only test runs it with the smallest settings so that it cannot rot.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Final

from bench.bench_core import CLOCKS, KIB, MIB, Timing, parse_size
from utf8guard import IMPLEMENTATION, is_valid

#: shape name -> the repeated character (all valid under STRICT).
SHAPES: Final = {
    "U+FDCF (EF B7 8F)": "\ufdcf",
    "U+FF0C (EF BC 8C)": "\uff0c",
    "U+FFFD (EF BF BD)": "\ufffd",
    "U+4FFE (E4 BF BE)": "\u4ffe",
    "U+1FFFD (F0 9F BF BD)": "\U0001fffd",
}
SIZES_BYTES: Final = (64 * KIB, 256 * KIB, MIB, 4 * MIB)


def make_shape(char: str, size: int) -> bytes:
    """``char`` repeated to at most ``size`` bytes."""
    return char.encode() * (size // len(char.encode()))


def rows(timing: Timing, sizes: Sequence[int]) -> list[str]:
    lines = [
        "| shape | size | decode us | is_valid us | ratio | growth per doubling |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, char in SHAPES.items():
        previous: tuple[int, float] | None = None
        for size in sizes:
            data = make_shape(char, size)
            decode_ns, valid_ns = timing.compare([bytes.decode, is_valid], data)
            growth = "-"
            if previous is not None:
                doublings = math.log2(len(data) / previous[0])
                growth = f"{(valid_ns / previous[1]) ** (1 / doublings) / 2:.2f}"
            previous = (len(data), valid_ns)
            lines.append(
                f"| {name} | {size // KIB:,} KiB | {decode_ns / 1e3:,.1f} | "
                f"{valid_ns / 1e3:,.1f} | {decode_ns / valid_ns:.2f}x | {growth} |"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bench_core_shapes", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--sizes",
        type=lambda t: [parse_size(s) for s in t.split(",") if s.strip()],
        default=list(SIZES_BYTES),
        help="comma-separated, default 64K,256K,1M,4M",
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--clock", choices=list(CLOCKS), default="cpu")
    args = parser.parse_args(argv)
    timing = Timing(rounds=args.rounds, round_ns=10_000_000, clock=CLOCKS[args.clock])
    print(f"implementation {IMPLEMENTATION}, {args.clock} clock, median of rounds\n")
    print("\n".join(rows(timing, args.sizes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
