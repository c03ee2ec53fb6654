"""The engine alone, in process, as each attack shape of ``bench_scaling`` doubles.

``bench_scaling`` measures whole requests on real servers, where the servers' own
limits stop head shapes at 32 KiB and the CPU clock's 10 ms ticks hide small costs.
This drives the sans-I/O engine directly (``check_head`` for head shapes, a
``BodyCheck`` fed 64 KiB chunks for body shapes) with ``time.perf_counter``, so the
growth per doubling shows from small sizes up to far past any server limit. Best of
``--repeats`` per cell; growth is a cell's time over the previous size's (linear: 2).

    python -m bench.bench_engine_scaling [--repeats 5] [--head-max 1M] [--body-max 8M]
        [--max-parts 1000]

``--max-parts`` sets the guard's ``max_multipart_parts``: at the default, the
multipart shapes are refused at their 1001st part; raised, they time the parser.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from bench._shapes import BASELINE, BODY_SHAPES, HEAD_SHAPES, Shape
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.engine._config import MAX_MULTIPART_PARTS
from utf8guard.middleware.engine._engine import BodyCheck, check_head
from utf8guard.middleware.head._request import RequestHead

#: The body chunk size a server hands the guard (uvicorn reads 64 KiB at a time).
CHUNK_BYTES = 64 * 1024
#: Growth per doubling the issue allows (linear is 2).
GROWTH_LIMIT = 2.5


def _head(shape: Shape, size: int) -> RequestHead:
    data = shape.build(size)
    if shape.where == "header":
        return RequestHead(
            path="/upload",
            raw_path=b"/upload",
            query_string=b"",
            headers=((b"x-data", data),),
        )
    path, _, query = data.partition(b"?")
    return RequestHead(path="/", raw_path=path, query_string=query, headers=())


def _head_run(shape: Shape, size: int, config: GuardConfig) -> Callable[[], object]:
    head = _head(shape, size)
    return lambda: check_head(head, config, "http")


def _body_run(shape: Shape, size: int, config: GuardConfig) -> Callable[[], object]:
    body = shape.build(size)
    headers = ((b"content-type", shape.content_type),)

    def run() -> object:
        check = BodyCheck(headers, config, "http")
        for start in range(0, len(body), CHUNK_BYTES):
            if check.feed(body[start : start + CHUNK_BYTES]) is not None:
                return None
        return check.finish()

    return run


def best_seconds(run: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` calls of ``run``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def sizes(smallest: int, largest: int) -> list[int]:
    """``smallest`` doubled until it passes ``largest``."""
    found = []
    size = smallest
    while size <= largest:
        found.append(size)
        size *= 2
    return found


def table(rows: Sequence[tuple[str, int, float]]) -> list[str]:
    """Markdown rows: shape, size, ms and growth over the previous size of the shape."""
    lines = ["| shape | size | ms | growth |", "| --- | ---: | ---: | ---: |"]
    previous: dict[str, float] = {}
    for name, size, seconds in rows:
        before = previous.get(name)
        growth = "" if before is None or before == 0 else f"x{seconds / before:.2f}"
        previous[name] = seconds
        lines.append(f"| {name} | {_size(size)} | {seconds * 1000:.2f} | {growth} |")
    return lines


def _size(size: int) -> str:
    return (
        f"{size // 1024 // 1024} MiB" if size >= 1024 * 1024 else f"{size // 1024} KiB"
    )


def _parse_size(text: str) -> int:
    units = {"K": 1024, "M": 1024 * 1024}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1] in "KkMm" else int(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--head-max", type=_parse_size, default=1024 * 1024)
    parser.add_argument("--body-max", type=_parse_size, default=8 * 1024 * 1024)
    parser.add_argument(
        "--max-parts",
        type=int,
        default=MAX_MULTIPART_PARTS,
        help="the guard's max_multipart_parts (raise it to time the parser itself)",
    )
    args = parser.parse_args(argv)
    config = GuardConfig(max_multipart_parts=args.max_parts)
    rows: list[tuple[str, int, float]] = []
    for shape in HEAD_SHAPES:
        for size in sizes(16 * 1024, args.head_max):
            rows.append(
                (
                    shape.name,
                    size,
                    best_seconds(_head_run(shape, size, config), args.repeats),
                )
            )
    for shape in BODY_SHAPES:
        for size in sizes(512 * 1024, args.body_max):
            rows.append(
                (
                    shape.name,
                    size,
                    best_seconds(_body_run(shape, size, config), args.repeats),
                )
            )
    print("\n".join(table(rows)))
    largest = {name: seconds for name, size, seconds in rows if size == args.body_max}
    baseline = largest.get(BASELINE.name)
    if baseline:
        worst = max((s, n) for n, s in largest.items() if n != BASELINE.name)
        print(
            f"\n{_size(args.body_max)}: the slowest body shape ({worst[1]}) took "
            f"{worst[0] / baseline:.1f}x the time of text/plain"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
