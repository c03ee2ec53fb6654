"""Instructions per clean head of the head proof (``is_clean_head``), by callgrind.

Issue 24 bounds the lane's cost against the lane before the triggers. Time on a
machine shared by several sessions varies by more than that bound; instruction counts
do not. Each measurement runs ``valgrind --tool=callgrind`` over a fresh
``python -S`` (no ``site``: only the lane's own imports) twice, once calling
``is_clean_head`` (the engine's entry) on the bench_request GET and POST heads (ASGI:
``raw_path``, no decoded path of the server's, the header list) ``--rounds`` times
each and once with no round, so that start-up, import and compilation cancel: the
difference over ``2 * rounds`` is the cost of one clean head. The child checks that
both heads are clean (a declined head would measure the wrong thing). ``--raw-path``
gives the heads another raw path.

Run ``python -m bench.bench_lane`` (both builds; ``--help`` for the options), or
``--source DIR`` for another checkout of the repository (the layout before
``middleware/head/`` too), e.g. one made by ``git archive 71f06e5``. The C build
is measured only where its extension is built.

Not a test: the only test reads a callgrind summary and runs the child in process.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
#: The implementations, as ``UTF8GUARD_PURE_PYTHON`` selects them.
BUILDS: Final = {"pure": "1", "c": ""}
#: callgrind's summary line on stderr: ``==123== Collected : 456789``.
_COLLECTED: Final = re.compile(r"^==\d+== Collected : (\d+)$", re.MULTILINE)

#: What the child runs: ``sys.argv[1]`` rounds of the two heads, whose raw path is
#: ``sys.argv[2]``. Kept to the lane's
#: imports (bench_request's constants are restated: importing it would import the
#: adapters and asyncio under callgrind for nothing).
CHILD: Final = """\
import sys
try:
    from utf8guard.middleware.head._clean import is_clean_head
    from utf8guard.middleware.head._request import RequestHead
    from utf8guard.middleware.engine._config import GuardConfig
except ImportError:  # the flat middleware/ before the layout of issue 24
    from utf8guard.middleware._clean import is_clean_head
    from utf8guard.middleware._request import RequestHead
    from utf8guard.middleware._config import GuardConfig
RAW_PATH = sys.argv[2].encode()
QUERY = b"page=2&q=caf%C3%A9&sort=name"
GET = [
    (b"host", b"127.0.0.1"),
    (b"user-agent", b"bench/1.0"),
    (b"accept", b"application/json"),
    (b"accept-language", b"de-CH,de;q=0.9"),
    (b"accept-encoding", b"gzip, deflate"),
    (b"cookie", b"session=abc123; theme=dark"),
]
POST = [*GET, (b"content-type", b"application/json"), (b"content-length", b"4105")]
config = GuardConfig()
get, post = (
    RequestHead(path="/", raw_path=RAW_PATH, query_string=QUERY,
                headers=headers)
    for headers in (GET, POST)
)
if not (is_clean_head(get, config) and is_clean_head(post, config)):
    raise SystemExit("a bench head is not clean")
for _ in range(int(sys.argv[1])):
    is_clean_head(get, config)
    is_clean_head(post, config)
"""


def collected(stderr: str) -> int:
    """The instructions callgrind reports in its summary (``Collected :``)."""
    found = _COLLECTED.findall(stderr)
    if len(found) != 1:
        raise ValueError("no single callgrind summary in the output")
    return int(found[0])


#: bench_request's path. ``--raw-path /api/v2/caf%C3%A9/items`` measures one that
#: holds a "2", which pays the raw path's search (``_clean._RAW_PATH_MARKS``).
RAW_PATH: Final = "/api/caf%C3%A9/items"


def instructions(
    source: Path, build: str, rounds: int, raw_path: str = RAW_PATH
) -> int:
    """Instructions of one child run of ``rounds`` rounds under callgrind."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(source),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "UTF8GUARD_PURE_PYTHON": BUILDS[build],
    }
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-S",
        # No working directory on sys.path: utf8guard comes from ``source`` only.
        "-P",
        "-c",
        CHILD,
        str(rounds),
        raw_path,
    ]
    done = subprocess.run(  # noqa: S603  # our own interpreter and script
        command, env=env, cwd=source, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the child failed: {done.stderr.strip()[-400:]}")
    return collected(done.stderr)


def per_head(source: Path, build: str, rounds: int, raw_path: str = RAW_PATH) -> float:
    """Instructions per clean head: ``rounds`` rounds minus none, over both heads."""
    cost = instructions(source, build, rounds, raw_path) - instructions(
        source, build, 0, raw_path
    )
    return cost / (2 * rounds)


def has_extension(source: Path) -> bool:
    """Whether ``source`` holds a built C accelerator."""
    return any((source / "utf8guard").glob("_speedups*.so"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--raw-path", default=RAW_PATH)
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--build", choices=[*BUILDS, "both"], default="both")
    args = parser.parse_args(argv)
    builds = list(BUILDS) if args.build == "both" else [args.build]
    print("| build | instructions per clean head |")
    print("| --- | --- |")
    for build in builds:
        if build == "c" and not has_extension(args.source):
            print("| c | (no extension built) |")
            continue
        cost = per_head(args.source, build, args.rounds, args.raw_path)
        print(f"| {build} | {cost / 1000:.2f}k |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
