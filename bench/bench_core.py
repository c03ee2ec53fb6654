"""Throughput of ``is_valid`` (STRICT) next to CPython's bare ``bytes.decode``.

Both are called the same way, ``fn(data)``: ``is_valid`` with its default policy,
STRICT, so no Python wrapper adds a frame to one side. Run with
``UTF8GUARD_PURE_PYTHON=1`` to measure the pure-Python core; the targets printed
follow the implementation in use (``utf8guard.IMPLEMENTATION``).

Run ``python -m bench.bench_core`` (``make bench``); ``--help`` lists the options. The
corpora come from ``bench._corpora`` (seeded word lists), so every run measures the
same bytes and nothing is downloaded. Candidates are interleaved within each round and
the median round is reported, so a noisy neighbour slows both sides of a ratio alike.

``--baseline TREE`` adds the ``is_valid`` of another checkout's package (imported under
another name) to the same interleaved rounds: before and after in one run.

Not a test: the only test runs it with the smallest settings so that it cannot rot.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final

# Re-exported: bench_text_twice, test_gates and test_bench_core import them from here.
from bench._corpora import GENERATORS as GENERATORS
from bench._corpora import make_corpus as make_corpus
from utf8guard import IMPLEMENTATION, STRICT, IncrementalValidator, is_valid

KIB: Final = 1 << 10
MIB: Final = 1 << 20
SIZES_BYTES: Final = (16, 32, 64, 4 * KIB, MIB, 16 * MIB)
STREAM_CHUNK_BYTES: Final = 64 * KIB
#: Issue 2, 13 and 28 targets: is_valid speed / decode speed, by input size. Pure
#: Python: at least 0.5x (at most 2x a decode call) below 4 KiB, from 64 B up as
#: issue 28 asks and below as issue 2 did; at least 1.0x from 4 KiB.
TARGET_SMALL_RATIO: Final = 0.5
TARGET_RATIO: Final = 1.0
SMALL_BYTES: Final = 64
LARGE_BYTES: Final = 4 * KIB
#: The C accelerator: no slower than decode up to 64 bytes, and at least 5x on
#: non-ASCII text from 64 KiB (1.0x elsewhere).
TARGET_C_SMALL_RATIO: Final = 1.0
TARGET_C_LARGE_RATIO: Final = 5.0
C_LARGE_BYTES: Final = 64 * KIB
#: IncrementalValidator time over one-shot time.
TARGET_STREAM_SLOWDOWN: Final = 1.25


@dataclass(frozen=True, slots=True)
class Row:
    """One corpus at one size: median nanoseconds per call of each candidate."""

    corpus: str
    size: int
    decode_ns: float
    is_valid_ns: float
    #: the baseline tree's is_valid (``--baseline``), or None
    baseline_ns: float | None = None

    @property
    def ratio(self) -> float:
        """is_valid speed over decode speed: above 1.0 is faster than decode."""
        return self.decode_ns / self.is_valid_ns

    @property
    def target(self) -> float:
        if IMPLEMENTATION == "c":
            if self.size <= SMALL_BYTES:
                return TARGET_C_SMALL_RATIO
            if self.size >= C_LARGE_BYTES and self.corpus != "ascii":
                return TARGET_C_LARGE_RATIO
            return TARGET_RATIO
        return TARGET_SMALL_RATIO if self.size < LARGE_BYTES else TARGET_RATIO


@dataclass(frozen=True, slots=True)
class StreamRow:
    """IncrementalValidator fed in chunks against one-shot is_valid on one corpus."""

    corpus: str
    size: int
    one_shot_ns: float
    stream_ns: float
    stream_peak_bytes: int
    decode_peak_bytes: int

    @property
    def slowdown(self) -> float:
        return self.stream_ns / self.one_shot_ns


#: ``wall``: time.perf_counter_ns, what a caller waits. ``cpu``: time.process_time_ns,
#: which leaves out the time other processes hold the core (on a shared machine).
CLOCKS: Final[dict[str, Callable[[], int]]] = {
    "wall": time.perf_counter_ns,
    "cpu": time.process_time_ns,
}


@dataclass(frozen=True, slots=True)
class Timing:
    """How to time: ``rounds`` interleaved rounds of about ``round_ns`` each."""

    rounds: int
    round_ns: int
    clock: Callable[[], int] = time.perf_counter_ns

    def per_call_ns(
        self, fn: Callable[[bytes], object], data: bytes, reps: int
    ) -> float:
        clock = self.clock
        start = clock()
        for _ in range(reps):
            fn(data)
        return (clock() - start) / reps

    def reps_for(self, fn: Callable[[bytes], object], data: bytes) -> int:
        """How many calls fill one round."""
        fn(
            data
        )  # warm-up: one-time costs (compiling a policy's plan) aren't throughput
        reps = 1
        while (spent := self.per_call_ns(fn, data, reps) * reps) * 10 < self.round_ns:
            reps *= 10
        return max(1, int(self.round_ns * reps / max(spent, 1.0)))

    def compare(
        self, candidates: Sequence[Callable[[bytes], object]], data: bytes
    ) -> list[float]:
        """Median ns per call of each candidate over interleaved rounds."""
        reps = [self.reps_for(fn, data) for fn in candidates]
        samples: list[list[float]] = [[] for _ in candidates]
        gc.collect()
        gc.disable()
        try:
            for index in range(self.rounds):
                # Alternate the order so neither side always runs right after the other.
                order = range(len(candidates))
                for i in order if index % 2 == 0 else reversed(order):
                    samples[i].append(self.per_call_ns(candidates[i], data, reps[i]))
        finally:
            gc.enable()
        return [statistics.median(s) for s in samples]


def _stream_validate(chunks: Sequence[bytes]) -> None:
    validator = IncrementalValidator(STRICT)
    for chunk in chunks:
        validator.feed(chunk)
    validator.finish()


def _split(data: bytes, chunk: int) -> list[bytes]:
    """The chunks a stream would deliver (sliced up front, outside the timing)."""
    return [data[i : i + chunk] for i in range(0, len(data), chunk)]


def _ignoring_input(fn: Callable[[], object]) -> Callable[[bytes], object]:
    return lambda _: fn()


def _peak_bytes(fn: Callable[[], object]) -> int:
    """Peak Python allocation (tracemalloc) while ``fn`` runs, beyond what was live."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def load_baseline(root: str) -> tuple[Callable[[bytes], object], str]:
    """``is_valid`` and ``IMPLEMENTATION`` of the utf8guard package in checkout
    ``root``, imported as ``utf8guard_baseline`` beside this one."""
    init = Path(root, "utf8guard", "__init__.py")
    spec = importlib.util.spec_from_file_location(
        "utf8guard_baseline", init, submodule_search_locations=[str(init.parent)]
    )
    if spec is None or spec.loader is None or not init.is_file():
        raise ValueError(f"no utf8guard package in {root}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.is_valid, module.IMPLEMENTATION


def bench_rows(
    corpora: Iterable[str],
    sizes: Iterable[int],
    timing: Timing,
    baseline: Callable[[bytes], object] | None = None,
) -> list[Row]:
    rows: list[Row] = []
    candidates: list[Callable[[bytes], object]] = [bytes.decode, is_valid]
    if baseline is not None:
        candidates.append(baseline)
    for name in corpora:
        for size in sizes:
            data = make_corpus(name, size)
            decode_ns, valid_ns, *base_ns = timing.compare(candidates, data)
            rows.append(Row(name, size, decode_ns, valid_ns, *base_ns))
    return rows


def bench_stream(
    corpora: Iterable[str], size: int, chunk: int, timing: Timing
) -> list[StreamRow]:
    rows: list[StreamRow] = []
    for name in corpora:
        data = make_corpus(name, size)
        stream = partial(_stream_validate, _split(data, chunk))
        one_shot_ns, stream_ns = timing.compare(
            (is_valid, _ignoring_input(stream)), data
        )
        stream_peak = _peak_bytes(stream)
        decode_peak = _peak_bytes(data.decode)
        rows.append(
            StreamRow(name, size, one_shot_ns, stream_ns, stream_peak, decode_peak)
        )
    return rows


def _size_label(size: int) -> str:
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} B"


