"""repair(): valid, idempotent, bounded, and equal to both oracles' repairs.

Invariant: ``repair(data, policy)`` equals ``utf8guard.reference.repair`` and CPython's
``decode("utf-8", "replace")`` with each refused character also replaced
(``fuzz._cpython``; under WELL_FORMED that is exactly the ``replace`` handler); the
result is valid under ``policy``, ``repair`` leaves it unchanged, it has one U+FFFD
per violation, and it is at most 3 times as long as the input (each replaced span is
at least one byte, U+FFFD is three).

Input layout: byte 0 chooses the policy and buffer type (``fuzz._common``), the rest
is the bytes under test.
"""

from __future__ import annotations

from typing import Final

from fuzz import _cpython
from fuzz._common import mismatch, policy_of, run_atheris, split, wrap
from utf8guard import WELL_FORMED, is_valid, iter_violations, reference, repair

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

#: U+FFFD in UTF-8 is 3 bytes and replaces at least one byte.
GROWTH_LIMIT: Final = 3
#: U+FFFD REPLACEMENT CHARACTER in UTF-8.
REPLACEMENT: Final = "\ufffd".encode()
#: libFuzzer -max_len.
MAX_LEN: Final = 2048


def check(data: bytes) -> None:
    """Fail with AssertionError when a repair property or an oracle fails."""
    (selector,), payload = split(data, 1)
    policy = policy_of(selector)
    repaired = repair(wrap(payload, selector), policy)
    if not is_valid(repaired, policy) or repair(repaired, policy) != repaired:
        mismatch(
            "repair output invalid or not a fixed point",
            payload,
            policy,
            repair=repaired,
        )
    if len(repaired) > GROWTH_LIMIT * len(payload):
        mismatch("repair output too long", payload, policy, repair=repaired)
    count = sum(1 for _ in iter_violations(payload, policy))
    if repaired.count(REPLACEMENT) != payload.count(REPLACEMENT) + count:
        mismatch(
            "one U+FFFD per violation",
            payload,
            policy,
            repair=repaired,
            violations=count,
        )
    # Under WELL_FORMED the CPython oracle is exactly the "replace" error handler.
    cpython = (
        payload.decode("utf-8", "replace").encode()
        if policy == WELL_FORMED
        else _cpython.repaired(payload, policy)
    )
    for name, expected in (
        ("reference", reference.repair(payload, policy)),
        ("cpython", cpython),
    ):
        if repaired != expected:
            mismatch(
                f"repair != {name}",
                payload,
                policy,
                repair=repaired,
                **{name: expected},
            )


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    run_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
