"""Differential fuzzing of the ASGI lane's C decisions against their Python twins.

Invariant, for every scope, lane and message the input describes:

- ``_speedups.asgi_plan`` gives what ``_fast.py_asgi_plan`` gives (the same plan, the
  Content-Type the very header object), or an exception of the same type; so does
  ``head_plan`` (the WSGI adapter's) against ``py_head_plan``, with the case's app
  path and ``bodiless`` from the message's ``more_body`` bit;
- ``_speedups.whole_plain_json`` gives what ``_fast.py_whole_plain_json`` gives, and
  says True only for a body the JSON inspector passes (``is_clean_json``);
- a plan other than None comes only from a head ``scan_head`` proves clean.

The reference runs in Python throughout (``fuzz_fastlane.python_twins``, with the
JSON shortcut's ``is_valid`` swapped for the pure-Python one too), so a bug in a
compiled helper cannot hide behind both sides sharing it.

Input layout: one byte that picks the lane and the message (``LaneChoice``), then
``fuzz_fastlane``'s layout (its ``parse`` builds the raw path, query, headers and
policies from the rest). The first byte picks the look-alike rule (bit 0), the
body limit (bits 1-2, ``LIMITS``), whether each Content-Type of the head is
remembered as JSON (bit 3), the HTTP version (bits 5-6, ``VERSIONS``) and, for the
message, a declared length one past the body (bit 4) and ``more_body`` set (bit 7).
The message's body is the query's bytes. Run: ``python -m fuzz run lane``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from fuzz._common import mismatch, run_atheris
from fuzz.fuzz_fastlane import outcome, parse, python_twins
from utf8guard import STRICT, Policy, _scan
from utf8guard.middleware.body import _json
from utf8guard.middleware.head._fast import (
    Lane,
    is_clean_json,
    py_asgi_plan,
    py_head_plan,
    py_whole_plain_json,
)

try:
    from utf8guard import _speedups
except ImportError:  # pragma: no cover - check() has nothing to compare without it
    _speedups = None  # type: ignore[assignment]

__all__ = ["LIMITS", "MAX_LEN", "VERSIONS", "TestOneInput", "check", "lane_of", "main"]

#: libFuzzer -max_len: fuzz_fastlane's, and the byte that picks the lane.
MAX_LEN: Final = 2049

#: The lane's body limit by bits 1-2 of the last byte: none, empty, small, the most.
LIMITS: Final = (-1, 0, 64, 2**53)
#: The scope's http_version by bits 5-6 (None: the key is absent).
VERSIONS: Final = ("1.1", "1.0", "2", None)


@dataclass(frozen=True, slots=True)
class LaneChoice:
    """What the first byte picks."""

    lookalike: bool
    limit: int
    as_json: bool
    longer: bool
    version: str | None
    more_body: bool

    @classmethod
    def of(cls, data: bytes) -> LaneChoice:
        last = data[0] if data else 0
        return cls(
            lookalike=bool(last & 1),
            limit=LIMITS[last >> 1 & 3],
            as_json=bool(last & 8),
            longer=bool(last & 16),
            version=VERSIONS[last >> 5 & 3],
            more_body=bool(last & 128),
        )


def lane_of(policies: tuple[object, ...], choice: LaneChoice, headers: object) -> Lane:
    """The lane: the case's policies and the choice's rule, limit and kinds."""
    kinds: dict[bytes, bool] = {}
    if choice.as_json and isinstance(headers, list | tuple):
        for item in headers:
            if isinstance(item, tuple | list) and len(item) == 2:
                name, value = item
                if type(name) is bytes and type(value) is bytes:
                    kinds[value] = True
    path, policy, header = policies
    # The policies may be any object: the C twin must answer them as Python does.
    return Lane(path, policy, header, choice.lookalike, choice.limit, kinds)  # type: ignore[arg-type]


@contextmanager
def all_python() -> Iterator[None]:
    """``python_twins``, and the JSON shortcut's is_valid in Python too."""
    saved = getattr(_json, "is_valid")  # noqa: B009  # a module global, not exported
    setattr(_json, "is_valid", _scan.python_is_valid)  # noqa: B010
    try:
        with python_twins():
            yield
    finally:
        setattr(_json, "is_valid", saved)  # noqa: B010


def check(data: bytes) -> None:
    """Fail with AssertionError when a C decision and its twin disagree."""
    if _speedups is None:  # pragma: no cover - the extension is not built
        return
    case = parse(data[1:])
    # The lane's look-alike rule is the choice's, not fastlane's.
    raw_path, _, query, headers, *policies, _ = case.args
    choice = LaneChoice.of(data)
    lane = lane_of(tuple(policies), choice, headers)
    policy = policies[1] if isinstance(policies[1], Policy) else STRICT
    scope: dict[str, object] = {"raw_path": raw_path, "query_string": query}
    scope["headers"] = headers
    if choice.version is not None:
        scope["http_version"] = choice.version
    _check_plan(data, "asgi_plan", policy, lane, scope)
    _check_plan(data, "head_plan", policy, lane, *case.args[:4], choice.more_body)
    _check_message(data, lane, query, choice, policy)


def _check_plan(data: bytes, name: str, policy: Policy, *args: object) -> None:
    compiled = outcome(getattr(_speedups, name), *args)
    with all_python():
        python = outcome(py_asgi_plan if name == "asgi_plan" else py_head_plan, *args)
    same = compiled == python
    if same and isinstance(compiled[1], tuple) and isinstance(python[1], tuple):
        same = compiled[1][1] is python[1][1]
    if not same:
        mismatch(f"{name} != py", data, policy, args=args, c=compiled, py=python)


def _check_message(
    data: bytes, lane: Lane, query: object, choice: LaneChoice, policy: Policy
) -> None:
    body = query if type(query) is bytes else b""
    message: dict[str, object] = {"type": "http.request", "body": body}
    if choice.more_body:
        message["more_body"] = True
    length = len(body) + choice.longer
    compiled = outcome(_speedups.whole_plain_json, lane, message, length)
    with all_python():
        python = outcome(py_whole_plain_json, lane, message, length)
    if compiled != python:
        mismatch("whole_plain_json != py", data, policy, message=message, c=compiled,
                 py=python)  # fmt: skip
    if compiled == ("returned", True) and isinstance(lane[1], Policy):
        with all_python():
            if not is_clean_json(body, lane[1]):
                mismatch("whole_plain_json passed a body the inspector refuses",
                         data, policy, body=body)  # fmt: skip


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    if _speedups is None:
        print("fuzz_lane: utf8guard._speedups is not built: nothing to compare")
        return
    run_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
