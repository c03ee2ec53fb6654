"""Differential fuzzing of the C accelerator against the pure-Python core and oracle.

Invariant: for every input, policy, buffer type and start offset, and on every
instruction set this CPU runs (scalar, SSE4.1, AVX2), ``_speedups.first_violation``
resumed after each violation yields exactly the violations of the pure-Python
``first_violation`` and of ``utf8guard.reference.iter_violations``, and
``_speedups.is_valid`` (like the pure-Python ``is_valid``) is true exactly when the
oracle finds none in the whole buffer.

Input layout: byte 0 chooses the policy (low 6 bits: which ``allow_*`` flags are off)
and the buffer type (top 2 bits), byte 1 the start offset (mod 8), the rest is the
bytes under test. Plain bytes, no FuzzedDataProvider, so corpus files replay without
atheris (``tests/test_speedups.py``). Run: ``make fuzz-accel`` (see the Makefile).

Unlike the pure-Python harnesses, ``main()`` does not call ``instrument_all()``: the
coverage that guides it comes from the C extension, built with
``-fsanitize=fuzzer-no-link``; instrumenting the Python oracle as well cut the
executions per second several times over.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from fuzz._common import POLICY_FLAGS
from utf8guard import Policy, Violation, _scan, reference
from utf8guard._scan import BytesLike

try:
    from utf8guard import _speedups
except ImportError:  # pragma: no cover - the corpus test skips without the extension
    _speedups = None  # type: ignore[assignment]

__all__ = ["HEADER_BYTES", "MAX_LEN", "TestOneInput", "check", "main", "policy_of"]

HEADER_BYTES: Final = 2
#: libFuzzer -max_len: several 64-byte blocks with room for the scalar resume.
MAX_LEN: Final = 1024
#: In ``allow_*`` order (``_policy.FLAGS``): bit i of the selector turns flag i off.
FLAGS: Final = POLICY_FLAGS

FirstViolation = Callable[[BytesLike, int, int, Policy], "Violation | None"]


#: Every policy, by selector: built once, so each keeps its compiled plan.
POLICIES: Final = tuple(
    Policy(**{name: not selector >> i & 1 for i, name in enumerate(FLAGS)})
    for selector in range(1 << len(FLAGS))
)


def policy_of(selector: int) -> Policy:
    """The policy whose ``allow_*`` flag i is off when bit i of ``selector`` is set."""
    return POLICIES[selector % len(POLICIES)]


def wrap(payload: bytes, selector: int) -> BytesLike:
    """The payload as bytes, bytearray or memoryview, by the top 2 bits."""
    kind = selector >> 6
    if kind == 1:
        return bytearray(payload)
    if kind == 2:
        return memoryview(payload)
    return payload


@contextmanager
def pure_python() -> Iterator[None]:
    """Run ``_scan.first_violation`` without the accelerator inside the block."""
    saved, _scan._compiled = _scan._compiled, None
    try:
        yield
    finally:
        _scan._compiled = saved


def walk(
    first: FirstViolation, buf: BytesLike, start: int, policy: Policy
) -> list[Violation]:
    """Every violation from ``start`` on, as ``iter_violations`` finds them."""
    found: list[Violation] = []
    pos = start
    while (v := first(buf, pos, len(buf), policy)) is not None:
        found.append(v)
        pos = v.end
    return found


def expected(payload: bytes, start: int, policy: Policy) -> list[Violation]:
    """The oracle's violations of ``payload[start:]``, with offsets into ``payload``."""
    return [
        Violation(v.kind, v.start + start, v.end + start)
        for v in reference.iter_violations(payload[start:], policy)
    ]


def compare(buf: BytesLike, payload: bytes, start: int, policy: Policy) -> None:
    """Every instruction set and the pure-Python core agree with the oracle, on
    first_violation from ``start`` and on is_valid over the whole buffer."""
    want = expected(payload, start, policy)
    valid = not (want if start == 0 else expected(payload, 0, policy))
    with pure_python():
        python = walk(_scan.first_violation, buf, start, policy)
        python_valid = _scan.python_is_valid(buf, policy)
    if python != want or python_valid != valid:
        raise AssertionError(
            f"python {python} {python_valid} != reference {want} {valid}: {payload!r}"
        )
    saved = _speedups.isa()
    try:
        for isa in _speedups.supported_isas():
            _speedups.set_isa(isa)
            got = walk(_speedups.first_violation, buf, start, policy)
            got_valid = _speedups.is_valid(buf, policy)
            if got != want or got_valid != valid:
                raise AssertionError(
                    f"{isa} {got} {got_valid} != reference {want} {valid}: "
                    f"{policy} {payload!r}"
                )
    finally:
        _speedups.set_isa(saved)


def check(data: bytes) -> None:
    """Fail with AssertionError when any implementation disagrees with the oracle."""
    header = data[:HEADER_BYTES].ljust(HEADER_BYTES, b"\0")
    payload = data[HEADER_BYTES:]
    start = min(header[1] % 8, len(payload))
    compare(wrap(payload, header[0]), payload, start, policy_of(header[0]))


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    import atheris

    if _speedups is None:
        sys.exit("utf8guard._speedups is not built: nothing to fuzz")
    atheris.Setup([*sys.argv, f"-max_len={MAX_LEN}"], TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
