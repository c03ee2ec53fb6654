"""Throughput of ``is_valid`` (STRICT) next to CPython's bare ``bytes.decode``.

Both are called the same way, ``fn(data)``: ``is_valid`` with its default policy,
STRICT, so no Python wrapper adds a frame to one side. Run with
``UTF8GUARD_PURE_PYTHON=1`` to measure the pure-Python core; the targets printed
follow the implementation in use (``utf8guard.IMPLEMENTATION``).

Run ``python -m bench.bench_core`` (``make bench``); ``--help`` lists the options. The
corpora are generated here from seeded word lists, so every run measures the same bytes
and nothing is downloaded. Candidates are interleaved within each round and the median
round is reported, so a noisy neighbour slows both sides of a ratio alike.

``--baseline TREE`` adds the ``is_valid`` of another checkout's package (imported under
another name) to the same interleaved rounds: before and after in one run.

Not a test: the only test runs it with the smallest settings so that it cannot rot.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final

from utf8guard import IMPLEMENTATION, STRICT, IncrementalValidator, is_valid

KIB: Final = 1 << 10
MIB: Final = 1 << 20
SIZES_BYTES: Final = (16, 32, 64, 4 * KIB, MIB, 16 * MIB)
STREAM_CHUNK_BYTES: Final = 64 * KIB
#: Issue 2 and 13 targets: is_valid speed / decode speed, by input size. Pure Python:
#: at most 2x a decode call up to 64 bytes, at least 1.0x from 4 KiB.
TARGET_SMALL_RATIO: Final = 0.5
TARGET_RATIO: Final = 1.0
SMALL_BYTES: Final = 64
#: The C accelerator: no slower than decode up to 64 bytes, and at least 5x on
#: non-ASCII text from 64 KiB (1.0x elsewhere).
TARGET_C_SMALL_RATIO: Final = 1.0
TARGET_C_LARGE_RATIO: Final = 5.0
C_LARGE_BYTES: Final = 64 * KIB
#: IncrementalValidator time over one-shot time.
TARGET_STREAM_SLOWDOWN: Final = 1.25
#: Generated text is tiled up to the requested size beyond this much.
BASE_TEXT_BYTES: Final = 256 * KIB
SEED: Final = 20_240_229

_ENGLISH: Final = (
    "the quick brown fox jumps over lazy dog and then request response server "
    "client header body value error retry timeout cache policy user account "
    "order invoice payment shipping address number street city country open close"
).split()
_GERMAN: Final = (
    "Größe Übung für Änderung schön Straße weiß Fußgänger Bäckerei Öffnungszeiten "
    "Müller Käse Brötchen und oder nicht über unter während Grüße Tür Schlüssel "
    "Mädchen Gemüse Frühstück Zuständigkeit Prüfung ähnlich häufig"
).split()
_RUSSIAN: Final = (
    "съешь же ещё этих мягких французских булок да выпей чаю привет мир запрос "
    "ответ сервер клиент ошибка заказ оплата доставка адрес город страна время"
).split()
_CJK: Final = (
    "我能吞下玻璃而不伤身体",
    "日本語の文章を読みます",
    "漢字とかなを含む",
    "服务器返回了错误",
    "请稍后再试",
    "東京都渋谷区",
    "한국어 문장도 있습니다",
    "감사합니다",
    "数据已保存",
    "ユーザー名とパスワード",
)
# Fullwidth , ! ? : ( ) (U+FF0C, U+FF01, U+FF1F, U+FF1A, U+FF08, U+FF09: lead byte
# EF, like the noncharacters U+FDD0..U+FFFF) and the CJK marks 。、「」 (U+300x).
_CJK_PUNCTUATION: Final = (
    *"\uff0c\uff01\uff1f\uff1a\uff08\uff09",
    *"\u3002\u3001\u300c\u300d",
)
_EMOJI: Final = (
    "😀",
    "😂",
    "🎉",
    "👍🏽",
    "🚀",
    "✨",
    "🔥",
    "❤️",
    "👨‍👩‍👧",
    "🇩🇪",
    "🙈",
    "🤖",
    "☕",
    "🏳️‍🌈",
)
_NAMES: Final = ("Zoë", "José", "Łukasz", "Ægir", "Søren", "Иван", "李雷", "Ayşe")


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
        return TARGET_SMALL_RATIO if self.size <= SMALL_BYTES else TARGET_RATIO


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


def _words(rng: random.Random, words: Sequence[str], count: int, sep: str) -> str:
    return sep.join(rng.choice(words) for _ in range(count))


def _prose(rng: random.Random, words: Sequence[str], limit: int) -> str:
    parts: list[str] = []
    total = 0
    while total < limit:
        sentence = _words(rng, words, rng.randint(4, 14), " ").capitalize() + ". "
        parts.append(sentence)
        total += len(sentence.encode())
    return "".join(parts)


def _cjk(rng: random.Random, limit: int) -> str:
    parts: list[str] = []
    total = 0
    while total < limit:
        part = rng.choice(_CJK) + rng.choice(_CJK_PUNCTUATION)
        parts.append(part)
        total += len(part.encode())
    return "".join(parts)


def _emoji(rng: random.Random, limit: int) -> str:
    parts: list[str] = []
    total = 0
    while total < limit:
        text = _words(rng, _ENGLISH, rng.randint(1, 4), " ")
        part = text + " " + _words(rng, _EMOJI, rng.randint(1, 5), "") + " "
        parts.append(part)
        total += len(part.encode())
    return "".join(parts)


def _json_body(rng: random.Random, limit: int) -> str:
    """A JSON API response: ASCII keys and numbers, some non-ASCII names and notes."""
    records: list[dict[str, object]] = []
    total = 0
    while total < limit:
        record: dict[str, object] = {
            "id": rng.randrange(10**9),
            "name": f"{rng.choice(_NAMES)} {rng.choice(_ENGLISH).title()}",
            "email": f"{rng.choice(_ENGLISH)}{rng.randrange(1000)}@example.com",
            "active": rng.random() < 0.5,
            "balance": round(rng.uniform(-1000, 1000), 2),
            "tags": [rng.choice(_ENGLISH) for _ in range(rng.randint(0, 4))],
            "note": rng.choice((_words(rng, _GERMAN, 5, " "), _cjk(rng, 20), "")),
        }
        records.append(record)
        total += len(json.dumps(record, ensure_ascii=False).encode())
    return json.dumps({"data": records, "next": None}, ensure_ascii=False)


GENERATORS: Final[dict[str, Callable[[random.Random, int], str]]] = {
    "ascii": lambda rng, n: _prose(rng, _ENGLISH, n),
    "german": lambda rng, n: _prose(rng, _GERMAN, n),
    "russian": lambda rng, n: _prose(rng, _RUSSIAN, n),
    "cjk": _cjk,
    "emoji": _emoji,
    "json": _json_body,
}


def make_corpus(name: str, size: int) -> bytes:
    """``size`` bytes of valid (STRICT) UTF-8 text of kind ``name``, the same every run.

    Generated text is tiled beyond BASE_TEXT_BYTES, cut back to a character boundary
    and padded with spaces to exactly ``size``.
    """
    rng = random.Random(f"{SEED}:{name}")  # noqa: S311 - reproducible, not secret
    base = GENERATORS[name](rng, min(size, BASE_TEXT_BYTES)).encode()
    tiled = base * (size // len(base) + 1)
    cut = size
    while 0x80 <= tiled[cut] <= 0xBF:  # a continuation byte: back off to its lead
        cut -= 1
    return tiled[:cut] + b" " * (size - cut)


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