def parse_size(text: str) -> int:
    """``64``, ``4K``, ``1M`` (binary units) to bytes."""
    units = {"K": KIB, "M": MIB}
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = units.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in units else text
    value = int(number) * scale
    if value <= 0:
        raise argparse.ArgumentTypeError(f"size must be > 0, not {text}")
    return value


def _mb_per_s(size: int, ns: float) -> float:
    return size * 1e3 / ns


def format_rows(rows: Sequence[Row]) -> str:
    based = any(r.baseline_ns is not None for r in rows)
    extra = (" baseline ratio |", " ---: |") if based else ("", "")
    lines = [
        "| corpus | size | bytes.decode MB/s | is_valid MB/s | ratio |"
        f"{extra[0]} target |",
        f"| --- | ---: | ---: | ---: | ---: |{extra[1]} --- |",
    ]
    for r in rows:
        verdict = "ok" if r.ratio >= r.target else "MISS"
        base = f" {r.decode_ns / r.baseline_ns:.2f}x |" if r.baseline_ns else ""
        lines.append(
            f"| {r.corpus} | {_size_label(r.size)} | "
            f"{_mb_per_s(r.size, r.decode_ns):,.0f} | "
            f"{_mb_per_s(r.size, r.is_valid_ns):,.0f} | {r.ratio:.2f}x |{base} "
            f">= {r.target:.1f}x {verdict} |"
        )
    return "\n".join(lines)


def format_stream(rows: Sequence[StreamRow], chunk: int) -> str:
    lines = [
        f"| corpus | size | one-shot MB/s | {_size_label(chunk)} chunks MB/s "
        "| stream time / one-shot | stream peak | decode peak |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        verdict = "ok" if r.slowdown <= TARGET_STREAM_SLOWDOWN else "MISS"
        lines.append(
            f"| {r.corpus} | {_size_label(r.size)} | "
            f"{_mb_per_s(r.size, r.one_shot_ns):,.0f} | "
            f"{_mb_per_s(r.size, r.stream_ns):,.0f} | {r.slowdown:.2f}x "
            f"(<= {TARGET_STREAM_SLOWDOWN}x {verdict}) | "
            f"{r.stream_peak_bytes / KIB:,.0f} KiB | "
            f"{r.decode_peak_bytes / KIB:,.0f} KiB |"
        )
    return "\n".join(lines)


def _machine() -> str:
    return (
        f"{platform.python_implementation()} {platform.python_version()} on "
        f"{platform.system()} {platform.machine()} ({platform.processor() or 'cpu'})"
    )


def _csv(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bench_core",
        description="Throughput of is_valid (STRICT) next to bare bytes.decode.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="3 rounds of about 3 ms each (default: 11 of 10 ms)",
    )
    parser.add_argument(
        "--sizes",
        type=lambda t: [parse_size(s) for s in _csv(t)],
        default=list(SIZES_BYTES),
        help="comma-separated sizes, e.g. 16,32,64,4K,1M,16M (the default)",
    )
    parser.add_argument(
        "--corpora",
        type=_csv,
        default=list(GENERATORS),
        help=f"comma-separated, from {','.join(GENERATORS)} (all by default)",
    )
    parser.add_argument("--rounds", type=int, default=None, help="default 11")
    parser.add_argument(
        "--stream-size",
        type=parse_size,
        default=16 * MIB,
        help="bytes fed to IncrementalValidator in chunks (default 16M)",
    )
    parser.add_argument(
        "--chunk", type=parse_size, default=STREAM_CHUNK_BYTES, help="default 64K"
    )
    parser.add_argument("--no-stream", action="store_true", help="skip streaming")
    parser.add_argument(
        "--baseline",
        metavar="TREE",
        help="also time the is_valid of the checkout TREE (e.g. a git worktree of "
        "main), interleaved in the same rounds",
    )
    parser.add_argument(
        "--clock",
        choices=list(CLOCKS),
        default="wall",
        help="wall: perf_counter_ns (default); cpu: process_time_ns, steadier when "
        "other processes share the cores",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    unknown = sorted(set(args.corpora) - set(GENERATORS))
    if unknown:
        print(f"unknown corpus: {', '.join(unknown)}", file=sys.stderr)
        return 2
    timing = Timing(
        rounds=args.rounds or (3 if args.quick else 11),
        round_ns=3_000_000 if args.quick else 10_000_000,
        clock=CLOCKS[args.clock],
    )
    baseline, note = None, ""
    if args.baseline:
        try:
            baseline, base_impl = load_baseline(args.baseline)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        note = f"; baseline {args.baseline} ({base_impl})"
    print(
        f"{_machine()}; implementation {IMPLEMENTATION}{note}; {args.clock} clock, "
        f"median of {timing.rounds} interleaved rounds\n"
    )
    print(format_rows(bench_rows(args.corpora, args.sizes, timing, baseline)))
    if not args.no_stream:
        stream = bench_stream(args.corpora, args.stream_size, args.chunk, timing)
        print()
        print(format_stream(stream, args.chunk))
    return 0


if __name__ == "__main__":
    sys.exit(main())
